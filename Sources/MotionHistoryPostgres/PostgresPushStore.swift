import Foundation
import Logging
import MotionHistory
import MotionIngest
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// Raw phone pushes in PostgreSQL, for ingest nodes: every reading of a push in `coremotion.sample_chunk`,
/// its receipt in `coremotion.push_receipt`, the device's counters in `coremotion.device_sensor`, all in one
/// transaction (docs/history-postgres.md).
///
/// A push whose receipt (device, session, message id) is already stored (a retry, a duplicate, a phone that
/// moved to another node) stores nothing and returns `false`. Readings are stored in chunks of at most 1 024
/// readings spanning at most 60 s, sorted by time within each sensor; values as `real` (float4), except the
/// `location` sensor's, as `double precision`.
///
/// Connections come from a pool (at most ``maximumConnections``); a call blocks its thread until the
/// transaction is committed or ``timeout`` passes, so call it from a thread of your own (an ingest node's
/// writers), never from an event loop.
public final class PostgresPushStore: RawPushStorage {
    /// Connections at most.
    public let maximumConnections: Int
    /// Longest wait for one push's transaction, seconds.
    public let timeout: TimeInterval
    /// The database as messages name it (no password).
    public let locationDescription: String
    /// Sensor kinds (name and fields) the database takes at most (``defaultSensorKindLimit``).
    public let sensorKindLimit: Int

    private let client: PostgresClient
    private let group: MultiThreadedEventLoopGroup
    private let runner: Task<Void, Never>
    private let logger: Logger
    private let ids = NIOLockedValueBox(IDCache())
    private let refusedSensorKinds = NIOLockedValueBox(0)

    /// Device and sensor ids already known, so that a push does not look them up again. Sensors are bounded
    /// by the table (``sensorKindLimit``); devices by ``cachedDevicesAtMost``, since every push may name a new
    /// `deviceId`: past it the cache starts over (a forgotten device is looked up again, nothing else).
    private struct IDCache {
        var devices: [String: Int64] = [:]
        var sensors: [String: Int16] = [:]
    }

    /// Device ids the cache keeps at most (a fleet's phones; 4,096 short names are about 0.5 MB).
    static let cachedDevicesAtMost = 4096

    /// Readings per chunk at most, and the longest span of a chunk, microseconds (the schema's limits).
    static let chunkReadings = 1024
    static let chunkSpan: Int64 = 60_000_000

    public init(
        configuration: PostgresClient.Configuration, locationDescription: String, maximumConnections: Int = 4,
        timeout: TimeInterval = 5, sensorKindLimit: Int = PostgresPushStore.defaultSensorKindLimit,
        logger: Logger = Logger(label: "coremotion.history.postgres.pushes")
    ) {
        self.sensorKindLimit = sensorKindLimit
        var configuration = configuration
        configuration.options.maximumConnections = maximumConnections
        configuration.options.minimumConnections = 0
        self.maximumConnections = maximumConnections
        self.timeout = timeout
        self.locationDescription = locationDescription
        self.logger = logger
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let client = PostgresClient(configuration: configuration, eventLoopGroup: group, backgroundLogger: logger)
        self.client = client
        runner = Task { await client.run() }
    }

