// The SQLite store: built with the package trait `SQLiteHistory` (on by default); HistoryStore+WithoutSQLite.swift otherwise.
#if SQLiteHistory
import Foundation
import GRDB

/// The motion history: steps, floors, pedometer transitions, activity segments and recorded accelerometer
/// samples in one SQLite file, kept across launches (7 days; 3 for the accelerometer), crash-safe (WAL) and
/// bounded in size.
///
/// Writing is cheap and never blocks on the disk: `append` validates the records and adds them to an
/// in-memory batch; a private queue writes the batch in one transaction at least every
/// ``HistoryConfiguration/flushInterval`` (1 s), as soon as ``HistoryConfiguration/flushThreshold`` records
/// are pending, at ``flush()``, at ``close()`` and when the store is released. A crash loses at most the
/// records of the last interval; committed data survives it (WAL with `synchronous = NORMAL`).
///
/// Queries first write the pending records, so a process always reads what it appended. Records another
/// process appended become visible once that process flushed them (within its flush interval).
///
/// Several processes may open the same file: each opens a GRDB `DatabasePool` (WAL; readers never block the
/// writer), writes wait up to ``HistoryConfiguration/busyTimeout`` for another writer.
///
/// Every record carries a source tag (for example `iio:/sys/bus/iio/devices/iio:device0`, `replay:/path`,
/// `sim:walking`) so that queries can be restricted to one device; pass `nil` to read every source.
public final class HistoryStore: Sendable {
    /// Consecutive steps of one source at most this far apart count as moving time in
    /// ``PedometerSummary/activeDuration``, seconds. Part of schema version 1.
    public static let maximumActiveStepGap: TimeInterval = 2
    /// Longest source tag, characters.
    public static let maximumSourceLength = 1024
    /// Longest accelerometer query span and recording request, seconds (12 h, Apple's limit).
    public static let maximumAccelerometerSpan: TimeInterval = 43_200
    /// While writes keep failing for a reason that is not plainly the surroundings', `PRAGMA quick_check`
    /// looks for damage at most this often, seconds (it reads every page).
    public static let damageCheckInterval: TimeInterval = 60

    /// The settings the store was opened with.
    public let configuration: HistoryConfiguration
    /// Where the history lives.
    public var location: HistoryLocation { configuration.location }

    /// The open database and the identity of its file; replaced when a file found damaged after it was
    /// opened is moved aside (on the flush queue).
    private let connection: LockedState<Connection>
    /// The open database.
    var database: any DatabaseWriter { connection.withLock { $0.writer } }
    /// The file path for messages, or `memory`.
    let path: String
    private let state: LockedState<StoreState>
    let writerState: LockedState<WriterState>
    /// Ids of sources known to be committed (sources are never deleted, so ids are stable).
    let sourceIDs: LockedState<[String: Int64]>
    private let flushQueue: DispatchQueue
    /// The timer of the background flush (and maintenance), on `flushQueue`.
    private let tick: FlushTick

    /// Opens (creating when needed) the history at `location` with the default settings.
    public convenience init(location: HistoryLocation) throws {
        try self.init(configuration: HistoryConfiguration(location: location))
    }

    /// Opens (creating when needed) the history with `configuration`.
    ///
    /// Creates the folder of the file, checks that an existing file is a history store of a known schema
    /// version, migrates it, then deletes records past retention and enforces the size bounds.
    ///
    /// - Throws: ``HistoryError/damagedFile(path:reason:)`` (unless the policy is
    ///   ``DamagedFilePolicy/moveAside``), ``HistoryError/foreignDatabase(path:)``,
    ///   ``HistoryError/newerSchema(path:unknownMigrations:)``, ``HistoryError/cannotCreateFolder(path:reason:)``,
    ///   ``HistoryError/cannotOpen(path:reason:)``.
    public init(configuration: HistoryConfiguration) throws {
        self.configuration = configuration
        path = configuration.location.description
        // The first maintenance reads every table, so it also finds damage the opening checks missed.
        let (database, totals, evicted) = try Self.openAndMaintain(configuration)
        connection = LockedState(Connection(writer: database, identity: Self.identity(of: configuration.location)))
        state = LockedState(StoreState())
        writerState = LockedState(WriterState())
        sourceIDs = LockedState([:])
        flushQueue = DispatchQueue(label: "coremotion.history.flush")
        tick = FlushTick(queue: flushQueue)
        recordMaintenance(totals: totals, evicted: evicted)
        tick.start(every: max(configuration.flushInterval, 0.01)) { [weak self] in
            guard let self, !self.state.withLock({ $0.closed }) else { return }
            self.backgroundFlush()
            self.maintainIfDue()
        }
    }

