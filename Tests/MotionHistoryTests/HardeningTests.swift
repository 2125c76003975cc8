import Foundation
@testable import MotionHistory
import Testing

/// Permissions of a path (`0o777` bits).
func mode(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return try #require(attributes[.posixPermissions] as? NSNumber).intValue & 0o777
}

func inode(_ path: String) throws -> Int {
    try #require(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber).intValue
}

/// Steps of `minutes` minutes from `first`, two a second.
func steps(minutes: Range<Int>) -> [StepRecord] {
    minutes.flatMap { minute in (0..<120).map { StepRecord(date: at(Double(minute * 60) + Double($0) * 0.5), strideLength: 0.7) } }
}

@Suite("History store: private files, damage found while open, escaped messages", .serialized)
struct HardeningTests {
    @Test("a new store's folder is 0700 and its database, -wal and -shm are 0600")
    func privateFiles() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let file = folder.url.appendingPathComponent("data/coremotion/history.sqlite")
        for policy in [DamagedFilePolicy.fail, .moveAside] {  // in process and as coremotiond opens it
            try? FileManager.default.removeItem(at: folder.url.appendingPathComponent("data"))
            var configuration = testConfiguration(.file(file))
            configuration.damagedFilePolicy = policy
            let store = try HistoryStore(configuration: configuration)
            try store.append(contentsOf: steps(minutes: 0..<2), source: "sim")
            try store.flush()
            // While open, SQLite keeps its two companions beside the file.
            for path in [file.path, file.path + "-wal", file.path + "-shm"] {
                #expect(try mode(path) == 0o600, "\(path)")
            }
            #expect(try mode(file.deletingLastPathComponent().path) == 0o700)
            try store.close()
            #expect(try mode(file.path) == 0o600)
        }
    }

    @Test("an older version's 0644 files in a 0755 folder are tightened; a shared folder is left as it is")
    func tightensExistingFiles() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let own = folder.url.appendingPathComponent("own")
        let shared = folder.url.appendingPathComponent("shared")
        for location in [own, shared] {
            try FileManager.default.createDirectory(at: location, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: location.path)
        }
        try Data("someone else's notes\n".utf8).write(to: shared.appendingPathComponent("notes.txt"))
        for location in [own, shared] {
            let file = location.appendingPathComponent("history.sqlite")
            try HistoryStore(configuration: testConfiguration(.file(file))).close()
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: location.path)
            let store = try HistoryStore(configuration: testConfiguration(.file(file)))
            try store.append(contentsOf: steps(minutes: 0..<1), source: "sim")
            try store.flush()
            #expect(try mode(file.path) == 0o600)
            #expect(try mode(file.path + "-wal") == 0o600)
            try store.close()
        }
        #expect(try mode(own.path) == 0o700)  // holds nothing but the history
        #expect(try mode(shared.path) == 0o755)  // holds another file: not the store's to change
    }

    /// Writes 200 minutes of steps, checkpoints them into the main file, and overwrites its middle half:
    /// damage that the store's open and maintenance never saw.
    func damageWhileOpen(_ store: HistoryStore, _ file: URL) throws {
        try store.append(contentsOf: steps(minutes: 0..<200), source: "sim")
        try store.flush()
        try store.executeForTesting("PRAGMA wal_checkpoint(TRUNCATE)")
        let handle = try FileHandle(forUpdating: file)
        let size = try handle.seekToEnd()
        #expect(size > 32 * 4096)
        try handle.seek(toOffset: size / 4 / 4096 * 4096)
        try handle.write(contentsOf: Data(repeating: 0x5A, count: Int(size / 2)))
        try handle.close()
        // The writer forgets the pages it holds in memory (in a long-running service they are long gone),
        // so that the next write reads them from the disk.
        try store.executeForTesting("PRAGMA shrink_memory")
    }

    /// The finding: a database damaged after it was opened was never moved aside; every flush failed
    /// with a warning, every second, across restarts, and nothing was recorded.
    @Test("a file damaged while open is moved aside once at the next write, and recording goes on in a fresh file")
    func damagedWhileOpenIsMovedAside() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let notices = NoticeLog()
        var configuration = testConfiguration(.file(folder.file), notices: notices)
        configuration.damagedFilePolicy = .moveAside  // coremotiond's
        let store = try HistoryStore(configuration: configuration)
        let damagedInode = try inode(folder.file.path)
        try damageWhileOpen(store, folder.file)
        // Steps into minutes whose pages were overwritten: the write reads them.
        let late = (0..<10).map { StepRecord(date: at(100 * 60 + 0.25 + Double($0)), strideLength: 0.7) }
        try store.append(contentsOf: late, source: "sim")
        try store.flush()
        // Recording goes on: three more flushes, into the fresh file.
        for k in 0..<3 {
            try store.append(StepRecord(date: at(20_000 + Double(k)), strideLength: 0.7), source: "sim")
            try store.flush()
        }
        #expect(try store.pedometerSummary(from: at(0), to: at(30_000), source: "sim").steps == 13)
        #expect(try store.integrityCheck() == [])
        #expect(try inode(folder.file.path) != damagedInode)
        #expect(try mode(folder.file.path) == 0o600)
        let all = notices.wait { $0.contains { if case .movedAside = $0 { true } else { false } } }
        let moved = all.compactMap { notice -> String? in if case .movedAside(_, let movedTo, _) = notice { movedTo } else { nil } }
        #expect(moved.count == 1, "\(all)")
        #expect(!all.contains { if case .flushFailed = $0 { true } else { false } }, "\(all)")
        let movedTo = try #require(moved.first)
        #expect(movedTo.hasPrefix(folder.file.path + ".damaged-"))
        #expect(try inode(movedTo) == damagedInode)
        #expect(try mode(movedTo) == 0o600)
        try store.close()
        // The next start opens the fresh file and sees what was recorded after the damage.
        let reopened = try HistoryStore(configuration: configuration)
        #expect(try reopened.pedometerSummary(from: at(0), to: at(30_000), source: "sim").steps == 13)
        try reopened.close()
        #expect(notices.all.filter { if case .movedAside = $0 { true } else { false } }.count == 1)
    }

    @Test("with the fail policy a file damaged while open is reported once, not at every flush, and left in place")
    func damagedWhileOpenIsReportedOnce() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let notices = NoticeLog()
        var configuration = testConfiguration(.file(folder.file), notices: notices)
        configuration.flushInterval = 0.05
        let store = try HistoryStore(configuration: configuration)
        let damagedInode = try inode(folder.file.path)
        try damageWhileOpen(store, folder.file)
        // About 12 background flushes with records pending at each.
        for k in 0..<12 {
            try store.append(StepRecord(date: at(100 * 60 + 0.25 + Double(k)), strideLength: 0.7), source: "sim")
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(throws: HistoryError.self) { try store.flush() }
        let failures = notices.wait { $0.contains { if case .flushFailed = $0 { true } else { false } } }
            .compactMap { notice -> String? in if case .flushFailed(_, let reason, _) = notice { reason } else { nil } }
        #expect(failures.count == 1, "\(failures)")
        #expect(failures.first?.contains("damaged") == true)
        #expect(try inode(folder.file.path) == damagedInode)
        #expect(!notices.all.contains { if case .movedAside = $0 { true } else { false } })
        try? store.close()
    }

    @Test("a full disk is not taken for damage: nothing is moved aside, the records wait and are written once there is room")
    func fullDiskIsNotDamage() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let notices = NoticeLog()
        var configuration = testConfiguration(.file(folder.file), notices: notices)
        configuration.damagedFilePolicy = .moveAside
        let store = try HistoryStore(configuration: configuration)
        let fileInode = try inode(folder.file.path)
        // SQLite's page limit on the writing connection stands for the disk: SQLITE_FULL as on a full disk.
        try store.executeForTesting("PRAGMA max_page_count = \(try store.statistics().pageCount)")
        try store.append(contentsOf: steps(minutes: 0..<200), source: "sim")
        #expect(throws: HistoryError.self) { try store.flush() }
        try store.executeForTesting("PRAGMA max_page_count = 1073741823")
        try store.flush()
        #expect(try store.pedometerSummary(from: at(0), to: at(12_000), source: "sim").steps == 24_000)
        #expect(try inode(folder.file.path) == fileInode)
        #expect(!notices.all.contains { if case .movedAside = $0 { true } else { false } })
        try store.close()
    }

    @Test("paths, reasons and names from outside are escaped in notices and errors")
    func messagesAreEscaped() {
        let notice = HistoryNotice.movedAside(
            path: "/tmp/a\nfake line", movedTo: "/tmp/\u{202E}b", reason: "\u{1B}[2Jdatabase disk image is malformed")
        let errors: [HistoryError] = [
            .damagedFile(path: "/tmp/x\r\ny", reason: "\u{7}"), .invalidSource("phone\u{202E}1"),
            .newerSchema(path: "/tmp/h", unknownMigrations: ["v2\n"]), .cannotOpen(path: "/tmp/\u{1B}", reason: "no"),
        ]
        for text in [notice.description] + errors.map(\.description) {
            #expect(!text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.properties.generalCategory == .format }, "\(text)")
            #expect(text.contains("\\u{"), "\(text)")
        }
    }
}