    /// A store for the PostgreSQL history at `location` (its URL's server, login and `sslmode`).
    ///
    /// - Throws: ``MotionHistory/HistoryError/invalidServerURL(_:reason:)`` for a location that is not a usable
    ///   `postgres://` URL.
    public convenience init(
        location: HistoryLocation, maximumConnections: Int = 4, timeout: TimeInterval = 5,
        sensorKindLimit: Int = PostgresPushStore.defaultSensorKindLimit,
        logger: Logger = Logger(label: "coremotion.history.postgres.pushes")
    ) throws {
        guard case .postgres(let url) = location else {
            throw HistoryError.invalidServerURL(location.description, reason: "not a postgres:// URL")
        }
        let address = try PostgresServerAddress.parse(url, shown: location.description)
        var configuration: PostgresClient.Configuration
        switch address.endpoint {
        case .unixSocket(let path):
            configuration = .init(unixSocketPath: path, username: address.username, password: address.password, database: address.database)
        case .tcp(let host, let port):
            // libpq's prefer and require encrypt without checking the certificate (as the history store does).
            var settings = TLSConfiguration.makeClientConfiguration()
            settings.certificateVerification = .none
            let tls: PostgresClient.Configuration.TLS =
                switch address.sslMode {
                case .disable: .disable
                case .prefer: .prefer(settings)
                case .require: .require(settings)
                }
            configuration = .init(host: host, port: port, username: address.username, password: address.password, database: address.database, tls: tls)
        }
        configuration.options.connectTimeout = .milliseconds(Int64(((address.connectTimeout ?? timeout) * 1000).rounded(.up)))
        configuration.options.additionalStartupParameters = [
            ("application_name", "coremotion ingest"),
            ("statement_timeout", "\(Int64((timeout * 1000).rounded(.up)))"),
        ]
        self.init(
            configuration: configuration, locationDescription: location.description, maximumConnections: maximumConnections,
            timeout: timeout, sensorKindLimit: sensorKindLimit, logger: logger)
    }

    deinit {
        runner.cancel()
        try? group.syncShutdownGracefully()
    }

    public func isReachable() -> Bool {
        (try? blocking(seconds: min(timeout, 3)) { [client, logger] in
            try await client.query("SELECT 1", logger: logger).collect().count == 1
        }) ?? false
    }

    public func store(_ push: RawPush, node: String) throws -> Bool {
        let learnedIDs = try blocking(seconds: timeout) { [self] in try await transaction(push, node: node) }
        return remember(learnedIDs)
    }

    /// Stores a push as ``store(_:node:)`` does, awaiting the transaction instead of blocking the thread (for a
    /// caller on the cooperative pool, whose threads the transaction itself needs).
    ///
    /// - Throws: ``PostgresPushStoreError/failed(location:reason:)``.
    public func storeAwaiting(_ push: RawPush, node: String) async throws -> Bool {
        let learnedIDs: (Bool, IDCache)
        do {
            learnedIDs = try await transaction(push, node: node)
        } catch {
            if let refusal = Self.refusal(error) {
                throw RawPushRefused(reason: "\(locationDescription): \(refusal)")
            }
            throw PostgresPushStoreError.failed(location: locationDescription, reason: String(reflecting: error))
        }
        return remember(learnedIDs)
    }

    /// Caches the ids a committed push learned; returns whether the push was new.
    private func remember(_ outcome: (isNew: Bool, learned: IDCache)) -> Bool {
        let learned = outcome.learned
        if !learned.devices.isEmpty || !learned.sensors.isEmpty {
            ids.withLockedValue { cache in
                if cache.devices.count + learned.devices.count > Self.cachedDevicesAtMost {
                    cache.devices.removeAll(keepingCapacity: true)
                }
                cache.devices.merge(learned.devices) { a, _ in a }
                cache.sensors.merge(learned.sensors) { a, _ in a }
            }
        }
        return outcome.isNew
    }

    /// The push's transaction: whether it was new, and the ids it learned. A transaction the server chose
    /// as a deadlock's victim or could not serialise (SQLSTATE 40P01, 40001: nothing of it was written) is
    /// run again, at most twice more, before the push counts as failed (and the node spools it).
    private func transaction(_ push: RawPush, node: String) async throws -> (Bool, IDCache) {
        var attempt = 1
        while true {
            do {
                return try await transactionOnce(push, node: node)
            } catch where attempt < 3 && Self.isTransient(error) {
                attempt += 1
            }
        }
    }

