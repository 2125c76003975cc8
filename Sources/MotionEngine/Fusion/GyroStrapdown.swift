import Foundation
import MotionSamples

/// Integrates the bias-corrected rotation rate into an orientation: the "strapdown" attitude.
///
/// `orientation` rotates device axes into the strapdown frame, an almost-inertial frame fixed at
/// the start that drifts only as fast as the residual gyro error. The increment is the exact
/// rotation of a constant rate over the interval (series expansion for small angles, so the hot path
/// needs no trigonometry).
struct GyroStrapdown: Sendable {
    /// Device → strapdown frame.
    var orientation = Quaternion.identity

    /// Advances by `rate` (rad/s, device axes, bias removed) held for `interval` seconds.
    @inline(__always)
    mutating func integrate(_ rate: Vector3, interval: Double) {
        orientation = (orientation * Self.increment(rate * interval)).normalizedFast
    }

    /// The quaternion of the rotation vector `v` (rad).
    @inline(__always)
    static func increment(_ v: Vector3) -> Quaternion {
        let a2 = v.normSquared
        if a2 < 0.0025 {
            // cos(a/2) and sin(a/2)/a to O(a⁸): error below 1e-16 for a < 0.05 rad.
            let c = 1 - a2 / 8 + a2 * a2 / 384 - a2 * a2 * a2 / 46080
            let s = 0.5 - a2 / 48 + a2 * a2 / 3840 - a2 * a2 * a2 / 645120
            return Quaternion(w: c, x: v.x * s, y: v.y * s, z: v.z * s)
        }
        return Quaternion(rotationVector: v)
    }
}

extension Quaternion {
    /// Unit-length copy for a quaternion already close to unit length (one square root, no checks
    /// beyond a non-finite guard that returns the identity).
    @inline(__always)
    var normalizedFast: Quaternion {
        let n2 = w * w + x * x + y * y + z * z
        guard n2 > 0, n2.isFinite else { return .identity }
        let inv = 1 / n2.squareRoot()
        return Quaternion(w: w * inv, x: x * inv, y: y * inv, z: z * inv)
    }
}
