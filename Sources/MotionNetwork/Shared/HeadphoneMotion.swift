import Foundation
import MotionSamples

/// Which earbud a headphone sample comes from (Core Motion's `CMDeviceMotion.SensorLocation`).
public enum HeadphoneLocation: Int, Sendable, Hashable, Codable {
    /// Not said (`.default`).
    case unknown = 0
    case left = 1
    case right = 2
}

/// One headphone-motion sample (AirPods through a phone), in Core Motion's units and signs: what
/// `CMHeadphoneMotionManager` would hand an app as a `CMDeviceMotion`.
///
/// From Sensor Logger's `headphone` reading (HEADPHONES.md §3): with "Standardise Units & Frames" off
/// (the iOS default) `quaternion*` is `CMAttitude`, `acceleration*` is user acceleration in g, `gravity*`
/// is in m/s² (÷ 9.80665 here); with it on, accelerations are m/s² with Android's sign (÷ −9.80665 here)
/// and the quaternion is kept as written (its frame is not documented).
public struct HeadphoneMotionSample: Sendable, Hashable {
    /// Sample time, seconds on the device's clock (the `systemUptime` time base), as the phone's samples.
    public var time: TimeInterval
    /// The phone's own sample time, ns since 1970 (UTC).
    public var phoneTime: Int64
    /// Attitude, head → reference frame (Apple's quaternion convention; X arbitrary, Z vertical).
    public var attitude: Quaternion
    /// Body-frame angular velocity, rad/s; `nil` when the phone did not send it (Sensor Logger < 1.30).
    public var rotationRate: Vector3?
    /// User acceleration, g, Apple's sign; `nil` when not sent.
    public var userAcceleration: Vector3?
    /// Gravity in head axes, g, Apple's sign; `nil` when not sent.
    public var gravity: Vector3?
    /// Which bud.
    public var location: HeadphoneLocation

    public init(
        time: TimeInterval, phoneTime: Int64, attitude: Quaternion, rotationRate: Vector3?, userAcceleration: Vector3?,
        gravity: Vector3?, location: HeadphoneLocation
    ) {
        self.time = time
        self.phoneTime = phoneTime
        self.attitude = attitude
        self.rotationRate = rotationRate
        self.userAcceleration = userAcceleration
        self.gravity = gravity
        self.location = location
    }
}

/// What a device's headphone stream reports (``LiveDevice/subscribeHeadphone(_:)``).
public enum HeadphoneMotionEvent: Sendable, Hashable {
    /// The first sample is about to come (the phone started sending headphone readings), or they came back
    /// after a silence: `CMHeadphoneMotionManagerDelegate.headphoneMotionManagerDidConnect`.
    case connected
    /// One sample, in time order, paced like the phone's samples.
    case sample(HeadphoneMotionSample)
    /// No headphone reading for ``LiveDevice/Configuration/headphoneSilence`` seconds (buds out, audio
    /// routed elsewhere, the phone stopped): `…DidDisconnect`.
    case disconnected
}
