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
        let next = product(orientation, Self.increment(rate * interval))
        // The product of unit quaternions stays unit to rounding; renormalise every 16 steps.
        steps &+= 1
        orientation = steps & 15 == 0 ? next.normalizedFast : next
    }
    var steps = 0

    /// The quaternion of the rotation vector `v` (rad).
    @inline(__always)
    static func increment(_ v: Vector3) -> Quaternion {
        let a2 = v.normSquared
        if a2 < 0.0025 {
            let c = halfAngleCosine(a2), s = halfAngleSineOverAngle(a2)
            return Quaternion(w: c, x: v.x * s, y: v.y * s, z: v.z * s)
        }
        return Quaternion(rotationVector: v)
    }

    /// cos(a/2) for a rotation angle a given as `a2` = a² (a < 0.05 rad), to O(a⁸): error below 1e-16.
    /// (Horner form with the reciprocal coefficients: multiplications only, no division.)
    @inline(__always)
    static func halfAngleCosine(_ a2: Double) -> Double {
        1 - a2 * (1.0 / 8 - a2 * (1.0 / 384 - a2 * (1.0 / 46080)))
    }

    /// sin(a/2)/a for `a2` = a² (a < 0.05 rad), to O(a⁸): error below 1e-16.
    @inline(__always)
    static func halfAngleSineOverAngle(_ a2: Double) -> Double {
        0.5 - a2 * (1.0 / 48 - a2 * (1.0 / 3840 - a2 * (1.0 / 645120)))
    }
}

/// Hamilton product `a ⊗ b`, always inlined (the hot path's own copy of `Quaternion.*`).
@inlinable @inline(__always)
func product(_ a: Quaternion, _ b: Quaternion) -> Quaternion {
    Quaternion(
        w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
        x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w
    )
}

/// `h ⊗ q` for a rotation `h` about z (`h.x = h.y = 0`): ``product(_:_:)`` without the zero terms
/// (the same result).
@inlinable @inline(__always)
func headingProduct(_ h: Quaternion, _ q: Quaternion) -> Quaternion {
    Quaternion(
        w: h.w * q.w - h.z * q.z,
        x: h.w * q.x - h.z * q.y,
        y: h.w * q.y + h.z * q.x,
        z: h.w * q.z + h.z * q.w
    )
}

/// `q ⊗ v ⊗ q*` for a unit quaternion, always inlined.
@inline(__always)
func rotated(_ v: Vector3, by q: Quaternion) -> Vector3 {
    let tx = 2 * (q.y * v.z - q.z * v.y), ty = 2 * (q.z * v.x - q.x * v.z), tz = 2 * (q.x * v.y - q.y * v.x)
    return Vector3(
        v.x + q.w * tx + (q.y * tz - q.z * ty),
        v.y + q.w * ty + (q.z * tx - q.x * tz),
        v.z + q.w * tz + (q.x * ty - q.y * tx)
    )
}
