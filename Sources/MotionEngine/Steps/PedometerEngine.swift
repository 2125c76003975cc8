import Foundation

/// The engine behind `CMPedometer`: steps, distance, floors, cadence, pace and pause/resume from
/// accelerometer and barometer samples. Pure: no threads, no I/O, no allocation per sample.
///
/// ```swift
/// var engine = PedometerEngine(configuration: .init(userHeight: 1.80))
/// for sample in samples {             // accelerometer and barometer, in time order
///     engine.add(sample)
///     while let event = engine.nextEvent() { service.deliver(event) }
/// }
/// engine.finish()                    // at the end of a recording: flush the last pause
/// ```
///
/// Step events reach the queue with a latency of 0.4 s, and up to 4 s at the start of a walk (the
/// first steps are confirmed once the rhythm is), always with their true times and in time order.
/// Policies (documented in `docs/pedometer.md`):
/// - **distance**: each step's length comes from ``StrideModel`` at the current cadence;
/// - **pause/resume**: the engine starts paused; the first step of a bout emits `.resume` at that
///   step's time; `.pause` (at the last step's time) once no step came for
///   ``Configuration/pauseAfter`` seconds (3 s by default, or 3 step periods if longer);
/// - **active time** (for ``averageActivePace``) sums the intervals between consecutive steps of a
///   bout, plus one step period for each bout's first step;
/// - **floors**: see ``FloorCounter``.
public struct PedometerEngine: Sendable {
    /// The user's height, the stride calibration, the pause delay and the step detector's tuning.
    public struct Configuration: Sendable, Hashable, Codable {
        /// User's body height, m; `nil` uses ``StrideModel/defaultHeight``.
        public var userHeight: Double?
        /// Calibration multiplier on step length.
        public var strideScale: Double
        /// Seconds without a step after which walking is paused.
        public var pauseAfter: Double
        /// Step detector tuning.
        public var detector: StepDetector.Configuration

        /// The defaults unless given: no height (1.70 m), scale 1, a pause after 3 s without steps.
        public init(userHeight: Double? = nil, strideScale: Double = 1, pauseAfter: Double = 3,
                    detector: StepDetector.Configuration = .init()) {
            self.userHeight = userHeight
            self.strideScale = strideScale
            self.pauseAfter = pauseAfter
            self.detector = detector
        }
    }

    /// The configuration in effect.
    public let configuration: Configuration
    /// The stride model made from the configuration's height and scale.
    public let strideModel: StrideModel
    private var detector: StepDetector
    private var floors = FloorCounter()
    private var altitude = SmoothedAltitude(timeConstant: 2)
    private var events: FixedRing<PedometerEvent>
    private var intervals: FixedRing<Double>

    /// Steps since the engine started.
    public private(set) var numberOfSteps = 0
    /// Distance walked or run, m.
    public private(set) var distance = 0.0
    /// Floors climbed.
    public var floorsAscended: Int { floors.ascended }
    /// Floors descended.
    public var floorsDescended: Int { floors.descended }
    /// Time spent moving (between steps of a bout), s.
    public private(set) var activeTime = 0.0
    /// Whether the user is walking (between a `.resume` and the next `.pause`).
    public private(set) var isMoving = false
    /// Time of the newest sample, s.
    public private(set) var currentTime = -Double.infinity
    /// Time of the last step, s.
    public private(set) var lastStepTime: Double?
    /// Events dropped because ``nextEvent()`` was not called often enough (the queue holds 512).
    public private(set) var droppedEvents = 0
    private var lastLength = 0.0

