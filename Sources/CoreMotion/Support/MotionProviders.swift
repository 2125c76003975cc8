import Foundation
import MotionClient
import MotionDaemonClient
#if InProcessDevices
import MotionDevices
import MotionService
#endif

/// Which implementation of the client interface the API uses: the only place in this module that knows
/// there are two.
///
/// `COREMOTION_DEVICE` decides, once per process:
/// - `service` or `service:PATH`: the system service `coremotiond` (at `COREMOTION_SOCKET`, else the user
///   instance's socket, else the system instance's; or at PATH). If it does not answer, the process stops at
///   first use with a message saying how to start it: never a silent fallback.
/// - unset or `auto`: the system service when its socket answers; otherwise this machine's IIO sensors in
///   process; otherwise no device.
/// - anything else (`replay:`, `sim:`, `iio`, `none`, phones): in process.
///
/// In-process devices exist only with the package trait `InProcessDevices` (on by default). An app built
/// without it (`traits: []`) links only the connection to `coremotiond`: `auto` then needs the daemon, and
/// an in-process value stops the process at first use with a message naming the trait.
///
/// A test's virtual-clock harness overrides the choice (``MotionProviderOverride``).
enum MotionProviders {
    static var current: any MotionProvider { MotionProviderOverride.current ?? shared }

    /// The process's provider, made on first use.
    static let shared: any MotionProvider = {
        do {
            return try makeFromEnvironment()
        } catch {
            FileHandle.standardError.write(Data("coremotion: \(error)\n".utf8))
            exit(EXIT_FAILURE)
        }
    }()

    /// The app's name as the daemon sees it by default (the executable's name).
    static var appName: String {
        URL(fileURLWithPath: CommandLine.arguments.first ?? "app").lastPathComponent
    }

    static func makeFromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> any MotionProvider {
        switch try ProviderChoice(environment) {
        case .service(let path):
            let socket = path ?? DaemonSocket.firstExisting(environment) ?? DaemonSocket.systemPath
            return try DaemonConnection.connect(socketPath: socket, environment: environment)
        case .auto:
            if let socket = DaemonSocket.firstExisting(environment),
               let connection = try? DaemonConnection.connect(socketPath: socket, environment: environment, quiet: true) {
                return connection
            }
            return try inProcess(environment, value: "auto")
        case .inProcess(let value):
            return try inProcess(environment, value: value)
        }
    }

    /// The in-process service over the devices the environment names.
    private static func inProcess(_ environment: [String: String], value: String) throws -> any MotionProvider {
        #if InProcessDevices
        let selection = try DeviceSelection.fromEnvironment(environment)
        let service = MotionService(
            device: selection.device, keepsCalibration: selection.isMachineHardware, headphones: selection.headphones)
        service.takeLocation(fromEnvironment: environment)
        return service
        #else
        throw ProviderChoiceError(
            value: value,
            reason: value == "auto"
                ? "no coremotiond answers (start it: `systemctl --user start coremotiond.socket`, or set COREMOTION_SOCKET), and this app was built to talk only to coremotiond (swift-core-motion without the InProcessDevices trait)"
                : "this app was built to talk only to coremotiond (swift-core-motion without the InProcessDevices trait); use `service`, or build with the trait to open devices in process")
        #endif
    }
}

/// What `COREMOTION_DEVICE` asks of the API: the daemon, the daemon if it answers, or a device in process.
/// Only the daemon's forms are read here; an in-process value is parsed (with its errors) by `MotionDevices`.
enum ProviderChoice: Equatable {
    case service(path: String?)
    case auto
    case inProcess(String)

    init(_ environment: [String: String]) throws {
        let raw = environment["COREMOTION_DEVICE"] ?? ""
        let value = raw.trimmingCharacters(in: .whitespaces)
        if value.isEmpty || value == "auto" {
            self = .auto
        } else if value == "service" {
            self = .service(path: nil)
        } else if value.hasPrefix("service:") {
            // Options would follow the last '?', as in every other form; this one takes none.
            var path = Substring(value.dropFirst("service:".count))
            if let question = path.lastIndex(of: "?") {
                guard path[path.index(after: question)...].isEmpty else {
                    throw ProviderChoiceError(value: raw, reason: "service: takes no options")
                }
                path = path[..<question]
            }
            self = .service(path: path.isEmpty ? nil : String(path))
        } else {
            self = .inProcess(raw)
        }
    }
}

/// A `COREMOTION_DEVICE` value this build of the API cannot serve.
struct ProviderChoiceError: Error, CustomStringConvertible {
    var value: String
    var reason: String
    var description: String { "COREMOTION_DEVICE=\"\(value)\": \(reason)" }
}
