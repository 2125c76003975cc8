import Foundation
import Logging
import MotionHistory
import MotionIngest
import PostgresNIO

/// Phones' engines on ingest nodes, in PostgreSQL: the per-phone lease (`coremotion.device_engine`), the
/// stored raw readings (`coremotion.sample_chunk`) and the derived records (`step_minute`,
/// `pedometer_transition`, `floor_change`, `activity_segment`), following the protocol the schema documents
/// (docs/ingest.md, "Engines for phones").
///
/// - Leases are timed by the database's clock (`now()`), so nodes whose clocks disagree still agree on
///   whether a lease expired.
/// - A commit moves `derived_until` with
///   `UPDATE … WHERE device = $d AND node = $me AND derived_until = $old` first, in the transaction that
///   writes the records, and rolls back when that updates no row: a node that lost its lease (stalled, cut
///   off) writes nothing. The update also locks the lease row, so a node taking the lease at the same moment
///   waits for the commit and then finds the lease renewed.
/// - Step minutes are merged with any stored row of the same minute (millisecond dedup), as the history
///   store merges them; floors, transitions and activity starts already stored are left alone, and a first
///   activity start that repeats the state in force at `derived_until` is left out.
///
/// One connection, used by one caller at a time (calls are serialised); every call blocks its thread for at
/// most the query timeout.
public final class PostgresPhoneEngineStore: PhoneEngineStorage {
    /// The server URL without its password.
    public let locationDescription: String
    let session: PostgresSession
    private let queue = DispatchQueue(label: "coremotion.history.postgres.engines")
    /// Whether the schema was created or checked (on the queue only).
    private let migrated = LockedState(false)

    /// A store for the history at a `postgres://` location. It connects on its first call (and creates or
    /// checks the schema then), so a node starts while the database is away.
    ///
    /// - Throws: ``MotionHistory/HistoryError/invalidServerURL(_:reason:)`` for a location that is not a usable
    ///   `postgres://` URL. Later calls throw ``MotionHistory/HistoryError/serverFailure(location:operation:reason:)``
    ///   when the server cannot be reached or refuses.
    public init(location: HistoryLocation, connectTimeout: TimeInterval = 10, queryTimeout: TimeInterval = 30, logger: Logger? = nil) throws {
        let shown = location.description
        guard case .postgres(let url) = location else {
            throw HistoryError.invalidServerURL(shown, reason: "not a postgres:// URL")
        }
        let address = try PostgresServerAddress.parse(url, shown: shown)
        let configuration: PostgresConnection.Configuration
        do {
            configuration = try address.connectionConfiguration(connectTimeout: connectTimeout, statementTimeout: queryTimeout)
        } catch {
            throw HistoryError.serverFailure(location: shown, operation: "preparing TLS", reason: "\(error)")
        }
        let session = PostgresSession(
            configuration: configuration, connectTimeout: address.connectTimeout ?? connectTimeout, queryTimeout: queryTimeout,
            logger: logger ?? Logger(label: "coremotion.history.postgres.engines", factory: { _ in SwiftLogNoOpLogHandler() }),
            location: shown)
        self.session = session
        locationDescription = shown
    }

    deinit {
        session.shutdownInBackground()
    }

    /// Closes the connection; later calls open a new one.
    public func disconnect() {
        queue.sync { session.closeConnection() }
    }

    // MARK: - PhoneEngineStorage