    deinit {
        tick.cancel()
        // Last reference: nothing else can touch the state now, so write what is pending directly.
        if !state.withLock({ $0.closed }) {
            do { try flushPending() } catch { report(.flushFailed(path: path, reason: "\(error)", pendingRecords: 0)) }
        }
    }

    /// Writes what is pending and closes the file. Later calls throw ``HistoryError/closed(location:)``;
    /// closing twice does nothing.
    public func close() throws {
        let wasClosed = state.withLock { state -> Bool in
            defer { state.closed = true }
            return state.closed
        }
        if wasClosed { return }
        tick.cancel()
        var flushError: (any Error)?
        flushQueue.sync {
            do { try flushPending() } catch { flushError = error }
        }
        // Readers first, so that the writer is the file's last connection in this process: closing it then
        // checkpoints the write-ahead log into the file and removes it (unless another process has it open).
        (database as? DatabasePool)?.releaseMemory()
        do { try database.close() } catch { throw mapError(error, operation: "closing") }
        if let flushError { throw flushError }
    }

    /// Writes every pending record now, in one transaction.
    public func flush() throws {
        try checkOpen()
        try flushQueue.sync { try flushPending() }
    }

    // MARK: - Appending

    /// Adds one step (written at the next flush).
    public func append(_ step: StepRecord, source: String) throws {
        try append(contentsOf: [step], source: source)
    }

    /// Adds steps in any order. Steps are stored to the millisecond; a second step of the same source in the
    /// same millisecond is a duplicate and is ignored.
    ///
    /// - Throws: ``HistoryError/invalidRecord(kind:index:field:value:)`` for a non-finite date or a stride
    ///   outside `0...65.535` m (nothing of the batch is added), ``HistoryError/invalidSource(_:)``,
    ///   ``HistoryError/closed(location:)``.
    public func append(contentsOf steps: [StepRecord], source: String) throws {
        try HistoryValidation.validate(steps: steps, source: source)
        try enqueue(count: steps.count) { $0.steps[source, default: []].append(contentsOf: steps) }
    }

    /// Adds one floor change.
    public func append(_ floor: FloorRecord, source: String) throws {
        try append(contentsOf: [floor], source: source)
    }

    /// Adds floor changes.
    public func append(contentsOf floors: [FloorRecord], source: String) throws {
        try HistoryValidation.validate(floors: floors, source: source)
        try enqueue(count: floors.count) { $0.floors[source, default: []].append(contentsOf: floors) }
    }

    /// Adds one pedometer pause/resume transition.
    public func append(_ transition: PedometerTransitionRecord, source: String) throws {
        try append(contentsOf: [transition], source: source)
    }

    /// Adds pedometer pause/resume transitions.
    public func append(contentsOf transitions: [PedometerTransitionRecord], source: String) throws {
        try HistoryValidation.validate(transitions: transitions, source: source)
        try enqueue(count: transitions.count) { $0.transitions[source, default: []].append(contentsOf: transitions) }
    }

    /// Adds the start of an activity state; it lasts until the next one of the same source.
    ///
    /// When recording stops (the device is released or the process ends), append an
    /// ``ActivityFlags/unknown`` record at that date: otherwise the last state extends over the gap. After a
    /// crash, ``latestRecordDate(source:)`` tells where the last recording ended.
    public func append(_ activity: ActivityRecord, source: String) throws {
        try append(contentsOf: [activity], source: source)
    }

