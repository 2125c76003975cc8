// The SQLite store: built with the package trait `SQLiteHistory` (on by default); HistoryStore+WithoutSQLite.swift otherwise.
#if SQLiteHistory
import Foundation
import GRDB

extension HistoryStore {
    /// Bytes the write-ahead log is truncated to after a checkpoint.
    static let journalSizeLimit = 4 * 1024 * 1024

    /// Opens the database and runs the first maintenance; a file found damaged by either is moved aside
    /// and replaced by an empty one when the policy says so.
    static func openAndMaintain(
        _ configuration: HistoryConfiguration
    ) throws -> (any DatabaseWriter, RecordCounts, [(String, Int)]) {
        let path = configuration.location.description
        let database = try openDatabase(configuration)
        do {
            let (totals, evicted) = try maintain(database, configuration: configuration, path: path)
            return (database, totals, evicted)
        } catch HistoryError.damagedFile(let path, let reason) where configuration.damagedFilePolicy == .moveAside {
            try? database.close()
            guard case .file(let url) = configuration.location else { throw HistoryError.damagedFile(path: path, reason: reason) }
            let movedTo = try moveAside(url, now: configuration.now())
            configuration.notify(.movedAside(path: path, movedTo: movedTo.path, reason: reason))
            let fresh = try openDatabase(configuration)
            let (totals, evicted) = try maintain(fresh, configuration: configuration, path: path)
            return (fresh, totals, evicted)
        } catch {
            try? database.close()
            throw error
        }
    }

    static func openDatabase(_ configuration: HistoryConfiguration) throws -> any DatabaseWriter {
        var grdb = Configuration()
        grdb.label = "coremotion.history"
        grdb.busyMode = .timeout(max(configuration.busyTimeout, 0))
        grdb.prepareDatabase { db in
            // Runs before GRDB switches a new file to WAL (which creates a first table): auto-vacuum can only be
            // chosen then; on an existing file the statement changes nothing.
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL") }
            try db.execute(sql: "PRAGMA journal_size_limit = \(journalSizeLimit)")
        }
        switch configuration.location {
        case .postgres:
            // PostgresHistoryStore (MotionHistoryPostgres) opens these; HistoryStorageOpener chooses.
            throw HistoryError.builtWithoutPostgres(location: configuration.location.description)
        case .inMemory:
            let queue = try DatabaseQueue(configuration: grdb)
            try prepareSchema(queue, path: "memory")
            return queue
        case .file(let url):
            do {
                try HistoryFiles.createFolder(of: url)
            } catch {
                throw HistoryError.cannotCreateFolder(path: url.path, reason: describe(error))
            }
            do {
                return try openFile(url, grdb)
            } catch HistoryError.damagedFile(let path, let reason) where configuration.damagedFilePolicy == .moveAside {
                let movedTo = try moveAside(url, now: configuration.now())
                configuration.notify(.movedAside(path: path, movedTo: movedTo.path, reason: reason))
                return try openFile(url, grdb)
            }
        }
    }

