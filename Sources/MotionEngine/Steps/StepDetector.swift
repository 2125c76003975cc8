import Foundation

/// A detected step: the time of the foot strike as the detector places it, in seconds on the
/// clock of the samples.
public struct StepEvent: Sendable, Hashable, Codable {
    /// Time of the step, s.
    public var time: Double
    /// The step period the detector was tracking when it accepted the step, s (1 / cadence).
    public var period: Double

    /// A step at `time` with the detector's period then.
    public init(time: Double, period: Double) {
        self.time = time
        self.period = period
    }
}

/// Streaming step detector on the accelerometer, with an optional gyroscope: any carry position,
/// orientation and sampling rate (25–400 Hz), no allocation per sample.
///
/// The design (details and measured figures in `docs/pedometer.md`):
/// 1. **Uniform resampling**: each sample passes a one-pole low-pass (12 Hz, rate-independent because
///    its coefficient uses the actual sample interval) and is interpolated onto a 50 Hz grid, which
///    both anti-aliases 100–400 Hz input and regularises jittery time stamps (the pre-processing
///    stage of Salvi et al., "An optimised algorithm for accurate steps counting from smart-phone
///    accelerometry", EMBC 2018).
/// 2. **Orientation-free signal**: the magnitude of the acceleration vector, band-limited to
///    0.5–4 Hz (second-order high- and low-pass sections).
/// 3. **Gait periodicity**: every 0.2 s, the normalised autocorrelation of the last 4 s over lags
///    0.15–1.8 s (the periodicity test of Rai et al., "Zee", MobiCom 2012). The first lag whose
///    correlation is within 85 % of the best is the fundamental period (shaking at 4–5 Hz shows
///    there and is rejected by the cadence bound); it is a *stride* (two steps) when it
///    is longer than 0.62 s and the half lag still correlates (pockets, swinging arm and bags repeat
///    per stride, not per step), else a step. Walking is declared when that peak correlates above
///    0.65, the signal's deviation exceeds 0.05 g and the cadence is human (1–3.6 steps/s); it ends
///    after 0.6 s without.
/// 4. **One peak per step**: the signal passes two cascaded band-passes (Q = 2) centred on the
///    tracked step frequency, which turns the uneven left/right pattern of a pocket or bag into one
///    clean oscillation per step; each positive maximum is a candidate.
/// 5. **Acceptance** (0.4 s after a candidate, to see its surroundings): while walking, a candidate is
///    a step when its amplitude reaches 10 % of the recent step amplitude (and 0.01 g), the broadband
///    activity from 0.6 s before it to 0.2 s after it reaches 25 % of the walking activity (and
///    0.015 g: the swing and the strike precede the trunk's response), and it lies at least half
///    a period after the previous step (the windowed post-processing of Salvi et al.). When walking
///    starts, the candidates of the last seconds are walked back in time and accepted while they keep
///    the rhythm and the amplitude, so the first steps of a walk count (their events arrive late,
///    with their true times). A walk that starts from rest moves the trunk twice for its first step
///    (push-off, then strike): a first candidate less than 1.1 step periods after the onset of motion
///    is the push-off and is not counted.
///
/// 6. **Gyroscope** (optional, ``add(time:rotationRate:)``): a window whose band-limited (0.5–4 Hz)
///    angular rate is strong (RMS > 1 rad/s) and oscillates purely at the step period (autocorrelation
///    > 0.5 at one period, < −0.7 at half a period) is not walking: a pedalling thigh or a shaking
///    hand. Without gyroscope samples (or when they stop for 0.1 s) the detector is the
///    accelerometer-only one, unchanged. The gyroscope should come at 10 Hz or more.
///
/// Rejections by construction: still and vehicle vibration (no periodic gait-band signal above
/// 0.05 g), shaking at more than 3.6 cycles per second, and irregular handling (no autocorrelation
/// peak); with a gyroscope, also pedalling and shaking at a gait rhythm. Vertical bobbing of the
/// phone at a walking rhythm and amplitude is indistinguishable from walking for an accelerometer and
/// is counted.
public struct StepDetector: Sendable {
    /// Tuning of the detector. The defaults are the values in the type's documentation.
    public struct Configuration: Sendable, Hashable, Codable {
        /// Rate of the internal uniform grid, Hz.
        public var internalRate: Double = 50
        /// Slowest accepted cadence, steps/s.
        public var minimumCadence: Double = 1.0
        /// Fastest accepted cadence, steps/s (faster periodic motion is treated as shaking).
        public var maximumCadence: Double = 3.6
        /// Minimum autocorrelation of the gait period for walking.
        public var minimumCorrelation: Double = 0.65
        /// Minimum standard deviation of the band-limited magnitude for walking, g.
        public var minimumDeviation: Double = 0.05
        /// Relative step amplitude (fraction of the recent steps') needed to accept a candidate.
        public var relativeAmplitude: Double = 0.1
        /// Absolute step amplitude needed, g.
        public var minimumAmplitude: Double = 0.01
        /// Broadband activity of a candidate (RMS of the band-limited magnitude from 0.6 s before it to
        /// 0.2 s after it) needed, as a fraction of the walk's.
        public var relativeActivity: Double = 0.25
        /// A gap in the input longer than this resets the detector, s.
        public var maximumGap: Double = 0.5
        /// With a gyroscope: RMS of the band-limited (0.5–4 Hz) angular rate vector over the periodicity
        /// window above which a rotation that oscillates with the step period is not walking, rad/s.
        public var rhythmicRotation: Double = 1.0
        /// With a gyroscope: normalised autocorrelation of the band-limited angular rate vector at the
        /// step period above which (and at half the period below minus this value minus 0.2) the
        /// rotation is a pure oscillation at the step rhythm (pedalling, shaking), not gait.
        public var rhythmicRotationCorrelation: Double = 0.5

