import Foundation
import MotionSamples

/// Scene files: a scene written as JSON (`sim:/path/scene.json`).
///
/// The format is documented in `Sources/MotionSimulator/Scenes/SceneFormat.md`. In brief: an
/// object with `name`, `summary`, `base` (a named scene to start from), `ending`
/// (`stop`/`hold`/`loop`), `start`, `environment`, `sensors` and `segments` (an array of objects
/// with a `type`); angles in degrees, lengths in metres, times in seconds, sensor errors in the
/// sensor's units (g, rad/s, µT, kPa). Unknown fields, wrong types, NaN, negative durations and
/// the like are errors naming the file, line, column and field.
public enum SceneFile {
    /// Reads and validates the scene file at `path`.
    public static func load(path: String) throws -> Scene {
        let url = URL(fileURLWithPath: path)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "\(error.localizedDescription)" : "no such file"
            throw SceneError.unreadableFile(path: path, reason: reason)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw SceneError.unreadableFile(path: path, reason: "not UTF-8 text")
        }
        let defaultName = url.deletingPathExtension().lastPathComponent
        return try parse(text, path: path, defaultName: defaultName)
    }

    /// Parses and validates scene JSON; `path` names the source in errors.
    public static func parse(_ text: String, path: String, defaultName: String = "scene") throws -> Scene {
        let root: JSONNode
        do {
            root = try JSONParser.parse(text)
        } catch {
            throw SceneError.syntax(path: path, line: error.line, column: error.column, message: error.message)
        }
        var decoder = SceneDecoder()
        let scene: Scene
        do {
            scene = try decoder.scene(root, defaultName: defaultName)
        } catch let error as SceneError {
            throw error.located(path: path, line: nil, column: nil)
        }
        do {
            try scene.validate()
            // Compiling catches what only the whole script shows (a loop that does not close).
            _ = try MotionScript(scene: scene, seed: 0)
        } catch let error as SceneError {
            if case .invalid(_, _, _, let field, _) = error {
                let position = decoder.position(of: field)
                throw error.located(path: path, line: position?.line, column: position?.column)
            }
            throw error
        }
        return scene
    }
}

/// Decodes a scene from a ``JSONNode`` tree, remembering where every field was.
struct SceneDecoder {
    private var positions: [String: (line: Int, column: Int)] = [:]

    /// Where `field` (or its nearest recorded parent) is in the file.
    func position(of field: String) -> (line: Int, column: Int)? {
        var f = field
        while !f.isEmpty {
            if let p = positions[f] { return p }
            guard let cut = f.lastIndex(where: { $0 == "." || $0 == "[" }) else { break }
            f = String(f[..<cut])
        }
        return nil
    }

    private mutating func note(_ node: JSONNode, _ field: String) { positions[field] = (node.line, node.column) }

    private func error(_ node: JSONNode, _ field: String, _ message: String) -> SceneError {
        .invalid(path: nil, line: node.line, column: node.column, field: field, message: message)
    }

    // MARK: Typed access

    /// The members of an object, checking that every key is known.
    private mutating func object(_ node: JSONNode, _ field: String, allowed: [String], what: String) throws -> [String: JSONNode] {
        guard case .object(let members) = node.value else {
            throw error(node, field, "must be an object (\(what)), found \(node.typeName)")
        }
        var out: [String: JSONNode] = [:]
        for (key, child) in members {
            let childField = field.isEmpty ? key : "\(field).\(key)"
            guard allowed.contains(key) else {
                var message = "unknown field '\(key)'"
                if let hint = NameSuggestion.didYouMean(key, among: allowed) { message += " (\(hint))" }
                message += "; the fields of \(what) are: \(allowed.joined(separator: ", "))"
                throw error(child, childField, message)
            }
            note(child, childField)
            out[key] = child
        }
        return out
    }

