import MotionSamples

/// What a scene does after its last segment.
public enum SceneEnding: String, Sendable, Hashable, Codable, CaseIterable {
    /// The samples end (a finite source).
    case stop
    /// The last segment's motion goes on for ever (a still phone stays still, a walk goes on
    /// walking straight ahead).
    case hold
    /// The script starts over; a looping scene must end in the state it starts in (attitude,
    /// altitude, at rest), which ``Simulation`` checks, so the loop is seamless. Each pass starts
    /// where the previous one ended horizontally; free-running vibrations and tremor run on.
    case loop
}

/// Where and how a scene starts.
public struct SceneStart: Sendable, Hashable {
    /// The initial pose relative to the carrier; `nil` = the first segment's pose (or face-up).
    public var pose: Pose?
    /// The initial carry; `nil` = the first segment's carry (or `.table`).
    public var carry: Carry?
    /// Initial heading of the carrier, degrees counter-clockwise from magnetic north (90 = west).
    public var headingDegrees: Double
    /// Altitude of the carrier's floor at the start, metres above sea level.
    public var altitudeMetres: Double

    /// A start state; `nil` pose and carry come from the first segment.
    public init(pose: Pose? = nil, carry: Carry? = nil, headingDegrees: Double = 0, altitudeMetres: Double = 0) {
        self.pose = pose
        self.carry = carry
        self.headingDegrees = headingDegrees
        self.altitudeMetres = altitudeMetres
    }
}

/// A simulated situation: a motion script (segments), the surroundings and the device's sensors.
///
/// Named scenes come from ``SceneCatalog``; scene files are read by ``SceneFile``. A scene with a
/// seed becomes a ``Simulation`` (ground truth and samples) or a device
/// (``SimulatorDevice/make(scene:seed:clock:)``).
public struct Scene: Sendable {
    /// Short name (`walking-in-hand`).
    public var name: String
    /// What the scene models, in a sentence or two.
    public var summary: String
    /// Where and how it starts.
    public var start: SceneStart
    /// The motion script, in order.
    public var segments: [Segment]
    /// What happens after the last segment.
    public var ending: SceneEnding
    /// Earth's field, the atmosphere, gravity.
    public var environment: Environment
    /// The device's sensors: rates and errors.
    public var sensors: SensorSuite

    /// A scene; ``Simulation`` validates it.
    public init(
        name: String, summary: String = "", start: SceneStart = SceneStart(), segments: [Segment],
        ending: SceneEnding = .stop, environment: Environment = Environment(), sensors: SensorSuite = .phone
    ) {
        self.name = name
        self.summary = summary
        self.start = start
        self.segments = segments
        self.ending = ending
        self.environment = environment
        self.sensors = sensors
    }

    /// Seconds of scripted motion (the sum of the segments' durations).
    public var scriptDuration: Double { segments.reduce(0) { $0 + $1.duration } }

    /// The same scene with every sensor error removed.
    public var ideal: Scene {
        var s = self
        s.sensors = sensors.ideal
        return s
    }
}
