import Foundation
import GRDB
@testable import MotionHistory
import Testing

@Suite("History store: bad files and locations")
struct BadFileTests {
    @Test("a file that is not SQLite: a clear error naming it, and the file left alone")
    func notSQLite() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let text = Data(String(repeating: "this is not a database\n", count: 400).utf8)
        try text.write(to: folder.file)
        do {
            _ = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
            Issue.record("opening a text file as a history succeeded")
        } catch let error as HistoryError {
            guard case .damagedFile(let path, _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(path == folder.file.path)
            #expect("\(error)".contains(folder.file.path) && "\(error)".contains("move it aside"))
        }
        #expect(try Data(contentsOf: folder.file) == text)
    }

    @Test("with the move-aside policy a damaged file is renamed, reported, and a fresh history starts")
    func moveAside() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        try Data(repeating: 0xA5, count: 8192).write(to: folder.file)
        let notices = NoticeLog()
        var configuration = testConfiguration(.file(folder.file), notices: notices)
        configuration.damagedFilePolicy = .moveAside
        let store = try HistoryStore(configuration: configuration)
        try store.append(StepRecord(date: at(0), strideLength: 0.7), source: "sim")
        #expect(try store.pedometerSummary(from: at(0), to: at(1), source: nil).steps == 1)
        try store.close()
        guard case .movedAside(let path, let movedTo, _) = try #require(notices.all.first) else {
            Issue.record("expected a moved-aside notice, got \(notices.all)")
            return
        }
        #expect(path == folder.file.path)
        #expect(movedTo.hasPrefix(folder.file.path + ".damaged-"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: movedTo)) == Data(repeating: 0xA5, count: 8192))
    }

    /// Writes a history of 200 minutes of steps and overwrites every page after the header page.
    func damagedHistory(_ folder: HistoryFolder) throws {
        let store = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        for minute in 0..<200 {
            try store.append(contentsOf: (0..<120).map { StepRecord(date: at(Double(minute * 60) + Double($0) * 0.5), strideLength: 0.7) }, source: "sim")
        }
        try store.close()
        let handle = try FileHandle(forUpdating: folder.file)
        let size = try handle.seekToEnd()
        #expect(size > 16 * 4096)
        try handle.seek(toOffset: 4096)  // every page after the header page
        try handle.write(contentsOf: Data(repeating: 0x5A, count: Int(size) - 4096))
        try handle.close()
    }

    @Test("a history damaged inside (valid header, overwritten pages) gives a clear error, never a crash")
    func damagedPages() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        try damagedHistory(folder)
        do {
            let reopened = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
            _ = try reopened.pedometerSummary(from: at(0), to: at(12_000), source: "sim")
            Issue.record("reading a damaged history succeeded")
        } catch let error as HistoryError {
            if case .damagedFile(let path, _) = error {
                #expect(path == folder.file.path)
            } else {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test("a history damaged inside is moved aside under the move-aside policy")
    func damagedPagesMovedAside() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        try damagedHistory(folder)
        let notices = NoticeLog()
        var configuration = testConfiguration(.file(folder.file), notices: notices)
        configuration.damagedFilePolicy = .moveAside
        let store = try HistoryStore(configuration: configuration)
        #expect(try store.pedometerSummary(from: at(0), to: at(12_000), source: "sim").steps == 0)
        #expect(try store.integrityCheck() == [])
        try store.close()
        #expect(notices.all.contains { if case .movedAside = $0 { true } else { false } })
    }

    @Test("another program's SQLite database is refused and left untouched")
    func foreignDatabase() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let store = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        try store.close()
        // A database with tables and another application id (header bytes 68…71) is someone else's.
        let handle = try FileHandle(forUpdating: folder.file)
        try handle.seek(toOffset: 68)
        try handle.write(contentsOf: Data([0, 0, 0, 7]))
        try handle.close()
        let before = try Data(contentsOf: folder.file)
        #expect(throws: HistoryError.foreignDatabase(path: folder.file.path)) {
            try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        }
        #expect(try Data(contentsOf: folder.file) == before)
    }

    /// Opening a `DatabasePool` switches a rollback-journal file to WAL, which rewrites bytes 18–19 of its
    /// header; the history used to do that before it looked at the file and refused it.
    @Test("another program's database in rollback-journal mode is refused before it is opened for writing: not a byte changes")
    func foreignRollbackJournalDatabase() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let queue = try DatabaseQueue(path: folder.file.path)  // SQLite's default journal mode: delete
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute(sql: "INSERT INTO photos (name) VALUES ('beach')")
        }
        try queue.close()
        let before = try Data(contentsOf: folder.file)
        #expect(before[18] == 1 && before[19] == 1)  // legacy (rollback-journal) file format
        #expect(throws: HistoryError.foreignDatabase(path: folder.file.path)) {
            try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        }
        #expect(try Data(contentsOf: folder.file) == before)
        #expect(!FileManager.default.fileExists(atPath: folder.file.path + "-wal"))
    }

    /// GRDB's migrator commits its `grdb_migrations` table before the transaction of our first migration
    /// (which sets the application id). A store opening the same new file in that moment saw a table and no
    /// id, and refused the file as another program's (CI, the concurrent-creation test under TSan).
    @Test("a new file holding only GRDB's empty migrations table is ours to set up")
    func fileCaughtBetweenGRDBsTableAndOurFirstMigration() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let queue = try DatabaseQueue(path: folder.file.path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)") }
        try queue.close()
        let store = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        #expect(try store.integrityCheck() == [])
        try store.close()
    }

    @Test("another program's GRDB database with migrations but no tables yet is refused and left untouched")
    func foreignMigrationsOnly() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        // In WAL mode already, as the history opens files (switching a file's journal mode changes its header).
        let pool = try DatabasePool(path: folder.file.path)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('createPhotos')")
        }
        try pool.close()
        let before = try Data(contentsOf: folder.file)
        #expect(throws: HistoryError.foreignDatabase(path: folder.file.path)) {
            try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        }
        #expect(try Data(contentsOf: folder.file) == before)
    }

    @Test("a file from a newer schema version is refused")
    func newerSchema() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let store = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        try store.executeForTesting("INSERT INTO grdb_migrations (identifier) VALUES ('v2')")
        try store.close()
        #expect(throws: HistoryError.newerSchema(path: folder.file.path, unknownMigrations: ["v2"])) {
            try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        }
    }

    @Test("a location that cannot be written gives a clear error naming the file")
    func unwritableLocations() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        // A folder cannot be created inside a file.
        let blocker = folder.url.appendingPathComponent("blocker")
        try Data("x".utf8).write(to: blocker)
        let insideFile = blocker.appendingPathComponent("history.sqlite")
        #expect(throws: HistoryError.self) { try HistoryStore(configuration: testConfiguration(.file(insideFile))) }
        do {
            _ = try HistoryStore(configuration: testConfiguration(.file(insideFile)))
        } catch let error as HistoryError {
            #expect("\(error)".contains(insideFile.path))
        }
        // The location is a folder.
        let isFolder = folder.url.appendingPathComponent("folder.sqlite")
        try FileManager.default.createDirectory(at: isFolder, withIntermediateDirectories: true)
        #expect(throws: HistoryError.cannotOpen(path: isFolder.path, reason: "it is a folder")) {
            try HistoryStore(configuration: testConfiguration(.file(isFolder)))
        }
        #if os(Linux)
        // /proc refuses new files, even to root: a read-only location.
        let readOnly = URL(fileURLWithPath: "/proc/coremotion-history-test.sqlite")
        do {
            _ = try HistoryStore(configuration: testConfiguration(.file(readOnly)))
            Issue.record("opening a history in /proc succeeded")
        } catch let error as HistoryError {
            guard case .cannotOpen(let path, _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(path == readOnly.path)
        }
        #endif
        // A read-only folder (only meaningful when not running as root).
        let locked = folder.url.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: locked.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path) }
        if access(locked.path, W_OK) != 0 {
            let file = locked.appendingPathComponent("history.sqlite")
            #expect(throws: HistoryError.self) { try HistoryStore(configuration: testConfiguration(.file(file))) }
        }
    }
}
