import Foundation

/// A device that plays a ``SampleSource`` against a clock: the replay and simulator devices.
///
/// Source time `t` is delivered at clock time `origin + (t − t₀) / speed`, where `origin` is the
/// clock's time when the device was made and `t₀` the source's start time (its first motion sample;
/// samples logged earlier by a slower sensor play at once): a recording
/// starts playing when the process starts, whether or not anyone listens, as the world does for a
/// real sensor. Only the sensors asked for are delivered.
///
/// On a ``SystemClock`` a background thread (a ``DueTimeDriver``) wakes at each sample's time while
/// anything is asked (batching samples due within the same millisecond). On a ``VirtualClock`` the
/// samples are delivered synchronously inside `advance`, so a test sees every sample up to the new time
/// as soon as `advance` returns.
///
/// The source's location fixes (``SampleSource/locations``) play on the same schedule, merged in time
/// order with the samples, to the sink of ``runLocation(_:)``; the device remembers the last fix
/// that played, delivered or not, and gives it first when fixes start. When the source loops,
/// fixes later than its last sample are dropped.
public final class ScheduledDevice: MotionDevice, @unchecked Sendable {  // @unchecked: the cursor is guarded by `cursorLock`, the run state by `stateLock`
    public let name: String
    public let clock: any MotionClock
    public let sensors: [SensorKind: SensorDescription]
    public let model: String?
    public let locationDescription: LocationDescription?

    /// Playback speed factor (2 = twice as fast).
    public let speed: Double
    /// Whether the source starts over at its end.
    public let loop: Bool

    /// Serialises hand-over to the sinks, so that samples and fixes leave in order whoever plays them; never
    /// taken with `cursorLock` or `stateLock` held, so a stalled sink stalls only the deliveries.
    private let deliveryLock = NSLock()
    /// The samples one `emitDue` hands over, kept between calls so that a step allocates nothing, and the
    /// fixes among them, each with the number of samples before it (guarded by `deliveryLock`).
    private var dueSamples: [SensorSample] = []
    private var dueFixes: [(after: Int, fix: TimedLocation)] = []
    // Cursor state, guarded by `cursorLock` (never held while a sink runs).
    private let cursorLock = NSLock()
    private var source: any SampleSource
    private var pending: SensorSample?
    private var sourceStart: Double?
    private var loopOffset: Double = 0
    private var loopSpan: Double = 0
    private var ended = false
    private let origin: TimeInterval
    private let fixes: [TimedLocation]
    private var fixCursor = 0
    /// The last fix that played (stamped on the clock), delivered or not.
    private var lastFix: TimedLocation?