    /// An engine at zero steps, before the first sample.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        strideModel = StrideModel(height: configuration.userHeight, scale: configuration.strideScale)
        detector = StepDetector(configuration: configuration.detector)
        events = FixedRing(capacity: 512, filler: .pause(time: 0))
        intervals = FixedRing(capacity: 4, filler: 0.5)
    }

    /// Feeds a sample. Accelerometer samples drive the steps, barometer samples the floors, gyroscope
    /// samples (optional) let the detector refuse rotation that swings at the step rhythm without
    /// walking (pedalling, shaking); the magnetometer is ignored.
    /// Samples of each sensor must come in increasing time.
    public mutating func add(_ sample: SensorSample) {
        switch sample {
        case .accelerometer(let v):
            detector.add(time: v.time, acceleration: v.value)
            if v.time.isFinite && v.time > currentTime { currentTime = v.time }
            while let step = detector.popStep() { handleStep(step) }
            checkPause(now: currentTime)
        case .barometer(let p):
            altitude.add(time: p.time, kilopascals: p.kilopascals)
        case .gyroscope(let w):
            detector.add(time: w.time, rotationRate: w.value)
        case .magnetometer:
            break
        }
    }

    /// Declares that time has reached `time` s without new samples (the pause check runs).
    public mutating func advance(to time: Double) {
        guard time.isFinite, time > currentTime else { return }
        currentTime = time
        checkPause(now: time)
    }

    /// Ends the stream: steps still awaiting confirmation are decided with the samples there are, then
    /// a bout still open is paused at its last step.
    public mutating func finish() {
        detector.finish()
        while let step = detector.popStep() { handleStep(step) }
        if isMoving, let last = lastStepTime { pause(at: last) }
    }

    /// The next event, oldest first, or `nil`.
    public mutating func nextEvent() -> PedometerEvent? { events.popFirst() }

    /// Current cadence, steps/s: the inverse of the median of the last four step intervals of the
    /// current bout; `nil` when not moving or fewer than two steps into the bout.
    public var currentCadence: Double? {
        guard isMoving, intervals.count >= 1 else { return nil }
        var v = (0.0, 0.0, 0.0, 0.0)
        let n = intervals.count
        v.0 = intervals[0]
        if n > 1 { v.1 = intervals[1] }
        if n > 2 { v.2 = intervals[2] }
        if n > 3 { v.3 = intervals[3] }
        let m = median4(v, n)
        return m > 0 ? 1 / m : nil
    }

    /// Current pace, s/m (inverse of speed); `nil` when the cadence is unknown.
    public var currentPace: Double? {
        guard let f = currentCadence else { return nil }
        let speed = strideModel.stepLength(cadence: f) * f
        return speed > 0 ? 1 / speed : nil
    }

    /// Average pace over the time spent moving, s/m; `nil` before any distance.
    public var averageActivePace: Double? {
        distance > 0 && activeTime > 0 ? activeTime / distance : nil
    }

    /// Relative altitude the floor counter sees (smoothed, m from the first barometer sample), or `nil`.
    public var altitudeForFloors: Double? { altitude.value }

    // MARK: - Internals

    private func median4(_ v: (Double, Double, Double, Double), _ n: Int) -> Double {
        var a = v.0, b = v.1, c = v.2, d = v.3
        switch n {
        case 1: return a
        case 2: return (a + b) / 2
        case 3: return max(min(a, b), min(max(a, b), c))
        default:
            // Sort four values with a network, then average the middle two.
            if a > b { swap(&a, &b) }
            if c > d { swap(&c, &d) }
            if a > c { swap(&a, &c) }
            if b > d { swap(&b, &d) }
            if b > c { swap(&b, &c) }
            return (b + c) / 2
        }
    }

    private mutating func push(_ event: PedometerEvent) {
        if events.count == events.capacity { droppedEvents += 1 }
        events.append(event)
    }

    private mutating func handleStep(_ step: StepEvent) {
        let newBout = !isMoving
        if newBout {
            isMoving = true
            intervals.removeAll()
            floors.startBout()
            push(.resume(time: step.time))
            activeTime += step.period
        } else if let last = lastStepTime {
            let dt = step.time - last
            intervals.append(dt)
            activeTime += dt
        }
        lastStepTime = step.time
        let cadence = intervals.isEmpty ? 1 / step.period : (currentCadence ?? 1 / step.period)
        let length = strideModel.stepLength(cadence: cadence)
        lastLength = length
        numberOfSteps += 1
        distance += length
        push(.step(time: step.time, length: length))
        if let h = altitude.value {
            let change = floors.step(time: step.time, altitude: h)
            if change > 0 { for _ in 0..<change { push(.floor(time: step.time, ascended: true)) } }
            if change < 0 { for _ in 0..<(-change) { push(.floor(time: step.time, ascended: false)) } }
        }
    }

    private mutating func checkPause(now: Double) {
        guard isMoving, let last = lastStepTime else { return }
        let period = detector.stepPeriod
        let limit = max(configuration.pauseAfter, 3 * period)
        // Steps are confirmed 0.4 s late; do not pause while the detector still walks.
        if now - last > limit + 0.4 && !(detector.isWalking && now - last < 2 * limit) {
            pause(at: last)
        }
    }

    private mutating func pause(at time: Double) {
        isMoving = false
        push(.pause(time: time))
    }
}

/// Altitude from pressure (ISA, relative to the first sample), smoothed by a one-pole low-pass.
struct SmoothedAltitude: Sendable {
    let timeConstant: Double
    private var firstPressure: Double?
    private var lastTime = -Double.infinity
    private(set) var value: Double?

    init(timeConstant: Double) { self.timeConstant = timeConstant }

    mutating func add(time: Double, kilopascals: Double) {
        guard time.isFinite, kilopascals.isFinite, kilopascals > 0, time > lastTime else { return }
        let p0 = firstPressure ?? kilopascals
        firstPressure = p0
        let h = BarometricFormula.altitude(pressure: kilopascals, seaLevel: p0)
        if let v = value, lastTime.isFinite {
            let alpha = 1 - exp(-(time - lastTime) / timeConstant)
            value = v + (h - v) * alpha
        } else {
            value = h
        }
        lastTime = time
    }
}
