import Foundation
import MotionSamples

/// Why a SensorServer message was refused. The message is skipped (logged); the stream goes on.
public struct SensorServerDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "malformed SensorServer message: \(reason)" }
}

/// The Android sensors this device asks SensorServer for, by `Sensor.getStringType()`.
public enum SensorServerSensor: String, Sendable, CaseIterable, Hashable {
    case accelerometer = "android.sensor.accelerometer"
    case gyroscope = "android.sensor.gyroscope"
    case magneticField = "android.sensor.magnetic_field"
    case pressure = "android.sensor.pressure"

    public var kind: SensorKind {
        switch self {
        case .accelerometer: .accelerometer
        case .gyroscope: .gyroscope
        case .magneticField: .magnetometer
        case .pressure: .barometer
        }
    }

    public init?(kind: SensorKind) {
        switch kind {
        case .accelerometer: self = .accelerometer
        case .gyroscope: self = .gyroscope
        case .magnetometer: self = .magneticField
        case .barometer: self = .pressure
        }
    }

    /// How many `values` a reading needs: 3, or 1 for pressure.
    public var valueCount: Int { self == .pressure ? 1 : 3 }

    /// The reading in Apple's units at `time` (seconds on the device clock), from Android's `values`:
    /// acceleration m/s² ÷ −9.80665 → g; rad/s and µT as they are; hPa ÷ 10 → kPa.
    public func sample(values: [Double], time: Double) -> SensorSample {
        switch self {
        case .accelerometer:
            .accelerometer(TimedVector(time: time, value: AndroidConventions.appleAcceleration(fromAndroid: Vector3(values[0], values[1], values[2]))))
        case .gyroscope:
            .gyroscope(TimedVector(time: time, value: Vector3(values[0], values[1], values[2])))
        case .magneticField:
            .magnetometer(TimedVector(time: time, value: Vector3(values[0], values[1], values[2])))
        case .pressure:
            .barometer(PressureReading(time: time, kilopascals: AndroidConventions.kilopascals(fromHectopascals: values[0])))
        }
    }
}

/// One SensorServer WebSocket message: `{"values": [...], "timestamp": ns, "accuracy": 0–3, "type": "android.sensor.…"}`
/// (`type` only on multi-sensor connections; NETWORK.md §3).
public struct SensorServerMessage: Sendable, Equatable {
    /// `Sensor.getStringType()`, when the message says.
    public var type: String?
    /// `SensorEvent.values`.
    public var values: [Double]
    /// `SensorEvent.timestamp`: nanoseconds on the phone's boot clock.
    public var timestamp: Int64
    /// `SensorEvent.accuracy` (0 unreliable … 3 high), when given.
    public var accuracy: Int?

    /// Most `values` accepted (Android's largest, the pose sensor, has 15).
    public static let maximumValues = 64

    /// Decodes one text message. Refused: text that is not JSON or not an object; `values` missing, not an
    /// array of finite numbers, or longer than ``maximumValues``; `timestamp` missing, not an integer, or
    /// negative; `type` present but not a string. `accuracy` is kept when it is an integer. Other members
    /// (GPS messages' `time`…) are ignored.
    public static func decode(_ bytes: some Collection<UInt8>) throws(SensorServerDecodingError) -> SensorServerMessage {
        let root: PhoneJSON
        do {
            root = try PhoneJSON.parse(bytes)
        } catch {
            throw SensorServerDecodingError(error.description)
        }
        guard case .object = root else { throw SensorServerDecodingError("expected an object, found \(root.kindName)") }
        guard let list = root["values"]?.array else { throw SensorServerDecodingError("no array 'values'") }
        guard list.count <= maximumValues else { throw SensorServerDecodingError("\(list.count) values, more than \(maximumValues)") }
        var values: [Double] = []
        values.reserveCapacity(list.count)
        for (i, v) in list.enumerated() {
            guard let d = v.double, d.isFinite else { throw SensorServerDecodingError("values[\(i)] is \(v.kindName == "a number" ? "not finite" : v.kindName), not a finite number") }
            values.append(d)
        }
        guard let stamp = root["timestamp"] else { throw SensorServerDecodingError("no 'timestamp'") }
        guard let ns = stamp.int64 else { throw SensorServerDecodingError("'timestamp' is \(stamp.kindName == "a number" ? "not an integer" : stamp.kindName), not integer nanoseconds") }
        guard ns >= 0 else { throw SensorServerDecodingError("'timestamp' \(ns) is negative") }
        var type: String?
        if let t = root["type"], !t.isNull {
            guard let s = t.string else { throw SensorServerDecodingError("'type' is \(t.kindName), not a string") }
            type = s
        }
        let accuracy = root["accuracy"]?.int64.flatMap { Int(exactly: $0) }
        return SensorServerMessage(type: type, values: values, timestamp: ns, accuracy: accuracy)
    }
}

/// SensorServer's WebSocket close codes (`SensorWebSocketServer.kt`, 4001–4009).
public enum SensorServerCloseCode: UInt16, Sendable, CaseIterable {
    case sensorNotFound = 4001
    case unsupportedRequest = 4002
    case parameterMissing = 4003
    case serverStopped = 4004
    case closedByAppUser = 4005
    case invalidJSONArray = 4006
    case tooFewSensors = 4007
    case noSensorSpecified = 4008
    case permissionDenied = 4009

    /// What the code means, for messages.
    public var meaning: String {
        switch self {
        case .sensorNotFound: "sensor not found"
        case .unsupportedRequest: "unsupported request"
        case .parameterMissing: "parameter missing"
        case .serverStopped: "server stopped"
        case .closedByAppUser: "closed by the app's user"
        case .invalidJSONArray: "invalid JSON array"
        case .tooFewSensors: "too few sensors"
        case .noSensorSpecified: "no sensor specified"
        case .permissionDenied: "permission denied"
        }
    }
}