    /// Adds activity state starts.
    public func append(contentsOf activities: [ActivityRecord], source: String) throws {
        try HistoryValidation.validate(activities: activities, source: source)
        try enqueue(count: activities.count) { $0.activities[source, default: []].append(contentsOf: activities) }
    }

    /// Adds accelerometer samples, in increasing date order per source.
    ///
    /// - Throws: ``HistoryError/outOfOrderSample(source:index:date:previous:)`` when a sample is not later
    ///   than the previous sample of its source appended to this store (nothing of the batch is added);
    ///   ``HistoryError/invalidRecord(kind:index:field:value:)`` for a non-finite date or component.
    public func append(contentsOf samples: [AccelerometerRecord], source: String) throws {
        try HistoryValidation.validate(samples: samples, source: source)
        guard !samples.isEmpty else { return }
        try enqueue(count: samples.count) { state in
            state.lastAccelerometerDate[source] = try HistoryValidation.checkOrder(
                of: samples, source: source, after: state.lastAccelerometerDate[source])
            state.pending.accelerometer[source, default: []].append(contentsOf: samples)
        }
    }

    // MARK: - Internals: pending records

    private func enqueue(count: Int, _ add: (inout PendingRecords) throws -> Void) throws {
        try enqueue(count: count) { (state: inout StoreState) in try add(&state.pending) }
    }

    private func enqueue(count: Int, _ add: (inout StoreState) throws -> Void) throws {
        guard count > 0 else { return }
        let startFlush = try state.withLock { state -> Bool in
            if state.closed { throw HistoryError.closed(location: path) }
            try add(&state)
            state.pending.count += count
            if state.pending.count >= configuration.flushThreshold, !state.flushRequested {
                state.flushRequested = true
                return true
            }
            return false
        }
        if startFlush {
            flushQueue.async { [weak self] in self?.backgroundFlush() }
        }
    }

    /// Runs `body` on the flush queue, serialised with flushes and maintenance.
    func flushQueueSync<T>(_ body: () throws -> T) rethrows -> T {
        try flushQueue.sync(execute: body)
    }

    func checkOpen() throws {
        if state.withLock({ $0.closed }) { throw HistoryError.closed(location: path) }
    }

    /// Flushes before a query; a failure is reported and the query reads what is committed.
    func flushBeforeQuery() throws {
        try checkOpen()
        flushQueue.sync { backgroundFlush() }
    }

    private func backgroundFlush() {
        do {
            try flushPending()
        } catch {
            // A damaged file is reported once, when it is found (not every second).
            if writingStopped { return }
            let pending = state.withLock { $0.pending.count }
            report(.flushFailed(path: path, reason: "\(error)", pendingRecords: pending))
        }
    }

    /// Writes the pending batch in one transaction. Runs on the flush queue (or in `deinit`).
    ///
    /// A failure that may come from a damaged file is checked (``damage(after:)``); a damaged file is then
    /// handled by the policy (``handleDamage(_:)``) once: moved aside and replaced by a fresh file that the
    /// batch is written to, or, with ``DamagedFilePolicy/fail``, written no more.
    private func flushPending() throws {
        if let reason = writerState.withLock({ $0.damaged }) {
            // Writing stopped (policy `.fail`): what is appended now cannot be kept.
            state.withLock { $0.pending = PendingRecords() }
            throw HistoryError.damagedFile(path: path, reason: reason)
        }
        let count = state.withLock { $0.pending.count }
        do {
            try writePending()
        } catch {
            guard let reason = damage(after: error) else { throw mapError(error, operation: "writing \(count) records") }
            try handleDamage(reason)
        }
    }

