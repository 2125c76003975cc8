import Foundation

/// The two conventions Sensor Logger writes its readings in, and the conversions of each to Apple's axes
/// and units: the one place both the export reader (``RecordingReader`` on a Sensor Logger folder) and the
/// live HTTP push (`MotionNetwork`) take them from.
///
/// | reading | ``apple`` (iOS, "Standardise Units & Frames" off) | ``android`` (Android, or iOS with it on) |
/// |---|---|---|
/// | `AccelerometerUncalibrated` (raw) | g, Apple's sign: unchanged | m/s², Android sign: ÷ −9.80665 |
/// | `TotalAcceleration` (raw, Android only) | — | m/s², Android sign: ÷ −9.80665 |
/// | `Accelerometer` (user acceleration), `Gravity` | m/s², Apple's sign: ÷ 9.80665 | m/s², Android sign: ÷ −9.80665 |
/// | gyroscopes, magnetometers | rad/s, µT: unchanged | unchanged |
/// | `Barometer` `pressure` | hPa: ÷ 10 to kPa | same |
/// | `Orientation` | device → x-true-north z-up | Android rotation vector, device → ENU: Rz(−90°) ⊗ q to x-north |
public enum SensorLoggerConvention: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// iOS with "Standardise Units & Frames" off (the app's default on iOS): Core Motion's own values.
    case apple
    /// Android, or iOS with "Standardise Units & Frames" on: Android's units and signs.
    case android

    public var description: String { rawValue }

    /// Standard gravity, m/s² (what the app converts g with).
    public static let gravity = standardGravity

    /// The raw accelerometer (`AccelerometerUncalibrated`) in g with Apple's sign.
    @inlinable
    public func rawAcceleration(_ v: Vector3) -> Vector3 {
        switch self {
        case .apple: v
        case .android: v / -standardGravity
        }
    }

    /// Android's `TotalAcceleration` (m/s², gravity included, Android sign) in g with Apple's sign.
    @inlinable
    public static func totalAcceleration(_ v: Vector3) -> Vector3 { v / -standardGravity }

    /// A device-motion acceleration (`Accelerometer` = user acceleration, `Gravity`), m/s² in either
    /// convention, in g with Apple's sign.
    @inlinable
    public func motionAcceleration(_ v: Vector3) -> Vector3 {
        switch self {
        case .apple: v / standardGravity
        case .android: v / -standardGravity
        }
    }

    /// The divisor that turns a raw accelerometer value into g (``rawAcceleration(_:)``).
    public var rawAccelerationDivisor: Double { self == .apple ? 1 : -standardGravity }
    /// The divisor that turns a device-motion acceleration into g (``motionAcceleration(_:)``).
    public var motionAccelerationDivisor: Double { self == .apple ? standardGravity : -standardGravity }

    /// Barometer pressure: hPa (both conventions) to kPa.
    @inlinable
    public static func kilopascals(hectopascals: Double) -> Double { hectopascals / 10 }

    /// The ways an `Orientation` quaternion may map to Apple's attitude (device → x-north z-up), first the
    /// documented one: the reader keeps the first whose tilt agrees with `Gravity`.
    ///
    /// - Parameter android: the platform is Android (rotation vector to ENU); `false` for iOS in either
    ///   convention (the standardised iOS heading convention is not documented: kept as written).
    public static func attitudeCandidates(android: Bool) -> [(name: String, map: @Sendable (Quaternion) -> Quaternion)] {
        if android {
            return [
                ("xMagneticNorthZVertical (Android rotation vector, ENU, turned to x-north)", { AndroidConventions.appleAttitude(fromENU: $0) }),
                ("xMagneticNorthZVertical (Android rotation vector, conjugated, ENU turned to x-north)", { AndroidConventions.appleAttitude(fromENU: $0.conjugate) }),
            ]
        }
        return [
            ("xTrueNorthZVertical", { $0 }),
            ("xTrueNorthZVertical (conjugated)", { $0.conjugate }),
        ]
    }

    /// Angle (rad) between a gravity reading in g (Apple's sign) and the down vector that the attitude
    /// `q` (device → a z-up frame, Apple's convention) implies: `q* ⊗ (0, 0, −1) ⊗ q`.
    @inlinable
    public static func tiltError(attitude q: Quaternion, gravity: Vector3) -> Double {
        q.normalized.inverseRotate(Vector3(0, 0, -1)).angle(to: gravity)
    }

    /// How well a gravity reading in m/s² *as written* fits each convention, given an orientation
    /// quaternion *as written* at the same instant: the residuals |g − (−9.80665·R(q)ᵀẑ)| (Apple) and
    /// |g − (+9.80665·R(q)ᵀẑ)| (Android), m/s², each the smaller over q and its conjugate.
    ///
    /// Apple's gravity points down in device axes (face up: z = −9.81), Android's up (z = +9.81); both
    /// apps' quaternions rotate device axes into a z-up frame, so the smaller residual names the convention.
    public static func gravityResiduals(orientation q: Quaternion, gravity g: Vector3) -> (apple: Double, android: Double) {
        let n = q.normalized
        var apple = Double.infinity
        var android = Double.infinity
        for candidate in [n, n.conjugate] {
            let up = candidate.inverseRotate(Vector3(0, 0, 1)) * standardGravity
            apple = min(apple, (g + up).norm)
            android = min(android, (g - up).norm)
        }
        return (apple, android)
    }
}