    public func phonesBehind(
        sensors: [String], namePrefix: String, node: String, lagMicroseconds: Int64, quietSeconds: Double, limit: Int
    ) throws -> [PhoneEngineStatus] {
        let operation = "listing phones behind their readings"
        let limit = Int64(max(1, limit))
        let lag = Double(max(0, lagMicroseconds)) / 1e6
        let quiet = quietSeconds.isFinite ? max(0, quietSeconds) : 0
        return try run(operation) {
            let rows = try session.query("""
                SELECT d.id, d.name, min(ds.first_time), max(ds.last_time), e.derived_until,
                       extract(epoch FROM now() - max(ds.last_time))::float8
                FROM coremotion.device d
                JOIN coremotion.device_sensor ds ON ds.device = d.id
                JOIN coremotion.sensor s ON s.id = ds.sensor AND s.name = ANY(\(sensors))
                LEFT JOIN coremotion.device_engine e ON e.device = d.id
                WHERE d.kind = 'phone' AND starts_with(d.name, \(namePrefix))
                  AND (e.device IS NULL OR e.lease_until < now() OR e.node = \(node))
                GROUP BY d.id, d.name, e.derived_until
                HAVING e.derived_until IS NULL
                    OR e.derived_until < max(ds.last_time) - \(lag) * interval '1 second'
                    OR (e.derived_until < max(ds.last_time) AND now() - max(ds.last_time) > \(quiet) * interval '1 second')
                ORDER BY e.derived_until NULLS FIRST, d.id
                LIMIT \(limit)
                """, operation: operation).rows
            var phones: [PhoneEngineStatus] = []
            for row in rows {
                let (id, name, first, newest, derived, quietFor) =
                    try row.decode((Int64, String, PostgresTimestamp, PostgresTimestamp, PostgresTimestamp?, Double?).self)
                phones.append(PhoneEngineStatus(
                    device: id, name: name, firstReading: first.microseconds, newestReading: newest.microseconds,
                    derivedUntil: derived?.microseconds, quietSeconds: quietFor ?? 0))
            }
            return phones
        }
    }

    public func takeLease(_ phone: PhoneEngineStatus, node: String, seconds: Double, initialDerivedUntil: Int64) throws -> PhoneEngineLease? {
        let operation = "taking the engines' lease of a phone"
        let lease = Self.seconds(seconds)
        let initial = PostgresTimestamp(microseconds: initialDerivedUntil)
        return try run(operation) {
            let rows = try session.query("""
                INSERT INTO coremotion.device_engine (device, node, lease_until, derived_until)
                VALUES (\(phone.device), \(node), now() + \(lease) * interval '1 second', \(initial))
                ON CONFLICT (device) DO UPDATE SET node = excluded.node, lease_until = excluded.lease_until
                WHERE coremotion.device_engine.lease_until < now() OR coremotion.device_engine.node = excluded.node
                RETURNING derived_until
                """, operation: operation).rows
            guard let row = rows.first else { return nil }
            let derived = try row.decode(PostgresTimestamp.self)
            return PhoneEngineLease(device: phone.device, name: phone.name, node: node, derivedUntil: derived.microseconds)
        }
    }

    public func readings(device: Int64, sensors: [String], from: Int64, through: Int64, limit: Int) throws -> StoredReadings {
        let operation = "reading a phone's stored readings"
        let start = PostgresTimestamp(microseconds: from)
        // Chunks span at most 60 s: this bound lets the primary key's index find them.
        let earliest = PostgresTimestamp(microseconds: from - PostgresPushStore.chunkSpan)
        let end = PostgresTimestamp(microseconds: through)
        let limit = Int64(max(1, limit))
        return try run(operation) {
            let rows = try session.query("""
                SELECT s.name, s.fields, c.start_time, c.offsets, ARRAY(SELECT unnest(c.real_values))
                FROM coremotion.sample_chunk c JOIN coremotion.sensor s ON s.id = c.sensor
                WHERE c.device = \(device) AND s.name = ANY(\(sensors)) AND c.real_values IS NOT NULL
                  AND c.start_time >= \(earliest) AND c.start_time <= \(end) AND c.end_time >= \(start)
                ORDER BY c.start_time, s.name
                LIMIT \(limit)
                """, operation: operation).rows
            var result = StoredReadings()
            for row in rows {
                let chunk: (String, [String], PostgresTimestamp, [Int32], [Float])
                do {
                    chunk = try row.decode((String, [String], PostgresTimestamp, [Int32], [Float]).self)
                } catch {
                    result.skipped.append("a chunk of device \(device) could not be read (\(PostgresSession.describe(error)))")
                    continue
                }
                let (sensor, fields, startTime, offsets, values) = chunk
                guard !fields.isEmpty, values.count == offsets.count * fields.count else {
                    result.skipped.append(
                        "chunk \(sensor) at \(startTime.microseconds) µs of device \(device): \(offsets.count) readings, \(values.count) values for \(fields.count) fields")
                    continue
                }
                var times: [Int64] = []
                times.reserveCapacity(offsets.count)
                var previous = Int64.min
                var ordered = true
                for offset in offsets {
                    let t = startTime.microseconds + Int64(offset)
                    if t < previous { ordered = false }
                    previous = t
                    times.append(t)
                }
                guard ordered else {
                    result.skipped.append("chunk \(sensor) at \(startTime.microseconds) µs of device \(device): offsets not in order")
                    continue
                }
                result.series.append(RawSeries(sensor: sensor, fields: fields, microseconds: times, values: values.map(Double.init)))
            }
            return result
        }
    }