    private func number(_ node: JSONNode, _ field: String) throws -> Double {
        guard case .number(let x) = node.value else { throw error(node, field, "must be a number, found \(node.typeName)") }
        guard x.isFinite else { throw error(node, field, "must be a finite number, found \(x) (too large)") }
        return x
    }

    private func integer(_ node: JSONNode, _ field: String) throws -> Int {
        let x = try number(node, field)
        guard x == x.rounded(), abs(x) < 1e9 else { throw error(node, field, "must be a whole number, found \(x)") }
        return Int(x)
    }

    private func string(_ node: JSONNode, _ field: String) throws -> String {
        guard case .string(let s) = node.value else { throw error(node, field, "must be a string, found \(node.typeName)") }
        return s
    }

    private func choice<T: RawRepresentable & CaseIterable>(_ node: JSONNode, _ field: String, _: T.Type) throws -> T
    where T.RawValue == String {
        let s = try string(node, field)
        guard let value = T(rawValue: s) else {
            let options = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw error(node, field, "must be one of \(options), found \"\(s)\"")
        }
        return value
    }

    private mutating func vector(_ node: JSONNode, _ field: String) throws -> Vector3 {
        guard case .array(let items) = node.value else {
            throw error(node, field, "must be an array of three numbers [x, y, z], found \(node.typeName)")
        }
        guard items.count == 3 else { throw error(node, field, "must have three numbers [x, y, z], found \(items.count)") }
        for (i, item) in items.enumerated() { note(item, "\(field)[\(i)]") }
        return Vector3(try number(items[0], field + "[0]"), try number(items[1], field + "[1]"), try number(items[2], field + "[2]"))
    }

    private mutating func matrix(_ node: JSONNode, _ field: String) throws -> Matrix3 {
        guard case .array(let rows) = node.value, rows.count == 3 else {
            throw error(node, field, "must be three rows of three numbers [[…], […], […]]")
        }
        let r = try (0..<3).map { try vector(rows[$0], "\(field)[\($0)]") }
        return Matrix3(rows: r[0], r[1], r[2])
    }

    private func required(_ members: [String: JSONNode], _ key: String, _ parent: JSONNode, _ field: String, _ what: String) throws -> JSONNode {
        guard let node = members[key] else {
            throw error(parent, field.isEmpty ? key : "\(field).\(key)", "missing; \(what)")
        }
        return node
    }

    // MARK: Scene

    mutating func scene(_ root: JSONNode, defaultName: String) throws -> Scene {
        let m = try object(root, "", allowed: ["name", "summary", "base", "ending", "start", "environment", "sensors", "segments"],
                           what: "a scene")
        var scene = Scene(name: defaultName, segments: [])
        if let base = m["base"] {
            let name = try string(base, "base")
            do {
                scene = try SceneCatalog.scene(named: name)
            } catch let e as SceneError {
                throw error(base, "base", e.description)
            }
        }
        if let n = m["name"] { scene.name = try string(n, "name") }
        if let s = m["summary"] { scene.summary = try string(s, "summary") }
        if let e = m["ending"] { scene.ending = try choice(e, "ending", SceneEnding.self) }
        if let s = m["start"] { scene.start = try start(s, scene.start) }
        if let e = m["environment"] { scene.environment = try environment(e, scene.environment) }
        if let s = m["sensors"] { scene.sensors = try sensors(s, scene.sensors) }
        if let s = m["segments"] {
            guard case .array(let items) = s.value else {
                throw error(s, "segments", "must be an array of segment objects, found \(s.typeName)")
            }
            scene.segments = try items.enumerated().map { i, item in
                note(item, "segments[\(i)]")
                return try segment(item, "segments[\(i)]")
            }
        } else if m["base"] == nil {
            throw error(root, "segments", "missing; a scene needs a list of segments (or a \"base\" scene to take them from)")
        }
        return scene
    }

