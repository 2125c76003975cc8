import Foundation
import Logging
import MotionHistory
import MotionSamples
import NIOCore
import PostgresNIO

/// The motion history in a PostgreSQL database that many machines share: steps, floors, pedometer
/// transitions, activity segments, recorded accelerometer samples and recording requests, with the
/// behaviour of the SQLite ``HistoryStore`` (both pass `Tests/HistoryBehaviourTests`).
///
/// Open it with a ``HistoryConfiguration`` whose location is ``HistoryLocation/postgres(_:)``
/// (`COREMOTION_HISTORY=postgres://…`, `coremotiond --history postgres://…`). The URL forms are those of
/// libpq: `postgres[ql]://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?host=/socket/folder&port=…&sslmode=…]`
/// (`docs/history-postgres.md`). Opening creates the schema `coremotion` (migration 1,
/// `tools/postgres/schema.sql`) when the database has none, and refuses a database written by a newer
/// version.
///
/// **Devices.** Every record's source tag is stored as a row of `coremotion.device` named
/// `<devicePrefix><source>`. The prefix is this machine's id (`/etc/machine-id`, else the host name) and a
/// colon, so that two machines recording the same device spec (`iio:/sys/bus/iio/devices/iio:device0`)
/// stay apart; ``Options/devicePrefix`` overrides it. A query with a `nil` source reads every device whose
/// name starts with the prefix: the history of this machine.
///
/// **Writing.** As the SQLite store: `append` validates and buffers; pending records are written in one
/// transaction every ``HistoryConfiguration/flushInterval``, as soon as
/// ``HistoryConfiguration/flushThreshold`` are pending, at ``flush()``, at ``close()``, before every query
/// and when the store is released. A failed background flush keeps the records pending (up to
/// ``HistoryConfiguration/maximumPendingRecords``; past it the oldest batch is dropped with a
/// ``HistoryNotice/droppedPending(path:records:)``) and is reported through
/// ``HistoryConfiguration/notify`` (``HistoryNotice/flushFailed(path:reason:pendingRecords:)``).
/// Records older than ``HistoryConfiguration/retention`` are deleted for this prefix's devices at open and
/// then every ``HistoryConfiguration/maintenanceInterval``; the SQLite store's size bounds
/// (``HistoryConfiguration/limits``) are not applied (the server's disk is the administrator's).
///
/// **Connection.** One `PostgresConnection` on the store's own one-thread event-loop group, used from one
/// serial queue: calls are synchronous and serialised (a query waits for a running flush). A lost
/// connection is opened again by the next call. Every call is bounded: connecting by
/// ``Options/connectTimeout``, every statement by ``Options/queryTimeout``; a server that is down or does
/// not answer makes the call throw ``HistoryError/serverFailure(location:operation:reason:)`` in that time.
/// Errors and notices name the server by ``HistoryLocation/description``, which hides the password.
public final class PostgresHistoryStore: HistoryStorage {
    /// Settings of the PostgreSQL store that ``HistoryConfiguration`` does not carry.
    public struct Options: Sendable {
        /// The text before every source tag in `coremotion.device.name`; `nil` for this machine's id and a
        /// colon (``defaultDevicePrefix()``). Tests give each store a unique prefix so that they never see
        /// each other's rows.
        public var devicePrefix: String?
        /// The longest wait for a connection (TCP, TLS and login), seconds. A URL's `connect_timeout`
        /// overrides it.
        public var connectTimeout: TimeInterval
        /// The longest wait for any statement or pipelined batch of statements, seconds (also the server's
        /// `statement_timeout`).
        public var queryTimeout: TimeInterval
        /// Receives postgres-nio's log lines; `nil` discards them.
        public var logger: Logger?

        /// Options with the given values; by default the machine's prefix, 10 s to connect and 30 s per
        /// statement.
        public init(devicePrefix: String? = nil, connectTimeout: TimeInterval = 10, queryTimeout: TimeInterval = 30, logger: Logger? = nil) {
            self.devicePrefix = devicePrefix
            self.connectTimeout = connectTimeout
            self.queryTimeout = queryTimeout
            self.logger = logger
        }
    }

