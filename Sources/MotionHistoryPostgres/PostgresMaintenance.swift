import Foundation
import MotionHistory
import PostgresNIO

/// Creating and upgrading the schema.
enum PostgresMigrations {
    /// Applies the migrations the database lacks, in one transaction under the advisory lock; throws
    /// ``HistoryError/newerSchema(path:unknownMigrations:)`` (and changes nothing) when the database holds
    /// a migration this version does not know.
    static func migrate(_ session: PostgresSession) throws {
        let operation = "migrating the schema"
        try session.transaction(operation: operation) {
            try session.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.advisoryLockKey))", operation: operation)
            let exists = try session.query(
                "SELECT to_regclass('coremotion.schema_migrations') IS NOT NULL", operation: operation
            ).rows.first?.decode(Bool.self) ?? false
            var applied = Set<Int>()
            if exists {
                for row in try session.query("SELECT version FROM coremotion.schema_migrations", operation: operation).rows {
                    applied.insert(Int(try row.decode(Int64.self)))
                }
            }
            let known = Set(PostgresSchema.migrations.map(\.version))
            let unknown = applied.subtracting(known).sorted()
            guard unknown.isEmpty else {
                throw HistoryError.newerSchema(path: session.location, unknownMigrations: unknown.map { "\($0)" })
            }
            for migration in PostgresSchema.migrations where !applied.contains(migration.version) {
                try session.queries(
                    PostgresSchema.statements(of: migration.sql).map { PostgresQuery(unsafeSQL: $0) },
                    operation: "\(operation) (migration \(migration.version))")
            }
        }
    }
}

/// Retention: what the SQLite store's maintenance deletes, for one prefix's devices.
enum PostgresMaintenance {
    /// Deletes the records of the prefix's devices that are past retention, in one transaction: step
    /// minutes wholly before the pedometer cut-off (and the links into minutes whose previous minute went),
    /// floors and transitions before it, activity segments followed by another one before the activity
    /// cut-off (the one in force then is kept), accelerometer chunks and recording requests that ended
    /// before the accelerometer cut-off.
    static func applyRetention(_ session: PostgresSession, devicePrefix: String, now: Date, retention: HistoryRetention) throws {
        let operation = "deleting records past retention"
        let pedometerCutoff = now.addingTimeInterval(-retention.pedometer)
        let firstKeptMinute = PostgresTimestamp(
            minute: StepMinute.minute(ofMilliseconds: StepMinute.milliseconds(pedometerCutoff)))
        let pedometer = PostgresTimestamp(pedometerCutoff)
        let activity = PostgresTimestamp(now.addingTimeInterval(-retention.activity))
        let accelerometer = PostgresTimestamp(now.addingTimeInterval(-retention.accelerometer))
        try session.transaction(operation: operation) {
            let devices = try PostgresDevices.ids(session, prefix: devicePrefix, operation: operation)
            guard !devices.isEmpty else { return }
            let ids = Array(devices.keys)
            try session.queries([
                "DELETE FROM coremotion.step_minute WHERE device = ANY(\(ids)) AND minute < \(firstKeptMinute)",
                """
                UPDATE coremotion.step_minute AS s SET link_milliseconds = 0
                WHERE s.device = ANY(\(ids)) AND s.link_milliseconds <> 0 AND NOT EXISTS (
                    SELECT 1 FROM coremotion.step_minute AS previous
                    WHERE previous.device = s.device AND previous.minute = s.minute - interval '1 minute')
                """,
                "DELETE FROM coremotion.floor_change WHERE device = ANY(\(ids)) AND date < \(pedometer)",
                "DELETE FROM coremotion.pedometer_transition WHERE device = ANY(\(ids)) AND date < \(pedometer)",
                """
                DELETE FROM coremotion.activity_segment AS a
                WHERE a.device = ANY(\(ids)) AND a.start < \(activity) AND EXISTS (
                    SELECT 1 FROM coremotion.activity_segment AS later
                    WHERE later.device = a.device AND later.start > a.start AND later.start <= \(activity))
                """,
                "DELETE FROM coremotion.accelerometer_chunk WHERE device = ANY(\(ids)) AND end_time < \(accelerometer)",
                "DELETE FROM coremotion.recording_request WHERE device = ANY(\(ids)) AND \"end\" < \(accelerometer)",
            ], operation: operation)
        }
    }
}

/// Looking up devices.
enum PostgresDevices {
    /// The devices whose name starts with `prefix`: id → source tag (the name without the prefix).
    static func ids(_ session: PostgresSession, prefix: String, operation: String) throws -> [Int64: String] {
        var devices: [Int64: String] = [:]
        let rows = try session.query(
            "SELECT id, name FROM coremotion.device WHERE left(name, length(\(prefix)::text)) = \(prefix)::text",
            operation: operation
        ).rows
        for row in rows {
            let (id, name) = try row.decode((Int64, String).self)
            devices[id] = String(String.UnicodeScalarView(name.unicodeScalars.dropFirst(prefix.unicodeScalars.count)))
        }
        return devices
    }
}
