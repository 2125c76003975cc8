import Foundation
import MotionSamples

/// Detects sustained periodic locomotion (walking, running, stairs) from the accelerometer, as a
/// pedometer sees it: the norm of the specific force repeats itself with the step or stride period
/// (0.3–1.5 s, i.e. 0.7–3.3 Hz).
///
/// The norm is averaged to ``samplePeriod`` (25 Hz), its slow mean is removed, and a normalised
/// autocorrelation over lags up to ``lagCount`` samples is kept with exponential forgetting (time
/// constant ``Settings/gaitCorrelationTime``). Locomotion is a clear autocorrelation peak at a lag in
/// the step range (a local maximum above ``Settings/gaitPeriodicityThreshold`` preceded by a trough
/// at least 0.3 below it) with enough movement (standard deviation of the norm above
/// ``Settings/gaitMinimumAmplitude``), held for ``Settings/gaitOnsetTime``; to begin, the device must
/// also turn the same way every stride (``Settings/gaitRotationPeriodicityThreshold``) or the force
/// carry the feet's strikes (``Settings/gaitImpactThreshold``). Slow hand movements (no peak),
/// vibration (averaged away at 25 Hz), isolated taps (no repetition) and a hand moving the device back
/// and forth (no stride rotation, no impacts) do not qualify.
///
/// Fixed-size storage (`InlineArray`): no allocation, about 2 × 40 multiply-adds 25 times a second.
/// The histories are kept twice over (positions `i` and `i + lagCount`) and component by component,
/// so that the lags of one update are one contiguous run of memory (no wrap-around, vectorisable).
struct GaitDetector: Sendable {
    /// Decimated sample period, seconds.
    static let samplePeriod = 0.04
    /// Number of lags kept (lag k = k decimated samples): up to 1.56 s.
    static let lagCount = 40

    /// The settings the detector reads, copied out of ``FusionFilter/Settings`` once (passing the
    /// whole settings struct from a mutating method copies it on every call).
    struct Parameters: Sendable {
        var correlationTime: Double
        var minimumAmplitude: Double
        var periodicityThreshold: Double
        var rotationPeriodicityThreshold: Double
        var impactThreshold: Double
        var onsetTime: Double
        var offsetTime: Double

        init(_ s: FusionFilter.Settings) {
            correlationTime = s.gaitCorrelationTime
            minimumAmplitude = s.gaitMinimumAmplitude
            periodicityThreshold = s.gaitPeriodicityThreshold
            rotationPeriodicityThreshold = s.gaitRotationPeriodicityThreshold
            impactThreshold = s.gaitImpactThreshold
            onsetTime = s.gaitOnsetTime
            offsetTime = s.gaitOffsetTime
        }
    }

    /// Newest sample at `newest` (and `newest + lagCount`); lag k at `newest + k`.
    private var history = InlineArray<80, Double>(repeating: 0)
    private var rotationX = InlineArray<80, Double>(repeating: 0)
    private var rotationY = InlineArray<80, Double>(repeating: 0)
    private var rotationZ = InlineArray<80, Double>(repeating: 0)
    private var correlation = InlineArray<40, Double>(repeating: 0)
    private var rotationCorrelation = InlineArray<40, Double>(repeating: 0)
    private var rotationSum = Vector3(0, 0, 0)
    /// The two previous decimated values (mean removed) and the forgetting mean square of the second
    /// difference (the impact power), g².
    private var previous1 = 0.0
    private var previous2 = 0.0
    private var curvature = 0.0
    private var newest = 0
    private var evaluationToggle = false
    private var pendingEvaluation = 0.0
    private var filled = 0
    /// Sum and count of the norm since the last decimated sample, and the time they cover.
    private var sum = 0.0
    private var count = 0
    private var elapsed = 0.0
    /// Slow mean of the norm, g.
    private var mean = 0.0
    private var hasMean = false
    /// Gains of the slow mean and of the correlation's forgetting, for the interval they were made for.
    private var meanGain = 0.0
    private var forgetGain = 0.0
    private var gainInterval = 0.0
    private var gainCorrelationTime = 0.0
    /// Seconds the periodicity condition has held (positive) or failed (negative).
    private var conditionTime = 0.0
    /// Latest periodicity score (the autocorrelation peak, −1 … 1) and its lag, seconds.
    private(set) var periodicity = 0.0
    private(set) var period = 0.0
    /// RMS of the rotation rate (rad/s) and its normalised autocorrelation at the period and at half of it.
    private(set) var rotationRMS = 0.0
    private(set) var rotationAtPeriod = 0.0
    private(set) var rotationAtHalfPeriod = 0.0
    /// Impact power over the variance: the mean square of the second difference of the 25 Hz series
    /// over its variance (both with the correlation's forgetting). Gait strikes the ground every step:
    /// 2.9–3.9 on the iPhone 13 pocket walk, 1.4–3.5 on MotionSense walking and jogging (10th–90th
    /// percentiles of 5 s windows); a hand moving the device back and forth is smooth: BROAD's
    /// translations and magnet trials 0.1–1.2.
    private(set) var impactRatio = 0.0
    /// Standard deviation of the norm, g.
    var amplitude: Double { max(0, correlation[0]).squareRoot() }
    /// Whether the latest autocorrelation shows a step or stride peak (locomotion possibly under way).
    var isPeriodic: Bool { conditionTime > 0 }
    /// Whether sustained locomotion is under way.
    private(set) var isWalking = false

