import MotionSamples

/// An orientation of the device relative to its carrier (the person or vehicle), as Apple's Euler
/// angles in degrees: `R = Rz(yaw)·Rx(pitch)·Ry(roll)` (see `docs/conventions.md#simulator`).
///
/// The carrier frame has x pointing forward (the direction of travel), y to the carrier's left and
/// z up; with the carrier facing north (heading 0) it is the world frame (x north, y west, z up).
/// So `Pose.faceUp` (all zero) lies screen up with device x pointing forward and device y (its top)
/// to the carrier's left.
public struct Pose: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Rotation about the device y axis, degrees.
    public var rollDegrees: Double
    /// Rotation about the device x axis, degrees (90 = upright, top up).
    public var pitchDegrees: Double
    /// Rotation about the vertical, degrees (counter-clockwise seen from above).
    public var yawDegrees: Double

    /// A pose from Apple's Euler angles, degrees.
    public init(rollDegrees: Double = 0, pitchDegrees: Double = 0, yawDegrees: Double = 0) {
        self.rollDegrees = rollDegrees
        self.pitchDegrees = pitchDegrees
        self.yawDegrees = yawDegrees
    }

    /// Lying flat, screen up: the accelerometer reads (0, 0, −1) g.
    public static let faceUp = Pose()
    /// Lying flat, screen down: (0, 0, +1) g.
    public static let faceDown = Pose(rollDegrees: 180)
    /// Upright in portrait, top up: (0, −1, 0) g.
    public static let upright = Pose(pitchDegrees: 90)
    /// Held in front for reading while moving: top pointing forward and 40° up, screen towards the face.
    public static let reading = Pose(pitchDegrees: 40, yawDegrees: -90)
    /// In a front trouser pocket: upside down along the thigh, screen facing forward.
    public static let pocket = Pose(pitchDegrees: -90, yawDegrees: -90)
    /// Lying flat with its top pointing forward (car console, table in front of the user).
    public static let flatForward = Pose(yawDegrees: -90)
    /// Upright in a dashboard holder in portrait, screen facing the driver.
    public static let dashboard = Pose(pitchDegrees: 75, yawDegrees: -90)
    /// On a handlebar mount: top forward, tilted 30° up towards the rider.
    public static let handlebar = Pose(pitchDegrees: 30, yawDegrees: -90)

    /// The rotation device → carrier frame (computed with ``PortableMath``, so identical everywhere).
    public var quaternion: Quaternion {
        let yaw = PortableMath.sinCos(PortableMath.radians(yawDegrees) / 2)
        let pitch = PortableMath.sinCos(PortableMath.radians(pitchDegrees) / 2)
        let roll = PortableMath.sinCos(PortableMath.radians(rollDegrees) / 2)
        let qz = Quaternion(w: yaw.cos, x: 0, y: 0, z: yaw.sin)
        let qx = Quaternion(w: pitch.cos, x: pitch.sin, y: 0, z: 0)
        let qy = Quaternion(w: roll.cos, x: 0, y: roll.sin, z: 0)
        return qz * qx * qy
    }

    public var description: String { "(roll \(rollDegrees)°, pitch \(pitchDegrees)°, yaw \(yawDegrees)°)" }
}

/// How the device is carried; sets its default pose, its position on the carrier and the shape of
/// the motion a gait imprints on it.
public enum Carry: String, Sendable, Hashable, Codable, CaseIterable {
    /// Resting on a surface (table, seat): no body motion reaches it.
    case table
    /// Held in one hand in front of the body for reading (right hand).
    case hand
    /// In a front trouser pocket: swings with the thigh.
    case pocket
    /// In a car holder or cup holder: moves rigidly with the vehicle.
    case mount
    /// On a bicycle handlebar mount.
    case handlebar

