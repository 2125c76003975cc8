import Foundation
import MotionSamples

/// A change of the bud that streams: from ``atSeconds`` nothing is sent for ``silenceSeconds``, then
/// ``bud`` streams (a bud taken out: the other takes over after a short silence; both out: a long silence).
public struct BudChange: Sendable, Hashable {
    /// Scene time of the change, seconds.
    public var atSeconds: Double
    /// How long no sample is sent, seconds (over 1 s, the headphones disconnect).
    public var silenceSeconds: Double
    /// The bud that streams afterwards.
    public var bud: HeadphoneSensorLocation

    /// A change at `atSeconds`: `silenceSeconds` without samples, then `bud` streams.
    public init(atSeconds: Double, silenceSeconds: Double, bud: HeadphoneSensorLocation) {
        self.atSeconds = atSeconds
        self.silenceSeconds = silenceSeconds
        self.bud = bud
    }
}

/// A simulated head wearing motion-sensing headphones (`COREMOTION_HEADPHONE_DEVICE=sim:NAME`).
///
/// The head's motion is an ordinary ``Scene`` whose device is the head: its axes are X towards the right
/// ear, Y towards the nose, Z out of the top of the head (a phone lying face up on the head, its top
/// forward: ``Pose/flatForward``), so that a nod is a pitch (about X), shaking the head a yaw (about Z) and
/// tilting it a roll (about Y). Each bud sits in the ear at an angle (``budMount(_:)``: pitched 13° down and
/// rolled 2° outwards, as the AirPods capture reads with the head level), so its readings are the head's seen
/// from the bud's axes, and the stream jumps when the other bud takes over, as on real AirPods.
public struct HeadphoneScene: Sendable {
    /// Short name (`head-nod`).
    public var name: String
    /// What the scene shows.
    public var summary: String
    /// The head's motion.
    public var scene: Scene
    /// The headset's rate, Hz (50: AirPods on iOS 26 / macOS 26).
    public var rate: Double
    /// The bud that streams first.
    public var firstBud: HeadphoneSensorLocation
    /// Changes of the streaming bud, in time order.
    public var budChanges: [BudChange]

    /// A scene; ``HeadphoneSimulation`` validates it.
    public init(
        name: String, summary: String, scene: Scene, rate: Double = 50, firstBud: HeadphoneSensorLocation = .left,
        budChanges: [BudChange] = []
    ) {
        self.name = name
        self.summary = summary
        self.scene = scene
        self.rate = rate
        self.firstBud = firstBud
        self.budChanges = budChanges
    }

    /// The rotation bud → head of a bud in the ear: pitched 13° down, rolled 2° outwards (mirrored for the
    /// right bud), so that with the head level gravity reads about (±0.03, 0.22, −0.97) g, as in the AirPods
    /// Pro capture (`airpods-head-shake`, first sample (0.007, 0.227, −0.974) g).
    public static func budMount(_ bud: HeadphoneSensorLocation) -> Quaternion {
        let roll: Double = switch bud {
        case .left: 2
        case .right: -2
        case .unknown: 0
        }
        return Quaternion(appleRoll: roll * .pi / 180, pitch: -13 * .pi / 180, yaw: 0)
    }
}

/// A head scene set in motion: the samples a headset's own fusion would deliver if it were perfect (the
/// scene's true attitude, rotation rate, gravity and user acceleration in the streaming bud's axes, at the
/// headset's rate, with the bud changes' silences), as a ``HeadphoneTimeline``.
///
/// The simulator has no fusion error of its own: no yaw drift (real AirPods drift about 1–2°/min when still),
/// no start-up transient. Deterministic: the same scene and seed give the same samples.
public struct HeadphoneSimulation: Sendable {
    /// The scene.
    public let headphoneScene: HeadphoneScene
    /// The head's simulation (its ground truth).
    public let simulation: Simulation

    /// Validates the scene; throws ``SceneError``.
    public init(scene: HeadphoneScene, seed: UInt64 = 1) throws {
        guard scene.rate > 0, scene.rate.isFinite, scene.rate <= 1000 else {
            throw SceneError.invalid(path: nil, line: nil, column: nil, field: "rate", message: "must be within 0…1000 Hz, found \(scene.rate)")
        }
        headphoneScene = scene
        simulation = try Simulation(scene: scene.scene, seed: seed)
    }

