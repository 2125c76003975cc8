import Foundation

/// One fused device-motion sample as a client receives it (`CMDeviceMotion`), already in the client's
/// reference frame.
@frozen
public struct DeviceMotionValue: Sendable, Hashable {
    /// Timestamp, seconds on the `systemUptime` clock.
    public var time: Double
    /// Attitude: device → the client's reference frame.
    public var attitude: Quaternion
    /// Rotation rate with the gyroscope bias removed, rad/s.
    public var rotationRate: Vector3
    /// Gravity in device axes, g.
    public var gravity: Vector3
    /// Acceleration the user gives the device, g.
    public var userAcceleration: Vector3
    /// Calibrated magnetic field, µT.
    public var magneticField: Vector3
    /// Calibration accuracy of ``magneticField`` with `CMMagneticFieldCalibrationAccuracy`'s raw values
    /// (−1 uncalibrated … 2 high).
    public var magneticFieldAccuracy: Int32
    /// Heading, degrees in [0, 360) in the north frames, −1 in the arbitrary ones.
    public var heading: Double

    public init(
        time: Double, attitude: Quaternion, rotationRate: Vector3, gravity: Vector3, userAcceleration: Vector3,
        magneticField: Vector3, magneticFieldAccuracy: Int32, heading: Double
    ) {
        self.time = time
        self.attitude = attitude
        self.rotationRate = rotationRate
        self.gravity = gravity
        self.userAcceleration = userAcceleration
        self.magneticField = magneticField
        self.magneticFieldAccuracy = magneticFieldAccuracy
        self.heading = heading
    }
}

/// What a device-motion client receives.
public enum DeviceMotionUpdate: Sendable, Hashable {
    /// A fused sample in the client's frame.
    case motion(DeviceMotionValue)
    /// The magnetometer needs the device to move to calibrate (reported once per client, for the frames
    /// that use the magnetometer).
    case needsMovement
}