    private static func openFile(_ url: URL, _ grdb: Configuration) throws -> DatabasePool {
        let path = url.path
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            throw HistoryError.cannotOpen(path: path, reason: "it is a folder")
        }
        try refuseForeignFile(path)
        // Created here 0600 when new, so that SQLite's companions (-wal, -shm) are 0600 too.
        HistoryFiles.createFile(url)
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: grdb)
        } catch {
            throw mapError(error, path: path, operation: "opening")
        }
        do {
            try prepareSchema(pool, path: path)
        } catch {
            try? pool.close()
            throw error
        }
        // Only now that the file is known to be ours: an older version's 0644 file in a 0755 folder.
        HistoryFiles.tighten(file: url)
        return pool
    }

    /// Whether the database is another program's: tables besides GRDB's and not our application id, or
    /// GRDB migrations that are not ours (another program's, none of its tables yet) and not our id.
    private static func isForeign(_ db: Database) throws -> Bool {
        guard try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0 != HistorySchema.applicationID else { return false }
        // GRDB's own tables do not make a file foreign. It briefly creates and drops `grdb_issue_102` when it
        // switches a new file to WAL, and its migrator commits `grdb_migrations` before the transaction of our
        // first migration (which sets the application id): another store opening the same new file in either
        // moment must not take it for another program's.
        let tables = try Int.fetchOne(
            db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'grdb\\_%' ESCAPE '\\'"
        ) ?? 0
        if tables > 0 { return true }
        let applied = try HistorySchema.migrator.appliedIdentifiers(db)
        return !applied.subtracting(HistorySchema.migrationIdentifiers).isEmpty
    }

    /// Refuses another program's database before the pool opens it: opening a `DatabasePool` switches a
    /// file in rollback-journal mode to WAL, which rewrites its header. So an existing, non-empty file is
    /// first read through a read-only connection, which changes nothing. A file that cannot be read that
    /// way (not SQLite, locked, a WAL file without its shared memory) is left to the pool, whose errors
    /// name what is wrong; only a positive finding refuses it here.
    private static func refuseForeignFile(_ path: String) throws {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber,
              size.intValue > 0
        else { return }
        var readOnly = Configuration()
        readOnly.readonly = true
        guard let queue = try? DatabaseQueue(path: path, configuration: readOnly) else { return }
        defer { try? queue.close() }
        if (try? queue.read({ db in try isForeign(db) })) == true {
            throw HistoryError.foreignDatabase(path: path)
        }
    }

    /// Checks that the file is ours (or empty) and of a known schema version, then migrates it.
    private static func prepareSchema(_ writer: any DatabaseWriter, path: String) throws {
        let migrator = HistorySchema.migrator
        do {
            if try writer.read({ db in try isForeign(db) }) {
                throw HistoryError.foreignDatabase(path: path)
            }
            let applied = try writer.read { db in try migrator.appliedIdentifiers(db) }
            let unknown = applied.subtracting(HistorySchema.migrationIdentifiers)
            if !unknown.isEmpty {
                throw HistoryError.newerSchema(path: path, unknownMigrations: unknown.sorted())
            }
            if applied.count < HistorySchema.migrationIdentifiers.count {
                do {
                    try migrator.migrate(writer)
                } catch {
                    // Another process may have migrated between our check and our transaction.
                    let done = try writer.read { db in try migrator.appliedIdentifiers(db) }
                    guard done.isSuperset(of: HistorySchema.migrationIdentifiers) else { throw error }
                }
            }
        } catch let error as HistoryError {
            throw error
        } catch {
            throw mapError(error, path: path, operation: "opening")
        }
    }

    /// Renames a damaged file and its `-wal`/`-shm` companions to `<name>.damaged-<UTC date>[-n]`.
    ///
    /// - Returns: the new location of the file.
    @discardableResult
    public static func moveAside(_ url: URL, now: Date = Date()) throws -> URL {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let stem = url.path + ".damaged-" + formatter.string(from: now)
        let fm = FileManager.default
        var target = stem
        var attempt = 1
        while fm.fileExists(atPath: target) {
            attempt += 1
            target = "\(stem)-\(attempt)"
        }
        do {
            if fm.fileExists(atPath: url.path) { try fm.moveItem(atPath: url.path, toPath: target) }
            for suffix in ["-wal", "-shm"] where fm.fileExists(atPath: url.path + suffix) {
                try fm.moveItem(atPath: url.path + suffix, toPath: target + suffix)
            }
        } catch {
            throw HistoryError.cannotOpen(path: url.path, reason: "moving the damaged file aside failed: \(describe(error))")
        }
        // The damaged copy holds the same history: private as the live file.
        for suffix in ["", "-wal", "-shm"] { HistoryFiles.restrict(target + suffix, to: HistoryFiles.fileMode) }
        return URL(fileURLWithPath: target)
    }

    func mapError(_ error: any Error, operation: String) -> HistoryError {
        Self.mapError(error, path: path, operation: operation)
    }

    /// Turns a GRDB/SQLite error into a ``HistoryError`` that names the file.
    static func mapError(_ error: any Error, path: String, operation: String) -> HistoryError {
        if let error = error as? HistoryError { return error }
        guard let error = error as? DatabaseError else {
            return .databaseFailure(path: path, operation: operation, reason: describe(error))
        }
        let reason = error.message ?? "\(error.resultCode)"
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return .damagedFile(path: path, reason: reason)
        case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_AUTH:
            return .cannotOpen(path: path, reason: reason)
        default:
            return .databaseFailure(path: path, operation: operation, reason: reason)
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? CocoaError, let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError {
            return "\(error.localizedDescription) (\(underlying.localizedDescription))"
        }
        return (error as NSError).localizedDescription
    }
}
#endif