    /// The bud streaming at scene time `t`, or `nil` in a silence.
    public func bud(at t: Double) -> HeadphoneSensorLocation? {
        var bud = headphoneScene.firstBud
        for change in headphoneScene.budChanges where change.atSeconds <= t {
            if t < change.atSeconds + change.silenceSeconds { return nil }
            bud = change.bud
        }
        return bud
    }

    /// The sample `bud` delivers at scene time `t`.
    public func sample(at t: Double, bud: HeadphoneSensorLocation) -> HeadphoneMotionSample {
        let truth = simulation.truth(at: t)
        let mount = HeadphoneScene.budMount(bud)
        return HeadphoneMotionSample(
            time: t, attitude: (truth.attitude * mount).normalized,
            rotationRate: mount.inverseRotate(truth.rotationRate),
            userAcceleration: mount.inverseRotate(truth.userAcceleration),
            gravity: mount.inverseRotate(truth.gravity), location: bud)
    }

    /// One pass of the scene as a timeline: samples every 1/rate s except in silences, repeated when the
    /// scene loops (``SceneEnding/loop``) or holds (the last state goes on), played once otherwise.
    public func timeline() -> HeadphoneTimeline {
        let scene = headphoneScene
        let duration = scene.scene.scriptDuration
        let count = Int((duration * scene.rate).rounded(.down))
        var samples: [HeadphoneMotionSample] = []
        samples.reserveCapacity(count)
        for k in 0..<max(count, 1) {
            let t = Double(k) / scene.rate
            guard let bud = bud(at: t) else { continue }
            samples.append(sample(at: t, bud: bud))
        }
        let loop = scene.scene.ending != .stop
        return HeadphoneTimeline(
            name: "sim:\(scene.name)", samples: samples, rate: scene.rate, startTime: 0,
            loopSpan: loop ? Double(count) / scene.rate : nil)
    }
}

/// The named head scenes (`COREMOTION_HEADPHONE_DEVICE=sim:NAME`).
public enum HeadphoneSceneCatalog {
    /// Every head scene, in the order the documentation lists them.
    public static let all: [HeadphoneScene] = [headNod, headShake, lookAround, walkHeadTurns, budOutAndIn]

    /// Their names.
    public static var names: [String] { all.map(\.name) }

    /// The scene called `name`; throws ``SceneError/unknownScene(name:available:)`` listing them otherwise.
    public static func scene(named name: String) throws -> HeadphoneScene {
        guard let scene = all.first(where: { $0.name == name }) else {
            throw SceneError.unknownScene(name: name, available: names)
        }
        return scene
    }

    /// A named head scene, or a scene file (`/` in it or `.json`): its device is taken as the head, worn with
    /// the left bud streaming at 50 Hz.
    public static func resolve(_ nameOrPath: String) throws -> HeadphoneScene {
        if nameOrPath.contains("/") || nameOrPath.hasSuffix(".json") {
            let scene = try SceneFile.load(path: nameOrPath)
            return HeadphoneScene(name: scene.name, summary: scene.summary, scene: scene)
        }
        return try scene(named: nameOrPath)
    }

    /// The head at rest, facing forward (the device's top along the carrier's forward axis).
    private static let level = Pose.flatForward

    private static func head(roll: Double = 0, pitch: Double = 0, yaw: Double = 0) -> Pose {
        Pose(rollDegrees: roll, pitchDegrees: pitch, yawDegrees: level.yawDegrees + yaw)
    }

    private static func still(_ name: String, _ segments: [Segment]) -> Scene {
        Scene(name: name, start: SceneStart(pose: level, carry: .table), segments: segments, ending: .loop)
    }

    static let headNod = HeadphoneScene(
        name: "head-nod",
        summary: "Nodding \"yes\": still 2 s, three nods (20° down, 8° up, about 1.2 nods/s), still 2 s; loops. "
            + "Pitch moves, yaw and roll stay near 0.",
        scene: still("head-nod", [
            .hold(Hold(duration: 2)),
            .keyframes(Keyframes([
                Keyframe(timeSeconds: 0.4, pose: head(pitch: -20)), Keyframe(timeSeconds: 0.8, pose: head(pitch: 8)),
                Keyframe(timeSeconds: 1.2, pose: head(pitch: -20)), Keyframe(timeSeconds: 1.6, pose: head(pitch: 8)),
                Keyframe(timeSeconds: 2.0, pose: head(pitch: -20)), Keyframe(timeSeconds: 2.6, pose: head()),
            ])),
            .hold(Hold(duration: 2)),
        ]))

