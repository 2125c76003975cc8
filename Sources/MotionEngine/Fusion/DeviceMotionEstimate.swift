import Foundation
import MotionSamples

/// How well the magnetometer is calibrated: Apple's `CMMagneticFieldCalibrationAccuracy`
/// semantics and raw values.
@frozen
public enum MagnetometerCalibrationAccuracy: Int32, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// No calibration yet, or no magnetometer.
    case uncalibrated = -1
    /// A first hard-iron estimate from little rotation: heading may be off by tens of degrees.
    case low = 0
    /// Hard iron from rotation about several axes, consistent with the field seen so far.
    case medium = 1
    /// Hard and soft iron from rotation all around, small residual.
    case high = 2

    /// Orders accuracies from `.uncalibrated` to `.high`.
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// One device-motion result: what `CMDeviceMotion` holds, in engine units and Apple's conventions.
///
/// Emitted once per accelerometer sample by ``DeviceMotionEstimator``. `gravity + userAcceleration`
/// equals ``acceleration`` exactly (bit for bit), as on Apple's devices.
public struct DeviceMotionEstimate: Sendable, Hashable {
    /// Time stamp of the estimate, seconds (same clock as the samples): midway between the
    /// accelerometer sample and the gyroscope sample that completes it, as Apple stamps device motion.
    public var time: Double
    /// Time of the raw accelerometer sample used, seconds.
    public var accelerometerTime: Double
    /// The raw accelerometer sample used, g, Apple's sign.
    public var acceleration: Vector3
    /// Attitude without magnetometer: device → 6D earth frame (z up, heading arbitrary, the
    /// filter's own start heading). Reference frames are applied by ``AttitudeFrame``.
    public var attitude6D: Quaternion
    /// Attitude with magnetometer: device → magnetic north frame (x north, y west, z up). Equals
    /// ``attitude6D`` when there is no magnetometer.
    public var attitude9D: Quaternion
    /// Rotation rate with the gyro bias removed, rad/s (`CMDeviceMotion.rotationRate`).
    public var rotationRate: Vector3
    /// Gravity in device axes, g (`CMDeviceMotion.gravity`).
    public var gravity: Vector3
    /// Acceleration the user gives the device, g (`CMDeviceMotion.userAcceleration`).
    public var userAcceleration: Vector3
    /// Calibrated magnetic field (Earth's plus surroundings, device bias removed), µT.
    public var magneticField: Vector3
    /// Calibration accuracy of ``magneticField``; `.uncalibrated` without a magnetometer.
    public var magneticFieldAccuracy: MagnetometerCalibrationAccuracy
    /// Estimated gyroscope bias, rad/s.
    public var gyroBias: Vector3
    /// Whether the device is at rest.
    public var isAtRest: Bool
    /// Whether the field is disturbed, so the heading currently follows the gyroscope alone.
    public var isMagneticallyDisturbed: Bool
    /// Whether the magnetometer needs the device to be moved (turned about several axes) to calibrate:
    /// when this becomes true, Apple delivers `CMErrorDeviceRequiresMovement` once.
    public var needsCalibrationMovement: Bool
    /// Whether a magnetometer has contributed to ``attitude9D``.
    public var hasMagnetometer: Bool

    /// An estimate with every field given.
    public init(
        time: Double, accelerometerTime: Double, acceleration: Vector3, attitude6D: Quaternion,
        attitude9D: Quaternion, rotationRate: Vector3, gravity: Vector3, userAcceleration: Vector3,
        magneticField: Vector3, magneticFieldAccuracy: MagnetometerCalibrationAccuracy, gyroBias: Vector3,
        isAtRest: Bool, isMagneticallyDisturbed: Bool, needsCalibrationMovement: Bool, hasMagnetometer: Bool
    ) {
        self.time = time
        self.accelerometerTime = accelerometerTime
        self.acceleration = acceleration
        self.attitude6D = attitude6D
        self.attitude9D = attitude9D
        self.rotationRate = rotationRate
        self.gravity = gravity
        self.userAcceleration = userAcceleration
        self.magneticField = magneticField
        self.magneticFieldAccuracy = magneticFieldAccuracy
        self.gyroBias = gyroBias
        self.isAtRest = isAtRest
        self.isMagneticallyDisturbed = isMagneticallyDisturbed
        self.needsCalibrationMovement = needsCalibrationMovement
        self.hasMagnetometer = hasMagnetometer
    }
}

/// Splits the raw sample `a` into gravity and user acceleration so that `gravity + user == a`
/// exactly in floating point: `user = a − g`, and where that sum is off by rounding, gravity
/// becomes `a − user` (it moves by an ulp at most).
@inline(__always)
func exactPartition(_ a: Vector3, gravity g: Vector3) -> (gravity: Vector3, user: Vector3) {
    let x = exactPartition(a.x, g.x), y = exactPartition(a.y, g.y), z = exactPartition(a.z, g.z)
    return (Vector3(x.0, y.0, z.0), Vector3(x.1, y.1, z.1))
}

@inline(__always)
func exactPartition(_ a: Double, _ g: Double) -> (Double, Double) {
    let u = a - g
    if g + u == a { return (g, u) }
    let g2 = a - u
    if g2 + u == a { return (g2, u) }
    // Not reached for finite inputs in practice; fall back to a gravity that is exactly a − 0.
    return (a, 0)
}
