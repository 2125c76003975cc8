import Foundation
import MotionEngine
import MotionHistory

/// A live pedometer session: cumulative totals from its start date, reported to `receive`.
final class PedometerSession: @unchecked Sendable {  // @unchecked: `totals`, `lastStepTime`, `changed`, `lastReport`, `awaitsHistory` change only under `PedometerRecorder.lock`
    let start: Date
    var totals: PedometerTotals
    var lastStepTime: Double?
    var changed = false
    var lastReport = -Double.infinity
    /// Counting live while the history's totals before it are still being read; reports nothing yet.
    var awaitsHistory = false
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
    /// Whether a session's history is being read (``addSession(from:receive:)``).
    private var sessionAwaitsHistory = false
    /// What the engine gave while a session's history was being read, for the history once the read ended:
    /// kept out of the history so that the read counts exactly what was drained before the session was added
    /// (the session counts the rest live). Reads take turns (`historyReadLock`), so this holds the events of
    /// one read at most: a read of the SQLite store waits at most its busy timeout, one of a PostgreSQL
    /// history its query timeout (30 s), and a walk gives about 2 steps a second.
    private var heldBack = HeldBackRecords()
    /// Lets one session at a time read the history: a client that subscribes again and again can then not
    /// keep `heldBack` from the history. Only ``addSession(from:receive:)`` takes it, never the device thread.
    private let historyReadLock = NSLock()
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
    ///
    /// The history is read without the recorder's lock, so the device thread goes on delivering while a slow
    /// history (a PostgreSQL server far away or down) answers. Each event is counted once: the session is
    /// added (and counts live) before the query, and what the engine gives meanwhile goes to the history
    /// only after the query, so the query sees exactly what was drained before the session was added.
    /// Sessions being added take turns for the read.
    func addSession(from start: Date, receive: @escaping @Sendable (PedometerTotals) -> Void) -> PedometerSession? {
        guard let service else { return nil }
        self.start()
        historyReadLock.lock()
        defer { historyReadLock.unlock() }
        lock.lock()
        let now = service.date(at: service.clock.now)
        let session = PedometerSession(
            start: start,
            totals: PedometerTotals(
                start: start, end: max(start, now), steps: 0, distance: 0, floorsAscended: 0, floorsDescended: 0, activeDuration: 0),
            receive: receive)
        session.awaitsHistory = true
        sessions.append(session)
        sessionAwaitsHistory = true
        lock.unlock()

        let history = start < now ? service.history : nil
        let summary = try? history?.pedometerSummary(from: start, to: now, source: service.historyQuerySource)

        lock.lock()
        if let summary {
            session.totals.steps += summary.steps
            session.totals.distance += summary.distance
            session.totals.floorsAscended += summary.floorsAscended
            session.totals.floorsDescended += summary.floorsDescended
            session.totals.activeDuration += summary.activeDuration
        }
        session.awaitsHistory = false
        session.changed = session.totals.steps > 0 || session.totals.floorsAscended + session.totals.floorsDescended > 0
        sessionAwaitsHistory = false
        let released = heldBack
        heldBack = HeldBackRecords()
        record(steps: released.steps, floors: released.floors, transitions: released.transitions)
        lock.unlock()
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
                let step = StepRecord(date: date, strideLength: length)
                steps.append(step)
                for s in sessions where date >= s.start { s.count(step: step, at: t) }
            case .floor(_, let ascended):
                let floor = FloorRecord(date: date, change: ascended ? .ascended : .descended)
                floors.append(floor)
                for s in sessions where date >= s.start { s.count(floor: floor) }
            case .pause:
                transitions.append(PedometerTransitionRecord(date: date, transition: .pause))
                for c in eventClients { c.receive(PedometerPauseEvent(date: date, resumed: false)) }
                paused = true
            case .resume:
                transitions.append(PedometerTransitionRecord(date: date, transition: .resume))
                for c in eventClients { c.receive(PedometerPauseEvent(date: date, resumed: true)) }
            }
        }
        if sessionAwaitsHistory {
            heldBack.steps += steps
            heldBack.floors += floors
            heldBack.transitions += transitions
        } else {
            record(steps: steps, floors: floors, transitions: transitions)
        }
        let end = service.date(at: currentTime)
        for s in sessions where s.changed && !s.awaitsHistory && (paused || currentTime - s.lastReport >= Self.reportInterval) {
            s.changed = false
            s.lastReport = currentTime
            var totals = s.totals
            totals.end = max(end, s.start)
            totals.currentCadence = engine.isMoving ? engine.currentCadence : nil
            totals.currentPace = engine.isMoving ? engine.currentPace : nil
            s.receive(totals)
        }
    }

    /// Appends to the history (which only queues them in memory; its own queue writes them).
    private func record(steps: [StepRecord], floors: [FloorRecord], transitions: [PedometerTransitionRecord]) {
        guard let service, let history = service.history else { return }
        let source = service.historySource
        do {
            if !steps.isEmpty { try history.append(contentsOf: steps, source: source) }
            if !floors.isEmpty { try history.append(contentsOf: floors, source: source) }
            if !transitions.isEmpty { try history.append(contentsOf: transitions, source: source) }
        } catch {
            service.logger.error("recording pedometer history failed: \(error)")
        }
    }
}

/// Events the engine gave while a session's history was read (``PedometerRecorder``).
struct HeldBackRecords {
    var steps: [StepRecord] = []
    var floors: [FloorRecord] = []
    var transitions: [PedometerTransitionRecord] = []
}

extension PedometerSession {
    /// Counts a step at device time `time` (under the recorder's lock).
    func count(step: StepRecord, at time: Double) {
        totals.steps += 1
        totals.distance += step.strideLength
        if let last = lastStepTime, time - last <= PedometerRecorder.activeGap, time > last { totals.activeDuration += time - last }
        lastStepTime = time
        changed = true
    }

    /// Counts a floor change (under the recorder's lock).
    func count(floor: FloorRecord) {
        if floor.change == .ascended { totals.floorsAscended += 1 } else { totals.floorsDescended += 1 }
        changed = true
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
