import Foundation
import MotionSamples

/// Coefficients of a second-order Butterworth low-pass filter, discretised with the bilinear
/// transform (cut-off pre-warped).
///
/// The filter is parameterised by a *time constant* τ (seconds) rather than a cut-off: the cut-off
/// is `f_c = √2 / (2π τ)`, which makes the step response settle on the same time scale as a
/// first-order filter of time constant τ.
struct ButterworthCoefficients: Sendable, Equatable {
    var b0: Double, b1: Double, b2: Double
    var a1: Double, a2: Double
    /// Time constant, seconds.
    var timeConstant: Double
    /// Sample period the coefficients were computed for, seconds.
    var samplePeriod: Double

    init(timeConstant tau: Double, samplePeriod ts: Double) {
        timeConstant = tau
        samplePeriod = ts
        let fc = 2.0.squareRoot() / (2 * Double.pi * max(tau, 1e-9))
        // Keep the cut-off below Nyquist so the filter stays stable for any τ and Ts.
        let k = tan(Double.pi * min(fc * ts, 0.45))
        let k2 = k * k
        let root2k = 2.0.squareRoot() * k
        let norm = 1 / (1 + root2k + k2)
        b0 = k2 * norm
        b1 = 2 * b0
        b2 = b0
        a1 = 2 * (k2 - 1) * norm
        a2 = (1 - root2k + k2) * norm
    }

    /// True when the coefficients were made for (about) this sample period: within 2 %.
    @inline(__always)
    func matches(samplePeriod ts: Double) -> Bool {
        abs(ts - samplePeriod) <= 0.02 * samplePeriod
    }
}

/// State of a second-order low-pass filter on a 3-vector (direct form II transposed).
///
/// Starts by averaging: until `timeConstant` seconds of input have been seen, the output is the
/// running mean of the input (the best estimate of a constant from few samples); then the filter
/// state is seeded with that mean, as if the input had been constant forever.
struct LowPassVector3: Sendable {
    private var s1 = Vector3.zero
    private var s2 = Vector3.zero
    private var sum = Vector3.zero
    private var count = 0
    private var elapsed = 0.0
    private(set) var isWarm = false
    /// The latest output.
    private(set) var value = Vector3.zero

    init() {}

    /// Filters one input sample and returns the output.
    @inline(__always)
    mutating func filter(_ x: Vector3, _ c: ButterworthCoefficients) -> Vector3 {
        if !isWarm {
            sum += x
            count += 1
            elapsed += c.samplePeriod
            value = sum / Double(count)
            if elapsed >= c.timeConstant {
                seed(value, c)
            }
            return value
        }
        // b1 = 2 b0 and b2 = b0 exactly: x·b1 = 2 (x·b0) and x·b2 = x·b0 to the bit.
        let xb = x * c.b0
        let y = xb + s1
        s1 = (xb + xb) - y * c.a1 + s2
        s2 = xb - y * c.a2
        value = y
        return y
    }

    /// Seeds the state as if the input had been `x` forever.
    mutating func seed(_ x: Vector3, _ c: ButterworthCoefficients) {
        s2 = x * (c.b2 - c.a2)
        s1 = x * (c.b1 - c.a1) + s2
        value = x
        isWarm = true
    }

    /// Forgets everything: the next input starts a new average.
    mutating func reset() {
        self = LowPassVector3()
    }

    /// Rotates the filter's memory by `m` (used when the frame the inputs are expressed in is rotated).
    mutating func rotate(by m: Matrix3) {
        s1 = m * s1
        s2 = m * s2
        sum = m * sum
        value = m * value
    }
}

/// A first-order low-pass (exponential smoothing) gain for time constant τ and sample period Ts:
/// `k = 1 − exp(−Ts/τ)`.
@inline(__always)
func firstOrderGain(timeConstant tau: Double, samplePeriod ts: Double) -> Double {
    tau > 0 ? 1 - exp(-ts / tau) : 1
}