    /// The settings the store was opened with.
    public let configuration: HistoryConfiguration
    /// The text before every source tag in `coremotion.device.name`.
    public let devicePrefix: String
    /// The server URL without its password.
    public let locationDescription: String

    let session: PostgresSession
    /// Every database call runs here, one at a time (flushes, queries, maintenance).
    private let queue: DispatchQueue
    private let state = LockedState(StoreState())
    /// Device ids of the source tags known to be committed (device rows are never deleted).
    let deviceIDs = LockedState<[String: Int64]>([:])
    private let lastMaintenance = LockedState<ContinuousClock.Instant>(.now)
    private let tick: FlushTick

    /// Opens the history at `configuration.location` (a ``HistoryLocation/postgres(_:)`` URL) with the
    /// default ``Options``: connects, creates or checks the schema and deletes records past retention.
    ///
    /// - Throws: ``HistoryError/invalidServerURL(_:reason:)`` for a location that is not a usable
    ///   `postgres://` URL, ``HistoryError/newerSchema(path:unknownMigrations:)``,
    ///   ``HistoryError/serverFailure(location:operation:reason:)`` when the server cannot be reached or
    ///   refuses.
    public convenience init(configuration: HistoryConfiguration) throws {
        try self.init(configuration: configuration, options: Options())
    }

    /// Opens the history with `configuration` and `options` (see ``init(configuration:)``).
    public init(configuration: HistoryConfiguration, options: Options) throws {
        let location = configuration.location.description
        guard case .postgres(let url) = configuration.location else {
            throw HistoryError.invalidServerURL(location, reason: "not a postgres:// URL")
        }
        let address = try PostgresServerAddress.parse(url, shown: location)
        let connectionConfiguration: PostgresConnection.Configuration
        do {
            connectionConfiguration = try address.connectionConfiguration(
                connectTimeout: options.connectTimeout, statementTimeout: options.queryTimeout)
        } catch {
            throw HistoryError.serverFailure(location: location, operation: "preparing TLS", reason: "\(error)")
        }
        let prefix = options.devicePrefix ?? Self.defaultDevicePrefix()
        let session = PostgresSession(
            configuration: connectionConfiguration, connectTimeout: address.connectTimeout ?? options.connectTimeout,
            queryTimeout: options.queryTimeout,
            logger: options.logger ?? Logger(label: "coremotion.history.postgres", factory: { _ in SwiftLogNoOpLogHandler() }),
            location: location)
        do {
            try PostgresMigrations.migrate(session)
            // Retention is for a daemon's own devices. A store for every device (prefix "", what `coremotion
            // history` opens) deletes nothing: opening one applied a tool's retention to every phone and
            // machine of the database (and, in the tests, to other tests' records while they ran).
            if !prefix.isEmpty {
                try PostgresMaintenance.applyRetention(session, devicePrefix: prefix, now: configuration.now(), retention: configuration.retention)
            }
        } catch {
            session.shutdown()
            throw error
        }
        self.configuration = configuration
        self.devicePrefix = prefix
        self.locationDescription = location
        self.session = session
        let queue = DispatchQueue(label: "coremotion.history.postgres")
        self.queue = queue
        tick = FlushTick(queue: queue)
        tick.start(every: max(configuration.flushInterval, 0.01)) { [weak self] in
            guard let self, !self.state.withLock({ $0.closed }) else { return }
            self.flushReportingFailure()
            self.maintainIfDue()
        }
    }

    deinit {
        tick.cancel()
        // The last reference: nothing else uses the store, so what is pending is written here.
        let open = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        if open {
            do { try flushPending() } catch { report(.flushFailed(path: locationDescription, reason: "\(error)", pendingRecords: 0)) }
            session.shutdownInBackground()
        }
    }