    init() {}

    /// Adds one reading: `norm` the vertical specific force (or its magnitude), g, and the
    /// bias-corrected `rotationRate`, rad/s, held for `interval` seconds.
    @inline(__always)
    mutating func add(norm: Double, rotationRate: Vector3, interval: Double, parameters: Parameters) {
        sum += norm
        rotationSum += rotationRate
        count += 1
        elapsed += interval
        guard elapsed >= Self.samplePeriod * 0.99 else { return }
        let x = sum / Double(count)
        let w = rotationSum / Double(count)
        let dt = elapsed
        sum = 0
        rotationSum = Vector3(0, 0, 0)
        count = 0
        elapsed = 0
        push(x, rotation: w, interval: dt, parameters: parameters)
    }

    private mutating func push(_ value: Double, rotation w: Vector3, interval dt: Double, parameters p: Parameters) {
        if !hasMean {
            mean = value
            hasMean = true
        }
        if abs(dt - gainInterval) > 0.02 * gainInterval || p.correlationTime != gainCorrelationTime {
            meanGain = firstOrderGain(timeConstant: 2.0, samplePeriod: dt)
            forgetGain = firstOrderGain(timeConstant: p.correlationTime, samplePeriod: dt)
            gainInterval = dt
            gainCorrelationTime = p.correlationTime
        }
        mean += meanGain * (value - mean)
        let x = value - mean
        newest = newest == 0 ? Self.lagCount - 1 : newest - 1
        let mirror = newest + Self.lagCount
        history[newest] = x
        history[mirror] = x
        rotationX[newest] = w.x
        rotationX[mirror] = w.x
        rotationY[newest] = w.y
        rotationY[mirror] = w.y
        rotationZ[newest] = w.z
        rotationZ[mirror] = w.z
        let forget = forgetGain
        if filled >= 2 {
            let d2 = x - 2 * previous1 + previous2
            curvature += forget * (d2 * d2 - curvature)
        }
        previous2 = previous1
        previous1 = x
        filled = min(filled + 1, Self.lagCount)
        // R[k] ← R[k] + g (x[n] x[n−k] − R[k]) for the lags with history; x[n−k] sits at newest + k
        // (newest < lagCount and k < lagCount, so the index stays below 2 lagCount).
        // Two lags at a time (SIMD2: the same operations in each lane, so the same results).
        let n = filled, base = newest
        let g2 = SIMD2(repeating: forget), x2 = SIMD2(repeating: x)
        let wx = SIMD2(repeating: w.x), wy = SIMD2(repeating: w.y), wz = SIMD2(repeating: w.z)
        var k = 0
        while k + 1 < n {
            let i = base + k
            let h = unsafe SIMD2(history[unchecked: i], history[unchecked: i + 1])
            var c = unsafe SIMD2(correlation[unchecked: k], correlation[unchecked: k + 1])
            c += g2 * (x2 * h - c)
            unsafe correlation[unchecked: k] = c.x
            unsafe correlation[unchecked: k + 1] = c.y
            let rx = unsafe SIMD2(rotationX[unchecked: i], rotationX[unchecked: i + 1])
            let ry = unsafe SIMD2(rotationY[unchecked: i], rotationY[unchecked: i + 1])
            let rz = unsafe SIMD2(rotationZ[unchecked: i], rotationZ[unchecked: i + 1])
            let dot = wx * rx + wy * ry + wz * rz
            var r = unsafe SIMD2(rotationCorrelation[unchecked: k], rotationCorrelation[unchecked: k + 1])
            r += g2 * (dot - r)
            unsafe rotationCorrelation[unchecked: k] = r.x
            unsafe rotationCorrelation[unchecked: k + 1] = r.y
            k += 2
        }
        if k < n {
            let i = base + k
            unsafe correlation[unchecked: k] += forget * (x * history[unchecked: i] - correlation[unchecked: k])
            let dot = unsafe w.x * rotationX[unchecked: i] + w.y * rotationY[unchecked: i] + w.z * rotationZ[unchecked: i]
            unsafe rotationCorrelation[unchecked: k] += forget * (dot - rotationCorrelation[unchecked: k])
        }
        // The peak search runs every other sample (12.5 Hz): the onset takes seconds anyway.
        pendingEvaluation += dt
        evaluationToggle.toggle()
        if evaluationToggle {
            evaluate(interval: pendingEvaluation, parameters: p)
            pendingEvaluation = 0
        }
    }

