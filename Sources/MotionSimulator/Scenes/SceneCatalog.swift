import Foundation
import MotionSamples

/// The named scenes (`sim:NAME`).
///
/// Every scene uses the default environment (50 µT field dipping 60°, standard atmosphere at sea
/// level) and the default phone sensors (``SensorSuite/phone``). Scenes that loop end as they
/// start, so they play seamlessly for ever.
public enum SceneCatalog {
    /// Every named scene, in the order `coremotion simulate --list` shows them.
    public static let all: [Scene] = [
        stillFaceUp, stillUpright,
        rotation("rotate-x", .unitX), rotation("rotate-y", .unitY), rotation("rotate-z", .unitZ),
        walkingInHand, pocketWalk, running, stairs, car, cycling, shaking, elevator, pickUp,
    ]

    /// The names of the named scenes.
    public static var names: [String] { all.map(\.name) }

    /// The scene called `name`; throws ``SceneError/unknownScene(name:available:)`` listing the
    /// scenes otherwise.
    public static func scene(named name: String) throws -> Scene {
        guard let scene = all.first(where: { $0.name == name }) else {
            throw SceneError.unknownScene(name: name, available: names)
        }
        return scene
    }

    /// A named scene, or a scene file when `nameOrPath` contains `/` or ends in `.json`.
    public static func resolve(_ nameOrPath: String) throws -> Scene {
        if nameOrPath.contains("/") || nameOrPath.hasSuffix(".json") {
            return try SceneFile.load(path: nameOrPath)
        }
        return try scene(named: nameOrPath)
    }

    // MARK: Scenes

    /// Four left turns of 90° spread over a segment of `duration` seconds: a walk around a block
    /// that ends facing the way it started.
    private static func square(_ duration: Double, turn: Double = 2.5) -> [Turn] {
        (1...4).map { k in
            Turn(atSeconds: duration * Double(k) / 4 - turn - 0.5, angleDegrees: 90, durationSeconds: turn)
        }
    }

    static let stillFaceUp = Scene(
        name: "still-face-up",
        summary: "A phone lying still, face up, on a table: the accelerometer reads (0, 0, −1) g plus its "
            + "bias and noise, the gyroscope its bias and noise. Never ends.",
        start: SceneStart(carry: .table),
        segments: [.hold(Hold(duration: 60, pose: .faceUp))],
        ending: .hold
    )

    static let stillUpright = Scene(
        name: "still-upright",
        summary: "A phone standing still, upright in portrait on a table (screen facing south): the "
            + "accelerometer reads (0, −1, 0) g. Never ends.",
        start: SceneStart(carry: .table),
        segments: [.hold(Hold(duration: 60, pose: .upright))],
        ending: .hold
    )

    private static func rotation(_ name: String, _ axis: Vector3) -> Scene {
        let letter = name.suffix(1)
        return Scene(
            name: name,
            summary: "A phone on a table, face up, turned slowly once round its own \(letter) axis (360° at "
                + "30°/s, 1 s to speed up and to stop) between 2 s pauses, over and over. The device turns about "
                + "its centre, so the accelerometer sees gravity only.",
            start: SceneStart(pose: .faceUp, carry: .table),
            segments: [
                .hold(Hold(duration: 2)),
                .rotate(Rotation(axis: axis, angleDegrees: 360, peakRateDegreesPerSecond: 30, rampSeconds: 1)),
                .hold(Hold(duration: 2)),
            ],
            ending: .loop
        )
    }

    static let walkingInHand = Scene(
        name: "walking-in-hand",
        summary: "Standing 3 s, then walking 60 s at 1.9 steps/s and 1.35 m/s around a block (four 90° left "
            + "turns) with the phone held in front for reading (right hand), then standing 3 s; loops. The phone "
            + "bounces about 4 cm per step with a heel-strike peak, sways once per stride and trembles slightly "
            + "in the hand. Ground-truth steps are the heel strikes.",
        start: SceneStart(carry: .hand),
        segments: [
            .hold(Hold(duration: 3, carry: .hand)),
            .walk(.walk(duration: 60, carry: .hand, turns: square(60))),
            .hold(Hold(duration: 3, carry: .hand)),
        ],
        ending: .loop
    )

