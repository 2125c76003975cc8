import Foundation
import MotionNetwork
import MotionSimulator

/// Which device a process uses, as chosen by the `COREMOTION_DEVICE` environment variable
/// (see `docs/devices.md`).
///
/// | value | device |
/// |---|---|
/// | unset, empty or `auto` | the Linux IIO motion sensors of this machine if there are any, otherwise none |
/// | `none` | no sensors: every availability check is false, nothing is delivered |
/// | `replay:PATH` | a recording (file, folder or `.zip`), played in real time from process start; `?speed=4` plays four times faster, `&loop=true` starts over at the end |
/// | `sim:SCENE` | the simulator with a named scene or a scene file; `?seed=N`, `&speed=N` |
/// | `iio` / `iio:ROOT` | Linux IIO sensors, optionally under another sysfs root |
/// | `service` / `service:PATH` | the system service `coremotiond` (at `COREMOTION_SOCKET` or its default socket, or at PATH) |
/// | `sensorlogger:HOST:PORT` | a live phone pushing with Sensor Logger's HTTP push (`?token-file=PATH` or `?token=` or `COREMOTION_SENSORLOGGER_TOKEN`, `&platform=`, `&device=`, `&wait=`, `&settle=`, `&silence=`; docs/network.md) |
/// | `phyphox:http://HOST:PORT` | a phone running phyphox with remote access, polled (`docs/network.md#phyphox`) |
/// | `sensorserver:ws://HOST:PORT` | a phone running SensorServer, over a WebSocket (`docs/network.md#sensorserver`) |
public enum DeviceSpecification: Sendable, Hashable, CustomStringConvertible {
    case auto
    case none
    case replay(path: String, speed: Double, loop: Bool)
    case simulator(scene: String, seed: UInt64, speed: Double)
    case iio(root: String?)
    /// The system service `coremotiond`, at its default socket (`nil`) or at a path. Not a device of this
    /// process: the API connects to the daemon, which owns the device.
    case service(path: String?)
    /// A live phone: a Sensor Logger HTTP push receiver on this machine (docs/network.md).
    case sensorLogger(SensorLoggerConfiguration)
    /// A phone running phyphox with remote access on, polled over HTTP.
    case phyphox(PhyphoxSettings)
    /// A phone running SensorServer, over a WebSocket.
    case sensorServer(SensorServerSettings)

    /// The environment variable that selects the device.
    public static let environmentVariable = "COREMOTION_DEVICE"

    /// The accepted forms, for error messages and `--help`.
    public static let acceptedForms = """
        accepted forms of COREMOTION_DEVICE:
          (unset) or auto                          this machine's IIO motion sensors if any, otherwise none
          none                                     no sensors
          replay:PATH[?speed=N][&loop=true]        play a recording (file, folder or .zip) from process start
          sim:SCENE[?seed=N][&speed=N]             the simulator with a named scene or a scene file (.json)
          iio  or  iio:ROOT                        Linux IIO sensors (ROOT: another sysfs root, for tests)
          service  or  service:PATH                the system service coremotiond (default socket, or PATH)
          sensorlogger:HOST:PORT[?token-file=PATH|token=T][&platform=ios|android|ios-standardised][&device=ID][&wait=S]
                                                   a phone pushing with Sensor Logger's HTTP push (docs/network.md)
          phyphox:http://HOST:PORT[?wait=S][&silence=S][&delay=S][&interval=S][&platform=android|ios][&start=false]
                                                   a phone running phyphox (remote access on), polled
          sensorserver:ws://HOST:PORT[?wait=S][&silence=S][&delay=S]
                                                   a phone running SensorServer, over a WebSocket
        """

