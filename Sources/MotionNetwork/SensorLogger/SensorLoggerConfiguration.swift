import Foundation

/// Where a Sensor Logger receiver listens and how it treats the phones: the value of
/// `COREMOTION_DEVICE=sensorlogger:HOST:PORT[?token=T][&platform=…][&device=ID][&wait=S][&settle=S][&silence=S]`.
public struct SensorLoggerConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// The address to listen on (default `127.0.0.1`; `0.0.0.0` or a LAN address needs a ``token``).
    public var host: String
    /// The TCP port (0: any free port, for tests).
    public var port: Int
    /// The bearer token the phone must send (`Authorization: Bearer T`, Sensor Logger's "auth token").
    public var token: String?
    /// The phones' convention, instead of deciding it from the data.
    public var platform: SensorLoggerPlatform?
    /// The phone (`deviceId`) this device follows; `nil`: the first one to push.
    public var deviceId: String?
    /// How long opening the device waits for the first push, seconds (0: not at all).
    public var wait: TimeInterval
    /// How long it then keeps listening before the device is handed over, seconds, so that sensors
    /// slower than one batch (a barometer at 1 Hz) are seen and available at once.
    public var settle: TimeInterval
    /// No push for this long (at least three batch periods) loses every sensor, seconds.
    public var silence: TimeInterval

    /// The option keys of `sensorlogger:` (for "did you mean").
    public static let optionKeys = ["token", "platform", "device", "wait", "settle", "silence"]
    /// Largest accepted body, bytes (1 MiB): larger pushes get 413.
    public static let maximumBodySize = 1 << 20

    public init(
        host: String = "127.0.0.1", port: Int, token: String? = nil, platform: SensorLoggerPlatform? = nil,
        deviceId: String? = nil, wait: TimeInterval = 10, settle: TimeInterval = 1.5, silence: TimeInterval = 2
    ) {
        self.host = host
        self.port = port
        self.token = token
        self.platform = platform
        self.deviceId = deviceId
        self.wait = wait
        self.settle = settle
        self.silence = silence
    }

    /// Parses the part after `sensorlogger:`: `HOST:PORT`, `[IPv6]:PORT` or `PORT` (on 127.0.0.1), and the
    /// options (already split, keys checked by the caller).
    ///
    /// - Throws: a reason in words.
    public static func parse(target: String, options: [String: String]) throws(SensorLoggerConfigurationError) -> SensorLoggerConfiguration {
        func fail(_ reason: String) -> SensorLoggerConfigurationError { SensorLoggerConfigurationError(reason: reason) }
        var host = "127.0.0.1"
        var portText = target
        if target.hasPrefix("[") {
            guard let close = target.firstIndex(of: "]") else { throw fail("an IPv6 address needs brackets: sensorlogger:[::1]:8000") }
            host = String(target[target.index(after: target.startIndex)..<close])
            let rest = target[target.index(after: close)...]
            guard rest.hasPrefix(":") else { throw fail("sensorlogger: needs a port after the address, e.g. sensorlogger:[::1]:8000") }
            portText = String(rest.dropFirst())
        } else if let colon = target.lastIndex(of: ":") {
            host = String(target[..<colon])
            portText = String(target[target.index(after: colon)...])
            guard !host.isEmpty else { throw fail("sensorlogger: needs HOST:PORT or PORT, e.g. sensorlogger:127.0.0.1:8000") }
            guard !host.contains(":") else { throw fail("write an IPv6 address in brackets: sensorlogger:[\(host)]:\(portText)") }
        }
        guard !portText.isEmpty else { throw fail("sensorlogger: needs a port, e.g. sensorlogger:127.0.0.1:8000") }
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw fail("the port must be a number from 0 to 65535, found '\(portText)'")
        }
        var configuration = SensorLoggerConfiguration(host: host, port: port)
        if let token = options["token"] {
            guard !token.isEmpty else { throw fail("token= is empty") }
            configuration.token = token
        }
        if let platform = options["platform"] {
            guard let p = SensorLoggerPlatform(rawValue: platform.lowercased()) else {
                throw fail("platform must be one of \(SensorLoggerPlatform.allCases.map(\.rawValue).joined(separator: ", ")), found '\(platform)'")
            }
            configuration.platform = p
        }
        if let device = options["device"] {
            guard !device.isEmpty else { throw fail("device= is empty: give a Sensor Logger deviceId (coremotion devices --network lists them)") }
            configuration.deviceId = device
        }
        func seconds(_ key: String, allowZero: Bool) throws(SensorLoggerConfigurationError) -> TimeInterval? {
            guard let text = options[key] else { return nil }
            guard let v = Double(text), v.isFinite, allowZero ? v >= 0 : v > 0, v <= 3600 else {
                throw fail("\(key) must be a number of seconds\(allowZero ? "" : " above 0") up to 3600, found '\(text)'")
            }
            return v
        }
        if let v = try seconds("wait", allowZero: true) { configuration.wait = v }
        if let v = try seconds("settle", allowZero: true) { configuration.settle = v }
        if let v = try seconds("silence", allowZero: false) { configuration.silence = v }
        try configuration.checkSecurity()
        return configuration
    }

    /// Whether ``host`` is a loopback address (`127.0.0.0/8`, `::1`, `localhost`).
    public var isLoopback: Bool {
        let h = host.lowercased()
        return h == "localhost" || h == "::1" || h.hasPrefix("127.") || h == "0:0:0:0:0:0:0:1"
    }

    /// Refuses to listen beyond this machine without a token.
    public func checkSecurity() throws(SensorLoggerConfigurationError) {
        if !isLoopback && token == nil {
            throw SensorLoggerConfigurationError(reason: "listening on \(host) lets anyone on the network push data: add ?token=SECRET (and set the same \"auth token\" in Sensor Logger), or listen on 127.0.0.1")
        }
    }

    /// The value as written, with the token hidden.
    public var description: String {
        var options: [String] = []
        if token != nil { options.append("token=…") }
        if let platform { options.append("platform=\(platform)") }
        if let deviceId { options.append("device=\(deviceId)") }
        let address = host.contains(":") ? "[\(host)]" : host
        return "sensorlogger:\(address):\(port)" + (options.isEmpty ? "" : "?" + options.joined(separator: "&"))
    }
}

/// A `sensorlogger:` value that cannot be used, in words.
public struct SensorLoggerConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}