    static let pocketWalk = Scene(
        name: "pocket-walk",
        summary: "The walk of walking-in-hand with the phone upside down in a front trouser pocket: it pitches "
            + "about ±22° with the thigh once per stride and bounces with the hip. Loops.",
        start: SceneStart(carry: .pocket),
        segments: [
            .hold(Hold(duration: 3, carry: .pocket)),
            .walk(.walk(duration: 60, carry: .pocket, turns: square(60))),
            .hold(Hold(duration: 3, carry: .pocket)),
        ],
        ending: .loop
    )

    static let running = Scene(
        name: "running",
        summary: "Standing 3 s, running 60 s at 2.8 steps/s and 3.2 m/s around a block with the phone in a "
            + "front pocket (thigh swing ±35°, vertical acceleration peaking near 1.8 g above gravity at foot "
            + "strike and approaching free fall in flight), standing 3 s; loops.",
        start: SceneStart(carry: .pocket),
        segments: [
            .hold(Hold(duration: 3, carry: .pocket)),
            .run(.run(duration: 60, carry: .pocket, turns: square(60, turn: 2))),
            .hold(Hold(duration: 3, carry: .pocket)),
        ],
        ending: .loop
    )

    /// A landing between flights: two slow steps while turning 180°.
    private static func landing(_ degrees: Double) -> Segment {
        .walk(Gait(duration: 3, cadence: 1.6, speed: 0.5, carry: .hand,
                   turns: [Turn(atSeconds: 0.25, angleDegrees: degrees, durationSeconds: 2.5)]))
    }

    static let stairs = Scene(
        name: "stairs",
        summary: "Phone in hand: walk to a dog-leg staircase, climb three floors (18 steps of 0.17 m per "
            + "floor = 3.06 m, 1.6 steps/s, turning 180° on each landing), turn round, walk down again (1.8 "
            + "steps/s) and back to the start; loops. Altitude rises 9.18 m and pressure falls about 0.11 kPa "
            + "at the top.",
        start: SceneStart(carry: .hand),
        segments: [
            .hold(Hold(duration: 3, carry: .hand)),
            .walk(.walk(duration: 4, carry: .hand)),
            .stairs(Stairs(.up, steps: 18)), landing(180),
            .stairs(Stairs(.up, steps: 18)), landing(180),
            .stairs(Stairs(.up, steps: 18)),
            .walk(Gait(duration: 4, cadence: 1.8, speed: 0.6, carry: .hand,
                       turns: [Turn(atSeconds: 0.5, angleDegrees: 180, durationSeconds: 3)])),
            .stairs(Stairs(.down, steps: 18)), landing(-180),
            .stairs(Stairs(.down, steps: 18)), landing(-180),
            .stairs(Stairs(.down, steps: 18)),
            .walk(Gait(duration: 5, cadence: 1.9, speed: 1.0, carry: .hand,
                       turns: [Turn(atSeconds: 1, angleDegrees: -180, durationSeconds: 3)])),
            .hold(Hold(duration: 3, carry: .hand)),
        ],
        ending: .loop
    )

    static let car = Scene(
        name: "car",
        summary: "A phone lying in a car's console: idling 5 s, pulling away to 50 km/h, a left and a right "
            + "turn, slowing to 30 km/h for another left, stopping 10 s at a light, on at 40 km/h with a right "
            + "turn, stopping; engine and road vibration, the body on its suspension over an uneven road (0.6–5 Hz), "
            + "the driver's speed and steering wandering by a few hundredths of g, lateral acceleration up to about 0.3 g in "
            + "turns. No steps. Loops.",
        start: SceneStart(carry: .mount),
        segments: [
            .drive(Drive(duration: 5, speed: 0)),
            .drive(Drive(duration: 35, speed: 13.9, turns: [Turn(atSeconds: 22, angleDegrees: 90, durationSeconds: 8)])),
            .drive(Drive(duration: 30, speed: 13.9, turns: [Turn(atSeconds: 10, angleDegrees: -90, durationSeconds: 8)])),
            .drive(Drive(duration: 25, speed: 8.3, turns: [Turn(atSeconds: 8, angleDegrees: 90, durationSeconds: 7)])),
            .drive(Drive(duration: 10, speed: 0)),
            .drive(Drive(duration: 35, speed: 11.1, turns: [Turn(atSeconds: 15, angleDegrees: -90, durationSeconds: 8)])),
            .drive(Drive(duration: 12, speed: 0)),
        ],
        ending: .loop
    )

