import Foundation

// Apple's attitude conventions. `q` always rotates device axes into the reference frame
// (v_reference = q ⊗ v_device ⊗ q*), and R = R(q) is its matrix (measured on a real iPhone,
// docs/conventions.md#attitude). The two points the documentation leaves open are settled in
// docs/fusion.md#apples-conventions.

/// `CMAttitude.rotationMatrix` for attitude `q`: the **transpose** of R(q).
///
/// It maps reference-frame vectors into device axes (`v_device = M · v_reference`): its columns are
/// the reference axes seen from the device, so `(m13, m23, m33)` is "up" in device axes and
/// `gravity = −(m13, m23, m33)`; `m12 = 2(xy + wz)`. Evidence: Apple's pARk sample code multiplies
/// reference-frame (north, west, up) points by this matrix to put them in camera (device)
/// coordinates, and the transpose is the only reading under which both the documentation of
/// `multiply(byInverseOf:)` and its name hold (see ``relativeAttitude(_:toReference:)``).
public func rotationMatrix(of q: Quaternion) -> Matrix3 {
    q.rotationMatrix.transposed
}

/// `CMAttitude.multiply(byInverseOf: reference)`: the attitude relative to `reference`,
/// `reference⁻¹ ⊗ attitude` (the rotation from the device's axes at `reference` to its axes now,
/// expressed in the axes at `reference`).
///
/// This is the documented "inverse of the argument multiplied by the receiver" in quaternions, and
/// equally "the receiver multiplied by the inverse of the argument" in Apple's matrices
/// (M(r⁻¹ ⊗ q) = M(q) · M(r)⁻¹ with M = Rᵀ). It does not depend on the reference frame: both
/// attitudes may be in any one frame, the change is the same.
public func relativeAttitude(_ attitude: Quaternion, toReference reference: Quaternion) -> Quaternion {
    (reference.conjugate * attitude).normalizedFast
}

/// Gravity in device axes (g) for attitude `q`: `−(third row of R(q))`.
public func gravity(of q: Quaternion) -> Vector3 {
    Vector3(-2 * (q.x * q.z - q.w * q.y), -2 * (q.y * q.z + q.w * q.x), -(1 - 2 * (q.x * q.x + q.y * q.y)))
}

/// `CMDeviceMotion.heading` for an attitude in a north frame (x north, y west, z up): the compass
/// azimuth of the top of the device (its +y axis), degrees clockwise from north, in [0, 360).
///
/// Equal to `(−yaw − 90°) mod 360` with Apple's yaw; a phone lying face up with its top to the
/// north reads 0, to the east 90. See docs/fusion.md#apples-conventions for why the top of the device.
public func headingDegrees(of q: Quaternion) -> Double {
    let r = q.rotationMatrix
    // The device's y axis in reference coordinates is (r.m12, r.m22, r.m32); west is +y, so the
    // clockwise angle from north is atan2(−west, north).
    var h = atan2(-r.m22, r.m12) * 180 / Double.pi
    if h < 0 { h += 360 }
    if h >= 360 { h -= 360 }
    return h
}
