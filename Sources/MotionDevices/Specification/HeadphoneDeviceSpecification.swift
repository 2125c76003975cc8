import Foundation
import MotionSimulator

/// Which headphones a process has, as chosen by `COREMOTION_HEADPHONE_DEVICE` (see `docs/headphones.md`):
/// the same forms as `COREMOTION_DEVICE`, parsed by the same parser (with its "did you mean"), naming a
/// headphone source instead of a phone.
///
/// | value | headphones |
/// |---|---|
/// | unset, empty, `none` or `auto` | none: `CMHeadphoneMotionManager.isDeviceMotionAvailable` is false (through `coremotiond`, the daemon's headphones: `coremotiond --headphone-device`) |
/// | `replay:PATH` | a headphone recording (a Sensor Logger export with `Headphone.csv`, or a JSON-lines capture), played from process start; `?speed=N`, `&loop=true` |
/// | `sim:SCENE` | a simulated head (`head-nod`, `head-shake`, `look-around`, `walk-head-turns`, `bud-out-and-in`) or a scene file; `?seed=N`, `&speed=N` |
/// | `iio` / `iio:ROOT` | a head-worn IMU on Linux IIO, fused here (6D) |
/// | `sensorlogger:HOST:PORT` | Sensor Logger's live push (`headphone` readings), through the same receiver as `COREMOTION_DEVICE=sensorlogger:HOST:PORT` |
public enum HeadphoneDeviceSpecification: Sendable, Hashable, CustomStringConvertible {
    /// No headphones.
    case none
    /// A headphone recording played from process start.
    case replay(path: String, speed: Double, loop: Bool)
    /// A simulated head scene.
    case simulator(scene: String, seed: UInt64, speed: Double)
    /// A head-worn IMU on Linux IIO, optionally under another sysfs root, fused in this process.
    case iio(root: String?)
    /// Sensor Logger's HTTP push received on HOST:PORT (the `headphone` readings).
    case sensorLogger(host: String, port: Int)

    /// The environment variable that selects the headphones.
    public static let environmentVariable = "COREMOTION_HEADPHONE_DEVICE"

    /// The accepted forms, for error messages and `--help`.
    public static let acceptedForms = """
        accepted forms of COREMOTION_HEADPHONE_DEVICE:
          (unset), none or auto                    no headphones (through coremotiond: the daemon's, coremotiond --headphone-device)
          replay:PATH[?speed=N][&loop=true]        a headphone recording: Sensor Logger export with Headphone.csv, or JSON lines
          sim:SCENE[?seed=N][&speed=N]             a simulated head: \(HeadphoneSceneCatalog.names.joined(separator: ", ")), or a scene file
          iio  or  iio:ROOT                        a head-worn IMU on Linux IIO, fused here (6D)
          sensorlogger:HOST:PORT                   Sensor Logger's live push (headphone readings), the phone's receiver
        """

    static let grammar = DeviceSpecification.Grammar(
        variable: environmentVariable, acceptedForms: acceptedForms, sceneNames: HeadphoneSceneCatalog.names,
        exampleScene: "head-shake", kinds: ["replay", "sim", "iio", "sensorlogger"], words: ["none", "auto", "iio"])

    /// Reads the specification from the environment.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> HeadphoneDeviceSpecification {
        try parse(environment[environmentVariable] ?? "")
    }

    /// Parses a `COREMOTION_HEADPHONE_DEVICE` value.
    ///
    /// - Throws: ``DeviceSpecificationError`` naming this variable; a misspelt kind, option or scene names the
    ///   closest ones (`sim:head-shak` → "unknown scene 'head-shak'; did you mean 'head-shake'?").
    public static func parse(_ rawValue: String) throws -> HeadphoneDeviceSpecification {
        let value = rawValue.trimmingCharacters(in: .whitespaces)
        if value.hasPrefix("sensorlogger:") {
            return try parseSensorLogger(rawValue, String(value.dropFirst("sensorlogger:".count)))
        }
        switch try DeviceSpecification.parse(rawValue, grammar: grammar) {
        case .auto, .none: return .none
        case .replay(let path, let speed, let loop): return .replay(path: path, speed: speed, loop: loop)
        case .simulator(let scene, let seed, let speed): return .simulator(scene: scene, seed: seed, speed: speed)
        case .iio(let root): return .iio(root: root)
        case .service:
            throw grammar.error(
                rawValue,
                "headphones are not a service of their own: a process that uses coremotiond (COREMOTION_DEVICE=service or auto) "
                    + "gets the daemon's headphones (coremotiond --headphone-device SPEC)")
        case .sensorLogger:
            // Handled above (headphone readings take no phone options); kept for exhaustiveness.
            return try parseSensorLogger(rawValue, String(value.dropFirst("sensorlogger:".count)))
        case .phyphox, .sensorServer:
            throw grammar.error(
                rawValue,
                "phyphox and SensorServer send no headphone motion; Sensor Logger does (sensorlogger:HOST:PORT), or replay an export with Headphone.csv")
        }
    }

    private static func parseSensorLogger(_ rawValue: String, _ address: String) throws -> HeadphoneDeviceSpecification {
        let usage = "sensorlogger: needs HOST:PORT, the address the receiver listens on, e.g. sensorlogger:0.0.0.0:8000"
        guard !address.contains("?") else { throw grammar.error(rawValue, "sensorlogger: takes no options") }
        guard let colon = address.lastIndex(of: ":") else { throw grammar.error(rawValue, usage) }
        var host = String(address[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let portText = String(address[address.index(after: colon)...])
        guard !host.isEmpty else { throw grammar.error(rawValue, usage) }
        guard let port = Int(portText), (1...65_535).contains(port) else {
            throw grammar.error(rawValue, "the port must be a number from 1 to 65535, found '\(portText)'")
        }
        return .sensorLogger(host: host, port: port)
    }

    public var description: String {
        switch self {
        case .none: "none"
        case .replay(let path, let speed, let loop):
            "replay:\(path)" + (speed != 1 || loop ? "?speed=\(speed)&loop=\(loop)" : "")
        case .simulator(let scene, let seed, let speed):
            "sim:\(scene)?seed=\(seed)" + (speed != 1 ? "&speed=\(speed)" : "")
        case .iio(let root): root.map { "iio:\($0)" } ?? "iio"
        case .sensorLogger(let host, let port): "sensorlogger:\(host.contains(":") ? "[\(host)]" : host):\(port)"
        }
    }
}
