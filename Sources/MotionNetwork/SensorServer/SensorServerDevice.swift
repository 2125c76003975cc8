import Foundation
import Logging
import MotionSamples

/// Where the phone is: `COREMOTION_DEVICE=sensorserver:ws://HOST:PORT[?options]`.
public struct SensorServerSettings: PhoneSourceSettings {
    /// `sensorserver:` devices of the app SensorServer.
    public static let source = PhoneSourceNames(
        scheme: "sensorserver", app: "SensorServer", advice: "is its server started, and the phone on this network?")

    /// The phone: its host and the port of SensorServer's WebSocket server (8080 by default in the app).
    public var address: PhoneAddress
    /// Start, silence and delay (docs/network.md, "What every phone device does").
    public var stream: PhoneStreamSettings
    /// The sensors asked for.
    public var sensors: [SensorServerSensor]

    /// The options of `sensorserver:`.
    public static let optionNames = PhoneStreamSettings.optionNames
    /// The defaults: wait 5 s, silence 2 s (as every phone device), least delay 0.15 s (messages come one by one, as sampled).
    public static let defaultStream = PhoneStreamSettings(wait: 5, silence: 2, delay: 0.15)

    /// `ws://HOST:PORT` as given to `sensorserver:`.
    public var url: String { address.url(scheme: "ws") }

    /// The phone at `host`:`port`, asked for `sensors`.
    public init(host: String, port: Int, stream: PhoneStreamSettings = SensorServerSettings.defaultStream,
                sensors: [SensorServerSensor] = SensorServerSensor.allCases) {
        (self.address, self.stream, self.sensors) = (PhoneAddress(host: host, port: port), stream, sensors)
    }

    /// The connection loop of `device` (``SensorServerDevice``'s rules).
    public func loop(for device: LiveDevice) -> @Sendable () -> Void { SensorServerClient(settings: self, device: device).run }

    /// Reads `ws://HOST[:PORT][/]` (or `HOST[:PORT]`; the port defaults to 8080, SensorServer's) and the options.
    public init(url: String, options: [String: String]) throws(PhoneOptionError) {
        let address = try PhoneAddress(parsing: url, scheme: "ws", defaultPort: 8080, schemeDefaultPort: 8080, kind: "sensorserver")
        self.init(host: address.host, port: address.port, stream: try PhoneStreamSettings(options: options, defaults: Self.defaultStream))
    }
}

/// SensorServer (umer0586, Android) as a device (`COREMOTION_DEVICE=sensorserver:ws://PHONE:8080`): one
/// WebSocket to `/sensors/connect?types=[…]` for the accelerometer, gyroscope, magnetic field and pressure
/// sensors (NETWORK.md §3, docs/network.md#sensorserver).
///
/// - **Messages** `{values, timestamp, accuracy, type}` (``SensorServerMessage``): Android's units and signs to
///   Apple's (``SensorServerSensor/sample(values:time:)``); a malformed message, a reading with too few or
///   unbelievable values, or an unknown `type` is skipped with a logged error.
/// - **Time**: `timestamp` is nanoseconds on the phone's boot clock, placed on this machine's uptime by a
///   ``PhoneClock`` (min(arrival − timestamp) over a window, slewed), anew on every connection.
/// - **A missing sensor** closes the connection with 4001 ("sensor of type X not found"): X is dropped, as
///   unavailable, and the others are asked for again (one sensor alone on `/sensor/connect?type=X`, whose
///   messages carry no `type`). A 4001 whose reason names no sensor makes the device try each sensor alone.
/// - **Other closes**: 4004 (server stopped), 4005 (closed by the app's user) or a dropped connection:
///   reconnect after 0.1 s, doubling up to 5 s, meanwhile the sensors go lost after the silence; 4002, 4003,
///   4006–4009 (the request was refused): logged as errors, retried every 10 s.
/// - The sampling period is SensorServer's setting on the phone (default 200 ms, 5 Hz): lower it there.
public enum SensorServerDevice: PhoneSource {
    /// Where the phone is and which sensors to ask for.
    public typealias Settings = SensorServerSettings

    /// The path that asks for `sensors`: `/sensors/connect?types=[…]` (URL-encoded) for two or more,
    /// `/sensor/connect?type=…` for one.
    public static func path(for sensors: [SensorServerSensor]) -> String {
        if sensors.count == 1 { return "/sensor/connect?type=" + sensors[0].rawValue }
        let list = "[" + sensors.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]"
        return "/sensors/connect?types=" + PhyphoxPoll.percentEncoded(list)
    }
}

/// The connection loop of one SensorServer device.
final class SensorServerClient: Sendable {
    let settings: SensorServerSettings
    let device: LiveDevice

    init(settings: SensorServerSettings, device: LiveDevice) {
        self.settings = settings
        self.device = device
    }

    /// The pause before reconnecting after `failures` failures in a row: 0.1 s doubling up to 5 s. Short at
    /// first: a phone that closes right after the upgrade (4001) sometimes loses its close frame with the
    /// connection, and the next try should come at once.
    static func backoff(_ failures: Int) -> Double {
        min(0.1 * pow(2, Double(min(max(failures - 1, 0), 6))), 5)
    }