    // Run state, guarded by `stateLock`.
    private let stateLock = NSLock()
    private var active: Set<SensorKind> = []
    private var sink: SampleSink?
    private var events: DeviceEventSink?
    private var locationSink: LocationSink?
    /// Plays the due samples and fixes: in `advance` on a virtual clock, on a thread while busy otherwise.
    private let driver: DueTimeDriver

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
        self.driver = DueTimeDriver(clock: clock, name: "coremotion.device", pollInterval: 0.05)
        self.model = source.model
        let fixes = source.locations
        self.fixes = fixes
        if fixes.isEmpty {
            self.locationDescription = nil
        } else {
            let span = (fixes.last?.time ?? 0) - (fixes.first?.time ?? 0)
            self.locationDescription = LocationDescription(
                name: name, hasAltitude: fixes.contains { $0.fusableAltitude != nil },
                typicalInterval: fixes.count > 1 ? span / Double(fixes.count - 1) / speed : 1)
        }
        self.pending = self.source.next()
        self.sourceStart = source.startTime ?? pending?.time ?? fixes.first?.time
        driver.bind(step: { [weak self] t in self?.emitDue(until: t) }, nextDue: { [weak self] in self?.nextDue })
    }

    /// Clock time at which source time `t` is delivered.
    private func deviceTime(_ t: Double) -> TimeInterval {
        origin + (t + loopOffset - (sourceStart ?? 0)) / speed
    }

    public func run(_ rates: [SensorKind: Double], sink: @escaping SampleSink, events: @escaping DeviceEventSink) {
        stateLock.lock()
        let wasIdle = isIdle
        active = Set(rates.keys).intersection(sensors.keys)
        self.sink = sink
        self.events = events
        updateDriver(wasIdle: wasIdle)
    }

    public func runLocation(_ sink: LocationSink?) {
        stateLock.lock()
        let wasIdle = isIdle
        let starting = locationSink == nil && sink != nil
        locationSink = sink
        updateDriver(wasIdle: wasIdle)
        guard starting, let sink else { return }
        // The last known fix first (under the delivery lock: in order with whatever plays next).
        deliveryLock.lock()
        defer { deliveryLock.unlock() }
        cursorLock.lock()
        let fix = lastFix
        cursorLock.unlock()
        if let fix { sink(fix) }
    }

    /// Whether nothing is asked of the device. Caller holds `stateLock`.
    private var isIdle: Bool { active.isEmpty && locationSink == nil }

    /// Starts or stops the driver for the new state; called holding `stateLock`, returns without it.
    private func updateDriver(wasIdle: Bool) {
        if clock.isVirtual {
            stateLock.unlock()
            return
        }
        if !isIdle && wasIdle {
            // Samples that fell due while nobody listened are gone, as on a real sensor.
            stateLock.unlock()
            skip(until: clock.now)
            stateLock.lock()
        }
        driver.setBusy(!isIdle)
        stateLock.unlock()
    }

    /// Discards the samples and fixes due up to `time` (remembering the last fix).
    private func skip(until time: TimeInterval) {
        cursorLock.lock()
        defer { cursorLock.unlock() }
        while true {
            if let fix = dueFix(until: time, before: pending.map { deviceTime($0.time) }) {
                lastFix = fix
            } else if let s = pending?.time, deviceTime(s) <= time {
                advanceCursor()
            } else {
                break
            }
        }
    }

    /// The next fix, stamped on the clock and consumed, if it plays at or before `time` and not after
    /// the next sample (`sampleTime`). Caller holds `cursorLock`.
    private func dueFix(until time: TimeInterval, before sampleTime: TimeInterval?) -> TimedLocation? {
        guard fixCursor < fixes.count else { return nil }
        let t = deviceTime(fixes[fixCursor].time)
        guard t <= time, sampleTime.map({ t <= $0 }) ?? true else { return nil }
        var fix = fixes[fixCursor]
        fix.time = t
        fixCursor += 1
        return fix
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
            // Fixes later than the last sample are dropped; the next pass plays them all again.
            fixCursor = 0
        }
    }

    /// Delivers every due sample of an active sensor, and every due fix when fixes run, up to clock
    /// time `time`.
    func emitDue(until time: TimeInterval) {
        deliveryLock.lock()
        defer { deliveryLock.unlock() }
        stateLock.lock()
        let active = self.active
        let sink = self.sink
        let events = self.events
        let locationSink = self.locationSink
        stateLock.unlock()
        // Collected under the cursor lock, handed over without it.
        var samples = dueSamples
        var dueFixes = self.dueFixes
        dueSamples = []
        self.dueFixes = []
        cursorLock.lock()
        var endedNow = false
        while true {
            let sampleTime = pending.map { deviceTime($0.time) }
            if let fix = dueFix(until: time, before: sampleTime) {
                lastFix = fix
                if locationSink != nil { dueFixes.append((samples.count, fix)) }
                continue
            }
            guard let s = pending, let t = sampleTime, t <= time else { break }
            advanceCursor()
            if active.contains(s.sensor), sink != nil { samples.append(s.at(time: t)) }
        }
        if pending == nil && fixCursor >= fixes.count && !ended {
            ended = true
            endedNow = true
        }
        cursorLock.unlock()
        if dueFixes.isEmpty {
            if let sink { for sample in samples { sink(sample) } }
        } else {
            // In time order: each fix after the samples that played before it.
            var next = 0
            for (after, fix) in dueFixes {
                while next < after { sink?(samples[next]); next += 1 }
                locationSink?(fix)
            }
            while next < samples.count { sink?(samples[next]); next += 1 }
        }
        samples.removeAll(keepingCapacity: true)
        dueFixes.removeAll(keepingCapacity: true)
        dueSamples = samples
        self.dueFixes = dueFixes
        if endedNow { events?(.endOfData) }
    }

    /// The clock time of the next sample or fix, if any.
    private var nextDue: TimeInterval? {
        cursorLock.lock()
        defer { cursorLock.unlock() }
        let fix = fixCursor < fixes.count ? deviceTime(fixes[fixCursor].time) : nil
        return [pending.map { deviceTime($0.time) }, fix].compactMap { $0 }.min()
    }
}