    private mutating func evaluate(interval dt: Double, parameters p: Parameters) {
        let r0 = correlation[0]
        var best = -1.0, bestLag = 0
        if filled == Self.lagCount, r0 > p.minimumAmplitude * p.minimumAmplitude {
            // Raw correlations are compared (r0 > 0 keeps the order); one division at the end.
            let first = max(2, Int((0.3 / Self.samplePeriod).rounded(.down)))
            let depth = 0.3 * r0
            var trough = r0, bestRaw = -r0
            for k in 1..<first { trough = min(trough, correlation[k]) }
            for k in first..<(Self.lagCount - 1) {
                let r = correlation[k]
                trough = min(trough, r)
                if r > bestRaw, r >= correlation[k - 1], r >= correlation[k + 1], r - trough >= depth {
                    bestRaw = r
                    bestLag = k
                }
            }
            if bestLag > 0 { best = bestRaw / r0 }
        }
        periodicity = best
        let g0 = max(rotationCorrelation[0], 1e-12)
        rotationRMS = g0.squareRoot()
        rotationAtPeriod = bestLag > 0 ? rotationCorrelation[bestLag] / g0 : 0
        rotationAtHalfPeriod = bestLag > 0 ? rotationCorrelation[bestLag / 2] / g0 : 0
        period = Double(bestLag) * Self.samplePeriod
        impactRatio = r0 > 0 ? curvature / r0 : 0
        // A body's gait turns the device the same way every stride; a hand moving it back and forth
        // need not (BROAD's periodic translations: 0.04–0.70 at the acceleration's period, walking
        // and running in a pocket 0.78–0.94).
        // The rotation decides the onset only: once walking, turns and uneven ground may change it.
        // Feet striking the ground are the other sign of gait (a hand's movement is smooth).
        let holds = best >= p.periodicityThreshold
            && (isWalking || rotationAtPeriod >= p.rotationPeriodicityThreshold
                || (p.impactThreshold > 0 && impactRatio >= p.impactThreshold))
        if holds {
            conditionTime = conditionTime > 0 ? conditionTime + dt : dt
        } else {
            conditionTime = conditionTime < 0 ? conditionTime - dt : -dt
        }
        if !isWalking && conditionTime >= p.onsetTime { isWalking = true }
        if isWalking && conditionTime <= -p.offsetTime { isWalking = false }
    }

    /// Forgets everything (after a gap).
    mutating func reset() {
        self = GaitDetector()
    }
}
