import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a Sensor Logger receiver listens and how it treats the phones: the value of
/// `COREMOTION_DEVICE=sensorlogger:HOST:PORT[?token-file=PATH|token=T][&platform=…][&device=ID][&wait=S][&settle=S][&silence=S]`.
///
/// The token may come from three places, first found wins: `token-file=PATH` (the file's first line; the
/// file must not be readable or writable by group or others), `token=T` (visible to every user in
/// `/proc/PID/cmdline` when given on a command line: prefer the others), or the environment variable
/// ``tokenEnvironmentVariable`` (`COREMOTION_SENSORLOGGER_TOKEN`).
public struct SensorLoggerConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// The address to listen on (default `127.0.0.1`; anything but a loopback address needs a ``token``).
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
    /// No push for this long (at least three batch periods) loses every sensor, seconds
    /// (``LiveDevice/Configuration/silence``; the rule: docs/network.md, "What every phone device does").
    public var silence: TimeInterval

    /// The option keys of `sensorlogger:` (for "did you mean").
    public static let optionKeys = ["token", "token-file", "platform", "device", "wait", "settle", "silence"]
    /// The environment variable a token is taken from when the value names none.
    public static let tokenEnvironmentVariable = "COREMOTION_SENSORLOGGER_TOKEN"
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
    /// - Parameter environment: where ``tokenEnvironmentVariable`` is looked up (the process's by default).
    /// - Throws: a reason in words.
    public static func parse(
        target: String, options: [String: String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SensorLoggerConfigurationError) -> SensorLoggerConfiguration {
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
        if options["token"] != nil && options["token-file"] != nil { throw fail("give token= or token-file=, not both") }
        if let path = options["token-file"] {
            configuration.token = try readToken(file: path)
        } else if let token = options["token"] {
            guard !token.isEmpty else { throw fail("token= is empty") }
            configuration.token = token
        } else {
            configuration.token = environmentToken(environment)
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

    /// The token in ``tokenEnvironmentVariable``, if set and not empty (surrounding spaces removed).
    public static func environmentToken(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard let value = environment[tokenEnvironmentVariable]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }

    /// The token in a file: its first line, without surrounding spaces.
    ///
    /// - Throws: when the file cannot be read, is readable or writable by group or others (`chmod 600`), or
    ///   its first line is empty.
    public static func readToken(file path: String) throws(SensorLoggerConfigurationError) -> String {
        func fail(_ reason: String) -> SensorLoggerConfigurationError { SensorLoggerConfigurationError(reason: reason) }
        guard !path.isEmpty else { throw fail("token-file= is empty: give the path of a file holding the token") }
        var info = stat()
        guard stat(path, &info) == 0 else { throw fail("token-file=\(path): cannot read it (\(String(cString: strerror(errno))))") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw fail("token-file=\(path) is not a regular file") }
        guard info.st_mode & 0o066 == 0 else {
            throw fail("token-file=\(path) may be read or changed by other users (mode \(String(info.st_mode & 0o777, radix: 8))): chmod 600 \(path)")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw fail("token-file=\(path): cannot open it") }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 4096)) ?? nil
        let text = String(decoding: head ?? Data(), as: UTF8.self)
        let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let token = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw fail("token-file=\(path): the first line is empty") }
        return token
    }

    /// Whether ``host`` is a numeric loopback address (`127.0.0.0/8` or `::1`): decided on the address, so a
    /// name such as `127.0.0.1.example.com` or `localhost` is not (give the address, or a token).
    public var isLoopback: Bool { SensorLoggerAddress.isLoopback(host) }

    /// Refuses to listen beyond this machine without a token.
    public func checkSecurity() throws(SensorLoggerConfigurationError) {
        if !isLoopback && token == nil {
            throw SensorLoggerConfigurationError(reason: "listening on \(host) lets anyone on the network push data: add ?token-file=PATH (or set \(Self.tokenEnvironmentVariable); ?token=SECRET is visible to other users) and set the same \"auth token\" in Sensor Logger, or listen on 127.0.0.1")
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
