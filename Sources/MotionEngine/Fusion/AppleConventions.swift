import Foundation
import MotionSamples

// Apple's attitude conventions, measured on a real iPhone (spec/DEVICES.md) and settled with the
// evidence in docs/fusion.md. `q` always rotates device axes into the reference frame.

/// `CMAttitude.rotationMatrix` for attitude `q`: the **transpose** of `R(q)`, i.e. the matrix whose
/// rows are the reference axes in device coordinates (it maps reference-frame vectors into device
/// axes). `m31, m32, m33` is then Apple's gravity direction with the sign flipped... see docs/fusion.md.
public func rotationMatrix(of q: Quaternion) -> Matrix3 {
    q.rotationMatrix.transposed
}

/// `CMAttitude.multiply(byInverseOf: reference)`: the attitude of the device relative to the
/// attitude `reference`, both in the same reference frame: `reference⁻¹ ⊗ attitude`, the rotation
/// that takes the device's axes at `reference` to its axes now, expressed in the device axes at
/// `reference`.
public func relativeAttitude(_ attitude: Quaternion, toReference reference: Quaternion) -> Quaternion {
    (reference.conjugate * attitude).normalizedFast
}

/// Gravity in device axes (g) for attitude `q`: `−(third row of R(q))`.
public func gravity(of q: Quaternion) -> Vector3 {
    Vector3(-2 * (q.x * q.z - q.w * q.y), -2 * (q.y * q.z + q.w * q.x), -(1 - 2 * (q.x * q.x + q.y * q.y)))
}

/// Heading of the device in a north frame (x north, y west, z up), degrees in [0, 360), clockwise
/// from north seen from above. See docs/fusion.md for the device direction it refers to.
public func headingDegrees(of q: Quaternion) -> Double {
    let yaw = q.appleEulerAngles.yaw
    var h = -yaw / Double.pi * 180
    if h < 0 { h += 360 }
    if h >= 360 { h -= 360 }
    return h
}