    private mutating func pose(_ node: JSONNode, _ field: String) throws -> Pose {
        let m = try object(node, field, allowed: ["roll", "pitch", "yaw"], what: "a pose (roll, pitch, yaw in degrees)")
        return Pose(
            rollDegrees: try m["roll"].map { try number($0, field + ".roll") } ?? 0,
            pitchDegrees: try m["pitch"].map { try number($0, field + ".pitch") } ?? 0,
            yawDegrees: try m["yaw"].map { try number($0, field + ".yaw") } ?? 0
        )
    }

    private mutating func start(_ node: JSONNode, _ current: SceneStart) throws -> SceneStart {
        let m = try object(node, "start", allowed: ["pose", "carry", "heading", "altitude"], what: "the start")
        var s = current
        if let p = m["pose"] { s.pose = try pose(p, "start.pose") }
        if let c = m["carry"] { s.carry = try choice(c, "start.carry", Carry.self) }
        if let h = m["heading"] { s.headingDegrees = try number(h, "start.heading") }
        if let a = m["altitude"] { s.altitudeMetres = try number(a, "start.altitude") }
        return s
    }

    private mutating func environment(_ node: JSONNode, _ current: Environment) throws -> Environment {
        let m = try object(node, "environment",
                           allowed: ["magneticField", "seaLevelPressure", "temperature", "gravity", "latitude"],
                           what: "the environment")
        var e = current
        if let f = m["magneticField"] {
            let fm = try object(f, "environment.magneticField", allowed: ["intensity", "inclination", "declination"],
                                what: "the magnetic field (µT, degrees)")
            if let x = fm["intensity"] { e.magneticField.intensityMicrotesla = try number(x, "environment.magneticField.intensity") }
            if let x = fm["inclination"] { e.magneticField.inclinationDegrees = try number(x, "environment.magneticField.inclination") }
            if let x = fm["declination"] { e.magneticField.declinationDegrees = try number(x, "environment.magneticField.declination") }
        }
        if let x = m["seaLevelPressure"] { e.atmosphere.seaLevelPressureKilopascals = try number(x, "environment.seaLevelPressure") }
        if let x = m["temperature"] { e.atmosphere.sensorTemperatureCelsius = try number(x, "environment.temperature") }
        if let x = m["gravity"] { e.gravity = try number(x, "environment.gravity") }
        if let x = m["latitude"] {
            if case .null = x.value { e.latitudeDegrees = nil } else { e.latitudeDegrees = try number(x, "environment.latitude") }
        }
        return e
    }

    private mutating func sensors(_ node: JSONNode, _ current: SensorSuite) throws -> SensorSuite {
        let kinds = SensorKind.allCases.map(\.rawValue)
        let m = try object(node, "sensors", allowed: ["errors"] + kinds, what: "the sensors")
        var suite = current
        if let preset = m["errors"] {
            switch try string(preset, "sensors.errors") {
            case "ideal": suite = suite.ideal
            case "phone":
                for kind in SensorKind.allCases { suite[kind]?.errors = SensorSuite.phone[kind]!.errors }
            case let other:
                throw error(preset, "sensors.errors", "must be \"phone\" or \"ideal\", found \"\(other)\"")
            }
        }
        for kind in SensorKind.allCases {
            guard let n = m[kind.rawValue] else { continue }
            let field = "sensors.\(kind.rawValue)"
            if case .bool(let present) = n.value {
                if !present { suite[kind] = nil } else if suite[kind] == nil { suite[kind] = SensorSuite.phone[kind] }
                continue
            }
            suite[kind] = try sensor(n, field, kind, suite[kind] ?? SensorSuite.phone[kind]!)
        }
        return suite
    }