    /// What one connection ended with.
    private enum Ending {
        case refused(SensorServerSensor?)
        case retry(after: Double)
    }

    func run() {
        var wanted = settings.sensors
        var failures = 0
        while !device.isClosed && !wanted.isEmpty {
            device.announce(Dictionary(uniqueKeysWithValues: wanted.map { ($0.kind, "SensorServer \($0.rawValue)") }))
            let path = SensorServerDevice.path(for: wanted)
            let socket: PhoneWebSocket
            do {
                socket = try PhoneWebSocket.connect(host: settings.address.host, port: settings.address.port, path: path, clock: device.clock)
            } catch {
                failures += 1
                device.report("\(error)", category: "request")
                device.pause(Self.backoff(failures))
                continue
            }
            device.noteAnswered()
            device.noteConnection()
            device.logger.info("\(device.name): connected (\(wanted.map(\.rawValue).joined(separator: ", ")))")
            let ending = receive(socket, wanted: wanted)
            socket.close()
            switch ending {
            case .refused(let sensor?):
                device.logger.notice("\(device.name): the phone has no \(sensor.rawValue): \(sensor.kind) is unavailable")
                wanted.removeAll { $0 == sensor }
                failures = 0
            case .refused(nil):
                // A 4001 that names no sensor we asked for: find the missing ones one by one.
                var kept: [SensorServerSensor] = []
                for sensor in wanted where !device.isClosed {
                    if probe(sensor) != false { kept.append(sensor) }
                }
                wanted = kept
                failures = 0
            case .retry(let after):
                failures += 1
                device.pause(after > 0 ? after : Self.backoff(failures))
            }
        }
        if wanted.isEmpty {
            device.report("the phone has none of the sensors asked for", category: "config")
            device.announce([:])
        }
    }

    /// Whether the phone has `sensor` (`false` on 4001), by a connection of its own; `nil` when unsure.
    private func probe(_ sensor: SensorServerSensor) -> Bool? {
        guard let socket = try? PhoneWebSocket.connect(
            host: settings.address.host, port: settings.address.port, path: SensorServerDevice.path(for: [sensor]), clock: device.clock)
        else { return nil }
        defer { socket.close() }
        switch socket.events.next(timeout: 1) {
        case .text?: return true
        case .closed(let code, _)?: return code == SensorServerCloseCode.sensorNotFound.rawValue ? false : nil
        case nil: return nil
        }
    }

    /// Reads one connection's messages until it closes.
    private func receive(_ socket: PhoneWebSocket, wanted: [SensorServerSensor]) -> Ending {
        var clock = PhoneClock()
        let single = wanted.count == 1 ? wanted[0] : nil
        while !device.isClosed {
            guard let event = socket.events.next(timeout: 0.2) else {
                if socket.events.isDone { break }
                continue
            }
            switch event {
            case .text(let bytes, let arrival):
                handle(bytes, arrival: arrival, clock: &clock, single: single, wanted: wanted)
            case .closed(let code, let reason):
                return ending(code: code, reason: reason, wanted: wanted)
            }
        }
        return .retry(after: 0)
    }

    private func ending(code: UInt16?, reason: String, wanted: [SensorServerSensor]) -> Ending {
        guard let code else {
            device.report("the connection ended (\(reason)); reconnecting", category: "request")
            return .retry(after: 0)
        }
        let known = SensorServerCloseCode(rawValue: code)
        let text = "closed with \(code)\(known.map { " (\($0.meaning))" } ?? "")\(reason.isEmpty ? "" : ": \(reason)")"
        switch known {
        case .sensorNotFound?:
            let lower = reason.lowercased()
            return .refused(wanted.first { lower.contains($0.rawValue) })
        case .serverStopped?, .closedByAppUser?:
            device.report("\(text); reconnecting", category: "request")
            return .retry(after: 0)
        case .unsupportedRequest?, .parameterMissing?, .invalidJSONArray?, .tooFewSensors?, .noSensorSpecified?, .permissionDenied?:
            device.report("\(text): the phone refused the request; trying again in 10 s", category: "request")
            return .retry(after: 10)
        case nil:
            device.report("\(text); reconnecting", category: "request")
            return .retry(after: 0)
        }
    }

    private func handle(_ bytes: [UInt8], arrival: Double, clock: inout PhoneClock, single: SensorServerSensor?, wanted: [SensorServerSensor]) {
        let message: SensorServerMessage
        do {
            message = try SensorServerMessage.decode(bytes)
        } catch {
            device.report("\(error); skipped", category: "malformed")
            return
        }
        let sensor: SensorServerSensor?
        if let type = message.type {
            sensor = SensorServerSensor(rawValue: type.lowercased())
        } else {
            sensor = single
        }
        guard let sensor, wanted.contains(sensor) else {
            device.report("a message of type '\(message.type ?? "none")', not asked for: skipped", category: "type")
            return
        }
        guard message.values.count >= sensor.valueCount else {
            device.refuse("\(sensor.rawValue) message with \(message.values.count) values, \(sensor.valueCount) needed: skipped")
            return
        }
        clock.observe(newestSample: message.timestamp, arrival: arrival)
        guard let time = clock.hostTime(message.timestamp) else { return }
        device.ingest([sensor.sample(values: message.values, time: time)], arrival: arrival)
    }
}
