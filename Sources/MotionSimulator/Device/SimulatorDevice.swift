import Foundation
import MotionSamples

/// Makes the simulator device (`COREMOTION_DEVICE=sim:SCENE`).
public enum SimulatorDevice {
    /// A device that plays `scene` with `seed` against `clock`: the samples of scene time `t` are
    /// delivered at the clock's time when the device was made plus `t / speed`.
    public static func make(scene: Scene, seed: UInt64 = 0, clock: any MotionClock, speed: Double = 1) throws -> ScheduledDevice {
        guard speed > 0 && speed.isFinite else {
            throw SceneError.badSpecification("sim:\(scene.name)", reason: "speed must be a positive number, found \(speed)")
        }
        let simulation = try Simulation(scene: scene, seed: seed)
        return ScheduledDevice(
            name: "sim:\(scene.name) (seed \(seed))", source: simulation.makeSource(), clock: clock, speed: speed
        )
    }

    /// A device from a `sim:` specification: `SCENE` (a name from ``SceneCatalog``) or a scene
    /// file path (anything containing `/` or ending in `.json`), optionally followed by `?seed=N`
    /// and `&speed=F` (playback speed factor). The `sim:` prefix may be included. Throws
    /// ``SceneError`` (unknown name with the list of scenes, unreadable or invalid file, bad query).
    public static func make(specification: String, clock: any MotionClock) throws -> ScheduledDevice {
        let (scene, seed, speed) = try parseWithSpeed(specification: specification)
        return try make(scene: scene, seed: seed, clock: clock, speed: speed)
    }

    /// The scene and seed of a `sim:` specification.
    public static func parse(specification: String) throws -> (scene: Scene, seed: UInt64) {
        let (scene, seed, _) = try parseWithSpeed(specification: specification)
        return (scene, seed)
    }

    /// The scene, seed and speed of a `sim:` specification.
    public static func parseWithSpeed(specification: String) throws -> (scene: Scene, seed: UInt64, speed: Double) {
        var body = specification
        if body.hasPrefix("sim:") { body.removeFirst(4) }
        var seed: UInt64 = 0
        var speed = 1.0
        if let q = body.firstIndex(of: "?") {
            let query = body[body.index(after: q)...]
            body = String(body[..<q])
            for item in query.split(separator: "&") {
                let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else {
                    throw SceneError.badSpecification(specification, reason: "'\(item)' is not key=value")
                }
                switch parts[0] {
                case "seed":
                    guard let value = UInt64(parts[1]) else {
                        throw SceneError.badSpecification(
                            specification, reason: "seed must be a whole number from 0 to \(UInt64.max), found '\(parts[1])'"
                        )
                    }
                    seed = value
                case "speed":
                    guard let value = Double(parts[1]), value > 0, value.isFinite else {
                        throw SceneError.badSpecification(specification, reason: "speed must be a positive number, found '\(parts[1])'")
                    }
                    speed = value
                default:
                    throw SceneError.badSpecification(
                        specification, reason: NameSuggestion.unknown("option", parts[0], among: ["seed", "speed"]))
                }
            }
        }
        guard !body.isEmpty else {
            throw SceneError.badSpecification(specification, reason: "no scene given; scenes: \(SceneCatalog.names.joined(separator: ", "))")
        }
        return (try SceneCatalog.resolve(body), seed, speed)
    }
}
