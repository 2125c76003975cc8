import Foundation

/// The orientation-invariant features of one analysis window of acceleration, as the activity model
/// consumes them.
///
/// Every feature is computed on a window of ``ActivityFeatures/windowLength`` samples on the uniform
/// ``ActivityFeatures/sampleRate`` grid (5.12 s at 25 Hz). Gravity is estimated as the window mean;
/// "vertical" is the component along it and "horizontal" the rest, so the features do not depend on
/// how the phone is held or carried. Amplitudes are logarithms (of g, g/s or radians) so that a tree
/// threshold means a ratio, which carries across devices better than a difference.
public enum ActivityFeature: Int, CaseIterable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// ln(standard deviation of |a| in g + 10⁻³).
    case logStdMagnitude
    /// ln(standard deviation of the acceleration along gravity in g + 10⁻³).
    case logStdVertical
    /// ln(RMS of the horizontal acceleration, mean removed, in g + 10⁻³).
    case logRmsHorizontal
    /// ln(90th − 10th percentile of |a| in g + 10⁻³).
    case logRangeMagnitude
    /// ln(RMS of the jerk d**a**/dt in g/s + 10⁻³).
    case logJerk
    /// ln(1 − |mean of the unit acceleration directions| + 10⁻⁵): how much the direction of the
    /// acceleration wanders (0 when the device does not turn nor accelerate).
    case logDirectionSpread
    /// ln(angle between the mean acceleration of the first and second half of the window in rad + 10⁻²):
    /// slow re-orientation (a pedalling thigh, handling the phone).
    case logTiltChange
    /// Fraction of the vertical power (Hann window, mean removed) below 1 Hz.
    case verticalPowerBelow1Hz
    /// Fraction of the vertical power from 1 to 3.5 Hz (gait cadence).
    case verticalPower1To3_5Hz
    /// Fraction of the vertical power from 3.5 to 6 Hz.
    case verticalPower3_5To6Hz
    /// Fraction of the vertical power from 6 Hz to Nyquist (vibration).
    case verticalPowerAbove6Hz
    /// Entropy of the vertical power spectrum, normalised to [0, 1] (1 = white noise).
    case verticalSpectralEntropy
    /// Frequency of the vertical power peak between 0.5 and 5 Hz, Hz.
    case dominantFrequency
    /// Fraction of the vertical power within ±1 bin of that peak.
    case dominantPowerShare
    /// Power-weighted mean frequency of the vertical spectrum, Hz.
    case spectralCentroid
    /// ln(horizontal power / vertical power), both Hann-weighted with means removed.
    case logHorizontalOverVertical
    /// Highest normalised autocorrelation of |a| for lags 0.24–1.6 s (step or pedal periodicity).
    case autocorrelationPeak
    /// The lag of that peak, s.
    case autocorrelationLag
    /// Skewness of the vertical acceleration.
    case verticalSkewness
    /// ln(kurtosis of the vertical acceleration).
    case logVerticalKurtosis
    /// ln(RMS of d|a|/dt ÷ standard deviation of |a|, in s⁻¹, each + 10⁻³): the typical angular frequency
    /// of the magnitude signal, independent of its amplitude (a cadence cue that does not depend on how
    /// hard the person steps or how loosely the phone sits).
    case logMagnitudeFrequency
    /// Normalised autocorrelation of |a| (mean removed) at half the period of the acceleration
    /// direction's oscillation, in [−1, 1]. The period is the lag of the highest autocorrelation of the
    /// unit acceleration direction (mean removed), its highest local maximum for lags 0.68–2 s; 0 when it
    /// has none (a direction that only drifts: a turn, a slow tilt). A walker's phone tilts once per
    /// stride (two steps) while |a| peaks at every step, so |a| half a tilt period later is alike
    /// (Oxford's in-hand, armband, swinging-arm walks: median 0.48–0.79); a pedalling thigh tilts and
    /// bounces once per pedal stroke, so half a period later |a| is opposite (QROWD cycling: median
    /// −0.22 and −0.35). Accelerometer-only, so it works without a gyroscope.
    case magnitudeCorrelationAtHalfTiltPeriod
    /// ``dominantFrequency`` times the period of the acceleration direction's oscillation (the lag of
    /// ``magnitudeCorrelationAtHalfTiltPeriod``): the vertical peak in cycles per direction period. About 2
    /// for a walker (a step per half stride), about 1 for a pedalling thigh, whatever the cadence.
    case verticalCyclesPerTiltPeriod

    /// Number of features.
    public static let count = 23

    /// The camel-case name used in the feature table and the model file.
    public var description: String {
        switch self {
        case .logStdMagnitude: "logStdMagnitude"
        case .logStdVertical: "logStdVertical"
        case .logRmsHorizontal: "logRmsHorizontal"
        case .logRangeMagnitude: "logRangeMagnitude"
        case .logJerk: "logJerk"
        case .logDirectionSpread: "logDirectionSpread"
        case .logTiltChange: "logTiltChange"
        case .verticalPowerBelow1Hz: "verticalPowerBelow1Hz"
        case .verticalPower1To3_5Hz: "verticalPower1To3_5Hz"
        case .verticalPower3_5To6Hz: "verticalPower3_5To6Hz"
        case .verticalPowerAbove6Hz: "verticalPowerAbove6Hz"
        case .verticalSpectralEntropy: "verticalSpectralEntropy"
        case .dominantFrequency: "dominantFrequency"
        case .dominantPowerShare: "dominantPowerShare"
        case .spectralCentroid: "spectralCentroid"
        case .logHorizontalOverVertical: "logHorizontalOverVertical"
        case .autocorrelationPeak: "autocorrelationPeak"
        case .autocorrelationLag: "autocorrelationLag"
        case .verticalSkewness: "verticalSkewness"
        case .logVerticalKurtosis: "logVerticalKurtosis"
        case .logMagnitudeFrequency: "logMagnitudeFrequency"
        case .magnitudeCorrelationAtHalfTiltPeriod: "magnitudeCorrelationAtHalfTiltPeriod"
        case .verticalCyclesPerTiltPeriod: "verticalCyclesPerTiltPeriod"
        }
    }
}