        /// The shipped tuning (`docs/pedometer.md`).
        public init() {}
    }

    /// The tuning in effect.
    public let configuration: Configuration

    // Grid and filters.
    private let rate: Double
    private var resampler: UniformResampler
    private var highPass: Biquad
    private var lowPass: Biquad
    private var bandPass1: Biquad
    private var bandPass2: Biquad
    private var primed = false

    // Gyroscope (optional): the newest rate, low-passed and held, band-limited on the grid.
    private var gyroFilter = GyroFilter()
    private var gyroHeld = Vector3(0, 0, 0)
    private var gyroTime = -Double.infinity
    private var gyroBand: (Biquad, Biquad, Biquad, Biquad, Biquad, Biquad)
    private var rotation: FixedRing<Vector3>

    // History of the band-limited magnitude on the grid.
    private var signal: FixedRing<Double>
    private var gridCount = 0
    private let window: Int
    private let hop: Int
    private let maxLag: Int
    private let minLag: Int
    private var scratch: [Double]
    private var correlation: [Double]
    private var sortScratch: [Double]

    // Narrow-band peak picking.
    private var y0 = 0.0, y1 = 0.0, y2 = 0.0
    private var pending: FixedRing<Candidate>
    private var candidates: FixedRing<Candidate>
    private var accepted: [Double]

    // Walking state.
    /// Whether the detector currently sees gait: set when the signal's autocorrelation shows a step
    /// rhythm within the cadence limits, cleared after three hops without it.
    private(set) public var isWalking = false
    private var quietHops = 0
    /// The tracked step period, s.
    private(set) public var stepPeriod = 0.5
    private var stepAmplitude = 0.0
    private var activityLevel = 0.0
    private var lastStepTime = -Double.infinity
    /// Time of the last grid sample processed, s.
    private(set) public var currentTime = -Double.infinity

    /// Steps found and not yet taken with ``popStep()``.
    private var output: FixedRing<StepEvent>
    /// Steps dropped because ``popStep()`` was not called often enough (the queue holds 256).
    private(set) public var droppedSteps = 0
    /// Input samples ignored because they were not finite or not later than the previous one.
    private(set) public var rejectedSamples = 0

    struct Candidate: Sendable {
        var time: Double
        var amplitude: Double
        var activity: Double
    }