    /// The server's words when `error` is about the push's contents (SQLSTATE class 22, data exception: a NUL
    /// character in a name, a value out of range; class 23, a constraint the push breaks), else `nil`.
    static func refusal(_ error: any Error) -> String? {
        if let failed = error as? PostgresTransactionError {
            return [failed.beginError, failed.closureError, failed.commitError].lazy.compactMap { $0.flatMap(refusal) }.first
        }
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState],
              state.hasPrefix("22") || state.hasPrefix("23") else { return nil }
        return "SQLSTATE \(state): \(error.serverInfo?[.message] ?? "")"
    }

    /// Whether `error` is a deadlock or serialisation failure of the server.
    static func isTransient(_ error: any Error) -> Bool {
        if let failed = error as? PostgresTransactionError {
            return [failed.beginError, failed.closureError, failed.commitError].contains { $0.map(isTransient) ?? false }
        }
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] else { return false }
        return state == "40P01" || state == "40001"
    }

    private func transactionOnce(_ push: RawPush, node: String) async throws -> (Bool, IDCache) {
        // In one order of sensor names and fields, whatever the push's: two pushes of the same phone then take
        // their row locks (chunks, counters) in the same order and never deadlock.
        let sorted = push.series.map(Self.sortedByTime).sorted {
            ($0.sensor, $0.fields.joined(separator: "\u{1F}")) < ($1.sensor, $1.fields.joined(separator: "\u{1F}"))
        }
        let known = ids.withLockedValue { $0 }
        let client = self.client
        let logger = self.logger
        let sensorKindLimit = self.sensorKindLimit
        // New sensor kinds are added before the push's transaction, each in a statement of its own: a row the
        // transaction inserted would stay locked until it commits, and every other push meeting that kind (any
        // phone, any node) would wait for it, up to the statement timeout (57014, measured in CI beside the
        // whole suite on two cores). A kind added for a push that then fails stays, as a name the next push uses.
        var learned = IDCache()
        var sensorIDs: [String: Int16] = [:]
        for series in sorted where series.count > 0 {
            let key = Self.sensorKey(series)
            if let id = known.sensors[key] ?? learned.sensors[key] {
                sensorIDs[key] = id
            } else if let id = try await client.withConnection({ connection in
                try await Self.sensorID(series.sensor, fields: series.fields, limit: sensorKindLimit, connection, logger)
            }) {
                sensorIDs[key] = id
                learned.sensors[key] = id
            } else {
                // The table of sensor kinds is full: a documented skip (docs/history-postgres.md), said in the
                // log at the 1st, 2nd, 4th, 8th … time, so that a phone inventing names cannot flood it.
                let refusals = refusedSensorKinds.withLockedValue { $0 += 1; return $0 }
                if refusals & (refusals - 1) == 0 {
                    logger.warning("""
                        \(locationDescription): \(sensorKindLimit) sensor kinds are stored, the most a \
                        database takes; readings of a new one (\(series.sensor.debugDescription) from device \
                        \(push.device.debugDescription)) are not stored (\(refusals) series so far)
                        """)
                }
            }
        }
        let sensorsLearned = learned.sensors
        return try await client.withTransaction(logger: logger) { connection in
                var learned = IDCache()
                learned.sensors = sensorsLearned
                let device: Int64
                if let id = known.devices[push.device] {
                    device = id
                } else {
                    device = try await Self.deviceID(push.device, seen: push.receivedAt, connection, logger)
                    learned.devices[push.device] = device
                }
                let readings = Int32(clamping: push.readingCount)
                let receipt = try await connection.query(
                    """
                    INSERT INTO coremotion.push_receipt (device, session_id, message_id, received_at, node, sample_count)
                    VALUES (\(device), \(push.session), \(push.messageID), \(push.receivedAt), \(node), \(readings))
                    ON CONFLICT DO NOTHING RETURNING 1
                    """, logger: logger
                ).collect()
                guard !receipt.isEmpty else { return (false, learned) }
                for series in sorted where series.count > 0 {
                    guard let sensor = sensorIDs[Self.sensorKey(series)] else { continue }
                    try await Self.insertChunks(of: series, device: device, sensor: sensor, connection, logger)
                }
                return (true, learned)
            }
    }

    /// The cache's key of a series' sensor kind: its name and fields.
    static func sensorKey(_ series: RawSeries) -> String {
        series.sensor + "\u{1F}" + series.fields.joined(separator: "\u{1F}")
    }

    // MARK: - Statements

    static func deviceID(_ name: String, seen: Date, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int64 {
        let rows = try await connection.query(
            """
            INSERT INTO coremotion.device (name, kind, first_seen, last_seen) VALUES (\(name), 'phone', \(seen), \(seen))
            ON CONFLICT (name) DO UPDATE SET last_seen = greatest(coremotion.device.last_seen, excluded.last_seen)
            RETURNING id
            """, logger: logger
        ).collect()
        guard let row = rows.first else { throw PostgresPushStoreError.noRow("device") }
        return try row.decode(Int64.self)
    }

    /// Sensor kinds (name and fields) a database takes at most, by default: far below the `smallint` ids' 32 767, so that
    /// pushes naming ever new sensors (a hostile or broken sender) cannot use the ids up for every phone. Past
    /// it, readings of a new kind are not stored (logged); every known kind still is. Concurrent transactions
    /// may each add one past the count they saw.
    public static let defaultSensorKindLimit = 1024

    /// The id of a sensor kind, added when new and fewer than `limit` are stored; `nil` when the table is full.
    static func sensorID(
        _ name: String, fields: [String], limit: Int, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> Int16? {
        // Looked up first: an insert that conflicts still draws an id from the identity's sequence.
        func find() async throws -> Int16? {
            let found = try await connection.query(
                "SELECT id FROM coremotion.sensor WHERE name = \(name) AND fields = \(fields)", logger: logger
            ).collect()
            return try found.first?.decode(Int16.self)
        }
        if let id = try await find() { return id }
        // Two nodes meeting a new sensor at once: the conflict makes one insert nothing; the select finds the other's.
        let limit = Int64(limit)
        let inserted = try await connection.query(
            """
            INSERT INTO coremotion.sensor (name, fields)
            SELECT \(name), \(fields) WHERE (SELECT count(*) FROM coremotion.sensor) < \(limit)
            ON CONFLICT (name, fields) DO NOTHING RETURNING id
            """, logger: logger
        ).collect()
        if let row = inserted.first { return try row.decode(Int16.self) }
        return try await find()
    }

    static func insertChunks(
        of series: RawSeries, device: Int64, sensor: Int16, _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        let width = series.fields.count
        let usesDouble = series.sensor == "location"
        var start = 0
        var stored = 0
        var first = Int64.max
        var last = Int64.min
        while start < series.count {
            let t0 = series.microseconds[start]
            var end = start + 1
            while end < series.count, end - start < chunkReadings, series.microseconds[end] - t0 <= chunkSpan { end += 1 }
            let offsets = (start..<end).map { Int32(series.microseconds[$0] - t0) }
            let matrix = arrayLiteral(series.values[(start * width)..<(end * width)], width: width)
            let startTime = PostgresTimestamp(microseconds: t0)
            let endTime = PostgresTimestamp(microseconds: series.microseconds[end - 1])
            let count = Int32(end - start)
            let inserted: [PostgresRow]
            if usesDouble {
                inserted = try await connection.query(
                    """
                    INSERT INTO coremotion.sample_chunk (device, sensor, start_time, end_time, sample_count, offsets, double_values)
                    VALUES (\(device), \(sensor), \(startTime), \(endTime), \(count), \(offsets), \(matrix)::double precision[])
                    ON CONFLICT DO NOTHING RETURNING 1
                    """, logger: logger
                ).collect()
            } else {
                inserted = try await connection.query(
                    """
                    INSERT INTO coremotion.sample_chunk (device, sensor, start_time, end_time, sample_count, offsets, real_values)
                    VALUES (\(device), \(sensor), \(startTime), \(endTime), \(count), \(offsets), \(matrix)::real[])
                    ON CONFLICT DO NOTHING RETURNING 1
                    """, logger: logger
                ).collect()
            }
            if !inserted.isEmpty {
                stored += end - start
                first = min(first, t0)
                last = max(last, series.microseconds[end - 1])
            }
            start = end
        }
        guard stored > 0 else { return }
        let firstTime = PostgresTimestamp(microseconds: first)
        let lastTime = PostgresTimestamp(microseconds: last)
        let total = Int64(stored)
        _ = try await connection.query(
            """
            INSERT INTO coremotion.device_sensor (device, sensor, first_time, last_time, sample_count)
            VALUES (\(device), \(sensor), \(firstTime), \(lastTime), \(total))
            ON CONFLICT (device, sensor) DO UPDATE SET
                first_time = least(coremotion.device_sensor.first_time, excluded.first_time),
                last_time = greatest(coremotion.device_sensor.last_time, excluded.last_time),
                sample_count = coremotion.device_sensor.sample_count + excluded.sample_count
            """, logger: logger
        ).collect()
    }

    /// A two-dimensional array literal (`{{1,2,3},{4,5,6}}`), `width` values per row, with PostgreSQL's
    /// spellings of the special values.
    static func arrayLiteral(_ values: ArraySlice<Double>, width: Int) -> String {
        var text = "{"
        text.reserveCapacity(values.count * 12 + 2)
        var column = 0
        for value in values {
            if column == 0 { text += text.count > 1 ? ",{" : "{" } else { text += "," }
            if value.isNaN {
                text += "NaN"
            } else if value.isInfinite {
                text += value > 0 ? "Infinity" : "-Infinity"
            } else {
                text += "\(value)"
            }
            column += 1
            if column == width {
                text += "}"
                column = 0
            }
        }
        return text + "}"
    }

    static func sortedByTime(_ series: RawSeries) -> RawSeries {
        let times = series.microseconds
        if zip(times, times.dropFirst()).allSatisfy({ $0 <= $1 }) { return series }
        let order = times.indices.sorted { (times[$0], $0) < (times[$1], $1) }
        let width = series.fields.count
        var values: [Double] = []
        values.reserveCapacity(series.values.count)
        for i in order { values.append(contentsOf: series.values[(i * width)..<((i + 1) * width)]) }
        return RawSeries(sensor: series.sensor, fields: series.fields, microseconds: order.map { times[$0] }, values: values)
    }

    /// Runs `work` on a task and waits for it on this thread, at most `seconds`.
    private func blocking<T: Sendable>(seconds: TimeInterval, _ work: @escaping @Sendable () async throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let result = NIOLockedValueBox<Result<T, any Error>?>(nil)
        let task = Task {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
            result.withLockedValue { $0 = outcome }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else {
            task.cancel()
            throw PostgresPushStoreError.timedOut(location: locationDescription, seconds: seconds)
        }
        switch result.withLockedValue({ $0 })! {
        case .success(let value): return value
        case .failure(let error as RawPushRefused): throw error
        case .failure(let error): throw PostgresPushStoreError.failed(location: locationDescription, reason: String(reflecting: error))
        }
    }
}

/// Why a push could not be stored.
public enum PostgresPushStoreError: Error, Sendable, CustomStringConvertible {
    case timedOut(location: String, seconds: TimeInterval)
    case failed(location: String, reason: String)
    case noRow(String)

    public var description: String {
        switch self {
        case .timedOut(let location, let seconds): "the database \(location) did not commit a push within \(seconds) s"
        case .failed(let location, let reason): "the database \(location) failed a push: \(reason.prefix(600))"
        case .noRow(let table): "the database returned no \(table) id"
        }
    }
}