    public func commit(_ records: DerivedRecords, lease: PhoneEngineLease, derivedUntil: Int64, leaseSeconds: Double) throws -> Bool {
        let operation = "writing a phone's derived records"
        let old = PostgresTimestamp(microseconds: lease.derivedUntil)
        let new = PostgresTimestamp(microseconds: max(derivedUntil, lease.derivedUntil))
        let renewal = Self.seconds(leaseSeconds)
        func after<T>(_ list: [T], _ date: (T) -> Date) -> [T] {
            list.filter { PostgresTimestamp(date($0)).microseconds > lease.derivedUntil }
        }
        var batch = PendingRecords()
        let steps = after(records.steps, \.date)
        let floors = after(records.floors, \.date)
        let transitions = after(records.transitions, \.date)
        let activities = after(records.activities, \.startDate)
        if !steps.isEmpty { batch.steps[lease.name] = steps }
        if !floors.isEmpty { batch.floors[lease.name] = floors }
        if !transitions.isEmpty { batch.transitions[lease.name] = transitions }
        if !activities.isEmpty { batch.activities[lease.name] = activities }
        batch.count = steps.count + floors.count + transitions.count + activities.count
        return try run(operation) {
            do {
                try session.transaction(operation: operation) {
                    // First: the guard, which also locks the lease row until the commit.
                    let moved = try session.query("""
                        UPDATE coremotion.device_engine
                        SET derived_until = \(new), lease_until = now() + \(renewal) * interval '1 second'
                        WHERE device = \(lease.device) AND node = \(lease.node) AND derived_until = \(old)
                        RETURNING 1
                        """, operation: operation).rows
                    guard !moved.isEmpty else { throw LeaseLost() }
                    // Engines restarted before `derived_until` find the state in force again: a first segment
                    // that repeats the stored one is no change.
                    if let first = batch.activities[lease.name]?.first, let row = try session.query("""
                        SELECT flags, confidence FROM coremotion.activity_segment
                        WHERE device = \(lease.device) AND start <= \(old) ORDER BY start DESC LIMIT 1
                        """, operation: operation).rows.first {
                        let (flags, confidence) = try row.decode((Int16, Int16).self)
                        if flags == Int16(first.flags.rawValue) && confidence == Int16(first.confidence.rawValue) {
                            batch.activities[lease.name]!.removeFirst()
                            batch.count -= 1
                            if batch.activities[lease.name]!.isEmpty { batch.activities[lease.name] = nil }
                        }
                    }
                    guard batch.count > 0 else { return }
                    var writing = PostgresWriting(session: session, devicePrefix: "", deviceIDs: [lease.name: lease.device])
                    writing.touchesLastSeen = false
                    _ = try writing.write(batch)
                }
                return true
            } catch is LeaseLost {
                return false
            }
        }
    }

    public func release(_ lease: PhoneEngineLease) throws {
        let operation = "giving up the engines' lease of a phone"
        try run(operation) {
            try session.query("""
                UPDATE coremotion.device_engine SET lease_until = now() - interval '1 second'
                WHERE device = \(lease.device) AND node = \(lease.node)
                """, operation: operation)
        }
    }

    // MARK: - Internals

    /// Runs a call on the store's queue; errors become ``MotionHistory/HistoryError``.
    @discardableResult
    private func run<T>(_ operation: String, _ body: () throws -> T) throws -> T {
        try queue.sync {
            do {
                if !migrated.withLock({ $0 }) {
                    try PostgresMigrations.migrate(session)
                    migrated.withLock { $0 = true }
                }
                return try body()
            } catch {
                throw session.failure(error, operation: operation)
            }
        }
    }

    /// A lease's length, seconds, within 0…1 day.
    static func seconds(_ seconds: Double) -> Double {
        seconds.isFinite ? min(max(seconds, 0), 86_400) : 0
    }

    /// The lease was lost between reading and writing: the transaction rolls back.
    private struct LeaseLost: Error {}
}