    /// A detector before the first sample.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        rate = configuration.internalRate
        resampler = UniformResampler(rate: rate, cutoff: 12)
        highPass = Biquad.highPass(cutoff: 0.5, rate: rate)
        lowPass = Biquad.lowPass(cutoff: 4.0, rate: rate)
        bandPass1 = Biquad.bandPass(centre: 2, q: 2, rate: rate)
        bandPass2 = bandPass1
        window = Int((4.0 * rate).rounded())
        hop = max(1, Int((0.2 * rate).rounded()))
        maxLag = Int((1.8 * rate).rounded())
        minLag = Int(0.15 * rate)
        // 4 s of periodicity window, and for the walk-back at a walk's start: 6 s of candidates plus the
        // 3 s before them where the motion onset is sought.
        signal = FixedRing(capacity: Int(9 * rate), filler: 0)
        rotation = FixedRing(capacity: window, filler: Vector3(0, 0, 0))
        let hp = Biquad.highPass(cutoff: 0.5, rate: rate), lp = Biquad.lowPass(cutoff: 4.0, rate: rate)
        gyroBand = (hp, lp, hp, lp, hp, lp)
        scratch = Array(repeating: 0, count: window)
        correlation = Array(repeating: 0, count: maxLag + 1)
        sortScratch = Array(repeating: 0, count: 64)
        accepted = Array(repeating: 0, count: 64)
        pending = FixedRing(capacity: 32, filler: Candidate(time: 0, amplitude: 0, activity: 0))
        candidates = FixedRing(capacity: 40, filler: Candidate(time: 0, amplitude: 0, activity: 0))
        output = FixedRing(capacity: 256, filler: StepEvent(time: 0, period: 0))
    }

    /// Feeds one accelerometer sample (g, any orientation) at `time` seconds. Samples must come in
    /// increasing time; others (and non-finite values) are counted in ``rejectedSamples`` and ignored.
    public mutating func add(time: Double, acceleration a: Vector3) {
        guard time.isFinite, a.x.isFinite, a.y.isFinite, a.z.isFinite, time > resampler.lastInputTime else {
            rejectedSamples += 1
            return
        }
        if resampler.hasInput && time - resampler.lastInputTime > configuration.maximumGap {
            restartAfterGap()
        }
        resampler.add(time: time, value: a)
        while let point = resampler.nextGridPoint() {
            process(time: point.time, magnitude: point.value.norm)
        }
    }

    /// Feeds one gyroscope sample (rad/s, any axes fixed to the device) at `time` seconds. Optional:
    /// with a gyroscope, rhythmic motion whose rotation repeats once per step period (pedalling with the
    /// phone in a pocket, shaking) is not taken for walking, which the accelerometer alone cannot tell.
    /// Samples that are not finite or not later than the previous gyroscope sample are counted in
    /// ``rejectedSamples`` and ignored.
    public mutating func add(time: Double, rotationRate w: Vector3) {
        guard time.isFinite, w.x.isFinite, w.y.isFinite, w.z.isFinite, time > gyroTime else {
            rejectedSamples += 1
            return
        }
        gyroHeld = gyroFilter.add(time: time, value: w, previousTime: gyroTime)
        gyroTime = time
    }

    /// The next detected step, oldest first, or `nil`.
    public mutating func popStep() -> StepEvent? { output.popFirst() }

    /// Ends the stream: candidates still waiting for their 0.4 s of context are decided with the
    /// samples there are (a recording that stops right after the last step keeps that step). The
    /// detector can be fed again afterwards.
    public mutating func finish() {
        while let c = pending.popFirst() {
            // The activity window of `process` (0.6 s before the candidate to 0.2 s after), cut at the end.
            let elapsed = max(0, currentTime - c.time)
            let after = min(0.2, elapsed)
            let activity = recentRMS(Int(((0.6 + after) * rate).rounded()), skipping: Int(((elapsed - after) * rate).rounded()))
            decide(Candidate(time: c.time, amplitude: c.amplitude, activity: activity))
        }
    }

    /// Number of steps waiting in the queue.
    public var pendingSteps: Int { output.count }

    // MARK: - Grid processing

    private mutating func restartAfterGap() {
        resampler = UniformResampler(rate: rate, cutoff: 12)
        primed = false
        isWalking = false
        quietHops = 0
        signal.removeAll()
        rotation.removeAll()
        gridCount = 0
        pending.removeAll()
        candidates.removeAll()
    }

    private mutating func process(time t: Double, magnitude m: Double) {
        currentTime = t
        if !primed {
            highPass.prime(m); lowPass.prime(0); bandPass1.reset(); bandPass2.reset()
            y0 = 0; y1 = 0; y2 = 0
            primed = true
        }
        let x = lowPass(highPass(m))
        signal.append(x)
        // The gyroscope on the same grid, held from its newest sample; without a fresh sample the history
        // restarts (the rotation test needs a full window).
        if gyroTime.isFinite && t - gyroTime < 0.1 {
            let g = gyroHeld
            if rotation.isEmpty {
                gyroBand.0.prime(g.x); gyroBand.1.prime(0)
                gyroBand.2.prime(g.y); gyroBand.3.prime(0)
                gyroBand.4.prime(g.z); gyroBand.5.prime(0)
            }
            rotation.append(Vector3(gyroBand.1(gyroBand.0(g.x)), gyroBand.3(gyroBand.2(g.y)), gyroBand.5(gyroBand.4(g.z))))
        } else if !rotation.isEmpty {
            rotation.removeAll()
        }
        gridCount += 1
        if gridCount >= window && gridCount % hop == 0 { updatePeriodicity(now: t) }

        let y = bandPass2(bandPass1(x))
        y0 = y1; y1 = y2; y2 = y
        if y1 > y0 && y1 >= y2 && y1 > 0 {
            pending.append(Candidate(time: t - 1 / rate, amplitude: y1, activity: 0))
        }
        let defer_ = 0.4
        // The activity that makes a step precedes the trunk's response (the swing, then the strike, and
        // the candidate peaks ~0.1 s after the strike): measure it from 0.6 s before the candidate to
        // 0.2 s after, so the last step before a stop keeps its activity and a ringing candidate after
        // the stop does not borrow the last step's.
        let activityLead = 0.2
        while let c = pending.first, c.time <= t - defer_ {
            _ = pending.popFirst()
            decide(Candidate(time: c.time, amplitude: c.amplitude, activity: recentRMS(Int(2 * defer_ * rate), skipping: Int(activityLead * rate))))
        }
    }

    private func recentRMS(_ n: Int, skipping skip: Int = 0) -> Double {
        let end = signal.count - min(skip, signal.count)
        let count = min(n, end)
        guard count > 0 else { return 0 }
        var sum = 0.0
        for i in (end - count)..<end { sum += signal[i] * signal[i] }
        return (sum / Double(count)).squareRoot()
    }

    private mutating func decide(_ c: Candidate) {
        candidates.append(c)
        guard isWalking else { return }
        let cfg = configuration
        if c.amplitude >= max(cfg.minimumAmplitude, cfg.relativeAmplitude * stepAmplitude),
           c.activity >= max(0.015, cfg.relativeActivity * activityLevel),
           c.time > lastStepTime + 0.5 * stepPeriod
        {
            emit(c.time)
            stepAmplitude = 0.9 * stepAmplitude + 0.1 * c.amplitude
            activityLevel = 0.9 * activityLevel + 0.1 * c.activity
        }
    }

    private mutating func emit(_ time: Double) {
        if output.count == output.capacity { droppedSteps += 1 }
        output.append(StepEvent(time: time, period: stepPeriod))
        lastStepTime = time
    }

    // MARK: - Periodicity

    private mutating func updatePeriodicity(now t: Double) {
        // Copy the window, remove its mean.
        let n = window
        let start = signal.count - n
        var mean = 0.0
        for i in 0..<n { scratch[i] = signal[start + i]; mean += scratch[i] }
        mean /= Double(n)
        var energy = 0.0
        for i in 0..<n { scratch[i] -= mean; energy += scratch[i] * scratch[i] }
        let deviation = (energy / Double(n)).squareRoot()

        // Normalised autocorrelation: overlap energies from running sums.
        var headEnergy = energy  // Σ x[0..<n-k]²
        var tailEnergy = energy  // Σ x[k..<n]²
        correlation[0] = 1
        for k in 1...maxLag {
            headEnergy -= scratch[n - k] * scratch[n - k]
            tailEnergy -= scratch[k - 1] * scratch[k - 1]
            var dot = 0.0
            scratch.withUnsafeBufferPointer { p in
                for i in 0..<(n - k) { dot += p[i] * p[i + k] }
            }
            correlation[k] = dot / ((max(headEnergy, 0) * max(tailEnergy, 0)).squareRoot() + 1e-12)
        }
        var best = -Double.infinity, bestLag = minLag
        for k in minLag...maxLag where correlation[k] > best { best = correlation[k]; bestLag = k }
        var lag = bestLag
        for k in (minLag + 1)..<maxLag
        where correlation[k] >= correlation[k - 1] && correlation[k] >= correlation[k + 1] && correlation[k] >= 0.85 * best {
            lag = k
            break
        }
        let half = Int((Double(lag) / 2).rounded())
        var halfCorrelation = -1.0
        if half >= minLag - 2 {
            for k in max(half - 1, 0)...(half + 1) { halfCorrelation = max(halfCorrelation, correlation[k]) }
        }
        let period: Double
        if Double(lag) / rate < 0.25 {
            period = Double(lag) / rate  // a fundamental faster than any gait: rejected below
        } else if Double(lag) / rate > 0.62 && halfCorrelation > -0.1 {
            period = Double(lag) / 2 / rate
        } else {
            period = Double(lag) / rate
        }
        let cfg = configuration
        let walk = correlation[lag] > cfg.minimumCorrelation && deviation > cfg.minimumDeviation
            && period >= 1 / cfg.maximumCadence && period <= 1 / cfg.minimumCadence
            && !rotationOscillates(every: period)
        if walk && (!isWalking || abs(period - stepPeriod) / stepPeriod > 0.03) {
            stepPeriod = period
            let design = Biquad.bandPass(centre: 1 / period, q: 2, rate: rate)
            bandPass1.setCoefficients(from: design)
            bandPass2.setCoefficients(from: design)
        }
        let wasWalking = isWalking
        if walk {
            isWalking = true
            quietHops = 0
        } else {
            quietHops += 1
            if quietHops >= 3 { isWalking = false }
        }
        if isWalking && !wasWalking { startWalking(now: t) }
    }

    /// With a full window of gyroscope history: whether the device's rotation is a strong, pure
    /// oscillation at the step period `period` (s) — RMS of the band-limited rate above
    /// ``Configuration/rhythmicRotation``, autocorrelation at one period above
    /// ``Configuration/rhythmicRotationCorrelation`` and at half a period below
    /// −``Configuration/rhythmicRotationCorrelation`` − 0.2 (a sinusoid: −1). Walking rotates a trunk,
    /// hand or bag little, and a thigh (pocket) strongly but not as a pure oscillation: its rotation at
    /// half the period correlates −0.06 to −0.39 (MotionSense front-pocket stairs, whose stride the
    /// acceleration's magnitude shows as one step). A pedalling thigh or a shaking hand turns back and
    /// forth as a near sinusoid (−0.84 to −1 at half the period).
    private func rotationOscillates(every period: Double) -> Bool {
        let n = window
        guard rotation.count >= n else { return false }
        let start = rotation.count - n
        var energy = 0.0
        for i in 0..<n {
            let g = rotation[start + i]
            energy += g.x * g.x + g.y * g.y + g.z * g.z
        }
        let cfg = configuration
        guard (energy / Double(n)).squareRoot() > cfg.rhythmicRotation else { return false }
        let lag = Int((period * rate).rounded())
        guard lag >= 2, lag < n / 2 else { return false }
        return rotationCorrelation(start: start, lag: lag) > cfg.rhythmicRotationCorrelation
            && rotationCorrelation(start: start, lag: lag / 2) < -cfg.rhythmicRotationCorrelation - 0.2
    }

    /// Normalised autocorrelation of the band-limited angular rate vector over the window that begins at
    /// `start` (ring index), at `lag` grid samples.
    private func rotationCorrelation(start: Int, lag: Int) -> Double {
        var dot = 0.0, head = 0.0, tail = 0.0
        for i in 0..<(window - lag) {
            let a = rotation[start + i], b = rotation[start + i + lag]
            dot += a.x * b.x + a.y * b.y + a.z * b.z
            head += a.x * a.x + a.y * a.y + a.z * a.z
            tail += b.x * b.x + b.y * b.y + b.z * b.z
        }
        return dot / ((head * tail).squareRoot() + 1e-12)
    }

    /// Walking has just been recognised: set the reference levels from the window and accept the
    /// recent candidates that lead up to now with the walking rhythm.
    private mutating func startWalking(now t: Double) {
        let windowStart = t - Double(window) / rate
        var m = 0
        for i in 0..<candidates.count where candidates[i].time > windowStart && m < sortScratch.count {
            sortScratch[m] = candidates[i].amplitude; m += 1
        }
        stepAmplitude = median(m)
        m = 0
        for i in 0..<candidates.count where candidates[i].time > windowStart && m < sortScratch.count {
            sortScratch[m] = candidates[i].activity; m += 1
        }
        activityLevel = median(m)

        let amplitudeFloor = max(configuration.minimumAmplitude, 0.3 * stepAmplitude)
        let activityFloor = max(0.015, 0.4 * activityLevel)
        var count = 0
        var next: Double? = nil
        var i = candidates.count - 1
        while i >= 0 && count < accepted.count {
            let c = candidates[i]
            i -= 1
            if c.time <= lastStepTime + 0.5 * stepPeriod || c.time < t - 6 { break }
            if let next {
                if next - c.time < 0.5 * stepPeriod { continue }
                if next - c.time > 1.8 * stepPeriod { break }
            }
            if c.amplitude < amplitudeFloor || c.activity < activityFloor {
                if next == nil { continue }
                break
            }
            accepted[count] = c.time
            count += 1
            next = c.time
        }
        // Gait initiation: from standing, the trunk moves twice for the first step — the weight shift and
        // push-off that lift the first foot, then the strike that ends its swing. The strike comes after
        // the anticipatory shift (0.1–0.3 step periods) and a swing (0.8 step periods), so a first
        // candidate less than 1.1 step periods after the onset of motion is that push-off: the first step
        // is counted once, at its strike.
        if count >= 2 {
            let onset = motionOnset(before: accepted[count - 1], now: t, reference: recentRMS(Int(2 * rate)))
            if accepted[count - 1] - onset < 1.1 * stepPeriod { count -= 1 }
        }
        while count > 0 {
            count -= 1
            emit(accepted[count])
        }
    }

    /// The onset of the motion leading into a walk: the first time in the 3 s before `time` (s) at which
    /// the RMS of the band-limited magnitude over 0.2 s exceeds 15 % of `reference` (the walk's RMS, g).
    /// Returns `time` itself when nothing crosses (the history starts at most 3 s earlier).
    private func motionOnset(before time: Double, now t: Double, reference: Double) -> Double {
        let newest = signal.count - 1
        guard newest > 0, reference > 0 else { return time }
        func index(_ time: Double) -> Int { newest - Int(((t - time) * rate).rounded()) }
        let first = max(0, index(time - 3)), last = index(time)
        guard last > first else { return time }
        let half = max(1, Int((0.1 * rate).rounded()))
        let threshold = 0.15 * reference
        for i in first...last {
            let lo = max(0, i - half), hi = min(newest, i + half - 1)
            var sum = 0.0
            for k in lo...hi { sum += signal[k] * signal[k] }
            if (sum / Double(hi - lo + 1)).squareRoot() > threshold {
                return t - Double(newest - i) / rate
            }
        }
        return time
    }

    /// Median of `sortScratch[0..<m]` (sorts that prefix in place; 0 when empty).
    private mutating func median(_ m: Int) -> Double {
        guard m > 0 else { return 0 }
        // Insertion sort: m ≤ 64.
        for i in 1..<max(m, 1) {
            let v = sortScratch[i]
            var j = i - 1
            while j >= 0 && sortScratch[j] > v { sortScratch[j + 1] = sortScratch[j]; j -= 1 }
            sortScratch[j + 1] = v
        }
        return m % 2 == 1 ? sortScratch[m / 2] : (sortScratch[m / 2 - 1] + sortScratch[m / 2]) / 2
    }
}

/// One-pole 12 Hz low-pass on the gyroscope whose coefficient comes from each real sample interval
/// (the accelerometer's anti-aliasing, so that both reach the 50 Hz grid alike).
struct GyroFilter: Sendable {
    private var state = Vector3(0, 0, 0)

    mutating func add(time: Double, value: Vector3, previousTime: Double) -> Vector3 {
        let dt = time - previousTime
        guard dt.isFinite, dt < 0.5 else {
            state = value
            return state
        }
        let alpha = 1 - exp(-dt * 2 * Double.pi * 12)
        state = Vector3(state.x + alpha * (value.x - state.x), state.y + alpha * (value.y - state.y), state.z + alpha * (value.z - state.z))
        return state
    }
}