    static let cycling = Scene(
        name: "cycling",
        summary: "Standing 3 s with the phone in a front pocket, then cycling 90 s at 80 rpm and 5.5 m/s around "
            + "a block (the thigh pitches ±14° once per pedal revolution with a second harmonic, the cadence wanders "
            + "±6 %, road unevenness 1–8 Hz reaches the hip and vibration 9–18 Hz the frame), then standing "
            + "3 s; no steps. Loops.",
        start: SceneStart(carry: .pocket),
        segments: [
            .hold(Hold(duration: 3, carry: .pocket)),
            .cycle(Cycling(duration: 90, carry: .pocket, turns: square(90, turn: 3), transitionSeconds: 4)),
            .hold(Hold(duration: 3, carry: .pocket, transitionSeconds: 3)),
        ],
        ending: .loop
    )

    static let shaking = Scene(
        name: "shaking",
        summary: "A phone held in the hand and shaken in place: 10 s at 4 shakes/s (±3 cm, ±15° twist, about "
            + "2 g), a pause, 5 s at 5 shakes/s (±2.5 cm, ±20°, about 2.5 g); the person does not walk, so there "
            + "are no steps. Loops.",
        start: SceneStart(carry: .hand),
        segments: [
            .hold(Hold(duration: 2, carry: .hand)),
            .shake(Shake(duration: 10)),
            .hold(Hold(duration: 2)),
            .shake(Shake(duration: 5, frequency: 5, amplitudeMetres: 0.025, rotationDegrees: 20)),
            .hold(Hold(duration: 3)),
        ],
        ending: .loop
    )

    static let elevator = Scene(
        name: "elevator",
        summary: "Standing in a lift with the phone in hand: up 12 m (four floors) in 15 s, a 5 s stop, down "
            + "again in 15 s; no steps. Loops.",
        start: SceneStart(carry: .hand),
        segments: [
            .hold(Hold(duration: 3, carry: .hand)),
            .elevator(Elevator(heightMetres: 12, duration: 15)),
            .hold(Hold(duration: 5)),
            .elevator(Elevator(heightMetres: -12, duration: 15)),
            .hold(Hold(duration: 3)),
        ],
        ending: .loop
    )

    static let pickUp = Scene(
        name: "pick-up",
        summary: "A phone lying face up on a table is picked up into the reading position (1.5 s), turned to "
            + "landscape and back (keyframes), and put down again; loops. Exercises fast attitude changes "
            + "with translation.",
        start: SceneStart(carry: .table),
        segments: [
            .hold(Hold(duration: 3, pose: .faceUp, carry: .table)),
            .hold(Hold(duration: 3, carry: .hand, transitionSeconds: 1.5)),
            .keyframes(Keyframes([
                Keyframe(timeSeconds: 1.2, pose: Pose(rollDegrees: 45, pitchDegrees: 35, yawDegrees: -90)),
                Keyframe(timeSeconds: 2.0, pose: Pose(rollDegrees: 90, pitchDegrees: 30, yawDegrees: -90)),
                Keyframe(timeSeconds: 4.0, pose: Pose(rollDegrees: 90, pitchDegrees: 30, yawDegrees: -90)),
                Keyframe(timeSeconds: 5.5, pose: .reading),
            ])),
            .hold(Hold(duration: 2, carry: .hand)),
            .hold(Hold(duration: 4, pose: .faceUp, carry: .table, transitionSeconds: 1.5)),
        ],
        ending: .loop
    )
}
