import Foundation
import MotionSamples

/// The heading offset from the 6D earth frame to magnetic north: a scalar Kalman filter.
///
/// The 9D attitude is `Rz(offset) ⊗ q6D`. The field, rotated into the 6D earth frame, measures the
/// offset. The offset is a random walk (the gyro-only heading drifts); each measurement is weighted
/// by its variance, so the first measurements set the heading at once, the steady state averages
/// the magnetometer over about `measurementNoise / offsetNoise` seconds, and anything that makes
/// the field less trustworthy can simply raise the measurement variance.
struct HeadingCorrector: Sendable {
    /// Rotation about the vertical, radians, in (−π, π].
    var offset = 0.0
    /// Variance of the offset, rad².
    var variance = 0.0
    var isInitialized = false

    /// The offset that turns the horizontal part of `m` (6D earth frame) onto +x (north).
    @inline(__always)
    static func measuredOffset(_ m: Vector3) -> Double { -atan2(m.y, m.x) }

    /// Starts from a first measurement of variance `r` (rad²).
    mutating func start(measurement: Double, variance r: Double) {
        offset = wrapAngle(measurement)
        variance = r
        isInitialized = true
    }

    /// Lets the offset's uncertainty grow by `noiseDensity` (rad²/s) over `dt` seconds.
    @inline(__always)
    mutating func predict(dt: Double, noiseDensity: Double) {
        variance += noiseDensity * dt
    }

    /// Fuses one offset measurement of variance `r` (rad²).
    @inline(__always)
    mutating func update(measurement: Double, variance r: Double) {
        let innovation = wrapAngle(measurement - offset)
        let s = variance + r
        guard s > 0, s.isFinite, innovation.isFinite else { return }
        let k = variance / s
        offset = wrapAngle(offset + k * innovation)
        variance -= k * variance
    }

    /// Forgets how well the offset is known (after a gap or gyro saturation): the next measurements
    /// set it again quickly.
    mutating func loosen(variance v: Double) {
        variance = max(variance, v)
    }
}

/// `angle` wrapped into (−π, π].
@inline(__always)
func wrapAngle(_ angle: Double) -> Double {
    var a = angle
    if a > Double.pi || a <= -Double.pi {
        a = a - 2 * Double.pi * (a / (2 * Double.pi)).rounded()
        if a <= -Double.pi { a += 2 * Double.pi }
    }
    return a
}
