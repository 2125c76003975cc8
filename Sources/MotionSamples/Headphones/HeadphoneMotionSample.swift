import Foundation

/// Which earbud a headphone motion sample comes from, with `CMDeviceMotion.SensorLocation`'s raw values.
///
/// Apple's headphones stream one bud at a time, usually the same one throughout; it can switch mid-stream
/// (a bud taken out), and the orientation can jump then (`spec/HEADPHONES.md` §2). A source that does not
/// say which bud uses ``unknown`` (`.default`).
public enum HeadphoneSensorLocation: Int, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Not known (`CMDeviceMotion.SensorLocation.default`).
    case unknown = 0
    /// The left bud or ear cup (`.headphoneLeft`).
    case left = 1
    /// The right bud or ear cup (`.headphoneRight`).
    case right = 2

    /// `left`, `right` or `default`.
    public var description: String {
        switch self {
        case .unknown: "default"
        case .left: "left"
        case .right: "right"
        }
    }

    /// Parses a location as sources write it: `left`/`right` (Sensor Logger's `devicelocation`, the capture
    /// tool's `loc`), `headphoneLeft`/`headphoneRight`, `default`/`unknown`/empty; case-insensitive.
    /// `nil` for anything else.
    public init?(name: String) {
        switch name.trimmingCharacters(in: .whitespaces).lowercased() {
        case "left", "l", "headphoneleft": self = .left
        case "right", "r", "headphoneright": self = .right
        case "", "default", "unknown", "none": self = .unknown
        default: return nil
        }
    }
}

/// One headphone device-motion sample as the headset's own fusion computes it (`CMDeviceMotion` from
/// `CMHeadphoneMotionManager`), in Apple's units, before the per-client start anchor.
///
/// - ``attitude``: bud → a reference frame whose Z axis is vertical (up); its X axis is whatever the source
///   had (the service turns it about Z for each client so that the client's first sample has `q.z = 0`).
/// - ``rotationRate``: angular velocity in the bud's own axes, rad/s.
/// - ``gravity`` and ``userAcceleration``: in the bud's axes, g (gravity = −(third row of R(q)), norm 1).
///
/// There is no magnetic field and no heading: headphones report the field uncalibrated (zeros) and
/// heading 0.
@frozen
public struct HeadphoneMotionSample: Sendable, Hashable {
    /// Timestamp, seconds (on the source's own axis inside a recording or timeline; on the device's clock
    /// once delivered).
    public var time: Double
    /// Bud → reference frame (Z vertical), Apple's convention (`docs/conventions.md#attitude`).
    public var attitude: Quaternion
    /// Angular velocity in the bud's axes, rad/s.
    public var rotationRate: Vector3
    /// Acceleration the user gives the head, gravity removed, in the bud's axes, g.
    public var userAcceleration: Vector3
    /// Gravity in the bud's axes, g.
    public var gravity: Vector3
    /// Which bud measured it.
    public var location: HeadphoneSensorLocation

    /// A sample; every vector in the bud's axes, accelerations in g.
    @inlinable
    public init(
        time: Double, attitude: Quaternion, rotationRate: Vector3, userAcceleration: Vector3, gravity: Vector3,
        location: HeadphoneSensorLocation = .unknown
    ) {
        self.time = time
        self.attitude = attitude
        self.rotationRate = rotationRate
        self.userAcceleration = userAcceleration
        self.gravity = gravity
        self.location = location
    }

    /// Whether every number is finite.
    public var isFinite: Bool {
        time.isFinite && attitude.isFinite && rotationRate.isFinite && userAcceleration.isFinite && gravity.isFinite
    }

    /// The same sample at another time.
    @inlinable
    public func at(time: Double) -> HeadphoneMotionSample {
        var copy = self
        copy.time = time
        return copy
    }

    /// The same sample seen from a reference frame turned by `-twist` about the vertical: the attitude becomes
    /// `twist* ⊗ attitude` (not renormalised: a unit twist keeps the recorded quaternion's own norm, which
    /// Apple's float-precision quaternions miss by up to 1e-7); the body-frame vectors (rotation rate, gravity,
    /// user acceleration) do not change.
    public func anchored(removing twist: Quaternion) -> HeadphoneMotionSample {
        var copy = self
        copy.attitude = twist.conjugate * attitude
        return copy
    }
}

extension Quaternion {
    /// The rotation about the reference frame's Z axis (the vertical) contained in this attitude: the twist
    /// of the swing–twist decomposition `q = twist ⊗ swing`, where the swing has no Z component.
    ///
    /// `twist* ⊗ q` has `z = 0` exactly: it is the attitude in a frame turned so that the device's heading
    /// is zero. This is the start anchor of Apple's headphone motion: in real AirPods streams the first
    /// quaternion has `z = 0` while x and y carry the tilt (`spec/HEADPHONES.md` §2). It differs from
    /// removing the Euler yaw (what `CMMotionManager`'s arbitrary frame does at start) when the device is
    /// tilted: the yaw of `twist* ⊗ q` is small, not exactly 0.
    public var verticalTwist: Quaternion {
        let n = (w * w + z * z).squareRoot()
        // Upside down (w = z = 0): any twist is as good; none.
        guard n > 1e-12 else { return .identity }
        return Quaternion(w: w / n, x: 0, y: 0, z: z / n)
    }
}

/// A connection change a source recorded (a status record of a capture, a headset's own event), on the
/// source's time axis.
public struct HeadphoneStatusRecord: Sendable, Hashable {
    /// Time, seconds on the source's axis.
    public var time: Double
    /// Whether the headphones connected (true) or disconnected.
    public var connected: Bool
    /// What the source said (`connected`, `disconnected`, `stopped`…).
    public var label: String

    /// A status change at `time`.
    public init(time: Double, connected: Bool, label: String) {
        self.time = time
        self.connected = connected
        self.label = label
    }
}

/// What a headphone device delivers: connection changes and motion samples, in time order.
public enum HeadphoneEvent: Sendable, Hashable {
    /// The headphones connected (samples follow).
    case connected(time: Double)
    /// The headphones disconnected: no sample for longer than ``HeadphoneTimeline/gapThreshold``, the end of a
    /// recording, a lost sensor, or a source that said so.
    case disconnected(time: Double, reason: String)
    /// One sample.
    case motion(HeadphoneMotionSample)

    /// When it happened, seconds.
    public var time: Double {
        switch self {
        case .connected(let t): t
        case .disconnected(let t, _): t
        case .motion(let s): s.time
        }
    }

    /// The same event at another time.
    public func at(time: Double) -> HeadphoneEvent {
        switch self {
        case .connected: .connected(time: time)
        case .disconnected(_, let reason): .disconnected(time: time, reason: reason)
        case .motion(let s): .motion(s.at(time: time))
        }
    }
}
