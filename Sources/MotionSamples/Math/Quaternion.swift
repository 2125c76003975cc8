import Foundation

/// A Hamilton quaternion `w + x·i + y·j + z·k`, stored scalar first.
///
/// Orientation convention used everywhere in this package (and Apple's, measured on an iPhone; see
/// `docs/conventions.md#attitude`): a unit quaternion `q` describes the orientation of the device, rotating
/// device axes into the reference frame, `v_reference = q ⊗ v_device ⊗ q*`.
@frozen
public struct Quaternion: Sendable, Hashable, Codable, CustomStringConvertible {
    public var w: Double
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable
    public init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w
        self.x = x
        self.y = y
        self.z = z
    }

    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    /// Rotation by `angle` radians about `axis` (normalised here; a zero axis gives the identity).
    @inlinable
    public init(axis: Vector3, angle: Double) {
        let n = axis.norm
        guard n > 0, n.isFinite else {
            self = .identity
            return
        }
        let s = sin(angle / 2) / n
        self.init(w: cos(angle / 2), x: axis.x * s, y: axis.y * s, z: axis.z * s)
    }

    /// Rotation by the rotation vector `v` (axis × angle in radians), exact for any angle.
    @inlinable
    public init(rotationVector v: Vector3) {
        let angle = v.norm
        if angle < 1e-9 {
            // Second-order series keeps the result unit length to rounding.
            let q = Quaternion(w: 1 - angle * angle / 8, x: v.x / 2, y: v.y / 2, z: v.z / 2)
            self = q.normalized
        } else {
            let s = sin(angle / 2) / angle
            self.init(w: cos(angle / 2), x: v.x * s, y: v.y * s, z: v.z * s)
        }
    }

    /// Hamilton product `a ⊗ b` (apply `b` first, then `a`).
    @inlinable
    public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w
        )
    }

    /// The conjugate, which is the inverse for a unit quaternion.
    @inlinable public var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }

    @inlinable public var norm: Double { (w * w + x * x + y * y + z * z).squareRoot() }

    /// Unit-length copy; the identity when the norm is zero or not finite.
    @inlinable public var normalized: Quaternion {
        let n = norm
        guard n > 0, n.isFinite else { return .identity }
        return Quaternion(w: w / n, x: x / n, y: y / n, z: z / n)
    }

    /// The same rotation with `w ≥ 0`.
    @inlinable public var canonical: Quaternion { w < 0 ? Quaternion(w: -w, x: -x, y: -y, z: -z) : self }

    @inlinable public var isFinite: Bool { w.isFinite && x.isFinite && y.isFinite && z.isFinite }

    /// Rotates `v` by this (unit) quaternion: `q ⊗ v ⊗ q*`.
    @inlinable
    public func rotate(_ v: Vector3) -> Vector3 {
        // v + 2w(u × v) + 2u × (u × v), with u the vector part.
        let u = Vector3(x, y, z)
        let t = u.cross(v) * 2
        return v + t * w + u.cross(t)
    }

    /// Rotates `v` by the inverse of this (unit) quaternion: `q* ⊗ v ⊗ q`.
    @inlinable
    public func inverseRotate(_ v: Vector3) -> Vector3 { conjugate.rotate(v) }

    /// Rotation angle in radians, in [0, π].
    @inlinable public var angle: Double { 2 * atan2(Vector3(x, y, z).norm, abs(w)) }

    /// Angle in radians of the rotation that takes `self` to `other`, in [0, π].
    @inlinable public func angle(to other: Quaternion) -> Double { (other * conjugate).angle }

    /// The rotation matrix `R` with `R·v = rotate(v)`.
    @inlinable
    public var rotationMatrix: Matrix3 {
        let (ww, xx, yy, zz) = (w * w, x * x, y * y, z * z)
        let (xy, xz, yz, wx, wy, wz) = (x * y, x * z, y * z, w * x, w * y, w * z)
        return Matrix3(
            ww + xx - yy - zz, 2 * (xy - wz), 2 * (xz + wy),
            2 * (xy + wz), ww - xx + yy - zz, 2 * (yz - wx),
            2 * (xz - wy), 2 * (yz + wx), ww - xx - yy + zz
        )
    }

    /// The rotation vector (axis × angle) of this rotation, angle in [0, π].
    @inlinable
    public var rotationVector: Vector3 {
        let q = canonical
        let v = Vector3(q.x, q.y, q.z)
        let s = v.norm
        if s < 1e-12 { return v * 2 }
        return v * (2 * atan2(s, q.w) / s)
    }

    /// Rotation about the reference z axis by `angle` radians.
    @inlinable
    public static func aboutZ(_ angle: Double) -> Quaternion {
        Quaternion(w: cos(angle / 2), x: 0, y: 0, z: sin(angle / 2))
    }

    /// Builds the quaternion of a proper rotation matrix (Shepperd's method).
    public init(rotationMatrix m: Matrix3) {
        let trace = m.m11 + m.m22 + m.m33
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            self.init(w: s / 4, x: (m.m32 - m.m23) / s, y: (m.m13 - m.m31) / s, z: (m.m21 - m.m12) / s)
        } else if m.m11 > m.m22 && m.m11 > m.m33 {
            let s = (1 + m.m11 - m.m22 - m.m33).squareRoot() * 2
            self.init(w: (m.m32 - m.m23) / s, x: s / 4, y: (m.m12 + m.m21) / s, z: (m.m13 + m.m31) / s)
        } else if m.m22 > m.m33 {
            let s = (1 + m.m22 - m.m11 - m.m33).squareRoot() * 2
            self.init(w: (m.m13 - m.m31) / s, x: (m.m12 + m.m21) / s, y: s / 4, z: (m.m23 + m.m32) / s)
        } else {
            let s = (1 + m.m33 - m.m11 - m.m22).squareRoot() * 2
            self.init(w: (m.m21 - m.m12) / s, x: (m.m13 + m.m31) / s, y: (m.m23 + m.m32) / s, z: s / 4)
        }
        self = self.normalized
    }

    /// Spherical linear interpolation from `self` (t = 0) to `other` (t = 1) along the shorter arc.
    public func slerp(to other: Quaternion, _ t: Double) -> Quaternion {
        var b = other
        var d = w * b.w + x * b.x + y * b.y + z * b.z
        if d < 0 {
            b = Quaternion(w: -b.w, x: -b.x, y: -b.y, z: -b.z)
            d = -d
        }
        if d > 0.9995 {
            return Quaternion(
                w: w + (b.w - w) * t, x: x + (b.x - x) * t, y: y + (b.y - y) * t, z: z + (b.z - z) * t
            ).normalized
        }
        let theta = acos(min(1, d))
        let s0 = sin((1 - t) * theta) / sin(theta)
        let s1 = sin(t * theta) / sin(theta)
        return Quaternion(w: w * s0 + b.w * s1, x: x * s0 + b.x * s1, y: y * s0 + b.y * s1, z: z * s0 + b.z * s1)
    }

    public var description: String { "[w: \(w), x: \(x), y: \(y), z: \(z)]" }
}

