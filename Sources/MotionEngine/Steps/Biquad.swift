import Foundation

/// A second-order IIR section in transposed direct form II, with the three designs the step
/// detector needs (RBJ "Audio EQ Cookbook" formulas, R. Bristow-Johnson).
///
/// Value type, no allocation; `prime(_:)` sets the state to the steady response to a constant input
/// so that the first samples do not ring.
struct Biquad: Sendable {
    var b0 = 1.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
    var z1 = 0.0, z2 = 0.0

    /// Butterworth-like low-pass (Q = 1/√2) at `cutoff` Hz for sampling rate `rate` Hz.
    static func lowPass(cutoff: Double, rate: Double, q: Double = 0.5.squareRoot()) -> Biquad {
        let w = 2 * Double.pi * cutoff / rate, alpha = sin(w) / (2 * q), c = cos(w), a0 = 1 + alpha
        return Biquad(b0: (1 - c) / 2 / a0, b1: (1 - c) / a0, b2: (1 - c) / 2 / a0, a1: -2 * c / a0, a2: (1 - alpha) / a0)
    }

    /// Butterworth-like high-pass (Q = 1/√2) at `cutoff` Hz.
    static func highPass(cutoff: Double, rate: Double, q: Double = 0.5.squareRoot()) -> Biquad {
        let w = 2 * Double.pi * cutoff / rate, alpha = sin(w) / (2 * q), c = cos(w), a0 = 1 + alpha
        return Biquad(b0: (1 + c) / 2 / a0, b1: -(1 + c) / a0, b2: (1 + c) / 2 / a0, a1: -2 * c / a0, a2: (1 - alpha) / a0)
    }

    /// Band-pass with unit gain at `centre` Hz and quality factor `q`.
    static func bandPass(centre: Double, q: Double, rate: Double) -> Biquad {
        let w = 2 * Double.pi * centre / rate, alpha = sin(w) / (2 * q), a0 = 1 + alpha
        return Biquad(b0: alpha / a0, b1: 0, b2: -alpha / a0, a1: -2 * cos(w) / a0, a2: (1 - alpha) / a0)
    }

    /// Replaces the coefficients, keeping the state (used when the band-pass centre moves).
    mutating func setCoefficients(from other: Biquad) {
        b0 = other.b0; b1 = other.b1; b2 = other.b2; a1 = other.a1; a2 = other.a2
    }

    /// Sets the state to the steady response to a constant input `x`.
    mutating func prime(_ x: Double) {
        let y = (b0 + b1 + b2) / (1 + a1 + a2) * x
        z2 = b2 * x - a2 * y
        z1 = b1 * x - a1 * y + z2
    }

    mutating func reset() { z1 = 0; z2 = 0 }

    @inline(__always)
    mutating func callAsFunction(_ x: Double) -> Double {
        let y = b0 * x + z1
        z1 = b1 * x - a1 * y + z2
        z2 = b2 * x - a2 * y
        return y
    }
}