    /// Writes the pending batch; on failure puts it back (or drops it above the pending bound) and rethrows
    /// the database's error.
    private func writePending() throws {
        let batch = state.withLock { state -> PendingRecords in
            state.flushRequested = false
            defer { state.pending = PendingRecords() }
            return state.pending
        }
        guard batch.count > 0 else { return }
        do {
            let known = sourceIDs.withLock { $0 }
            let (inserted, newSources) = try database.write { db in
                var ids = known
                let inserted = try HistoryWriting.write(batch, to: db, sourceIDs: &ids)
                return (inserted, ids)
            }
            sourceIDs.withLock { $0.merge(newSources) { a, _ in a } }
            let overBound = writerState.withLock { writer -> Bool in
                writer.estimate.add(inserted)
                return writer.estimate.exceeds(configuration.limits)
            }
            if overBound { try enforceBounds() }
        } catch {
            var dropped = 0
            state.withLock { state in
                if batch.count + state.pending.count > configuration.maximumPendingRecords {
                    dropped = batch.count
                } else {
                    state.pending.prepend(batch)
                }
            }
            if dropped > 0 { report(.droppedPending(path: path, records: dropped)) }
            throw error
        }
    }

    /// Whether a failed write comes from a damaged file, and why. SQLite's own finding (`SQLITE_CORRUPT`,
    /// `SQLITE_NOTADB`) is taken as it is; any other failure but those of the surroundings (busy, locked,
    /// disk full, permissions, out of memory) runs `PRAGMA quick_check`, at most once every
    /// ``damageCheckInterval`` while writes keep failing.
    private func damage(after error: any Error) -> String? {
        guard case .file = configuration.location else { return nil }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_CORRUPT, .SQLITE_NOTADB:
                return error.message ?? "\(error.resultCode)"
            case .SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_FULL, .SQLITE_NOMEM, .SQLITE_INTERRUPT, .SQLITE_READONLY,
                 .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
                return nil
            default: break
            }
        } else if case .damagedFile(_, let reason) = error as? HistoryError {
            return reason
        }
        let due = writerState.withLock { writer -> Bool in
            if let last = writer.lastDamageCheck, ContinuousClock.now - last < .seconds(Self.damageCheckInterval) { return false }
            writer.lastDamageCheck = .now
            return true
        }
        guard due else { return nil }
        do {
            let lines = try database.writeWithoutTransaction { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            return lines == ["ok"] ? nil : lines.prefix(3).joined(separator: "; ")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
            return error.message ?? "\(error.resultCode)"
        } catch {
            return nil
        }
    }

    /// Handles a file found damaged after it was opened, as a damaged file at open (once; on the flush
    /// queue). With ``DamagedFilePolicy/moveAside``: closes it, moves it and its companions aside (unless
    /// another process already did: the file at the path is no longer the one opened), opens a fresh file,
    /// reports ``HistoryNotice/movedAside(path:movedTo:reason:)`` and writes the pending batch there. With
    /// ``DamagedFilePolicy/fail``, or when the file cannot be replaced: writing stops (records appended
    /// from now on are dropped) and the failure is reported once.
    ///
    /// - Throws: ``HistoryError/damagedFile(path:reason:)`` when writing stopped; the fresh file's error
    ///   when writing there failed.
    private func handleDamage(_ reason: String) throws {
        guard configuration.damagedFilePolicy == .moveAside, case .file(let url) = configuration.location else {
            stopWriting(reason: reason, note: "writing stopped; records appended from now on are dropped until the file is moved aside")
            throw HistoryError.damagedFile(path: path, reason: reason)
        }
        let old = connection.withLock { $0 }
        (old.writer as? DatabasePool)?.releaseMemory()
        try? old.writer.close()
        do {
            var movedTo: URL?
            if let identity = old.identity, identity == HistoryFiles.identity(url.path) {
                movedTo = try Self.moveAside(url, now: configuration.now())
            }
            let (fresh, totals, evicted) = try Self.openAndMaintain(configuration)
            connection.withLock { $0 = Connection(writer: fresh, identity: HistoryFiles.identity(url.path)) }
            // Source ids are the damaged file's; the fresh file numbers its own.
            sourceIDs.withLock { $0 = [:] }
            recordMaintenance(totals: totals, evicted: evicted)
            if let movedTo {
                report(.movedAside(path: path, movedTo: movedTo.path, reason: reason))
            }
        } catch {
            stopWriting(reason: reason, note: "replacing it failed (\(error)); writing stopped")
            throw HistoryError.damagedFile(path: path, reason: reason)
        }
        do { try writePending() } catch { throw mapError(error, operation: "writing records") }
    }

    /// Marks the file damaged (nothing more is written to it), drops what is pending and reports it once.
    private func stopWriting(reason: String, note: String) {
        writerState.withLock { $0.damaged = reason }
        let dropped = state.withLock { state -> Int in
            defer { state.pending = PendingRecords() }
            return state.pending.count
        }
        report(.flushFailed(path: path, reason: "the file is damaged (\(reason)); \(note)", pendingRecords: 0))
        if dropped > 0 { report(.droppedPending(path: path, records: dropped)) }
    }

    /// Whether a write failure was already reported: the file is damaged and writing stopped.
    private var writingStopped: Bool { writerState.withLock { $0.damaged != nil } }

    private func maintainIfDue() {
        let due = writerState.withLock { writer -> Bool in
            guard let last = writer.lastMaintenance else { return true }
            return ContinuousClock.now - last >= .seconds(configuration.maintenanceInterval)
        }
        guard due else { return }
        do { try maintain() } catch {
            if writingStopped { return }
            if case .damagedFile(_, let reason) = error as? HistoryError {
                // Maintenance reads every table: damage it finds is handled as a failed write's.
                do { try handleDamage(reason) } catch {
                    if !writingStopped { report(.flushFailed(path: path, reason: "\(error)", pendingRecords: 0)) }
                }
                return
            }
            report(.flushFailed(path: path, reason: "maintenance: \(error)", pendingRecords: 0))
        }
    }

    /// Hands a notice to the owner's callback, off the flush queue (the callback may use the store).
    func report(_ notice: HistoryNotice) {
        let notify = configuration.notify
        DispatchQueue.global().async { notify(notice) }
    }

    // MARK: - Validation

    // The checks are HistoryValidation's, which the PostgreSQL store shares.

    static func validate(source: String) throws { try HistoryValidation.validate(source: source) }

    static func validate(date: Date, kind: String, index: Int, field: String) throws {
        try HistoryValidation.validate(date: date, kind: kind, index: index, field: field)
    }

    static func validateSpan(_ start: Date, _ end: Date) throws { try HistoryValidation.validateSpan(start, end) }
}



