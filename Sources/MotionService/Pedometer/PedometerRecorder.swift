import Foundation
import MotionEngine
import MotionHistory

/// A live pedometer session: cumulative totals from its start date, reported to `receive`.
final class PedometerSession: @unchecked Sendable {  // @unchecked: `totals`, `lastStepTime`, `changed`, `lastReport` change only under `PedometerRecorder.lock`
    let start: Date
    var totals: PedometerTotals
    var lastStepTime: Double?
    var changed = false
    var lastReport = -Double.infinity
    let receive: @Sendable (PedometerTotals) -> Void

    init(start: Date, totals: PedometerTotals, receive: @escaping @Sendable (PedometerTotals) -> Void) {
        self.start = start
        self.totals = totals
        self.receive = receive
    }
}

/// A client of pause/resume events.
final class PedometerEventClient: Sendable {
    let receive: @Sendable (PedometerPauseEvent) -> Void
    init(receive: @escaping @Sendable (PedometerPauseEvent) -> Void) { self.receive = receive }
}

/// The service's pedometer: once a process uses the pedometer (or activity), it counts steps, floors
/// and pauses from the accelerometer (and barometer) for as long as the process runs, writes them to
/// the history, and feeds the live sessions and event clients.
///
/// Live sessions report at most once a second of device time, when something changed, and at a pause.
final class PedometerRecorder: @unchecked Sendable {  // @unchecked: `engine` is used under the service's delivery `lock`; other vars under `lock`; `service` is weak
    /// The accelerometer rate the pedometer asks for, Hz (the detector resamples to 50 Hz).
    static let accelerometerRate = 100.0
    /// The gyroscope rate the pedometer asks for when the device has one, Hz: the detector uses the
    /// rotation on its 50 Hz grid to refuse rhythmic turning that is not walking (pedalling, shaking).
    static let gyroscopeRate = 50.0
    /// The barometer interval the pedometer asks for, seconds: floors need the altitude at each step
    /// to within a fraction of a floor (3 m), which the 2 s smoothing of the altitude (``PedometerEngine``)
    /// gives from a pressure a second; faster polling would only cost wake-ups (a barometer without a
    /// buffer, like the bmp280, is read once per sample). Apple's altimeter reports about once a second too.
    static let barometerInterval = 1.0
    /// The most often a live session reports, seconds.
    static let reportInterval = 1.0
    /// Steps at most this far apart count as moving time (the history's rule).
    static let activeGap = HistoryStore.maximumActiveStepGap

    private weak var service: MotionService?
    private var engine = PedometerEngine()
    private var inputs: [SensorSubscription] = []
    private var sessions: [PedometerSession] = []
    private var eventClients: [PedometerEventClient] = []
    private var currentTime = -Double.infinity
    private let lock = NSLock()
    /// Serialises ``start()`` (two callers never subscribe the same sensor twice).
    private let startLock = NSLock()

    init(service: MotionService) {
        self.service = service
    }

    /// Starts counting (idempotent). Called again while counting, it takes the gyroscope and barometer
    /// if they became available since (a device that appeared after the start).
    func start() {
        guard let service else { return }
        startLock.lock()
        defer { startLock.unlock() }
        lock.lock()
        let subscribed = Set(inputs.map(\.sensor))
        lock.unlock()
        guard !subscribed.isEmpty || service.has(.accelerometer) else { return }
        var list: [SensorSubscription] = []
        // Recording for the history: samples may come in batches (MotionService.backgroundLatency).
        let latency = MotionService.backgroundLatency
        if !subscribed.contains(.accelerometer), let a = service.subscribe(
            to: .accelerometer, interval: 1 / Self.accelerometerRate, maximumLatency: latency, receive: { [weak self] s in self?.receive(s) }
        ) {
            list.append(a)
        }
        if !subscribed.contains(.gyroscope), service.has(.gyroscope), let g = service.subscribe(
            to: .gyroscope, interval: 1 / Self.gyroscopeRate, maximumLatency: latency, receive: { [weak self] s in self?.receive(s) }
        ) {
            list.append(g)
        }
        if !subscribed.contains(.barometer), service.has(.barometer), let b = service.subscribe(
            to: .barometer, interval: Self.barometerInterval, maximumLatency: latency, receive: { [weak self] s in self?.receive(s) }
        ) {
            list.append(b)
        }
        lock.lock()
        inputs += list
        lock.unlock()
    }

    /// Adds a live session cumulative from `start`: its totals begin with the history from `start` to now.
    func addSession(from start: Date, receive: @escaping @Sendable (PedometerTotals) -> Void) -> PedometerSession? {
        guard let service else { return nil }
        self.start()
        // No event may slip between the history's totals and the session's first live event.
        lock.lock()
        defer { lock.unlock() }
        let now = service.date(at: service.clock.now)
        var totals = PedometerTotals(
            start: start, end: max(start, now), steps: 0, distance: 0, floorsAscended: 0, floorsDescended: 0, activeDuration: 0
        )
        if start < now, let history = service.history,
           let summary = try? history.pedometerSummary(from: start, to: now, source: service.historyQuerySource) {
            totals.steps = summary.steps
            totals.distance = summary.distance
            totals.floorsAscended = summary.floorsAscended
            totals.floorsDescended = summary.floorsDescended
            totals.activeDuration = summary.activeDuration
        }
        let session = PedometerSession(start: start, totals: totals, receive: receive)
        session.changed = totals.steps > 0
        sessions.append(session)
        return session
    }

    func removeSession(_ session: PedometerSession) {
        lock.lock()
        sessions.removeAll { $0 === session }
        lock.unlock()
    }