/// Computes ``ActivityFeature`` vectors from a stream of uniformly resampled acceleration.
///
/// Feed it grid samples with ``push(_:)``; ``compute(into:)`` writes the features of the last
/// ``windowLength`` samples. All buffers are allocated once in `init`: pushing and computing never
/// allocate.
public struct ActivityFeatures: Sendable {
    /// The grid rate the features are defined on, Hz.
    public static let sampleRate = 25.0
    /// Samples per window (5.12 s at 25 Hz; a power of two for the FFT).
    public static let windowLength = 128
    /// Window duration, seconds.
    public static let windowDuration = Double(windowLength) / sampleRate

    private static let n = windowLength
    private static let log2n = 7

    // Ring buffer of the last n samples.
    private var ringX: [Double]
    private var ringY: [Double]
    private var ringZ: [Double]
    private var head = 0
    /// Number of samples pushed since the last ``reset()`` (saturates at `Int.max`).
    public private(set) var samplesSeen = 0

    // Scratch, reused by every computation.
    private var wx: [Double]
    private var wy: [Double]
    private var wz: [Double]
    private var magnitude: [Double]
    private var directionX: [Double]
    private var directionY: [Double]
    private var directionZ: [Double]
    private var vertical: [Double]
    private var sorted: [Double]
    private var re: [Double]
    private var im: [Double]
    private var power: [Double]
    private let hann: [Double]
    private let cosTable: [Double]
    private let sinTable: [Double]
    private let bitReverse: [Int]

