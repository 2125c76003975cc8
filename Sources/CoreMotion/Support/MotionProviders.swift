import Foundation
import MotionClient
import MotionDaemonClient
import MotionService

/// Marks the in-process provider, whose `.notDetermined` (set through `COREMOTION_AUTHORIZATION`) does not
/// withhold history.
protocol LocalProviderMarker {}
extension LocalMotionProvider: LocalProviderMarker {}

/// Which implementation of the client interface the API uses: the only place in this module that knows
/// there are two.
///
/// `COREMOTION_DEVICE` decides, once per process:
/// - `service` or `service:PATH`: the system service `coremotiond` (at `COREMOTION_SOCKET`, else the user
///   instance's socket, else the system instance's; or at PATH). If it does not answer, the process stops at
///   first use with a message saying how to start it: never a silent fallback.
/// - unset or `auto`: the system service when its socket answers; otherwise this machine's IIO sensors in
///   process; otherwise no device.
/// - anything else (`replay:`, `sim:`, `iio`, `none`): in process.
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
        let specification = try DeviceSpecification.fromEnvironment(environment)
        switch specification {
        case .service(let path):
            let socket = path ?? DaemonSocket.firstExisting(environment) ?? DaemonSocket.systemPath
            return try DaemonConnection.connect(socketPath: socket, environment: environment)
        case .auto:
            if let socket = DaemonSocket.firstExisting(environment),
               let connection = try? DaemonConnection.connect(socketPath: socket, environment: environment, quiet: true) {
                return connection
            }
            return LocalMotionProvider(service: try MotionService.fromEnvironment(environment))
        default:
            return LocalMotionProvider(service: try MotionService.fromEnvironment(environment))
        }
    }
}
