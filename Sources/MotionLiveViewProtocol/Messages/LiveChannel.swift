/// A time series the page can draw: a key in the samples message and how many numbers each sample has.
///
/// Channels are open-ended: a new device kind adds its own (`LiveChannel(key: "hp.att", components: 4)`)
/// and the page draws what it knows and ignores the rest.
public struct LiveChannel: Sendable, Hashable, CustomStringConvertible {
    /// The key in the samples message (`"acc"`).
    public let key: String
    /// Numbers per sample, after the time (3 for a vector, 4 for a quaternion w, x, y, z).
    public let components: Int

    /// A channel with a key and a number of components (1…4).
    public init(key: String, components: Int) {
        precondition((1...4).contains(components), "a channel has 1 to 4 components")
        self.key = key
        self.components = components
    }

    /// The key.
    public var description: String { key }

    /// Acceleration, g, device axes (Apple's sign: gravity included, −1 g on z lying face up).
    public static let acceleration = LiveChannel(key: "acc", components: 3)
    /// Rotation rate, rad/s.
    public static let rotationRate = LiveChannel(key: "gyro", components: 3)
    /// Magnetic field, µT.
    public static let magneticField = LiveChannel(key: "mag", components: 3)
    /// Gravity from the fusion, g.
    public static let gravity = LiveChannel(key: "grav", components: 3)
    /// User acceleration from the fusion, g.
    public static let userAcceleration = LiveChannel(key: "user", components: 3)
    /// Attitude, device to reference frame, w x y z.
    public static let attitude = LiveChannel(key: "att", components: 4)
    /// Heading, degrees from the reference frame's north (negative: none).
    public static let heading = LiveChannel(key: "head", components: 1)
    /// Pedometer: total steps, cadence (steps/s) and pace (s/m) since the start (NaN: not known).
    public static let pedometer = LiveChannel(key: "ped", components: 3)
    /// Barometric pressure, kPa.
    public static let pressure = LiveChannel(key: "pres", components: 1)
    /// Relative altitude since the start, m.
    public static let relativeAltitude = LiveChannel(key: "alt", components: 1)
    /// Headphones' attitude, w x y z (drawn beside the device when present).
    public static let headphoneAttitude = LiveChannel(key: "hp.att", components: 4)
    /// Apple's own attitude, as the recording holds it.
    public static let appleAttitude = LiveChannel(key: "apple.att", components: 4)
    /// Apple's own gravity, g.
    public static let appleGravity = LiveChannel(key: "apple.grav", components: 3)
    /// Apple's own total steps.
    public static let appleSteps = LiveChannel(key: "apple.steps", components: 1)
    /// Apple's own relative altitude, m.
    public static let appleAltitude = LiveChannel(key: "apple.alt", components: 1)
    /// Ground-truth attitude (optical motion capture), w x y z.
    public static let truthAttitude = LiveChannel(key: "truth.att", components: 4)
    /// Running error against Apple: the angle between our gravity and Apple's, degrees.
    public static let appleTiltError = LiveChannel(key: "err.apple", components: 1)
    /// Running error against the ground truth: the angle between our attitude and the truth's, degrees
    /// (heading excluded: the tilt error).
    public static let truthTiltError = LiveChannel(key: "err.truth", components: 1)
}

/// One sample of a channel.
public struct LiveSample: Sendable, Equatable {
    /// The channel it belongs to.
    public var channel: LiveChannel
    /// Seconds on the source's clock (a recording: from its start).
    public var time: Double
    /// The values; only the first `channel.components` count.
    public var values: SIMD4<Double>

    /// A sample with up to four values.
    public init(_ channel: LiveChannel, time: Double, _ values: SIMD4<Double>) {
        self.channel = channel
        self.time = time
        self.values = values
    }

    /// A three-component sample.
    public init(_ channel: LiveChannel, time: Double, x: Double, y: Double, z: Double) {
        self.init(channel, time: time, SIMD4(x, y, z, 0))
    }

    /// A one-component sample.
    public init(_ channel: LiveChannel, time: Double, value: Double) {
        self.init(channel, time: time, SIMD4(value, 0, 0, 0))
    }
}

/// Something that happened at an instant, never decimated: a step, an activity change.
public enum LiveEvent: Sendable, Equatable {
    /// A step detected at `time`.
    case step(time: Double)
    /// The activity from `time` on: a label (`walking`, `stationary`…) and Apple's confidence 0…2.
    case activity(time: Double, label: String, confidence: Int)
    /// Apple's activity from the recording, as above.
    case appleActivity(time: Double, label: String)

    /// When it happened.
    public var time: Double {
        switch self {
        case .step(let t), .activity(let t, _, _), .appleActivity(let t, _): t
        }
    }
}
