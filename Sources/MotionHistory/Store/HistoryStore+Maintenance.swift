// The SQLite store: built with the package trait `SQLiteHistory` (on by default); HistoryStore+WithoutSQLite.swift otherwise.
#if SQLiteHistory
import Foundation
import GRDB


extension HistoryStore {
    /// Free pages are given back to the file system when more than this many are free and they are more than
    /// a tenth of the file.
    static let reclaimThresholdPages = 256

    /// Deletes records past retention, enforces the size bounds and gives large runs of freed pages back to
    /// the file system. The store does this at open and then every
    /// ``HistoryConfiguration/maintenanceInterval``; call it to do it now.
    public func performMaintenance() throws {
        try checkOpen()
        try flush()
        try flushQueueSync { try maintain() }
    }

    /// Counts of what the store holds (after writing what is pending).
    public func statistics() throws -> HistoryStatistics {
        try flushBeforeQuery()
        do {
            return try database.read { db in
                func count(_ sql: String) throws -> Int { try Int.fetchOne(db, sql: sql) ?? 0 }
                var stats = HistoryStatistics()
                stats.sources = try count("SELECT count(*) FROM source")
                stats.stepMinutes = try count("SELECT count(*) FROM step_minute")
                stats.steps = try count("SELECT COALESCE(SUM(step_count), 0) FROM step_minute")
                stats.floorChanges = try count("SELECT count(*) FROM floor_change")
                stats.pedometerTransitions = try count("SELECT count(*) FROM pedometer_transition")
                stats.activitySegments = try count("SELECT count(*) FROM activity_segment")
                stats.accelerometerChunks = try count("SELECT count(*) FROM accelerometer_chunk")
                stats.accelerometerSamples = try count("SELECT COALESCE(SUM(sample_count), 0) FROM accelerometer_chunk")
                stats.recordingRequests = try count("SELECT count(*) FROM recording_request")
                stats.pageCount = try count("PRAGMA page_count")
                stats.pageSize = try count("PRAGMA page_size")
                stats.freePages = try count("PRAGMA freelist_count")
                return stats
            }
        } catch {
            throw mapError(error, operation: "reading statistics")
        }
    }

    /// Retention, bounds, reclaiming; on the flush queue.
    func maintain() throws {
        let (totals, evicted) = try Self.maintain(database, configuration: configuration, path: path)
        recordMaintenance(totals: totals, evicted: evicted)
    }

    func recordMaintenance(totals: RecordCounts, evicted: [(String, Int)]) {
        writerState.withLock { writer in
            writer.estimate = totals
            writer.lastMaintenance = .now
        }
        for (kind, records) in evicted { report(.evicted(path: path, kind: kind, records: records)) }
    }

    /// Deletes what is past retention, enforces the bounds and gives free pages back. Returns the stored
    /// counts afterwards and what the bounds evicted.
    static func maintain(
        _ database: any DatabaseWriter, configuration: HistoryConfiguration, path: String
    ) throws -> (RecordCounts, [(String, Int)]) {
        let now = configuration.now()
        let retention = configuration.retention
        let limits = configuration.limits
        do {
            let result = try database.write { db in
                try applyRetention(db, now: now, retention: retention)
                return try enforceBounds(db, limits: limits)
            }
            try database.writeWithoutTransaction { db in
                let free = try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
                let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                if free > reclaimThresholdPages, free * 10 > pages {
                    try db.execute(sql: "PRAGMA incremental_vacuum")
                }
            }
            return result
        } catch {
            throw mapError(error, path: path, operation: "maintenance")
        }
    }

    /// Enforces the bounds now (after a flush pushed an estimate over one).
    func enforceBounds() throws {
        let limits = configuration.limits
        let (totals, evicted) = try database.write { db in try Self.enforceBounds(db, limits: limits) }
        writerState.withLock { $0.estimate = totals }
        for (kind, records) in evicted { report(.evicted(path: path, kind: kind, records: records)) }
    }

    static func applyRetention(_ db: Database, now: Date, retention: HistoryRetention) throws {
        let pedometerCutoff = now.addingTimeInterval(-retention.pedometer)
        // A minute row goes when all of its minute is before the cut-off.
        let firstKeptMinute = StepMinute.minute(ofMilliseconds: StepMinute.milliseconds(pedometerCutoff))
        try db.execute(sql: "DELETE FROM step_minute WHERE minute < ?", arguments: [firstKeptMinute])
        if db.changesCount > 0 { try unlinkOrphanedMinutes(db) }
        let pedometerSeconds = pedometerCutoff.timeIntervalSince1970
        try db.execute(sql: "DELETE FROM floor_change WHERE date < ?", arguments: [pedometerSeconds])
        try db.execute(sql: "DELETE FROM pedometer_transition WHERE date < ?", arguments: [pedometerSeconds])
        // Keep the segment in force at the cut-off: only segments followed by another one before it go.
        let activitySeconds = now.addingTimeInterval(-retention.activity).timeIntervalSince1970
        try db.execute(
            sql: """
                DELETE FROM activity_segment WHERE start < :cutoff AND EXISTS (
                    SELECT 1 FROM activity_segment AS later
                    WHERE later.source = activity_segment.source AND later.start > activity_segment.start
                      AND later.start <= :cutoff)
                """,
            arguments: ["cutoff": activitySeconds])
        let accelerometerCutoff = now.addingTimeInterval(-retention.accelerometer)
        try db.execute(
            sql: "DELETE FROM accelerometer_chunk WHERE end_microseconds < ?",
            arguments: [AccelerometerChunk.microseconds(accelerometerCutoff)])
        try db.execute(
            sql: "DELETE FROM recording_request WHERE end < ?", arguments: [accelerometerCutoff.timeIntervalSince1970])
    }

