import Foundation
import MotionHistory
import Testing

@Suite("History location")
struct HistoryLocationTests {
    @Test("COREMOTION_HISTORY chooses a file or memory; the default follows XDG")
    func resolution() throws {
        #expect(try HistoryLocation.fromEnvironment(["COREMOTION_HISTORY": "/tmp/x/h.sqlite"]) == .file(URL(fileURLWithPath: "/tmp/x/h.sqlite")))
        #expect(try HistoryLocation.fromEnvironment(["COREMOTION_HISTORY": "memory"]) == .inMemory)
        #expect(try HistoryLocation.fromEnvironment(["COREMOTION_HISTORY": "none"]) == .inMemory)
        #expect(try HistoryLocation.fromEnvironment(["COREMOTION_HISTORY": "~/h.sqlite", "HOME": "/home/u"])
            == .file(URL(fileURLWithPath: "/home/u/h.sqlite")))
        #expect(try HistoryLocation.fromEnvironment(["XDG_DATA_HOME": "/data", "HOME": "/home/u"])
            == .file(URL(fileURLWithPath: "/data/coremotion/history.sqlite")))
        // A relative XDG_DATA_HOME is ignored, as the XDG specification says.
        #expect(try HistoryLocation.fromEnvironment(["XDG_DATA_HOME": "data", "HOME": "/home/u"])
            == .file(URL(fileURLWithPath: "/home/u/.local/share/coremotion/history.sqlite")))
        #expect(try HistoryLocation.fromEnvironment(["COREMOTION_HISTORY": "", "HOME": "/home/u"])
            == .file(URL(fileURLWithPath: "/home/u/.local/share/coremotion/history.sqlite")))
        #expect(HistoryLocation.inMemory.description == "memory")
    }

    @Test("the folder of the file is created")
    func createsFolder() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let file = folder.url.appendingPathComponent("a/b/history.sqlite")
        let store = try HistoryStore(configuration: testConfiguration(.file(file)))
        try store.close()
        #expect(FileManager.default.fileExists(atPath: file.path))
    }
}
