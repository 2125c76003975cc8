import Foundation

/// The conversions from Android's sensor conventions to Apple's, written once for every reader and
/// network source that meets them (`docs/conventions.md#recording-formats`).
///
/// Android (`SensorEvent`) and Apple use the same device axes; only units, signs and the attitude's
/// reference frame differ:
///
/// | Android | Apple | conversion |
/// |---|---|---|
/// | acceleration, m/s², specific force (face up reads +9.81 on z) | g, gravity as a pull (face up reads −1) | ÷ −g on every axis |
/// | rotation rate, rad/s | rad/s | none |
/// | magnetic field, µT | µT | none |
/// | pressure, hPa | kPa | ÷ 10 |
/// | rotation vector: device → ENU (x east, y north, z up) | device → north–west–up (x north) | `Rz(−90°) ⊗ q` |
public enum AndroidConventions {
    /// Apple's acceleration in g from an Android-convention one in m/s²: `value / −gravity`.
    ///
    /// - Parameter gravity: the factor the source used, m/s²: ``standardGravity`` (9.80665) for Android
    ///   itself and Sensor Logger; phyphox on iOS multiplies Core Motion's g by 9.81.
    @inlinable
    public static func appleAcceleration(fromAndroid value: Vector3, gravity: Double = standardGravity) -> Vector3 {
        value / -gravity
    }

    /// Apple's pressure in kPa from Android's hPa.
    @inlinable
    public static func kilopascals(fromHectopascals value: Double) -> Double {
        value / 10
    }

    /// The quarter turn that takes an attitude into ENU (x east) to Apple's x-north frame: `Rz(−90°)`.
    public static let enuToNorthWestUp = Quaternion.aboutZ(-.pi / 2)

    /// Apple's attitude (device → x-north, y-west, z-up) from one into ENU (device → x-east, y-north,
    /// z-up), as Android's rotation vector is: `Rz(−90°) ⊗ q`.
    @inlinable
    public static func appleAttitude(fromENU q: Quaternion) -> Quaternion {
        enuToNorthWestUp * q
    }

    /// The unit quaternion of an Android rotation vector's `values`: `x, y, z` = axis · sin(θ/2) and,
    /// when given (Android 4.3 and later, and phyphox's `abs` output), `w` = cos(θ/2). Without `w`
    /// it is `√(1 − x² − y² − z²)`, as `SensorManager.getQuaternionFromVector` computes it.
    ///
    /// - Returns: `nil` when a component is not finite or the vector part is longer than 1 (beyond a
    ///   rounding tolerance), which no rotation vector can be.
    public static func quaternion(rotationVectorX x: Double, y: Double, z: Double, w: Double?) -> Quaternion? {
        guard x.isFinite, y.isFinite, z.isFinite else { return nil }
        let vector = x * x + y * y + z * z
        if let w {
            guard w.isFinite else { return nil }
            let n = (vector + w * w).squareRoot()
            guard n > 0.5, n < 1.5 else { return nil }
            return Quaternion(w: w / n, x: x / n, y: y / n, z: z / n)
        }
        guard vector <= 1 + 1e-6 else { return nil }
        return Quaternion(w: max(0, 1 - vector).squareRoot(), x: x, y: y, z: z)
    }
}