    /// This machine's device prefix: the contents of `/etc/machine-id` (trimmed), else the host name,
    /// followed by a colon.
    public static func defaultDevicePrefix() -> String {
        if let text = try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8) {
            let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !id.isEmpty { return id + ":" }
        }
        return ProcessInfo.processInfo.hostName + ":"
    }

    /// The `coremotion.device.kind` of a source tag: `iio…` a machine's own sensors, `replay:` a recording,
    /// `sim:` the simulator, anything else `other`.
    static func deviceKind(of source: String) -> String {
        if source.hasPrefix("iio") { return "machine" }
        if source.hasPrefix("replay:") { return "replay" }
        if source.hasPrefix("sim:") { return "simulation" }
        return "other"
    }

    // MARK: - Closing and flushing

    /// Writes what is pending and closes the connection. Later calls throw
    /// ``HistoryError/closed(location:)``; closing twice does nothing.
    public func close() throws {
        let wasClosed = state.withLock { state -> Bool in
            defer { state.closed = true }
            return state.closed
        }
        if wasClosed { return }
        tick.cancel()
        let flushError: (any Error)? = queue.sync {
            defer { state.withLock { $0.disconnected = true } }
            do { try flushPending() } catch { return error }
            return nil
        }
        session.shutdown()
        if let flushError { throw flushError }
    }

    /// Writes every pending record now, in one transaction.
    public func flush() throws {
        try checkOpen()
        try queue.sync { try flushPending() }
    }

    /// Deletes this prefix's records past retention now (the store does it at open and then every
    /// ``HistoryConfiguration/maintenanceInterval``).
    public func performMaintenance() throws {
        try checkOpen()
        try queue.sync {
            try flushPending()
            try maintain()
        }
    }

    // MARK: - Appending

    /// Adds steps in any order; a second step of the same source in the same millisecond is ignored.
    ///
    /// - Throws: ``HistoryError/invalidRecord(kind:index:field:value:)``, ``HistoryError/invalidSource(_:)``,
    ///   ``HistoryError/closed(location:)``.
    public func append(contentsOf steps: [StepRecord], source: String) throws {
        try HistoryValidation.validate(steps: steps, source: source)
        try enqueue(count: steps.count) { $0.pending.steps[source, default: []].append(contentsOf: steps) }
    }

    /// Adds floor changes (one per source and microsecond).
    public func append(contentsOf floors: [FloorRecord], source: String) throws {
        try HistoryValidation.validate(floors: floors, source: source)
        try enqueue(count: floors.count) { $0.pending.floors[source, default: []].append(contentsOf: floors) }
    }

    /// Adds pedometer pause/resume transitions (one per source and microsecond).
    public func append(contentsOf transitions: [PedometerTransitionRecord], source: String) throws {
        try HistoryValidation.validate(transitions: transitions, source: source)
        try enqueue(count: transitions.count) { $0.pending.transitions[source, default: []].append(contentsOf: transitions) }
    }

    /// Adds activity state starts; each lasts until the next one of the same source (one per source and
    /// microsecond).
    public func append(contentsOf activities: [ActivityRecord], source: String) throws {
        try HistoryValidation.validate(activities: activities, source: source)
        try enqueue(count: activities.count) { $0.pending.activities[source, default: []].append(contentsOf: activities) }
    }

    /// Adds accelerometer samples, in increasing date order per source.
    ///
    /// - Throws: ``HistoryError/outOfOrderSample(source:index:date:previous:)`` when a sample is not later
    ///   than the previous sample of its source appended to this store (nothing of the batch is added).
    public func append(contentsOf samples: [AccelerometerRecord], source: String) throws {
        try HistoryValidation.validate(samples: samples, source: source)
        try enqueue(count: samples.count) { state in
            state.lastAccelerometerDate[source] = try HistoryValidation.checkOrder(
                of: samples, source: source, after: state.lastAccelerometerDate[source])
            state.pending.accelerometer[source, default: []].append(contentsOf: samples)
        }
    }

    // MARK: - Internals

    private func enqueue(count: Int, _ add: (inout StoreState) throws -> Void) throws {
        guard count > 0 else { return }
        let startFlush = try state.withLock { state -> Bool in
            if state.closed { throw HistoryError.closed(location: locationDescription) }
            try add(&state)
            state.pending.count += count
            if state.pending.count >= configuration.flushThreshold, !state.flushRequested {
                state.flushRequested = true
                return true
            }
            return false
        }
        if startFlush {
            queue.async { [weak self] in self?.flushReportingFailure() }
        }
    }

    func checkOpen() throws {
        if state.withLock({ $0.closed }) { throw HistoryError.closed(location: locationDescription) }
    }

    /// Runs a read on the queue after writing what is pending (a failed flush is reported and the query
    /// reads what is committed).
    func read<T>(operation: String, flushFirst: Bool = true, _ body: () throws -> T) throws -> T {
        try checkOpen()
        return try queue.sync {
            if state.withLock({ $0.disconnected }) { throw HistoryError.closed(location: locationDescription) }
            if flushFirst { flushReportingFailure() }
            do { return try body() } catch { throw session.failure(error, operation: operation) }
        }
    }

    /// Runs a write outside the batch (a recording request) on the queue.
    func write<T>(operation: String, _ body: () throws -> T) throws -> T {
        try read(operation: operation, flushFirst: false, body)
    }

    /// A flush on the queue whose failure goes to `notify`.
    private func flushReportingFailure() {
        do {
            try flushPending()
        } catch {
            let pending = state.withLock { $0.pending.count }
            report(.flushFailed(path: locationDescription, reason: "\(error)", pendingRecords: pending))
        }
    }

    /// Writes the pending batch in one transaction; on failure puts it back (or drops it past the pending
    /// bound) and throws. On the queue (or in `deinit`).
    private func flushPending() throws {
        if state.withLock({ $0.disconnected }) { return }
        let batch = state.withLock { state -> PendingRecords in
            state.flushRequested = false
            defer { state.pending = PendingRecords() }
            return state.pending
        }
        guard batch.count > 0 else { return }
        do {
            let known = deviceIDs.withLock { $0 }
            let ids = try session.transaction(operation: "writing \(batch.count) records") { () throws -> [String: Int64] in
                var writing = PostgresWriting(session: session, devicePrefix: devicePrefix, deviceIDs: known)
                return try writing.write(batch)
            }
            deviceIDs.withLock { $0.merge(ids) { a, _ in a } }
        } catch {
            var dropped = 0
            state.withLock { state in
                if batch.count + state.pending.count > configuration.maximumPendingRecords {
                    dropped = batch.count
                } else {
                    state.pending.prepend(batch)
                }
            }
            if dropped > 0 { report(.droppedPending(path: locationDescription, records: dropped)) }
            throw session.failure(error, operation: "writing \(batch.count) records")
        }
    }

    private func maintainIfDue() {
        let due = lastMaintenance.withLock { ContinuousClock.now - $0 >= .seconds(configuration.maintenanceInterval) }
        guard due else { return }
        do { try maintain() } catch {
            report(.flushFailed(path: locationDescription, reason: "maintenance: \(error)", pendingRecords: 0))
        }
    }

    /// Retention; on the queue.
    private func maintain() throws {
        lastMaintenance.withLock { $0 = .now }
        guard !devicePrefix.isEmpty else { return }
        try PostgresMaintenance.applyRetention(
            session, devicePrefix: devicePrefix, now: configuration.now(), retention: configuration.retention)
    }

    /// Hands a notice to the owner's callback, off the queue (the callback may use the store).
    private func report(_ notice: HistoryNotice) {
        let notify = configuration.notify
        DispatchQueue.global().async { notify(notice) }
    }
}

/// What the store keeps between flushes.
struct StoreState {
    var pending = PendingRecords()
    /// Date of the last accelerometer sample appended per source (order check).
    var lastAccelerometerDate: [String: Date] = [:]
    /// Set by `close()`: appends and queries throw.
    var closed = false
    /// Set once `close()` wrote the last batch: the connection is gone.
    var disconnected = false
    var flushRequested = false
}