    /// The pose this carry implies unless a segment gives another.
    public var defaultPose: Pose {
        switch self {
        case .table: .faceUp
        case .hand: .reading
        case .pocket: .pocket
        case .mount: .flatForward
        case .handlebar: .handlebar
        }
    }

    /// Position of the device in the carrier frame (x forward, y left, z up), metres above the
    /// carrier's floor point.
    public var offset: Vector3 {
        switch self {
        case .table: Vector3(0.30, 0, 0.75)
        case .hand: Vector3(0.30, -0.15, 1.20)
        case .pocket: Vector3(0.05, -0.12, 0.85)
        case .mount: Vector3(0.50, 0.30, 0.90)
        case .handlebar: Vector3(0.55, 0, 1.05)
        }
    }
}

/// A change of heading inside a segment: the carrier turns by `angleDegrees` (positive = to the
/// left, counter-clockwise seen from above) between `atSeconds` and `atSeconds + durationSeconds`
/// of the segment, with a smooth (quintic) heading profile.
public struct Turn: Sendable, Hashable, Codable {
    /// Start of the turn, seconds from the segment's start.
    public var atSeconds: Double
    /// Heading change, degrees; positive turns left.
    public var angleDegrees: Double
    /// Length of the turn, seconds.
    public var durationSeconds: Double

    /// A turn of `angleDegrees` (positive left) from `atSeconds` for `durationSeconds` seconds.
    public init(atSeconds: Double, angleDegrees: Double, durationSeconds: Double) {
        self.atSeconds = atSeconds
        self.angleDegrees = angleDegrees
        self.durationSeconds = durationSeconds
    }
}

/// The frame whose axis a ``Rotation`` turns about.
public enum RotationFrame: String, Sendable, Hashable, Codable, CaseIterable {
    /// The device's own axes (x right, y top, z out of the screen).
    case device
    /// The carrier's axes (x forward, y left, z up); the world's when the carrier faces north.
    case carrier
}

/// Still: the device rests (or is held) without moving; the carrier stands.
public struct Hold: Sendable, Hashable {
    /// Seconds.
    public var duration: Double
    /// A new pose to move to (over ``transitionSeconds``), or `nil` to keep the current one.
    public var pose: Pose?
    /// A new way of carrying it (sets the pose unless `pose` is given), or `nil` to keep it.
    public var carry: Carry?
    /// Length of the change of pose or carry at the segment's start, seconds (default 1, at most `duration`).
    public var transitionSeconds: Double?

    /// Stand still for `duration` seconds, optionally changing pose or carry.
    public init(duration: Double, pose: Pose? = nil, carry: Carry? = nil, transitionSeconds: Double? = nil) {
        self.duration = duration
        self.pose = pose
        self.carry = carry
        self.transitionSeconds = transitionSeconds
    }
}

/// A rotation about a fixed axis: the rate rises smoothly from rest to `peakRateDegreesPerSecond`
/// over `rampSeconds`, holds, and falls back to rest, turning by exactly `angleDegrees` in
/// `max(|angle| / peakRate, ramp) + ramp` seconds (an angle too small to reach the peak rate
/// turns at a lower peak). The device rotates about its own centre (no
/// translation), so the accelerometer sees only gravity.
public struct Rotation: Sendable, Hashable {
    /// Axis (normalised; need not be unit), in `frame`.
    public var axis: Vector3
    /// The frame `axis` is given in.
    public var frame: RotationFrame
    /// Total angle, degrees (right-hand rule about `axis`; negative turns the other way).
    public var angleDegrees: Double
    /// Peak rate, degrees per second (positive).
    public var peakRateDegreesPerSecond: Double
    /// Time to reach the peak rate from rest (and to stop), seconds.
    public var rampSeconds: Double