struct StoreState {
    var pending = PendingRecords()
    /// Date of the last accelerometer sample appended per source (order check).
    var lastAccelerometerDate: [String: Date] = [:]
    var closed = false
    var flushRequested = false
}

/// How many records of each kind were written, or are estimated to be stored.
struct RecordCounts: Sendable {
    var steps = 0
    var floorChanges = 0
    var pedometerTransitions = 0
    var activitySegments = 0
    var accelerometerSamples = 0
    var recordingRequests = 0

    mutating func add(_ other: RecordCounts) {
        steps += other.steps
        floorChanges += other.floorChanges
        pedometerTransitions += other.pedometerTransitions
        activitySegments += other.activitySegments
        accelerometerSamples += other.accelerometerSamples
        recordingRequests += other.recordingRequests
    }

    func exceeds(_ limits: HistoryLimits) -> Bool {
        steps > limits.steps || floorChanges > limits.floorChanges
            || pedometerTransitions > limits.pedometerTransitions || activitySegments > limits.activitySegments
            || accelerometerSamples > limits.accelerometerSamples || recordingRequests > limits.recordingRequests
    }
}

struct WriterState {
    var lastMaintenance: ContinuousClock.Instant?
    /// When the last `PRAGMA quick_check` after a failed write ran.
    var lastDamageCheck: ContinuousClock.Instant?
    /// Why the file is damaged, once writing to it stopped (policy `.fail`, or replacing it failed).
    var damaged: String?
    /// Stored counts at the last maintenance plus what this process wrote since (an upper bound when
    /// duplicates were ignored; other processes' writes are seen at the next maintenance).
    var estimate = RecordCounts()
}

/// The store's database and the identity (device, inode) of its file when it has one.
struct Connection {
    var writer: any DatabaseWriter
    var identity: FileIdentity?
}

extension HistoryStore {
    static func identity(of location: HistoryLocation) -> FileIdentity? {
        guard case .file(let url) = location else { return nil }
        return HistoryFiles.identity(url.path)
    }
}
#endif
