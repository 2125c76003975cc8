import Foundation
import Glibc
import Logging
import MotionAuthorization
import Testing
import TestSupport

@Suite("Permission store")
struct PermissionStoreTests {
    @Test func roundTripThroughAFile() throws {
        try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("state/coremotion/permissions.json")   // folders created
            let store = PermissionStore(file: file, logger: quietLogger)
            #expect(store.decision(uid: 1000, app: "CompatClients") == nil)
            try store.set(.authorized, uid: 1000, app: "CompatClients")
            try store.set(.denied, uid: 1000, app: "org.gnome.Maps")
            try store.set(.authorized, uid: 0, app: "snap.spotify")
            try store.set(.denied, uid: 1000, app: "Café ☕︎")

            let reopened = PermissionStore(file: file, logger: quietLogger)
            #expect(reopened.damagedFileMovedTo == nil)
            #expect(reopened.decision(uid: 1000, app: "CompatClients") == .authorized)
            #expect(reopened.decision(uid: 1000, app: "org.gnome.Maps") == .denied)
            #expect(reopened.decision(uid: 1001, app: "CompatClients") == nil)
            #expect(reopened.list(uid: 1000).map(\.app) == ["Café ☕︎", "CompatClients", "org.gnome.Maps"])
            #expect(reopened.list(uid: 1000).map(\.decision) == [.denied, .authorized, .denied])
            #expect(reopened.listAll().map { "\($0.uid) \($0.app) \($0.decision)" } == [
                "0 snap.spotify authorized",
                "1000 Café ☕︎ denied",
                "1000 CompatClients authorized",
                "1000 org.gnome.Maps denied",
            ])

            // The documented layout.
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
            #expect(json?["version"] as? Int == 1)
            let users = json?["users"] as? [String: [String: String]]
            #expect(users?["1000"]?["CompatClients"] == "authorized")
            #expect(users?["0"]?["snap.spotify"] == "authorized")

            // notDetermined and reset remove entries; a user without entries disappears.
            try reopened.set(.notDetermined, uid: 1000, app: "org.gnome.Maps")
            #expect(try reopened.reset(uid: 0, app: "snap.spotify"))
            #expect(try !reopened.reset(uid: 0, app: "snap.spotify"))
            let third = PermissionStore(file: file, logger: quietLogger)
            #expect(third.decision(uid: 1000, app: "org.gnome.Maps") == nil)
            #expect(third.list(uid: 0).isEmpty)
            let users3 = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
            #expect((users3?["users"] as? [String: Any])?.keys.sorted() == ["1000"])
        }
    }

    @Test func fileIsPrivateAndRewrittenAtomically() throws {
        try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("permissions.json")
            let store = PermissionStore(file: file, logger: quietLogger)
            try store.set(.authorized, uid: 1000, app: "A")
            let first = try fileStatus(file)
            #expect(first.st_mode & 0o777 == 0o600)

            try store.set(.denied, uid: 1000, app: "B")
            let second = try fileStatus(file)
            #expect(second.st_mode & 0o777 == 0o600)
            // A new file was renamed over the old one: readers see the old or the new file whole.
            #expect(second.st_ino != first.st_ino)
            // No temporary file is left beside it.
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["permissions.json"])

            // Setting the stored value again writes nothing.
            try store.set(.denied, uid: 1000, app: "B")
            #expect(try fileStatus(file).st_ino == second.st_ino)
        }
    }

    @Test func failedWriteChangesNothing() throws {
        try withTemporaryFolder { folder in
            // The folder's place is taken by a regular file: the folder cannot be created.
            let blocker = folder.appendingPathComponent("blocker")
            try Data("x".utf8).write(to: blocker)
            let store = PermissionStore(file: blocker.appendingPathComponent("permissions.json"), logger: quietLogger)
            #expect {
                try store.set(.authorized, uid: 1000, app: "CompatClients")
            } throws: { error in
                guard case .writeFailed(let file, _) = error as? PermissionStoreError else { return false }
                return file.hasSuffix("blocker/permissions.json")
            }
            #expect(store.decision(uid: 1000, app: "CompatClients") == nil)
        }
    }

    @Test func staleTemporaryFilesAreRemoved() throws {
        try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("permissions.json")
            try Data("half written".utf8).write(to: folder.appendingPathComponent(".permissions.json.999.1.tmp"))
            try Data("unrelated".utf8).write(to: folder.appendingPathComponent("notes.txt"))
            _ = PermissionStore(file: file, logger: quietLogger)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["notes.txt"])
        }
    }

    static let damagedFiles: [(name: String, text: String, reason: String)] = [
        ("bad JSON", "{\"version\": 1, \"users\": {", "not JSON"),
        ("wrong version", "{\"version\": 2, \"users\": {}}", "version 2"),
        ("version as text", "{\"version\": \"1\", \"users\": {}}", "\"version\" is a string"),
        ("no users", "{\"version\": 1}", "no \"users\""),
        ("foreign key", "{\"version\": 1, \"users\": {}, \"extra\": true}", "unknown key \"extra\""),
        ("state as number", "{\"version\": 1, \"users\": {\"1000\": {\"CompatClients\": 3}}}", "must be \"authorized\" or \"denied\""),
        ("restricted stored", "{\"version\": 1, \"users\": {\"1000\": {\"CompatClients\": \"restricted\"}}}", "must be \"authorized\" or \"denied\""),
        ("uid not decimal", "{\"version\": 1, \"users\": {\"bob\": {}}}", "not a decimal uid"),
        ("uid not canonical", "{\"version\": 1, \"users\": {\"01000\": {}}}", "not a decimal uid"),
        ("apps as array", "{\"version\": 1, \"users\": {\"1000\": []}}", "expected an object"),
        ("invalid app id", "{\"version\": 1, \"users\": {\"1000\": {\"a\\u0007b\": \"denied\"}}}", "invalid app id"),
        ("top-level array", "[1, 2, 3]", "the top level is an array"),
        ("binary junk", "\u{0}\u{1}\u{2}\u{FFFD}", "not JSON"),
        ("deep nesting", String(repeating: "[", count: 100_000), "not JSON"),
    ]

    @Test(arguments: damagedFiles)
    func damagedFileIsMovedAside(name: String, text: String, reason: String) throws {
        try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("permissions.json")
            try Data(text.utf8).write(to: file)
            let log = LogRecorder()
            let store = PermissionStore(file: file, logger: log.logger)

            #expect(store.listAll().isEmpty)
            #expect(store.decision(uid: 1000, app: "CompatClients") == nil)
            let aside = try #require(store.damagedFileMovedTo)
            #expect(aside.lastPathComponent.hasPrefix("permissions.json.damaged-"))
            #expect(aside.deletingLastPathComponent().path == folder.path)
            #expect(try Data(contentsOf: aside) == Data(text.utf8))
            #expect(!FileManager.default.fileExists(atPath: file.path))

            let errors = log.messages.filter { $0.level == .error }.map(\.message)
            #expect(errors.count == 1)
            #expect(errors.first?.contains(file.path) == true)
            #expect(errors.first?.contains(reason) == true, "\(name): \(errors)")

            // The store works afterwards and writes a fresh file.
            try store.set(.authorized, uid: 1000, app: "CompatClients")
            #expect(PermissionStore(file: file, logger: quietLogger).decision(uid: 1000, app: "CompatClients") == .authorized)
        }
    }

    @Test func absurdlyLargeFileIsMovedAsideUnread() throws {
        try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("permissions.json")
            #expect(FileManager.default.createFile(atPath: file.path, contents: Data("{}".utf8)))
            #expect(truncate(file.path, off_t(PermissionStore.maximumFileSize + 1)) == 0)   // sparse
            let log = LogRecorder()
            let store = PermissionStore(file: file, logger: log.logger)
            #expect(store.damagedFileMovedTo != nil)
            #expect(log.messages.contains { $0.level == .error && $0.message.contains("larger than 16 MiB") })
        }
    }

    @Test func twoDamagedFilesInOneSecondKeepBoth() throws {
        try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("permissions.json")
            try Data("junk 1".utf8).write(to: file)
            let first = try #require(PermissionStore(file: file, logger: quietLogger).damagedFileMovedTo)
            try Data("junk 2".utf8).write(to: file)
            let second = try #require(PermissionStore(file: file, logger: quietLogger).damagedFileMovedTo)
            #expect(first != second)
            #expect(try Data(contentsOf: first) == Data("junk 1".utf8))
            #expect(try Data(contentsOf: second) == Data("junk 2".utf8))
        }
    }

    @Test(arguments: [
        ("", AppIDError.empty),
        (String(repeating: "x", count: 256), .tooLong(bytes: 256)),
        (String(repeating: "é", count: 128), .tooLong(bytes: 256)),
        ("a\nb", .controlCharacter(offset: 1)),
        ("bell\u{7}", .controlCharacter(offset: 4)),
        ("del\u{7F}", .controlCharacter(offset: 3)),
        ("line\u{2028}sep", .controlCharacter(offset: 4)),
        ("unknown-pid-42", .reserved),
    ])
    func invalidAppIDsAreRefused(id: String, problem: AppIDError) throws {
        let store = PermissionStore(file: nil, logger: quietLogger)
        #expect(throws: PermissionStoreError.invalidAppID(id, problem)) {
            try store.set(.authorized, uid: 1000, app: id)
        }
        #expect(throws: PermissionStoreError.invalidAppID(id, problem)) {
            try store.reset(uid: 1000, app: id)
        }
        #expect(store.listAll().isEmpty)
        #expect(PermissionStoreError.invalidAppID(id, problem).description.contains("invalid app id"))
    }

    @Test func longestAppIDIsAccepted() throws {
        let store = PermissionStore(file: nil, logger: quietLogger)
        let id = String(repeating: "x", count: 255)
        try store.set(.denied, uid: 1000, app: id)
        #expect(store.decision(uid: 1000, app: id) == .denied)
    }

    @Test func restrictedIsNotStorable() {
        let store = PermissionStore(file: nil, logger: quietLogger)
        #expect(throws: PermissionStoreError.notStorable(.restricted)) {
            try store.set(.restricted, uid: 1000, app: "CompatClients")
        }
        #expect(store.decision(uid: 1000, app: "CompatClients") == nil)
    }

    @Test func inMemoryStoreKeepsDecisions() throws {
        let store = PermissionStore(file: nil, logger: quietLogger)
        try store.set(.authorized, uid: 7, app: "CompatClients")
        #expect(store.decision(uid: 7, app: "CompatClients") == .authorized)
        #expect(store.file == nil)
    }

    @Test func concurrentSetAndGet() throws {
        try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("permissions.json")
            let store = PermissionStore(file: file, logger: quietLogger)
            let failures = FailureCount()
            DispatchQueue.concurrentPerform(iterations: 8) { worker in
                let uid = UInt32(1000 + worker % 4)
                for index in 0..<25 {
                    let app = "app.\(worker).\(index)"
                    let decision: AuthorizationDecision = index.isMultiple(of: 2) ? .authorized : .denied
                    do {
                        try store.set(decision, uid: uid, app: app)
                    } catch {
                        failures.add()
                    }
                    if store.decision(uid: uid, app: app) != decision { failures.add() }
                    _ = store.list(uid: uid)
                    _ = store.decision(uid: UInt32(1000 + (worker + 1) % 4), app: "app.\((worker + 1) % 8).\(index)")
                }
            }
            #expect(failures.value == 0)
            #expect(store.listAll().count == 8 * 25)
            let reopened = PermissionStore(file: file, logger: quietLogger)
            #expect(reopened.listAll().map { "\($0.uid) \($0.app) \($0.decision)" } == store.listAll().map { "\($0.uid) \($0.app) \($0.decision)" })
        }
    }

    @Test func userFileFollowsXDG() {
        #expect(PermissionStore.userFile(environment: ["XDG_DATA_HOME": "/data/alice", "HOME": "/home/alice"]).path == "/data/alice/coremotion/permissions.json")
        #expect(PermissionStore.userFile(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/alice"]).path == "/home/alice/.local/share/coremotion/permissions.json")
        #expect(PermissionStore.userFile(environment: ["HOME": "/home/alice"]).path == "/home/alice/.local/share/coremotion/permissions.json")
        #expect(PermissionStore.systemFile.path == "/var/lib/coremotion/permissions.json")
    }

    @Test func decisionNames() {
        #expect(AuthorizationDecision.allCases.map(\.rawValue) == [0, 1, 2, 3])
        #expect(AuthorizationDecision.allCases.map(\.name) == ["notDetermined", "restricted", "denied", "authorized"])
        for decision in AuthorizationDecision.allCases {
            #expect(AuthorizationDecision(name: decision.name) == decision)
            #expect(AuthorizationDecision(name: decision.name.uppercased()) == decision)
            #expect("\(decision)" == decision.name)
        }
        #expect(AuthorizationDecision(name: "granted") == nil)
        #expect(AuthorizationDecision(name: "") == nil)
    }

    private func fileStatus(_ file: URL) throws -> stat {
        var info = stat()
        try #require(stat(file.path, &info) == 0)
        return info
    }
}

/// A counter shared by threads.
final class FailureCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() {
        lock.lock()
        count += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
