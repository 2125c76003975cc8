import Foundation
import MotionSamples

/// Estimates the gyroscope bias (rad/s, device axes) with a small Kalman filter on the 3-vector.
///
/// Two kinds of measurement:
/// - **at rest** the low-passed gyro reading itself is the bias (all three axes);
/// - **in motion** the inclination correction reveals the part of the bias error that tilts the
///   strapdown frame: the correction rate about the two horizontal earth axes equals minus the bias
///   error seen through the attitude. Both sides are passed through the accelerometer's low-pass
///   filter so that the delay of the correction is matched.
///
/// The vertical axis is not observable in motion; its uncertainty grows until the next rest (or the
/// magnetometer's heading channel absorbs it). Every quantity is in rad/s and rad²/s².
struct GyroBiasEstimator: Sendable {
    /// Current bias estimate, rad/s, device axes.
    var bias = Vector3.zero
    /// Covariance of the estimate, (rad/s)².
    var covariance: Matrix3

    init(initialSigma: Double) {
        covariance = Matrix3.diagonal(Vector3(1, 1, 1) * (initialSigma * initialSigma))
    }

    /// Adds process noise: the bias may wander by `variancePerSecond` (rad/s)²/s.
    @inline(__always)
    mutating func predict(variancePerSecond q: Double, interval: Double, maxVariance: Double) {
        let add = q * interval
        covariance.m11 = min(covariance.m11 + add, maxVariance)
        covariance.m22 = min(covariance.m22 + add, maxVariance)
        covariance.m33 = min(covariance.m33 + add, maxVariance)
    }

    /// One scalar measurement `z = h·bias + noise(variance r)`.
    @inline(__always)
    mutating func update(h: Vector3, z: Double, variance r: Double) {
        let ph = covariance * h  // P is symmetric: P hᵀ
        let s = h.dot(ph) + r
        guard s > 0, s.isFinite else { return }
        let k = ph / s
        let innovation = z - h.dot(bias)
        guard innovation.isFinite else { return }
        bias += k * innovation
        // P ← P − k (P h)ᵀ, kept symmetric.
        covariance = covariance - Matrix3(
            k.x * ph.x, k.x * ph.y, k.x * ph.z,
            k.y * ph.x, k.y * ph.y, k.y * ph.z,
            k.z * ph.x, k.z * ph.y, k.z * ph.z
        )
        covariance.m12 = (covariance.m12 + covariance.m21) / 2
        covariance.m21 = covariance.m12
        covariance.m13 = (covariance.m13 + covariance.m31) / 2
        covariance.m31 = covariance.m13
        covariance.m23 = (covariance.m23 + covariance.m32) / 2
        covariance.m32 = covariance.m23
    }

    /// Limits each component of the bias to ±`limit` rad/s.
    @inline(__always)
    mutating func clip(_ limit: Double) {
        bias = Vector3(
            min(max(bias.x, -limit), limit), min(max(bias.y, -limit), limit), min(max(bias.z, -limit), limit)
        )
    }

    /// One-sigma uncertainty of the estimate (root of the mean diagonal variance), rad/s.
    var sigma: Double { ((covariance.m11 + covariance.m22 + covariance.m33) / 3).squareRoot() }
}