    private mutating func sensor(_ node: JSONNode, _ field: String, _ kind: SensorKind, _ current: SimulatedSensor) throws -> SimulatedSensor {
        var allowed = ["rate", "startOffset", "noiseDensity", "bias", "biasRandomWalk", "resolution", "range"]
        if kind != .barometer { allowed += ["scaleFactorError", "misalignment", "transform"] }
        if kind == .magnetometer { allowed += ["hardIron", "softIron"] }
        let m = try object(node, field, allowed: allowed, what: "the \(kind.rawValue) (units: \(kind.unit))")
        var s = current
        if let x = m["rate"] { s.rate = try number(x, field + ".rate") }
        if let x = m["startOffset"] { s.startOffset = try number(x, field + ".startOffset") }
        if let x = m["noiseDensity"] { s.errors.noiseDensity = try number(x, field + ".noiseDensity") }
        if let x = m["biasRandomWalk"] { s.errors.biasRandomWalk = try number(x, field + ".biasRandomWalk") }
        if let x = m["bias"] {
            s.errors.bias = kind == .barometer ? Vector3(try number(x, field + ".bias"), 0, 0) : try vector(x, field + ".bias")
        }
        if let x = m["hardIron"] {
            if m["bias"] != nil { throw error(x, field + ".hardIron", "give either \"bias\" or \"hardIron\" (the same thing), not both") }
            s.errors.bias = try vector(x, field + ".hardIron")
            note(x, field + ".bias")
        }
        let transformKeys = ["transform", "softIron"].filter { m[$0] != nil }
        if transformKeys.count > 1 || (!transformKeys.isEmpty && (m["scaleFactorError"] != nil || m["misalignment"] != nil)) {
            throw error(node, field, "give either a full \"transform\"/\"softIron\" matrix or \"scaleFactorError\" and \"misalignment\", not both")
        }
        if let key = transformKeys.first, let x = m[key] {
            s.errors.transform = try matrix(x, "\(field).\(key)")
            note(x, field + ".transform")
        }
        if m["scaleFactorError"] != nil || m["misalignment"] != nil {
            let scale = try m["scaleFactorError"].map { try vector($0, field + ".scaleFactorError") } ?? .zero
            let misalignment = try m["misalignment"].map { try vector($0, field + ".misalignment") } ?? .zero
            s.errors.transform = SensorErrorModel.transform(
                scaleFactorError: scale, misalignment: misalignment * (PortableMath.pi / 180)
            )
            if let x = m["scaleFactorError"] ?? m["misalignment"] { note(x, field + ".transform") }
        }
        if let x = m["resolution"] {
            if case .null = x.value { s.errors.resolution = nil } else { s.errors.resolution = try number(x, field + ".resolution") }
        }
        if let x = m["range"] {
            if case .null = x.value { s.errors.range = nil } else { s.errors.range = try number(x, field + ".range") }
        }
        return s
    }

    // MARK: Segments

    private static let segmentFields: [String: [String]] = [
        "hold": ["duration", "pose", "carry", "transition"],
        "rotate": ["axis", "frame", "angle", "rate", "ramp"],
        "orient": ["pose", "duration"],
        "keyframes": ["keys"],
        "walk": ["duration", "steps", "cadence", "speed", "carry", "pose", "turns", "transition"],
        "run": ["duration", "steps", "cadence", "speed", "carry", "pose", "turns", "transition"],
        "stairs": ["direction", "steps", "floors", "floorHeight", "riser", "tread", "cadence", "carry", "pose", "transition"],
        "cycle": ["duration", "cadence", "speed", "carry", "turns", "roughness", "transition"],
        "drive": ["duration", "speed", "turns", "acceleration", "carry", "pose", "roughness"],
        "shake": ["duration", "frequency", "amplitude", "rotation", "transition"],
        "elevator": ["height", "duration"],
    ]

    static var segmentTypes: [String] { segmentFields.keys.sorted() }