    static let headShake = HeadphoneScene(
        name: "head-shake",
        summary: "Shaking the head \"no\": still 2 s, three shakes (±30° of yaw, 2 shakes/s), still 2 s; loops. "
            + "Like the AirPods capture airpods-head-shake.",
        scene: still("head-shake", [
            .hold(Hold(duration: 2)),
            .keyframes(Keyframes([
                Keyframe(timeSeconds: 0.25, pose: head(yaw: 30)), Keyframe(timeSeconds: 0.5, pose: head(yaw: -30)),
                Keyframe(timeSeconds: 0.75, pose: head(yaw: 30)), Keyframe(timeSeconds: 1.0, pose: head(yaw: -30)),
                Keyframe(timeSeconds: 1.25, pose: head(yaw: 30)), Keyframe(timeSeconds: 1.5, pose: head(yaw: -30)),
                Keyframe(timeSeconds: 1.9, pose: head()),
            ])),
            .hold(Hold(duration: 2)),
        ]))

    static let lookAround = HeadphoneScene(
        name: "look-around",
        summary: "Looking around while seated: left 70° (yaw +70°), right 70° (−70°), up 25°, down 30°, a tilt of "
            + "20° to the right shoulder, back to the front, each held about 1 s; 15 s, loops.",
        scene: still("look-around", lookAroundSegments(hold: 1)))

    private static func lookAroundSegments(hold: Double) -> [Segment] {
        [
            .hold(Hold(duration: 1)),
            .keyframes(Keyframes([
                Keyframe(timeSeconds: 1.2, pose: head(yaw: 70)), Keyframe(timeSeconds: 1.2 + hold, pose: head(yaw: 70)),
                Keyframe(timeSeconds: 3.6 + hold, pose: head(yaw: -70)), Keyframe(timeSeconds: 3.6 + 2 * hold, pose: head(yaw: -70)),
                Keyframe(timeSeconds: 4.8 + 2 * hold, pose: head(pitch: 25)), Keyframe(timeSeconds: 4.8 + 3 * hold, pose: head(pitch: 25)),
                Keyframe(timeSeconds: 6.0 + 3 * hold, pose: head(pitch: -30)), Keyframe(timeSeconds: 6.0 + 4 * hold, pose: head(pitch: -30)),
                Keyframe(timeSeconds: 7.0 + 4 * hold, pose: head(roll: 20)), Keyframe(timeSeconds: 7.0 + 5 * hold, pose: head(roll: 20)),
                Keyframe(timeSeconds: 8.0 + 5 * hold, pose: head()),
            ])),
            .hold(Hold(duration: 1)),
        ]
    }

    static let walkHeadTurns = HeadphoneScene(
        name: "walk-head-turns",
        summary: "Standing 2 s, then walking 24 s at 1.9 steps/s and 1.35 m/s, glancing left 60° at 6 s and right 60° "
            + "at 14 s (each look lasts about 2 s: the walker's heading follows the head), standing 2 s; loops. The head "
            + "bobs about 4 cm per step, as the simulator's hand-carried phone does.",
        scene: Scene(
            name: "walk-head-turns", start: SceneStart(pose: level, carry: .hand),
            segments: [
                .hold(Hold(duration: 2, pose: level, carry: .hand)),
                .walk(Gait(
                    duration: 24, cadence: 1.9, speed: 1.35, carry: .hand, pose: level,
                    turns: [
                        Turn(atSeconds: 6, angleDegrees: 60, durationSeconds: 0.8), Turn(atSeconds: 7.6, angleDegrees: -60, durationSeconds: 0.8),
                        Turn(atSeconds: 14, angleDegrees: -60, durationSeconds: 0.8), Turn(atSeconds: 15.6, angleDegrees: 60, durationSeconds: 0.8),
                    ])),
                .hold(Hold(duration: 2, pose: level, carry: .hand)),
            ],
            ending: .loop))

    static let budOutAndIn = HeadphoneScene(
        name: "bud-out-and-in",
        summary: "Looking around with AirPods in: at 4 s the left bud (streaming) is taken out and the right one takes "
            + "over after 0.4 s (sensor location right, the attitude jumps by the buds' different seating; still connected); at "
            + "9 s the right bud comes out too: 3 s of silence, disconnected 1 s into it; at 12 s both are back, the left "
            + "streams again and the headphones reconnect; 16.25 s, loops.",
        scene: still("bud-out-and-in", lookAroundSegments(hold: 1.25)),
        budChanges: [
            BudChange(atSeconds: 4, silenceSeconds: 0.4, bud: .right),
            BudChange(atSeconds: 9, silenceSeconds: 3, bud: .left),
        ])
}
