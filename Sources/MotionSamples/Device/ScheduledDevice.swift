import Foundation

/// A device that plays a ``SampleSource`` against a clock: the replay and simulator devices.
///
/// Source time `t` is delivered at clock time `origin + (t − t₀) / speed`, where `origin` is the
/// clock's time when the device was made and `t₀` the source's start time (its first motion sample;
/// samples logged earlier by a slower sensor play at once): a recording
/// starts playing when the process starts, whether or not anyone listens, as the world does for a
/// real sensor. Only the sensors asked for are delivered.
///
/// On a ``SystemClock`` a background thread wakes at each sample's time (batching samples due within
/// the same millisecond). On a ``VirtualClock`` the samples are delivered synchronously inside
/// `advance`, so a test sees every sample up to the new time as soon as `advance` returns.
public final class ScheduledDevice: MotionDevice, @unchecked Sendable {
    public let name: String
    public let clock: any MotionClock
    public let sensors: [SensorKind: SensorDescription]

    /// Playback speed factor (2 = twice as fast).
    public let speed: Double
    /// Whether the source starts over at its end.
    public let loop: Bool

    // Cursor state, guarded by `cursorLock`.
    private let cursorLock = NSLock()
    private var source: any SampleSource
    private var pending: SensorSample?
    private var sourceStart: Double?
    private var loopOffset: Double = 0
    private var loopSpan: Double = 0
    private var ended = false
    private let origin: TimeInterval

    // Run state, guarded by `stateLock`.
    private let stateLock = NSCondition()
    private var active: Set<SensorKind> = []
    private var sink: SampleSink?
    private var events: DeviceEventSink?
    private var driverRunning = false
    private var driverGeneration = 0
    private var observerToken: Int?

    public init(name: String, source: some SampleSource, clock: any MotionClock, speed: Double = 1, loop: Bool = false) {
        precondition(speed > 0 && speed.isFinite, "speed must be positive")
        self.name = name
        self.clock = clock
        // Rates as seen on the clock: a recording played twice as fast delivers twice as often.
        self.sensors = source.sensors.mapValues { d in
            var scaled = d
            scaled.minimumRate *= speed
            scaled.maximumRate *= speed
            scaled.availableRates = d.availableRates?.map { $0 * speed }
            return scaled
        }
        self.speed = speed
        self.loop = loop
        self.source = source
        self.origin = clock.now
        self.pending = self.source.next()
        self.sourceStart = source.startTime ?? pending?.time
        if let virtual = clock as? VirtualClock {
            observerToken = virtual.addObserver { [weak self] t in self?.emitDue(until: t) }
        }
    }

    deinit {
        if let token = observerToken, let virtual = clock as? VirtualClock { virtual.removeObserver(token) }
    }

    /// Clock time at which source time `t` is delivered.
    private func deviceTime(_ t: Double) -> TimeInterval {
        origin + (t + loopOffset - (sourceStart ?? 0)) / speed
    }

    public func run(_ rates: [SensorKind: Double], sink: @escaping SampleSink, events: @escaping DeviceEventSink) {
        stateLock.lock()
        let wasIdle = active.isEmpty
        active = Set(rates.keys).intersection(sensors.keys)
        self.sink = sink
        self.events = events
        let nowActive = !active.isEmpty
        if clock.isVirtual {
            stateLock.unlock()
            return
        }
        if nowActive && wasIdle {
            // Samples that fell due while nobody listened are gone, as on a real sensor.
            stateLock.unlock()
            skip(until: clock.now)
            stateLock.lock()
        }
        if nowActive && !driverRunning {
            driverRunning = true
            driverGeneration += 1
            let generation = driverGeneration
            let thread = Thread { [weak self] in self?.drive(generation: generation) }
            thread.name = "coremotion.device"
            thread.qualityOfService = .userInteractive
            thread.start()
        } else if !nowActive && driverRunning {
            driverRunning = false
            stateLock.broadcast()
        }
        stateLock.unlock()
    }

    /// Discards the samples due up to `time`.
    private func skip(until time: TimeInterval) {
        cursorLock.lock()
        defer { cursorLock.unlock() }
        while let s = pending, deviceTime(s.time) <= time { advanceCursor() }
    }

    /// Moves to the next sample, looping if asked. Caller holds `cursorLock`.
    private func advanceCursor() {
        let last = pending
        pending = source.next()
        if pending == nil, loop, let last, let start = sourceStart {
            let period = (sensors.values.map(\.minimumInterval).min() ?? 0.01) * speed
            loopSpan = last.time - start + period
            loopOffset += loopSpan
            source.rewind()
            pending = source.next()
        }
    }

    /// Delivers every due sample of an active sensor, up to clock time `time`.
    func emitDue(until time: TimeInterval) {
        stateLock.lock()
        let active = self.active
        let sink = self.sink
        let events = self.events
        stateLock.unlock()
        cursorLock.lock()
        var endedNow = false
        while let s = pending {
            let t = deviceTime(s.time)
            if t > time { break }
            advanceCursor()
            if active.contains(s.sensor), let sink { sink(s.at(time: t)) }
        }
        if pending == nil && !ended {
            ended = true
            endedNow = true
        }
        cursorLock.unlock()
        if endedNow { events?(.endOfData) }
    }

    /// The clock time of the next sample, if any.
    private var nextDue: TimeInterval? {
        cursorLock.lock()
        defer { cursorLock.unlock() }
        return pending.map { deviceTime($0.time) }
    }

    private func drive(generation: Int) {
        while true {
            stateLock.lock()
            let keepGoing = driverRunning && driverGeneration == generation
            stateLock.unlock()
            guard keepGoing else { return }
            emitDue(until: clock.now)
            guard let due = nextDue else {
                // End of a finite source: nothing more will come.
                stateLock.lock()
                if driverGeneration == generation { driverRunning = false }
                stateLock.unlock()
                return
            }
            let wait = min(max(due - clock.now, 0), 0.05)
            if wait > 0.0005 {
                stateLock.lock()
                if driverRunning && driverGeneration == generation {
                    _ = stateLock.wait(until: Date().addingTimeInterval(wait))
                }
                stateLock.unlock()
            } else if wait > 0 {
                // Shorter than a condition wait is worth: sleep rather than spin (the kernel's timer
                // slack, ≈ 50 µs, may deliver a sample that late; its timestamp stays the scheduled one).
                // At 10 kHz this costs a few per cent of a core instead of all of it.
                usleep(UInt32(max(1, wait * 1e6)))
            }
        }
    }
}
