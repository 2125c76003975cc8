import Foundation
import MotionEngine
import MotionHistory

/// A live activity client.
final class ActivityClient: Sendable {
    let receive: @Sendable (ActivityReport) -> Void
    init(receive: @escaping @Sendable (ActivityReport) -> Void) { self.receive = receive }
}

/// The service's activity recognition: once a process uses activity (or the pedometer), it classifies
/// the accelerometer for as long as the process runs, writes each state change to the history, and
/// feeds the live clients (each gets the current state first, then changes only).
///
/// When recording starts after an earlier run of this device ended, an `unknown` state is written at the
/// end of that run, so that the gap reads as unknown rather than as the last state.
final class ActivityRecorder: @unchecked Sendable {  // @unchecked: every var is guarded by `lock`; `service` is weak and never reassigned
    /// The accelerometer interval activity recognition asks for, seconds (50 Hz; the classifier resamples
    /// to 25 Hz).
    static let accelerometerInterval = 0.02

    private weak var service: MotionService?
    private var classifier: ActivityClassifier?
    private var tracker = ActivityTracker()
    private var input: SensorSubscription?
    /// A `start()` is between its checks and its subscription: a second one returns at once.
    private var starting = false
    private var clients: [ActivityClient] = []
    private var current: ActivityReport?
    private let lock = NSLock()

    init(service: MotionService) {
        self.service = service
    }

    /// Starts recognising (idempotent). Returns false when the model cannot be loaded or there is no
    /// accelerometer.
    @discardableResult
    func start() -> Bool {
        guard let service, service.has(.accelerometer) else { return false }
        lock.lock()
        if input != nil || starting {
            lock.unlock()
            return true
        }
        if classifier == nil {
            do {
                classifier = try ActivityClassifier()
            } catch {
                lock.unlock()
                service.logger.error("activity model unavailable: \(error)")
                return false
            }
        }
        starting = true
        lock.unlock()
        if let history = service.history, let last = try? history.latestRecordDate(source: service.historySource) {
            try? history.append(
                ActivityRecord(startDate: last.addingTimeInterval(0.001), flags: .unknown, confidence: .low), source: service.historySource
            )
        }
        // Recording for the history: samples may come in batches (MotionService.backgroundLatency).
        let s = service.subscribe(to: .accelerometer, interval: Self.accelerometerInterval, maximumLatency: MotionService.backgroundLatency) { [weak self] sample in
            self?.receive(sample)
        }
        lock.lock()
        input = s
        starting = false
        lock.unlock()
        return true
    }

    /// Adds a live client; it receives the current state at once when one is known.
    func addClient(_ receive: @escaping @Sendable (ActivityReport) -> Void) -> ActivityClient? {
        guard start() else { return nil }
        let client = ActivityClient(receive: receive)
        lock.lock()
        clients.append(client)
        let now = current
        lock.unlock()
        if let now { receive(now) }
        return client
    }

    func removeClient(_ client: ActivityClient) {
        lock.lock()
        clients.removeAll { $0 === client }
        lock.unlock()
    }

    /// The accelerometer stopped (end of a recording, sensor lost): the state becomes unknown.
    func interrupt(at time: TimeInterval) {
        lock.lock()
        defer { lock.unlock() }
        classifier?.reset()
        if let state = tracker.interrupt(at: time) { publish(state, time: time) }
    }

    /// Called under the service's lock, in sample order.
    private func receive(_ sample: SensorSample) {
        lock.lock()
        defer { lock.unlock() }
        guard let estimate = classifier?.add(sample), let state = tracker.update(estimate) else { return }
        publish(state, time: estimate.time)
    }

    /// Hands a new state to the clients and the history. Caller holds `lock`.
    private func publish(_ state: ActivityState, time: TimeInterval) {
        guard let service else { return }
        let report = ActivityReport(
            startDate: service.date(at: state.startTime), timestamp: time, flags: state.flags, confidence: state.confidence
        )
        current = report
        for c in clients { c.receive(report) }
        guard let history = service.history else { return }
        do {
            try history.append(
                ActivityRecord(startDate: report.startDate, flags: state.flags, confidence: state.confidence),
                source: service.historySource
            )
        } catch {
            service.logger.error("recording activity history failed: \(error)")
        }
    }
}

extension MotionService {
    var activityRecorder: ActivityRecorder {
        recorders.lock.lock()
        defer { recorders.lock.unlock() }
        if let r = recorders.activity { return r }
        let r = ActivityRecorder(service: self)
        recorders.activity = r
        return r
    }

    /// Starts recording activity history for as long as the process runs; nothing without an accelerometer
    /// (or when the model cannot be loaded, which is logged).
    public func startActivityRecording() {
        if has(.accelerometer) { _ = activityRecorder.start() }
    }

    /// Live activity: the current state first (when known, at once), then changes; `receive` runs under the
    /// service's lock. `nil` when activity cannot be recognised on this device.
    public func subscribeActivity(receive: @escaping @Sendable (ActivityReport) -> Void) -> (any MotionSubscription)? {
        let recorder = activityRecorder
        guard let client = recorder.addClient(receive) else { return nil }
        return CancellableStream(interval: 0) { recorder.removeClient(client) }
    }

    /// The activity states of this device overlapping `[start, end]`; the first may begin before `start`.
    public func activityHistory(from start: Date, to end: Date) throws -> [ActivityReport] {
        guard let history else { throw MotionProviderError.historyUnavailable(historyProblem ?? "unknown reason") }
        return try history.activities(from: start, to: end, source: historyQuerySource).map { s in
            ActivityReport(startDate: s.startDate, timestamp: clock.time(at: s.startDate), flags: s.flags, confidence: s.confidence)
        }
    }
}