extension Quaternion {
    /// Apple's Euler angles (`docs/conventions.md#euler-angles`): `R = Rz(yaw)·Rx(pitch)·Ry(roll)`, so
    /// pitch = asin(R₃₂) ∈ [−π/2, π/2], roll = atan2(−R₃₁, R₃₃), yaw = atan2(−R₁₂, R₂₂).
    ///
    /// The diagonal terms are written `1 − 2(x² + y²)` and `1 − 2(x² + z²)`, as Core Motion evaluates them:
    /// for a quaternion a little off unit length (Apple's headphone quaternions are float-precision, unit to
    /// about 1e-7) this gives `CMAttitude`'s own angles to 1e-14° (measured on the AirPods capture
    /// `airpods-head-shake`, whose Euler angles Core Motion computed), where `w² − x² − y² + z²` would differ
    /// by up to 4e-6°. For a unit quaternion the two are the same.
    public var appleEulerAngles: (roll: Double, pitch: Double, yaw: Double) {
        let pitch = asin(max(-1, min(1, 2 * (w * x + y * z))))
        let roll = atan2(2 * (w * y - x * z), 1 - 2 * (x * x + y * y))
        let yaw = atan2(2 * (w * z - x * y), 1 - 2 * (x * x + z * z))
        return (roll, pitch, yaw)
    }

    /// The inverse of ``appleEulerAngles``: `Rz(yaw)·Rx(pitch)·Ry(roll)`.
    public init(appleRoll roll: Double, pitch: Double, yaw: Double) {
        self = Quaternion.aboutZ(yaw) * Quaternion(axis: .unitX, angle: pitch) * Quaternion(axis: .unitY, angle: roll)
    }
}

extension Quaternion {
    /// Unit-length copy for a quaternion already close to unit length (one square root, no checks
    /// beyond a non-finite guard that returns the identity).
    @inlinable @inline(__always)
    public var normalizedFast: Quaternion {
        let n2 = w * w + x * x + y * y + z * z
        guard n2 > 0, n2.isFinite else { return .identity }
        let inv = 1 / n2.squareRoot()
        return Quaternion(w: w * inv, x: x * inv, y: y * inv, z: z * inv)
    }
}