    private mutating func segment(_ node: JSONNode, _ field: String) throws -> Segment {
        guard case .object(let members) = node.value else {
            throw error(node, field, "must be an object with a \"type\", found \(node.typeName)")
        }
        guard let typeNode = members.first(where: { $0.key == "type" })?.node else {
            throw error(node, field + ".type", "missing; segment types: \(SceneDecoder.segmentTypes.joined(separator: ", "))")
        }
        let type = try string(typeNode, field + ".type")
        guard let fields = SceneDecoder.segmentFields[type] else {
            var message = "unknown segment type \"\(type)\""
            if let hint = NameSuggestion.didYouMean(type, among: SceneDecoder.segmentTypes, quote: "\"") { message += " (\(hint))" }
            throw error(typeNode, field + ".type", message + "; segment types: \(SceneDecoder.segmentTypes.joined(separator: ", "))")
        }
        let m = try object(node, field, allowed: ["type"] + fields, what: "a \(type) segment")
        func num(_ key: String) throws -> Double? { try m[key].map { try number($0, "\(field).\(key)") } }
        func need(_ key: String, _ what: String) throws -> Double {
            try number(try required(m, key, node, field, what), "\(field).\(key)")
        }
        let carry = try m["carry"].map { try choice($0, field + ".carry", Carry.self) }
        let segmentPose = try m["pose"].map { try pose($0, field + ".pose") }
        let transition = try num("transition")

        switch type {
        case "hold":
            return .hold(Hold(duration: try need("duration", "seconds"), pose: segmentPose, carry: carry, transitionSeconds: transition))
        case "rotate":
            let axisNode = try required(m, "axis", node, field, "\"x\", \"y\", \"z\" (optionally with '-') or [x, y, z]")
            let axis: Vector3
            if case .string(let s) = axisNode.value {
                let named: [String: Vector3] = [
                    "x": .unitX, "y": .unitY, "z": .unitZ, "-x": -Vector3.unitX, "-y": -Vector3.unitY, "-z": -Vector3.unitZ,
                ]
                guard let a = named[s] else {
                    throw error(axisNode, field + ".axis", "must be \"x\", \"y\", \"z\", \"-x\", \"-y\", \"-z\" or [x, y, z], found \"\(s)\"")
                }
                axis = a
            } else {
                axis = try vector(axisNode, field + ".axis")
            }
            let frame = try m["frame"].map { try choice($0, field + ".frame", RotationFrame.self) } ?? .device
            return .rotate(Rotation(
                axis: axis, frame: frame, angleDegrees: try need("angle", "degrees"),
                peakRateDegreesPerSecond: try num("rate") ?? 30, rampSeconds: try num("ramp") ?? 1
            ))
        case "orient":
            guard let p = segmentPose else { throw error(node, field + ".pose", "missing; the pose to turn to") }
            return .orient(Orientation(to: p, duration: try need("duration", "seconds")))
        case "keyframes":
            let keysNode = try required(m, "keys", node, field, "an array of {time, pose, displacement}")
            guard case .array(let items) = keysNode.value else {
                throw error(keysNode, field + ".keys", "must be an array of keys, found \(keysNode.typeName)")
            }
            let keys = try items.enumerated().map { j, item -> Keyframe in
                let kf = "\(field).keys[\(j)]"
                note(item, kf)
                let km = try object(item, kf, allowed: ["time", "pose", "displacement"], what: "a keyframe")
                let p = try required(km, "pose", item, kf, "the pose at that time")
                return Keyframe(
                    timeSeconds: try number(try required(km, "time", item, kf, "seconds from the segment's start"), kf + ".time"),
                    pose: try pose(p, kf + ".pose"),
                    displacement: try km["displacement"].map { try vector($0, kf + ".displacement") } ?? .zero
                )
            }
            return .keyframes(Keyframes(keys))
        case "walk", "run":
            let defaults = type == "walk" ? Gait.walk(duration: 1) : Gait.run(duration: 1)
            let cadence = try num("cadence") ?? defaults.cadence
            let duration = try gaitDuration(m, node, field, cadence: cadence)
            let g = Gait(
                duration: duration, cadence: cadence, speed: try num("speed") ?? defaults.speed,
                carry: carry ?? defaults.carry, pose: segmentPose, turns: try turns(m["turns"], field + ".turns"),
                transitionSeconds: transition
            )
            return type == "walk" ? .walk(g) : .run(g)
        case "stairs":
            let direction = try choice(try required(m, "direction", node, field, "\"up\" or \"down\""), field + ".direction", Stairs.Direction.self)
            let riser = try num("riser") ?? 0.17
            var steps: Int
            if let s = m["steps"] {
                if m["floors"] != nil { throw error(s, field + ".steps", "give either \"steps\" or \"floors\", not both") }
                steps = try integer(s, field + ".steps")
            } else if let f = m["floors"] {
                let floors = try number(f, field + ".floors")
                let height = try num("floorHeight") ?? 3
                guard floors > 0, height > 0, riser > 0 else {
                    throw error(f, field + ".floors", "floors, floorHeight and riser must be positive")
                }
                steps = Int((floors * height / riser).rounded())
                note(f, field + ".steps")
            } else {
                throw error(node, field + ".steps", "missing; give \"steps\" or \"floors\"")
            }
            return .stairs(Stairs(
                direction, steps: steps, riserMetres: riser, treadMetres: try num("tread") ?? 0.28,
                cadence: try num("cadence"), carry: carry ?? .hand, pose: segmentPose, transitionSeconds: transition
            ))
        case "cycle":
            return .cycle(Cycling(
                duration: try need("duration", "seconds"), cadenceRPM: try num("cadence") ?? 80, speed: try num("speed") ?? 5.5,
                carry: carry ?? .pocket, turns: try turns(m["turns"], field + ".turns"), roughness: try num("roughness") ?? 1,
                transitionSeconds: transition
            ))
        case "drive":
            return .drive(Drive(
                duration: try need("duration", "seconds"), speed: try need("speed", "m/s to reach (0 = stop)"),
                turns: try turns(m["turns"], field + ".turns"), acceleration: try num("acceleration") ?? 2,
                carry: carry ?? .mount, pose: segmentPose, roughness: try num("roughness") ?? 1
            ))
        case "shake":
            return .shake(Shake(
                duration: try need("duration", "seconds"), frequency: try num("frequency") ?? 4,
                amplitudeMetres: try num("amplitude") ?? 0.03, rotationDegrees: try num("rotation") ?? 15,
                transitionSeconds: transition
            ))
        default:  // elevator
            return .elevator(Elevator(heightMetres: try need("height", "metres (negative = down)"), duration: try need("duration", "seconds")))
        }
    }