    /// A rotation by `angleDegrees` about `axis` at up to `peakRateDegreesPerSecond`, starting and
    /// stopping over `rampSeconds`.
    public init(
        axis: Vector3, frame: RotationFrame = .device, angleDegrees: Double,
        peakRateDegreesPerSecond: Double = 30, rampSeconds: Double = 1
    ) {
        self.axis = axis
        self.frame = frame
        self.angleDegrees = angleDegrees
        self.peakRateDegreesPerSecond = peakRateDegreesPerSecond
        self.rampSeconds = rampSeconds
    }

    /// Seconds the rotation takes.
    public var duration: Double { max(abs(angleDegrees) / peakRateDegreesPerSecond, rampSeconds) + rampSeconds }
}

/// A smooth change to a new pose (shortest rotation), over the whole segment.
public struct Orientation: Sendable, Hashable {
    /// The pose to turn to.
    public var pose: Pose
    /// Seconds.
    public var duration: Double

    /// Turn to `pose` over `duration` seconds.
    public init(to pose: Pose, duration: Double) {
        self.pose = pose
        self.duration = duration
    }
}

/// One key of a ``Keyframes`` segment.
public struct Keyframe: Sendable, Hashable {
    /// Seconds from the segment's start (> 0, increasing).
    public var timeSeconds: Double
    /// The pose at that time.
    public var pose: Pose
    /// Displacement of the device from where it was at the segment's start, metres in the carrier
    /// frame (x forward, y left, z up).
    public var displacement: Vector3

    /// A key: `pose` and `displacement` (m) at `timeSeconds` from the segment's start.
    public init(timeSeconds: Double, pose: Pose, displacement: Vector3 = .zero) {
        self.timeSeconds = timeSeconds
        self.pose = pose
        self.displacement = displacement
    }
}

/// Free motion of the device through keyframes: the segment starts at rest in the current pose,
/// passes through every key with a continuous angular velocity and velocity (cubic Hermite
/// interpolation, rotations in the exponential coordinates of each interval, Catmull–Rom
/// tangents) and ends at rest in the last key. The segment lasts until the last key.
public struct Keyframes: Sendable, Hashable {
    /// The keys, in increasing time (> 0).
    public var keys: [Keyframe]

    /// Moves through `keys`.
    public init(_ keys: [Keyframe]) { self.keys = keys }

    /// Seconds: the time of the last key.
    public var duration: Double { keys.last?.timeSeconds ?? 0 }
}

/// Walking or running on level ground.
public struct Gait: Sendable, Hashable {
    /// Seconds; `steps / cadence` when built from a step count.
    public var duration: Double
    /// Steps per second (walking ≈ 1.8–2.0, running ≈ 2.6–3.0).
    public var cadence: Double
    /// Forward speed, m/s.
    public var speed: Double
    /// How the phone is carried (`.hand` or `.pocket`).
    public var carry: Carry
    /// A pose other than the carry's default, if given.
    public var pose: Pose?
    /// Changes of heading during the segment.
    public var turns: [Turn]
    /// Length of the change from the previous segment's motion, seconds (default 1).
    public var transitionSeconds: Double?

    /// Walking or running for `duration` seconds at `cadence` steps/s and `speed` m/s.
    public init(
        duration: Double, cadence: Double, speed: Double, carry: Carry = .hand, pose: Pose? = nil,
        turns: [Turn] = [], transitionSeconds: Double? = nil
    ) {
        self.duration = duration
        self.cadence = cadence
        self.speed = speed
        self.carry = carry
        self.pose = pose
        self.turns = turns
        self.transitionSeconds = transitionSeconds
    }

    /// Walking: 1.9 steps/s at 1.35 m/s unless told otherwise.
    public static func walk(
        duration: Double, cadence: Double = 1.9, speed: Double = 1.35, carry: Carry = .hand, turns: [Turn] = []
    ) -> Gait {
        Gait(duration: duration, cadence: cadence, speed: speed, carry: carry, turns: turns)
    }

