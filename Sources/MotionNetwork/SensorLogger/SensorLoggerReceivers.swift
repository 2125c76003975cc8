import Foundation
import Logging
import MotionSamples

/// The process's Sensor Logger receivers: one HTTP server per `HOST:PORT`, started on first use and shared by
/// everything in the process that names that address — `COREMOTION_DEVICE=sensorlogger:HOST:PORT` and
/// `COREMOTION_HEADPHONE_DEVICE=sensorlogger:HOST:PORT`, or two devices following two phones
/// (`&device=ID`) — since one port can be bound once.
///
/// ```swift
/// let server = try SensorLoggerReceivers.shared.receiver(for: configuration)
/// let live = server.device(following: configuration.deviceId)   // the phone's LiveDevice
/// let token = live.subscribeHeadphone { event in … }
/// ```
///
/// The first configuration for an address sets the receiver's platform and silence; a later one must
/// carry the same token (a different token is refused rather than silently ignored). Port 0 (any free
/// port) always starts a receiver of its own, registered under the port it got (a later user naming that
/// port shares it). Receivers live as long as the
/// process (they are not stopped when a device closes; ``stopAll()`` ends them, for tests).
public final class SensorLoggerReceivers: @unchecked Sendable {  // @unchecked: its one var `servers` is read and written only under `lock`
    /// The process's registry.
    public static let shared = SensorLoggerReceivers()

    private let lock = NSLock()
    private var servers: [String: SensorLoggerServer] = [:]

    /// An empty registry (tests); the process's is ``shared``.
    public init() {}

    /// The key of an address: host lowercased, port.
    static func key(host: String, port: Int) -> String { "\(host.lowercased()):\(port)" }

    /// The running receiver for `configuration`'s `HOST:PORT`, started now when there is none yet.
    ///
    /// - Throws: ``SensorLoggerConfigurationError`` when the server cannot listen (address in use, a
    ///   non-loopback address without a token), or when the address already has a receiver with another token.
    public func receiver(
        for configuration: SensorLoggerConfiguration, clock: any MotionClock = SystemClock.shared
    ) throws(SensorLoggerConfigurationError) -> SensorLoggerServer {
        try configuration.checkSecurity()
        if configuration.port == 0 {
            // A new receiver on a port of the system's choosing, registered under that port so that a later
            // user naming it shares it.
            let server = SensorLoggerServer(configuration: configuration, clock: clock)
            try server.start()
            if let port = server.port {
                lock.lock()
                servers[Self.key(host: configuration.host, port: port)] = server
                lock.unlock()
            }
            return server
        }
        let key = Self.key(host: configuration.host, port: configuration.port)
        // Held while starting, so that two users of one address never race to bind it.
        lock.lock()
        defer { lock.unlock() }
        if let running = servers[key] {
            guard running.configuration.token == configuration.token else {
                throw SensorLoggerConfigurationError(
                    reason: "a Sensor Logger receiver already listens on \(configuration.host):\(configuration.port) in this process with another token: use the same token= everywhere")
            }
            return running
        }
        let server = SensorLoggerServer(configuration: configuration, clock: clock)
        try server.start()
        servers[key] = server
        return server
    }

    /// The running receiver on `host:port`, if any.
    public func existing(host: String, port: Int) -> SensorLoggerServer? {
        lock.lock()
        defer { lock.unlock() }
        return servers[Self.key(host: host, port: port)]
    }

    /// Stops every receiver of this registry and forgets them.
    public func stopAll() {
        lock.lock()
        let all = Array(servers.values)
        servers.removeAll()
        lock.unlock()
        for server in all { server.stop() }
    }
}