    /// Reads the specification from the environment.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> DeviceSpecification {
        try parse(environment[environmentVariable] ?? "")
    }

    /// Parses a `COREMOTION_DEVICE` value.
    ///
    /// A named scene (`sim:SCENE` without `/` or `.json`) is checked against `SceneCatalog` here; a
    /// recording or a scene file is read when the device is made (``DeviceFactory``).
    ///
    /// - Throws: ``DeviceSpecificationError``; a misspelt kind, option key or scene names the closest
    ///   ones (`NameSuggestion`): `sim:walking` → "unknown scene 'walking'; did you mean 'walking-in-hand'?
    ///   scenes: …".
    public static func parse(_ rawValue: String) throws -> DeviceSpecification {
        try parse(rawValue, grammar: .device)
    }

    /// What a specification variable accepts: its name (for messages), its forms, scenes and kinds. The phone's
    /// `COREMOTION_DEVICE` and the headphones' `COREMOTION_HEADPHONE_DEVICE` share one parser.
    struct Grammar: Sendable {
        /// The environment variable (or option) being parsed, for messages.
        var variable: String
        /// The accepted forms, for messages.
        var acceptedForms: String
        /// The named scenes `sim:` accepts.
        var sceneNames: [String]
        /// An example scene for messages.
        var exampleScene: String
        /// The kinds of `KIND:VALUE`, for suggestions (some may be handled by the caller before parsing).
        var kinds: [String]
        /// The values that stand alone.
        var words: [String]

        static let device = Grammar(
            variable: DeviceSpecification.environmentVariable, acceptedForms: DeviceSpecification.acceptedForms, sceneNames: SceneCatalog.names,
            exampleScene: "walking-in-hand", kinds: ["replay", "sim", "iio", "service", "sensorlogger", "phyphox", "sensorserver"], words: ["auto", "none", "iio", "service"])

        func error(_ value: String, _ reason: String) -> DeviceSpecificationError {
            DeviceSpecificationError(value: value, reason: reason, variable: variable, acceptedForms: acceptedForms)
        }
    }

    /// Parses `rawValue` with `grammar`'s variable name, scenes and kinds.
    static func parse(_ rawValue: String, grammar: Grammar) throws -> DeviceSpecification {
        let value = rawValue.trimmingCharacters(in: .whitespaces)
        func fail(_ why: String) -> DeviceSpecificationError {
            grammar.error(rawValue, why)
        }
        if value.isEmpty || value == "auto" { return .auto }
        if value == "none" { return .none }
        if value == "iio" { return .iio(root: nil) }
        if value == "service" { return .service(path: nil) }
        guard let colon = value.firstIndex(of: ":") else {
            throw fail(unknownDevice(value, grammar: grammar))
        }
        let kind = String(value[..<colon])
        let rest = String(value[value.index(after: colon)...])
        // Options follow the last '?', so paths may contain ':' but not '?'.
        let (target, query) = splitQuery(rest)
        let options = try parseOptions(query, fail: fail)
        switch kind {
        case "replay":
            guard !target.isEmpty else { throw fail("replay: needs a path, e.g. replay:/data/walk.zip") }
            try checkKeys(options, allowed: ["loop", "speed"], kind: kind, fail: fail)
            let speed = try positiveDouble(options["speed"] ?? "1", key: "speed", fail: fail)
            let loop = try bool(options["loop"] ?? "false", key: "loop", fail: fail)
            return .replay(path: target, speed: speed, loop: loop)
        case "sim":
            guard !target.isEmpty else { throw fail("sim: needs a scene name or a scene file, e.g. sim:\(grammar.exampleScene)") }
            try checkKeys(options, allowed: ["seed", "speed"], kind: kind, fail: fail)
            let speed = try positiveDouble(options["speed"] ?? "1", key: "speed", fail: fail)
            guard let seed = UInt64(options["seed"] ?? "1") else {
                throw fail("seed must be a non-negative integer, found '\(options["seed"] ?? "")'")
            }
            // A named scene is checked here, so that a misspelt one stops the process with the list of
            // scenes before anything starts; a scene file is read when the device is made.
            if !isSceneFile(target), !grammar.sceneNames.contains(target) {
                throw fail(SceneError.unknownScene(name: target, available: grammar.sceneNames).description)
            }
            return .simulator(scene: target, seed: seed, speed: speed)
        case "iio":
            guard options.isEmpty else { throw fail("iio: takes no options") }
            return .iio(root: target.isEmpty ? nil : target)
        case "service":
            guard options.isEmpty else { throw fail("service: takes no options") }
            return .service(path: target.isEmpty ? nil : target)
        case "sensorlogger":
            guard !target.isEmpty else { throw fail("sensorlogger: needs HOST:PORT, e.g. sensorlogger:127.0.0.1:8000") }
            try checkKeys(options, allowed: SensorLoggerConfiguration.optionKeys, kind: kind, fail: fail)
            do {
                return .sensorLogger(try SensorLoggerConfiguration.parse(target: target, options: options))
            } catch {
                throw fail(error.reason)
            }
        case "phyphox":
            guard !target.isEmpty else { throw fail("phyphox: needs the phone's address, e.g. phyphox:http://192.168.1.5:8080") }
            try checkKeys(options, allowed: PhyphoxSettings.optionNames, kind: kind, fail: fail)
            do {
                return .phyphox(try PhyphoxSettings(url: target, options: options))
            } catch {
                throw fail(error.description)
            }
        case "sensorserver":
            guard !target.isEmpty else { throw fail("sensorserver: needs the phone's address, e.g. sensorserver:ws://192.168.1.5:8080") }
            try checkKeys(options, allowed: SensorServerSettings.optionNames, kind: kind, fail: fail)
            do {
                return .sensorServer(try SensorServerSettings(url: target, options: options))
            } catch {
                throw fail(error.description)
            }
        default:
            throw fail(NameSuggestion.unknown(
                "device kind", kind + ":", among: grammar.kinds.map { $0 + ":" }, listing: "device kinds"))
        }
    }

    /// Whether `sim:TARGET` names a scene file rather than a named scene (as `SceneCatalog.resolve(_:)` decides).
    private static func isSceneFile(_ target: String) -> Bool {
        target.contains("/") || target.hasSuffix(".json")
    }

    /// The reason for a value without a `KIND:`: a kind missing its value, a path missing `replay:`, or a
    /// misspelt word.
    private static func unknownDevice(_ value: String, grammar: Grammar) -> String {
        switch value.lowercased() {
        case "replay": return "replay needs a recording: replay:PATH, e.g. replay:/data/walk.zip"
        case "sim":
            return "sim needs a scene: sim:SCENE, e.g. sim:\(grammar.exampleScene) (scenes: \(grammar.sceneNames.joined(separator: ", ")))"
        case "sensorlogger": return "sensorlogger needs an address to listen on: sensorlogger:HOST:PORT, e.g. sensorlogger:127.0.0.1:8000"
        case "phyphox": return "phyphox needs the phone's address: phyphox:http://HOST:PORT, e.g. phyphox:http://192.168.1.5:8080"
        case "sensorserver": return "sensorserver needs the phone's address: sensorserver:ws://HOST:PORT, e.g. sensorserver:ws://192.168.1.5:8080"
        default: break
        }
        if value.contains("/") {
            let guesses = ["replay:" + value] + (value.hasSuffix(".json") ? ["sim:" + value] : [])
            return "unknown device '\(value)'; did you mean \(guesses.map { "'\($0)'" }.joined(separator: " or "))? "
                + "(a recording is replay:PATH, a scene file sim:PATH)"
        }
        return NameSuggestion.unknown("device", value, among: grammar.words + grammar.kinds.filter { $0 != "iio" && $0 != "service" }.map { $0 + ":" }, listing: "devices")
    }

    public var description: String {
        switch self {
        case .auto: "auto"
        case .none: "none"
        case .replay(let path, let speed, let loop):
            "replay:\(path)" + (speed != 1 || loop ? "?speed=\(speed)&loop=\(loop)" : "")
        case .simulator(let scene, let seed, let speed):
            "sim:\(scene)?seed=\(seed)" + (speed != 1 ? "&speed=\(speed)" : "")
        case .iio(let root): root.map { "iio:\($0)" } ?? "iio"
        case .service(let path): path.map { "service:\($0)" } ?? "service"
        case .sensorLogger(let configuration): configuration.description
        case .phyphox(let settings): "phyphox:\(settings.url)"
        case .sensorServer(let settings): "sensorserver:\(settings.url)"
        }
    }

    private static func splitQuery(_ s: String) -> (String, String?) {
        guard let q = s.lastIndex(of: "?") else { return (s, nil) }
        return (String(s[..<q]), String(s[s.index(after: q)...]))
    }

    private static func parseOptions(
        _ query: String?, fail: (String) -> DeviceSpecificationError
    ) throws -> [String: String] {
        guard let query, !query.isEmpty else { return [:] }
        var options: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { throw fail("option '\(pair)' is not key=value") }
            guard options[parts[0]] == nil else { throw fail("option '\(parts[0])' given twice") }
            options[parts[0]] = parts[1]
        }
        return options
    }

    private static func checkKeys(
        _ options: [String: String], allowed: [String], kind: String, fail: (String) -> DeviceSpecificationError
    ) throws {
        for key in options.keys.sorted() where !allowed.contains(key) {
            throw fail(NameSuggestion.unknown("option", key, among: allowed, listing: "options of \(kind)"))
        }
    }

    private static func positiveDouble(
        _ text: String, key: String, fail: (String) -> DeviceSpecificationError
    ) throws -> Double {
        guard let v = Double(text), v.isFinite, v > 0 else { throw fail("\(key) must be a positive number, found '\(text)'") }
        return v
    }

    private static func bool(_ text: String, key: String, fail: (String) -> DeviceSpecificationError) throws -> Bool {
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default:
            let hint = NameSuggestion.didYouMean(text, among: ["true", "false"]).map { "; \($0)" } ?? ""
            throw fail("\(key) must be true or false, found '\(text)'\(hint)")
        }
    }
}

/// A malformed `COREMOTION_DEVICE` value, or a device that cannot be opened.
public struct DeviceSpecificationError: Error, Sendable, CustomStringConvertible {
    /// The value that was given.
    public var value: String
    /// What is wrong with it.
    public var reason: String
    /// The variable (or option) it was given in.
    public var variable: String
    /// The forms that variable accepts.
    public var acceptedForms: String

    public init(
        value: String, reason: String, variable: String = DeviceSpecification.environmentVariable,
        acceptedForms: String = DeviceSpecification.acceptedForms
    ) {
        self.value = value
        self.reason = reason
        self.variable = variable
        self.acceptedForms = acceptedForms
    }

    public var description: String {
        "\(variable)=\"\(value)\": \(reason)\n\(acceptedForms)"
    }
}