    /// Running: 2.8 steps/s at 3.2 m/s unless told otherwise.
    public static func run(
        duration: Double, cadence: Double = 2.8, speed: Double = 3.2, carry: Carry = .pocket, turns: [Turn] = []
    ) -> Gait {
        Gait(duration: duration, cadence: cadence, speed: speed, carry: carry, turns: turns)
    }
}

/// Climbing or descending a straight flight of stairs.
public struct Stairs: Sendable, Hashable {
    /// Up or down the stairs.
    public enum Direction: String, Sendable, Hashable, Codable, CaseIterable { case up, down }
    /// Which way the flight is walked.
    public var direction: Direction
    /// Number of steps (each one riser).
    public var steps: Int
    /// Rise per step, metres (default 0.17).
    public var riserMetres: Double
    /// Run per step, metres (default 0.28).
    public var treadMetres: Double
    /// Steps per second (default 1.6 up, 1.8 down).
    public var cadence: Double
    /// How the phone is carried (`.hand` or `.pocket`).
    public var carry: Carry
    /// A pose other than the carry's default, if given.
    public var pose: Pose?
    /// Length of the change from the previous segment's motion, seconds (default 1).
    public var transitionSeconds: Double?

    /// A flight of `steps` steps of `riserMetres` × `treadMetres` at `cadence` steps/s (1.6 up, 1.8
    /// down by default).
    public init(
        _ direction: Direction, steps: Int, riserMetres: Double = 0.17, treadMetres: Double = 0.28,
        cadence: Double? = nil, carry: Carry = .hand, pose: Pose? = nil, transitionSeconds: Double? = nil
    ) {
        self.direction = direction
        self.steps = steps
        self.riserMetres = riserMetres
        self.treadMetres = treadMetres
        self.cadence = cadence ?? (direction == .up ? 1.6 : 1.8)
        self.carry = carry
        self.pose = pose
        self.transitionSeconds = transitionSeconds
    }

    /// Seconds: `steps / cadence`.
    public var duration: Double { Double(steps) / cadence }
    /// Height change, metres (negative going down).
    public var heightChange: Double { Double(steps) * riserMetres * (direction == .up ? 1 : -1) }
}

/// Riding a bicycle: pedalling imprints a thigh motion on a pocket, road roughness vibrates the bike.
public struct Cycling: Sendable, Hashable {
    /// Seconds.
    public var duration: Double
    /// Pedal revolutions per minute (default 80).
    public var cadenceRPM: Double
    /// m/s (default 5.5).
    public var speed: Double
    /// `.pocket` (thigh swing) or `.handlebar`.
    public var carry: Carry
    /// Changes of heading during the ride.
    public var turns: [Turn]
    /// Scale of road vibration (1 = smooth asphalt).
    public var roughness: Double
    /// Length of the change from the previous segment's motion, seconds (default 2).
    public var transitionSeconds: Double?

    /// Cycling for `duration` seconds at `cadenceRPM` and `speed` m/s.
    public init(
        duration: Double, cadenceRPM: Double = 80, speed: Double = 5.5, carry: Carry = .pocket,
        turns: [Turn] = [], roughness: Double = 1, transitionSeconds: Double? = nil
    ) {
        self.duration = duration
        self.cadenceRPM = cadenceRPM
        self.speed = speed
        self.carry = carry
        self.turns = turns
        self.roughness = roughness
        self.transitionSeconds = transitionSeconds
    }
}

/// Riding in a car: speed changes at a comfortable acceleration, turns, and engine and road vibration.
public struct Drive: Sendable, Hashable {
    /// Seconds.
    public var duration: Double
    /// Speed to reach, m/s (0 = stop and idle).
    public var speed: Double
    /// Changes of heading during the drive.
    public var turns: [Turn]
    /// Acceleration used to change speed, m/s² (default 2); sets the transition length.
    public var acceleration: Double
    /// `.mount` (console or holder) unless told otherwise; the pose of the mount is `pose` or
    /// the carry's default.
    public var carry: Carry
    /// A pose other than the carry's default, if given.
    public var pose: Pose?
    /// Scale of road vibration (1 = ordinary road).
    public var roughness: Double