    func addEventClient(_ receive: @escaping @Sendable (PedometerPauseEvent) -> Void) -> PedometerEventClient {
        start()
        let client = PedometerEventClient(receive: receive)
        lock.lock()
        eventClients.append(client)
        lock.unlock()
        return client
    }

    func removeEventClient(_ client: PedometerEventClient) {
        lock.lock()
        eventClients.removeAll { $0 === client }
        lock.unlock()
    }

    /// The accelerometer stopped (end of a recording, sensor lost): steps still being confirmed are
    /// decided and a walk in progress ends with a pause.
    func finish() {
        lock.lock()
        let running = !inputs.isEmpty
        lock.unlock()
        guard running else { return }
        engine.finish()
        drain(paused: true)
    }

    /// Called under the service's lock, in sample order.
    private func receive(_ sample: SensorSample) {
        engine.add(sample)
        // Gyroscope samples only inform the detector's rhythm test; steps, floors and pauses come
        // out of the accelerometer and barometer samples, so only those are drained.
        if sample.sensor == .gyroscope { return }
        drain(paused: false)
    }

    /// Hands the engine's events to the history, the sessions and the event clients.
    private func drain(paused forcedReport: Bool) {
        guard let service else { return }
        lock.lock()
        defer { lock.unlock() }
        if engine.currentTime.isFinite { currentTime = max(currentTime, engine.currentTime) }
        var steps: [StepRecord] = []
        var floors: [FloorRecord] = []
        var transitions: [PedometerTransitionRecord] = []
        var paused = forcedReport
        while let event = engine.nextEvent() {
            let date = service.date(at: event.time)
            switch event {
            case .step(let t, let length):
                steps.append(StepRecord(date: date, strideLength: length))
                for s in sessions where date >= s.start {
                    s.totals.steps += 1
                    s.totals.distance += length
                    if let last = s.lastStepTime, t - last <= Self.activeGap, t > last { s.totals.activeDuration += t - last }
                    s.lastStepTime = t
                    s.changed = true
                }
            case .floor(_, let ascended):
                floors.append(FloorRecord(date: date, change: ascended ? .ascended : .descended))
                for s in sessions where date >= s.start {
                    if ascended { s.totals.floorsAscended += 1 } else { s.totals.floorsDescended += 1 }
                    s.changed = true
                }
            case .pause:
                transitions.append(PedometerTransitionRecord(date: date, transition: .pause))
                for c in eventClients { c.receive(PedometerPauseEvent(date: date, resumed: false)) }
                paused = true
            case .resume:
                transitions.append(PedometerTransitionRecord(date: date, transition: .resume))
                for c in eventClients { c.receive(PedometerPauseEvent(date: date, resumed: true)) }
            }
        }
        if let history = service.history {
            let source = service.historySource
            do {
                if !steps.isEmpty { try history.append(contentsOf: steps, source: source) }
                if !floors.isEmpty { try history.append(contentsOf: floors, source: source) }
                if !transitions.isEmpty { try history.append(contentsOf: transitions, source: source) }
            } catch {
                service.logger.error("recording pedometer history failed: \(error)")
            }
        }
        let end = service.date(at: currentTime)
        for s in sessions where s.changed && (paused || currentTime - s.lastReport >= Self.reportInterval) {
            s.changed = false
            s.lastReport = currentTime
            var totals = s.totals
            totals.end = max(end, s.start)
            totals.currentCadence = engine.isMoving ? engine.currentCadence : nil
            totals.currentPace = engine.isMoving ? engine.currentPace : nil
            s.receive(totals)
        }
    }
}

extension MotionService {
    var pedometerRecorder: PedometerRecorder {
        recorders.lock.lock()
        defer { recorders.lock.unlock() }
        if let r = recorders.pedometer { return r }
        let r = PedometerRecorder(service: self)
        recorders.pedometer = r
        return r
    }

    /// Starts recording pedometer history (steps, floors, pauses) for as long as the process runs; nothing
    /// without an accelerometer.
    public func startPedometerRecording() {
        if has(.accelerometer) { pedometerRecorder.start() }
    }

    /// A live session cumulative from `start` (history before now included); `receive` runs under the
    /// service's lock. `nil` without an accelerometer.
    public func subscribePedometer(from start: Date, receive: @escaping @Sendable (PedometerTotals) -> Void) -> (any MotionSubscription)? {
        guard has(.accelerometer) else { return nil }
        let recorder = pedometerRecorder
        guard let session = recorder.addSession(from: start, receive: receive) else { return nil }
        return CancellableStream(interval: 0) { recorder.removeSession(session) }
    }

    /// Pause and resume events; `receive` runs under the service's lock. `nil` without an accelerometer.
    public func subscribePedometerEvents(receive: @escaping @Sendable (PedometerPauseEvent) -> Void) -> (any MotionSubscription)? {
        guard has(.accelerometer) else { return nil }
        let recorder = pedometerRecorder
        let client = recorder.addEventClient(receive)
        return CancellableStream(interval: 0) { recorder.removeEventClient(client) }
    }

    /// Totals over `[start, end)` from the history of this device.
    public func pedometerTotals(from start: Date, to end: Date) throws -> PedometerTotals {
        guard let history else { throw MotionProviderError.historyUnavailable(historyProblem ?? "unknown reason") }
        let s = try history.pedometerSummary(from: start, to: end, source: historyQuerySource)
        return PedometerTotals(
            start: start, end: end, steps: s.steps, distance: s.distance, floorsAscended: s.floorsAscended,
            floorsDescended: s.floorsDescended, activeDuration: s.activeDuration
        )
    }
}