    private mutating func gaitDuration(_ m: [String: JSONNode], _ node: JSONNode, _ field: String, cadence: Double) throws -> Double {
        if let d = m["duration"] {
            if m["steps"] != nil { throw error(d, field + ".duration", "give either \"duration\" or \"steps\", not both") }
            return try number(d, field + ".duration")
        }
        if let s = m["steps"] {
            let steps = try integer(s, field + ".steps")
            guard steps >= 1 else { throw error(s, field + ".steps", "must be at least 1, found \(steps)") }
            note(s, field + ".duration")
            return Double(steps) / cadence
        }
        throw error(node, field + ".duration", "missing; give \"duration\" (seconds) or \"steps\"")
    }

    private mutating func turns(_ node: JSONNode?, _ field: String) throws -> [Turn] {
        guard let node else { return [] }
        guard case .array(let items) = node.value else {
            throw error(node, field, "must be an array of turns {at, angle, duration}, found \(node.typeName)")
        }
        return try items.enumerated().map { j, item in
            let f = "\(field)[\(j)]"
            note(item, f)
            let m = try object(item, f, allowed: ["at", "angle", "duration"], what: "a turn (seconds, degrees left, seconds)")
            return Turn(
                atSeconds: try number(try required(m, "at", item, f, "seconds from the segment's start"), f + ".at"),
                angleDegrees: try number(try required(m, "angle", item, f, "degrees, positive to the left"), f + ".angle"),
                durationSeconds: try number(try required(m, "duration", item, f, "seconds"), f + ".duration")
            )
        }
    }
}