    /// An extractor with every buffer allocated, before the first sample.
    public init() {
        let n = Self.n
        ringX = Array(repeating: 0, count: n)
        ringY = ringX
        ringZ = ringX
        wx = ringX
        wy = ringX
        wz = ringX
        magnitude = ringX
        directionX = ringX
        directionY = ringX
        directionZ = ringX
        vertical = ringX
        sorted = ringX
        re = ringX
        im = ringX
        power = Array(repeating: 0, count: n / 2 + 1)
        // Periodic Hann window.
        hann = (0..<n).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n)) }
        cosTable = (0..<n / 2).map { cos(-2 * Double.pi * Double($0) / Double(n)) }
        sinTable = (0..<n / 2).map { sin(-2 * Double.pi * Double($0) / Double(n)) }
        bitReverse = (0..<n).map { i in
            var r = 0
            var v = i
            for _ in 0..<Self.log2n {
                r = (r << 1) | (v & 1)
                v >>= 1
            }
            return r
        }
    }

    /// Forgets the window (after a gap in the data).
    public mutating func reset() {
        samplesSeen = 0
        head = 0
    }

    /// True when a full window is available.
    public var isWindowFull: Bool { samplesSeen >= Self.n }

    /// Appends one grid sample (acceleration in g).
    public mutating func push(_ a: Vector3) {
        ringX[head] = a.x
        ringY[head] = a.y
        ringZ[head] = a.z
        head = (head + 1) & (Self.n - 1)
        if samplesSeen < Int.max { samplesSeen += 1 }
    }

    /// Writes the ``ActivityFeature/count`` features of the last window into `out` (indexed by
    /// `ActivityFeature.rawValue`). Call only when ``isWindowFull``.
    public mutating func compute(into out: inout [Double]) {
        precondition(out.count >= ActivityFeature.count, "feature buffer too small")
        let n = Self.n
        let nd = Double(n)
        let fs = Self.sampleRate
        // Unroll the ring, oldest first.
        for i in 0..<n {
            let j = (head + i) & (n - 1)
            wx[i] = ringX[j]
            wy[i] = ringY[j]
            wz[i] = ringZ[j]
        }
        // Gravity estimate and direction.
        var gx = 0.0, gy = 0.0, gz = 0.0
        var ux = 0.0, uy = 0.0, uz = 0.0
        for i in 0..<n {
            gx += wx[i]
            gy += wy[i]
            gz += wz[i]
            let m = (wx[i] * wx[i] + wy[i] * wy[i] + wz[i] * wz[i]).squareRoot()
            magnitude[i] = m
            if m > 1e-9 {
                directionX[i] = wx[i] / m
                directionY[i] = wy[i] / m
                directionZ[i] = wz[i] / m
            } else {
                directionX[i] = 0
                directionY[i] = 0
                directionZ[i] = 0
            }
            ux += directionX[i]
            uy += directionY[i]
            uz += directionZ[i]
        }
        gx /= nd
        gy /= nd
        gz /= nd
        let gNorm = (gx * gx + gy * gy + gz * gz).squareRoot()
        var ex = 0.0, ey = 0.0, ez = -1.0
        if gNorm > 1e-6 {
            ex = gx / gNorm
            ey = gy / gNorm
            ez = gz / gNorm
        }
        // Vertical and horizontal components; magnitude statistics.
        var meanM = 0.0, meanV = 0.0
        var hmx = 0.0, hmy = 0.0, hmz = 0.0
        for i in 0..<n {
            let v = wx[i] * ex + wy[i] * ey + wz[i] * ez
            vertical[i] = v
            meanV += v
            meanM += magnitude[i]
            hmx += wx[i] - v * ex
            hmy += wy[i] - v * ey
            hmz += wz[i] - v * ez
        }
        meanM /= nd
        meanV /= nd
        hmx /= nd
        hmy /= nd
        hmz /= nd
        var varM = 0.0, varV = 0.0, m3V = 0.0, m4V = 0.0, horizontalSquares = 0.0
        var hannH = 0.0, hannV = 0.0
        for i in 0..<n {
            let dm = magnitude[i] - meanM
            varM += dm * dm
            let dv = vertical[i] - meanV
            let dv2 = dv * dv
            varV += dv2
            m3V += dv2 * dv
            m4V += dv2 * dv2
            let hx = wx[i] - vertical[i] * ex - hmx
            let hy = wy[i] - vertical[i] * ey - hmy
            let hz = wz[i] - vertical[i] * ez - hmz
            let h2 = hx * hx + hy * hy + hz * hz
            horizontalSquares += h2
            let w2 = hann[i] * hann[i]
            hannH += w2 * h2
            hannV += w2 * dv2
        }
        varM /= nd
        varV /= nd
        m3V /= nd
        m4V /= nd
        out[ActivityFeature.logStdMagnitude.rawValue] = log(varM.squareRoot() + 1e-3)
        out[ActivityFeature.logStdVertical.rawValue] = log(varV.squareRoot() + 1e-3)
        out[ActivityFeature.logRmsHorizontal.rawValue] = log((horizontalSquares / nd).squareRoot() + 1e-3)
        if varV > 1e-18 {
            out[ActivityFeature.verticalSkewness.rawValue] = m3V / (varV * varV.squareRoot())
            out[ActivityFeature.logVerticalKurtosis.rawValue] = log(m4V / (varV * varV))
        } else {
            out[ActivityFeature.verticalSkewness.rawValue] = 0
            out[ActivityFeature.logVerticalKurtosis.rawValue] = log(3.0)
        }
        out[ActivityFeature.logHorizontalOverVertical.rawValue] = log((hannH + 1e-12) / (hannV + 1e-12))

        // Percentile range of |a| (insertion sort of a copy: n is small and this never allocates).
        for i in 0..<n { sorted[i] = magnitude[i] }
        for i in 1..<n {
            let key = sorted[i]
            var j = i - 1
            while j >= 0 && sorted[j] > key {
                sorted[j + 1] = sorted[j]
                j -= 1
            }
            sorted[j + 1] = key
        }
        let p10 = sorted[Int((0.1 * Double(n - 1)).rounded())]
        let p90 = sorted[Int((0.9 * Double(n - 1)).rounded())]
        out[ActivityFeature.logRangeMagnitude.rawValue] = log(p90 - p10 + 1e-3)

        // Jerk, and the rate of change of |a| relative to its spread.
        var jerkSquares = 0.0
        var magnitudeJerkSquares = 0.0
        for i in 1..<n {
            let dx = wx[i] - wx[i - 1], dy = wy[i] - wy[i - 1], dz = wz[i] - wz[i - 1]
            jerkSquares += dx * dx + dy * dy + dz * dz
            let dm = magnitude[i] - magnitude[i - 1]
            magnitudeJerkSquares += dm * dm
        }
        out[ActivityFeature.logJerk.rawValue] = log((jerkSquares / Double(n - 1)).squareRoot() * fs + 1e-3)
        out[ActivityFeature.logMagnitudeFrequency.rawValue] =
            log(((magnitudeJerkSquares / Double(n - 1)).squareRoot() * fs + 1e-3) / (varM.squareRoot() + 1e-3))

        // Direction spread and tilt change.
        let meanDirection = (ux * ux + uy * uy + uz * uz).squareRoot() / nd
        out[ActivityFeature.logDirectionSpread.rawValue] = log(max(0, 1 - meanDirection) + 1e-5)
        var ax = 0.0, ay = 0.0, az = 0.0, bx = 0.0, by = 0.0, bz = 0.0
        for i in 0..<n / 2 {
            ax += wx[i]
            ay += wy[i]
            az += wz[i]
            bx += wx[i + n / 2]
            by += wy[i + n / 2]
            bz += wz[i + n / 2]
        }
        let firstHalf = Vector3(ax, ay, az), secondHalf = Vector3(bx, by, bz)
        let tilt = firstHalf.norm > 1e-9 && secondHalf.norm > 1e-9 ? firstHalf.angle(to: secondHalf) : 0
        out[ActivityFeature.logTiltChange.rawValue] = log(tilt + 1e-2)

        // Vertical power spectrum.
        for i in 0..<n {
            re[bitReverse[i]] = (vertical[i] - meanV) * hann[i]
            im[bitReverse[i]] = 0
        }
        fftInPlace()
        var total = 0.0
        for k in 0...(n / 2) {
            power[k] = re[k] * re[k] + im[k] * im[k]
            if k > 0 { total += power[k] }
        }
        let df = fs / nd
        var low = 0.0, gait = 0.0, mid = 0.0, high = 0.0, entropy = 0.0, centroid = 0.0
        var peakBin = 0
        var peakPower = -1.0
        if total > 1e-18 {
            for k in 1...(n / 2) {
                let f = Double(k) * df
                let p = power[k] / total
                if f < 1.0 {
                    low += p
                } else if f < 3.5 {
                    gait += p
                } else if f < 6.0 {
                    mid += p
                } else {
                    high += p
                }
                if p > 0 { entropy -= p * log(p) }
                centroid += f * p
                if f >= 0.5 && f <= 5.0 && power[k] > peakPower {
                    peakPower = power[k]
                    peakBin = k
                }
            }
            entropy /= log(Double(n / 2))
        } else {
            entropy = 1
        }
        out[ActivityFeature.verticalPowerBelow1Hz.rawValue] = low
        out[ActivityFeature.verticalPower1To3_5Hz.rawValue] = gait
        out[ActivityFeature.verticalPower3_5To6Hz.rawValue] = mid
        out[ActivityFeature.verticalPowerAbove6Hz.rawValue] = high
        out[ActivityFeature.verticalSpectralEntropy.rawValue] = entropy
        out[ActivityFeature.spectralCentroid.rawValue] = centroid
        if peakBin > 0 {
            var share = 0.0
            for k in max(1, peakBin - 1)...min(n / 2, peakBin + 1) { share += power[k] }
            out[ActivityFeature.dominantFrequency.rawValue] = Double(peakBin) * df
            out[ActivityFeature.dominantPowerShare.rawValue] = share / total
        } else {
            out[ActivityFeature.dominantFrequency.rawValue] = 0
            out[ActivityFeature.dominantPowerShare.rawValue] = 0
        }

        // Autocorrelation of |a| (mean removed), lags 0.24–1.6 s.
        let energy = varM * nd
        var bestLag = 0
        var bestCorrelation = 0.0
        if energy > 1e-18 {
            bestCorrelation = -Double.infinity
            let lo = Int((0.24 * fs).rounded()), hi = Int((1.6 * fs).rounded())
            for lag in lo...hi {
                var s = 0.0
                for i in 0..<(n - lag) { s += (magnitude[i] - meanM) * (magnitude[i + lag] - meanM) }
                let c = s / energy
                if c > bestCorrelation {
                    bestCorrelation = c
                    bestLag = lag
                }
            }
        }
        out[ActivityFeature.autocorrelationPeak.rawValue] = bestCorrelation
        out[ActivityFeature.autocorrelationLag.rawValue] = Double(bestLag) / fs

        // Period of the direction's oscillation, from the autocorrelation of the unit direction (mean
        // removed), 0.68–2 s; then |a|'s autocorrelation at half that lag.
        let mx = ux / nd, my = uy / nd, mz = uz / nd
        for i in 0..<n {
            directionX[i] -= mx
            directionY[i] -= my
            directionZ[i] -= mz
        }
        // The period is the lag of the highest local maximum inside the range; a direction that only
        // drifts (a bend, a slow tilt) has none, and both features are then 0 (no tilt period).
        func directionCorrelation(_ lag: Int) -> Double {
            var s = 0.0
            for i in 0..<(n - lag) {
                s += directionX[i] * directionX[i + lag] + directionY[i] * directionY[i + lag] + directionZ[i] * directionZ[i + lag]
            }
            return s
        }
        var tiltLag = 0
        var tiltBest = -Double.infinity
        var previous = directionCorrelation(Self.tiltLagRange.lowerBound - 1)
        var current = directionCorrelation(Self.tiltLagRange.lowerBound)
        for lag in Self.tiltLagRange {
            let next = directionCorrelation(lag + 1)
            if current > previous && current >= next && current > tiltBest {
                tiltBest = current
                tiltLag = lag
            }
            previous = current
            current = next
        }
        var halfPeriodCorrelation = 0.0
        if energy > 1e-18 && tiltLag > 0 {
            let half = (tiltLag + 1) / 2
            var s = 0.0
            for i in 0..<(n - half) { s += (magnitude[i] - meanM) * (magnitude[i + half] - meanM) }
            halfPeriodCorrelation = s / energy
        }
        out[ActivityFeature.magnitudeCorrelationAtHalfTiltPeriod.rawValue] = halfPeriodCorrelation
        out[ActivityFeature.verticalCyclesPerTiltPeriod.rawValue] =
            out[ActivityFeature.dominantFrequency.rawValue] * Double(tiltLag) / fs
    }

    /// Lags searched for the direction's period, samples (0.68–2 s at 25 Hz).
    private static let tiltLagRange = 17...50

    /// Iterative radix-2 FFT of (re, im), already in bit-reversed order.
    private mutating func fftInPlace() {
        let n = Self.n
        var size = 2
        while size <= n {
            let half = size / 2
            let step = n / size
            var start = 0
            while start < n {
                for j in 0..<half {
                    let c = cosTable[j * step], s = sinTable[j * step]
                    let a = start + j, b = a + half
                    let tr = re[b] * c - im[b] * s
                    let ti = re[b] * s + im[b] * c
                    re[b] = re[a] - tr
                    im[b] = im[a] - ti
                    re[a] += tr
                    im[a] += ti
                }
                start += size
            }
            size *= 2
        }
    }
}