    /// Driving for `duration` seconds, changing to `speed` m/s at `acceleration` m/s².
    public init(
        duration: Double, speed: Double, turns: [Turn] = [], acceleration: Double = 2, carry: Carry = .mount,
        pose: Pose? = nil, roughness: Double = 1
    ) {
        self.duration = duration
        self.speed = speed
        self.turns = turns
        self.acceleration = acceleration
        self.carry = carry
        self.pose = pose
        self.roughness = roughness
    }
}

/// Shaking the device in place by hand: no steps.
public struct Shake: Sendable, Hashable {
    /// Seconds.
    public var duration: Double
    /// Shakes per second (default 4).
    public var frequency: Double
    /// Amplitude of the back-and-forth motion, metres (default 0.03).
    public var amplitudeMetres: Double
    /// Amplitude of the wrist rotation, degrees (default 15).
    public var rotationDegrees: Double
    /// Length of the change from the previous segment's motion, seconds (default 0.5).
    public var transitionSeconds: Double?

    /// Shaking for `duration` seconds at `frequency` Hz.
    public init(
        duration: Double, frequency: Double = 4, amplitudeMetres: Double = 0.03, rotationDegrees: Double = 15,
        transitionSeconds: Double? = nil
    ) {
        self.duration = duration
        self.frequency = frequency
        self.amplitudeMetres = amplitudeMetres
        self.rotationDegrees = rotationDegrees
        self.transitionSeconds = transitionSeconds
    }
}

/// Riding a lift: the carrier stands while the floor rises (or falls) by `heightMetres` with a
/// smooth (quintic) profile over the whole segment.
public struct Elevator: Sendable, Hashable {
    /// Height change, metres (negative = down).
    public var heightMetres: Double
    /// Seconds.
    public var duration: Double

    /// A lift ride of `heightMetres` over `duration` seconds.
    public init(heightMetres: Double, duration: Double) {
        self.heightMetres = heightMetres
        self.duration = duration
    }
}

/// One part of a scene's motion script.
///
/// Segments follow each other with continuous position, velocity, orientation and angular
/// velocity: a segment's speeds, cadence and motion pattern blend from the previous segment's
/// over its transition (a quintic smoothstep, so accelerations stay continuous); rotations,
/// turns, keyframes and lifts start and end at rest inside their segment.
public enum Segment: Sendable, Hashable {
    case hold(Hold)
    case rotate(Rotation)
    case orient(Orientation)
    case keyframes(Keyframes)
    case walk(Gait)
    case run(Gait)
    case stairs(Stairs)
    case cycle(Cycling)
    case drive(Drive)
    case shake(Shake)
    case elevator(Elevator)

    /// Seconds the segment lasts.
    public var duration: Double {
        switch self {
        case .hold(let s): s.duration
        case .rotate(let s): s.duration
        case .orient(let s): s.duration
        case .keyframes(let s): s.duration
        case .walk(let s), .run(let s): s.duration
        case .stairs(let s): s.duration
        case .cycle(let s): s.duration
        case .drive(let s): s.duration
        case .shake(let s): s.duration
        case .elevator(let s): s.duration
        }
    }

    /// The segment's type name (as in scene files).
    public var typeName: String {
        switch self {
        case .hold: "hold"
        case .rotate: "rotate"
        case .orient: "orient"
        case .keyframes: "keyframes"
        case .walk: "walk"
        case .run: "run"
        case .stairs: "stairs"
        case .cycle: "cycle"
        case .drive: "drive"
        case .shake: "shake"
        case .elevator: "elevator"
        }
    }

    /// Whether the carrier takes steps during the segment (walk, run, stairs).
    public var isStepping: Bool {
        switch self {
        case .walk, .run, .stairs: true
        default: false
        }
    }
}
