import Foundation

/// Where `coremotiond` listens.
///
/// - system instance: `/run/coremotion/coremotiond.sock` (group `coremotion`, mode 0660);
/// - user instance: `$XDG_RUNTIME_DIR/coremotion/coremotiond.sock`;
/// - `COREMOTION_SOCKET=PATH` overrides both, for clients and for `coremotion` commands.
public enum DaemonSocket {
    /// The system instance's socket.
    public static let systemPath = "/run/coremotion/coremotiond.sock"
    /// The environment variable that names the socket.
    public static let environmentVariable = "COREMOTION_SOCKET"

    /// The user instance's socket, when `XDG_RUNTIME_DIR` is set.
    public static func userPath(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return nil }
        return (runtime as NSString).appendingPathComponent("coremotion/coremotiond.sock")
    }

    /// The sockets to try, in order: `COREMOTION_SOCKET`, the user instance's, the system instance's.
    public static func candidates(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        if let explicit = environment[environmentVariable], !explicit.isEmpty { return [explicit] }
        return [userPath(environment), systemPath].compactMap { $0 }
    }

    /// The first candidate that exists as a socket file, if any.
    public static func firstExisting(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        candidates(environment).first { path in
            var info = stat()
            return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
        }
    }
}
