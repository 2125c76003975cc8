import Foundation
import MotionDevices
import MotionHistory
import MotionService

/// How a `coremotiond` runs.
public struct DaemonConfiguration: Sendable {
    /// Which instance: it chooses the default paths.
    public enum Instance: String, Sendable, Codable {
        /// One per machine, as root: `/run/coremotion/coremotiond.sock`, history under `/var/lib/coremotion/`.
        case system
        /// One per user: `$XDG_RUNTIME_DIR/coremotion/coremotiond.sock`, history under the XDG data folder.
        case user
    }

    public var instance: Instance
    /// The device the daemon owns (the same forms as `COREMOTION_DEVICE`, except `service`).
    public var device: DeviceSpecification
    /// The headphones the daemon owns (the forms of `COREMOTION_HEADPHONE_DEVICE`; `.none` by default).
    public var headphoneDevice: HeadphoneDeviceSpecification = .none
    /// Where clients connect.
    public var socketPath: String
    /// The history: a SQLite file, or a `postgres://USER@HOST:PORT/DB` URL (a database many machines share).
    public var historyPath: String

    /// Where the history lives: a PostgreSQL database when ``historyPath`` is a `postgres://` or
    /// `postgresql://` URL, otherwise that SQLite file.
    ///
    /// - Throws: ``MotionHistory/HistoryError/invalidServerURL(_:reason:)`` for an unusable URL.
    public func historyLocation() throws -> HistoryLocation {
        try HistoryLocation.postgres(historyPath) ?? .file(URL(fileURLWithPath: historyPath))
    }

    /// The history's location for messages and `service status` (a URL without its password).
    public var historyDescription: String {
        (try? historyLocation().description) ?? "(an invalid history URL)"
    }
    /// Where per-user, per-app decisions are kept (`nil`: in memory).
    public var permissionsPath: String?
    /// The administrator's policy file.
    public var policyPath: String
    /// Group that owns the socket (system instance: `coremotion`); `nil` leaves the file's group alone.
    public var socketGroup: String?
    /// Permission bits of the socket file.
    public var socketMode: mode_t
    /// Values that may wait per client (see ``ClientOutbox``).
    public var clientBufferCapacity: Int
    /// Most clients at once.
    public var maximumClients: Int
    /// Most clients of one user other than root at once (docs/security.md).
    public var maximumClientsPerUser: Int = 32
    /// Slots users other than root can never take, so that the administrator can always connect.
    public var slotsReservedForRoot: Int = 16
    /// How long a client may leave its socket full while its values are dropped before it is disconnected,
    /// seconds (``ClientOutbox/stallLimit`` by default; tests shorten it).
    public var clientStallLimit: TimeInterval = 30
    /// Most streams per client.
    public var maximumStreamsPerClient: Int
    /// How long a new connection may take to say hello, seconds.
    public var helloTimeout: TimeInterval

    public init(
        instance: Instance, device: DeviceSpecification, socketPath: String, historyPath: String, permissionsPath: String?,
        policyPath: String = "/etc/coremotion/policy.json", socketGroup: String? = nil, socketMode: mode_t = 0o660,
        clientBufferCapacity: Int = 8192, maximumClients: Int = 256, maximumStreamsPerClient: Int = 256,
        helloTimeout: TimeInterval = 10
    ) {
        self.instance = instance
        self.device = device
        self.socketPath = socketPath
        self.historyPath = historyPath
        self.permissionsPath = permissionsPath
        self.policyPath = policyPath
        self.socketGroup = socketGroup
        self.socketMode = socketMode
        self.clientBufferCapacity = clientBufferCapacity
        self.maximumClients = maximumClients
        self.maximumStreamsPerClient = maximumStreamsPerClient
        self.helloTimeout = helloTimeout
    }

    /// The defaults of an instance, from the environment (`XDG_RUNTIME_DIR`, `XDG_DATA_HOME`, `HOME`).
    public static func defaults(
        for instance: Instance, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> DaemonConfiguration {
        switch instance {
        case .system:
            return DaemonConfiguration(
                instance: .system, device: .auto, socketPath: "/run/coremotion/coremotiond.sock",
                historyPath: "/var/lib/coremotion/history.sqlite", permissionsPath: "/var/lib/coremotion/permissions.json",
                socketGroup: "coremotion", socketMode: 0o660)
        case .user:
            let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 }
                ?? "/tmp/coremotion-\(getuid())"
            let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
                ?? ((environment["HOME"] ?? NSHomeDirectory()) as NSString).appendingPathComponent(".local/share")
            let data = (dataHome as NSString).appendingPathComponent("coremotion")
            return DaemonConfiguration(
                instance: .user, device: .auto,
                socketPath: (runtime as NSString).appendingPathComponent("coremotion/coremotiond.sock"),
                historyPath: (data as NSString).appendingPathComponent("daemon-history.sqlite"),
                permissionsPath: (data as NSString).appendingPathComponent("permissions.json"),
                socketGroup: nil, socketMode: 0o600)
        }
    }
}