    /// Clears the link of minutes whose previous minute was deleted (it joined a step that is gone).
    static func unlinkOrphanedMinutes(_ db: Database) throws {
        try db.execute(sql: """
            UPDATE step_minute SET link_milliseconds = 0
            WHERE link_milliseconds != 0 AND NOT EXISTS (
                SELECT 1 FROM step_minute AS previous
                WHERE previous.source = step_minute.source AND previous.minute = step_minute.minute - 1)
            """)
    }

    /// Deletes the oldest records of each kind over its bound. Returns the stored counts afterwards and what
    /// was evicted.
    static func enforceBounds(_ db: Database, limits: HistoryLimits) throws -> (RecordCounts, [(String, Int)]) {
        var evicted: [(String, Int)] = []
        var totals = RecordCounts()

        func boundPacked(table: String, countColumn: String, order: String, limit: Int, kind: String) throws -> Int {
            var total = try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(\(countColumn)), 0) FROM \(table)") ?? 0
            guard total > limit else { return total }
            let excess = total - limit
            var ids: [Int64] = []
            var removed = 0
            let rows = try Row.fetchCursor(db, sql: "SELECT id, \(countColumn) FROM \(table) ORDER BY \(order), id")
            while removed < excess, let row = try rows.next() {
                ids.append(row[0])
                removed += row[1] as Int
            }
            let delete = try db.cachedStatement(sql: "DELETE FROM \(table) WHERE id = ?")
            for id in ids { try delete.execute(arguments: [id]) }
            if table == "step_minute" { try unlinkOrphanedMinutes(db) }
            evicted.append((kind, removed))
            total -= removed
            return total
        }

        func boundRows(table: String, order: String, limit: Int, kind: String) throws -> Int {
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0
            guard count > limit else { return count }
            let excess = count - limit
            try db.execute(
                sql: "DELETE FROM \(table) WHERE id IN (SELECT id FROM \(table) ORDER BY \(order), id LIMIT ?)",
                arguments: [excess])
            evicted.append((kind, excess))
            return limit
        }

        totals.steps = try boundPacked(
            table: "step_minute", countColumn: "step_count", order: "minute", limit: limits.steps, kind: "step")
        totals.accelerometerSamples = try boundPacked(
            table: "accelerometer_chunk", countColumn: "sample_count", order: "start_microseconds",
            limit: limits.accelerometerSamples, kind: "accelerometer sample")
        totals.floorChanges = try boundRows(
            table: "floor_change", order: "date", limit: limits.floorChanges, kind: "floor change")
        totals.pedometerTransitions = try boundRows(
            table: "pedometer_transition", order: "date", limit: limits.pedometerTransitions, kind: "pedometer transition")
        totals.activitySegments = try boundRows(
            table: "activity_segment", order: "start", limit: limits.activitySegments, kind: "activity segment")
        totals.recordingRequests = try boundRows(
            table: "recording_request", order: "end", limit: limits.recordingRequests, kind: "recording request")
        return (totals, evicted)
    }
}

/// The SQLite settings of the writing connection, for diagnostics (`docs/history.md` explains each).
public struct HistoryDatabaseSettings: Sendable, Hashable {
    /// `PRAGMA journal_mode`: `wal` for a file, `memory` for an in-memory store.
    public var journalMode: String
    /// `PRAGMA synchronous`: 1 is `NORMAL` (a crash loses nothing committed; a power cut may lose the last
    /// transactions, never consistency).
    public var synchronous: Int
    /// `PRAGMA busy_timeout`, milliseconds.
    public var busyTimeoutMilliseconds: Int
    /// `PRAGMA auto_vacuum`: 2 is `INCREMENTAL`.
    public var autoVacuum: Int
    /// `PRAGMA journal_size_limit`, bytes.
    public var journalSizeLimit: Int
    /// `PRAGMA application_id` (0x434D4853, "CMHS").
    public var applicationID: Int
    /// Applied schema migrations (`grdb_migrations`), in order.
    public var migrations: [String]
}

extension HistoryStore {
    /// The SQLite settings in force on the writing connection.
    public func databaseSettings() throws -> HistoryDatabaseSettings {
        try checkOpen()
        do {
            return try flushQueueSync {
                try database.writeWithoutTransaction { db in
                    func integer(_ pragma: String) throws -> Int { try Int.fetchOne(db, sql: "PRAGMA \(pragma)") ?? -1 }
                    return HistoryDatabaseSettings(
                        journalMode: try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "",
                        synchronous: try integer("synchronous"),
                        busyTimeoutMilliseconds: try integer("busy_timeout"),
                        autoVacuum: try integer("auto_vacuum"),
                        journalSizeLimit: try integer("journal_size_limit"),
                        applicationID: try integer("application_id"),
                        migrations: try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid"))
                }
            }
        } catch {
            throw mapError(error, operation: "reading settings")
        }
    }
}

extension HistoryStore {
    /// Runs SQLite's `PRAGMA integrity_check` over the whole file; returns the problems found (empty when
    /// the file is sound). Slow on a large file (it reads every page): for tools and tests, not for every
    /// launch.
    public func integrityCheck() throws -> [String] {
        try flushBeforeQuery()
        do {
            let lines = try database.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            return lines == ["ok"] ? [] : lines
        } catch {
            throw mapError(error, operation: "checking integrity")
        }
    }

    /// Runs raw SQL on the writing connection; for tests that need to fake a newer schema or damage.
    func executeForTesting(_ sql: String) throws {
        try flushQueueSync { try database.writeWithoutTransaction { db in try db.execute(sql: sql) } }
    }
}
#endif
