import Foundation

/// The reference frames an attitude can be expressed in. All have z vertical (up); they differ in x.
public struct CMAttitudeReferenceFrame: OptionSet, Sendable, Hashable, BitwiseCopyable {
    /// The frame's bit: one bit per frame, as in Apple's `NS_OPTIONS` (1, 2, 4, 8).
    public let rawValue: UInt
    /// The frames whose bits are set in `rawValue`.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// x is arbitrary in the horizontal plane, fixed to the device's heading when updates start. No
    /// magnetometer is used. The default frame.
    public static let xArbitraryZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 0)
    /// As ``xArbitraryZVertical``, with the magnetometer (when present and calibrated) correcting yaw
    /// drift over time.
    public static let xArbitraryCorrectedZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 1)
    /// x points to magnetic north (y west, z up). Needs a magnetometer.
    public static let xMagneticNorthZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 2)
    /// x points to geographic north. Needs a magnetometer and the location (`COREMOTION_LOCATION`)
    /// for the magnetic declination.
    public static let xTrueNorthZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 3)
}

/// How well the magnetometer is calibrated.
public enum CMMagneticFieldCalibrationAccuracy: Int32, Sendable, Hashable, BitwiseCopyable {
    /// Not calibrated (or no magnetometer).
    case uncalibrated = -1
    /// Calibrated roughly: not good enough to correct the gyroscope bias.
    case low = 0
    /// Calibrated; usable for a heading.
    case medium = 1
    /// Well calibrated.
    case high = 2
}

/// Whether the app may use motion data.
public enum CMAuthorizationStatus: Int, Sendable, Hashable, BitwiseCopyable {
    /// The user has not been asked yet.
    case notDetermined = 0
    /// A system-wide restriction denies access.
    case restricted = 1
    /// The user denied access.
    case denied = 2
    /// Access granted.
    case authorized = 3
}

/// How likely a reported motion activity is correct.
public enum CMMotionActivityConfidence: Int, Sendable, Hashable, BitwiseCopyable {
    /// The estimate is uncertain.
    case low = 0
    /// The estimate is likely.
    case medium = 1
    /// The estimate is very likely.
    case high = 2
}

/// The kind of a pedometer event.
public enum CMPedometerEventType: Int, Sendable, Hashable, BitwiseCopyable {
    /// The user stopped walking or running.
    case pause = 0
    /// The user started walking or running again.
    case resume = 1
}
