import MotionSamples

/// The true motion of the simulated device at one instant, in the world frame of
/// `xMagneticNorthZVertical` (x magnetic north, y west, z up: NWU).
public struct KinematicState: Sendable, Hashable {
    /// Scene time, seconds.
    public var time: Double
    /// Orientation: rotates device axes into the world frame (Apple's `CMAttitude.quaternion`).
    public var attitude: Quaternion
    /// Angular velocity in device axes, rad/s (right-hand rule).
    public var angularVelocity: Vector3
    /// Angular acceleration in device axes, rad/s².
    public var angularAcceleration: Vector3
    /// Position, metres; z is the altitude above sea level.
    public var position: Vector3
    /// Velocity, m/s, world frame.
    public var velocity: Vector3
    /// Acceleration (second derivative of position), m/s², world frame.
    public var acceleration: Vector3
    /// Altitude of the floor the carrier stands on (or of the road), metres above sea level: the
    /// altitude without the device's height on the carrier and its bounce.
    public var floorAltitude: Double
    /// Heading of the carrier, radians counter-clockwise from magnetic north.
    public var carrierHeading: Double
    /// The gait phase in cycles: it passes an integer at every heel strike while stepping.
    public var gaitPhase: Double
    /// Whether the carrier is taking steps now.
    public var isStepping: Bool

    /// Altitude above sea level, metres.
    public var altitude: Double { position.z }
}
