import Foundation
import MotionSamples

/// One HTTP push of Sensor Logger, decoded: `{messageId, sessionId, deviceId, userId?, payload: [reading…]}`.
///
/// Values are stored flat for speed (one array of numbers for the whole message, no allocation per
/// reading): read a reading's values with ``number(_:in:)`` and ``string(_:in:)``.
public struct SensorLoggerMessage: Sendable, Hashable {
    /// Increments with every message of a recording; messages may arrive out of order. `nil` when absent.
    public var messageId: Int64?
    /// One per recording (a UUID); `nil` when absent.
    public var sessionId: String?
    /// One per phone (a UUID); `nil` when absent.
    public var deviceId: String?
    /// Only with a Sensor Logger Study.
    public var userId: String?
    /// The readings in the order they came (the app does not sort them).
    public var readings: [SensorLoggerReading]
    /// Numeric values of all readings, `(field, value)` in order; a reading owns ``SensorLoggerReading/values``.
    public var fields: [SensorLoggerField]
    public var numbers: [Double]
    /// String values (activity labels, confidence, `devicelocation`, battery state, booleans written as
    /// strings), rare: `(reading index, field, text)`.
    public var strings: [StringValue]

    /// A string value of one reading.
    public struct StringValue: Sendable, Hashable {
        public var reading: Int
        public var field: SensorLoggerField
        public var text: String
    }

    public init(
        messageId: Int64? = nil, sessionId: String? = nil, deviceId: String? = nil, userId: String? = nil,
        readings: [SensorLoggerReading] = [], fields: [SensorLoggerField] = [], numbers: [Double] = [],
        strings: [StringValue] = []
    ) {
        self.messageId = messageId
        self.sessionId = sessionId
        self.deviceId = deviceId
        self.userId = userId
        self.readings = readings
        self.fields = fields
        self.numbers = numbers
        self.strings = strings
    }

    /// The numeric value of `field` in `reading` (a number, a numeric string, or a boolean as 1/0), or `nil`.
    @inlinable
    public func number(_ field: SensorLoggerField, in reading: SensorLoggerReading) -> Double? {
        var k = reading.values.lowerBound
        while k < reading.values.upperBound {
            if fields[k] == field { return numbers[k] }
            k += 1
        }
        return nil
    }

    /// The `x`, `y`, `z` values of `reading`, when all three are there and finite.
    @inlinable
    public func vector(in reading: SensorLoggerReading) -> Vector3? {
        vector(.x, .y, .z, in: reading)
    }

    /// Three values of `reading` as a vector, when all three are there and finite.
    @inlinable
    public func vector(_ a: SensorLoggerField, _ b: SensorLoggerField, _ c: SensorLoggerField, in reading: SensorLoggerReading) -> Vector3? {
        var x = Double.nan, y = Double.nan, z = Double.nan
        var k = reading.values.lowerBound
        while k < reading.values.upperBound {
            let f = fields[k]
            if f == a { x = numbers[k] } else if f == b { y = numbers[k] } else if f == c { z = numbers[k] }
            k += 1
        }
        guard x.isFinite, y.isFinite, z.isFinite else { return nil }
        return Vector3(x, y, z)
    }

    /// The string value of `field` in the reading at `index`, or `nil`.
    public func string(_ field: SensorLoggerField, inReadingAt index: Int) -> String? {
        strings.first { $0.reading == index && $0.field == field }?.text
    }
}

/// One reading of a push: `{"name": …, "time": UTC epoch ns, "values": {…}, "accuracy": 0–3}`.
public struct SensorLoggerReading: Sendable, Hashable {
    /// The sensor (name lowercased, spaces removed).
    public var sensor: SensorLoggerSensor
    /// Sample time, ns since 1970 (UTC); from a double rendering, so steps of about 256 ns.
    public var time: Int64
    /// Android's accuracy (0–3) when sent; its presence alone says the phone runs Android.
    public var accuracy: Int?
    /// The range of the message's ``SensorLoggerMessage/fields`` and ``SensorLoggerMessage/numbers`` that
    /// holds this reading's numeric values.
    public var values: Range<Int>

    public init(sensor: SensorLoggerSensor, time: Int64, accuracy: Int? = nil, values: Range<Int> = 0..<0) {
        self.sensor = sensor
        self.time = time
        self.accuracy = accuracy
        self.values = values
    }
}

/// The readings Sensor Logger pushes, by their lowercased name (spaces removed: `wrist motion` → `wristmotion`).
public enum SensorLoggerSensor: Sendable, Hashable, CustomStringConvertible {
    case accelerometer, accelerometerUncalibrated, totalAcceleration, gravity
    case gyroscope, gyroscopeUncalibrated, magnetometer, magnetometerUncalibrated
    case orientation, barometer, pedometer, activity, compass, location
    case headphone, wristMotion
    case battery, batteryTemperature, light, wifi, brightness
    /// The app's "Tap to Test Pushing" reading (`{"name":"test","time":0,"values":[]}`).
    case test
    /// Any other name (kept normalised, at most 64 bytes).
    case other(String)

    /// The names as written on the wire (normalised), for every known case.
    public static let known: [(String, SensorLoggerSensor)] = [
        ("accelerometer", .accelerometer), ("accelerometeruncalibrated", .accelerometerUncalibrated),
        ("totalacceleration", .totalAcceleration), ("gravity", .gravity),
        ("gyroscope", .gyroscope), ("gyroscopeuncalibrated", .gyroscopeUncalibrated),
        ("magnetometer", .magnetometer), ("magnetometeruncalibrated", .magnetometerUncalibrated),
        ("orientation", .orientation), ("barometer", .barometer), ("pedometer", .pedometer),
        ("activity", .activity), ("compass", .compass), ("location", .location),
        ("headphone", .headphone), ("wristmotion", .wristMotion),
        ("battery", .battery), ("batterytemp", .batteryTemperature), ("light", .light), ("wifi", .wifi),
        ("brightness", .brightness), ("test", .test),
    ]

    /// The normalised wire name.
    public var name: String {
        if case .other(let name) = self { return name }
        return Self.known.first { $0.1 == self }!.0
    }

    public var description: String { name }

    /// Readings only Android sends (NETWORK.md rule 1).
    public var isAndroidOnly: Bool {
        switch self {
        case .totalAcceleration, .light, .wifi, .batteryTemperature: true
        default: false
        }
    }
}

/// The value keys of readings that the device uses (others are skipped while decoding).
public enum SensorLoggerField: UInt8, Sendable, Hashable, CaseIterable {
    case x, y, z
    case qx, qy, qz, qw, roll, pitch, yaw
    case pressure, relativeAltitude
    case steps
    case magneticBearing
    case latitude, longitude, altitude, altitudeAboveMeanSeaLevel, verticalAccuracy, horizontalAccuracy
    case quaternionW, quaternionX, quaternionY, quaternionZ
    case rotationRateX, rotationRateY, rotationRateZ
    case accelerationX, accelerationY, accelerationZ
    case gravityX, gravityY, gravityZ
    case devicelocation
    case activity, confidence
    case batteryLevel, batteryState, voltage, health, lowPowerMode

    /// The key as written on the wire.
    public var key: String {
        switch self {
        case .x: "x"
        case .y: "y"
        case .z: "z"
        case .qx: "qx"
        case .qy: "qy"
        case .qz: "qz"
        case .qw: "qw"
        case .roll: "roll"
        case .pitch: "pitch"
        case .yaw: "yaw"
        case .pressure: "pressure"
        case .relativeAltitude: "relativeAltitude"
        case .steps: "steps"
        case .magneticBearing: "magneticBearing"
        case .latitude: "latitude"
        case .longitude: "longitude"
        case .altitude: "altitude"
        case .altitudeAboveMeanSeaLevel: "altitudeAboveMeanSeaLevel"
        case .verticalAccuracy: "verticalAccuracy"
        case .horizontalAccuracy: "horizontalAccuracy"
        case .quaternionW: "quaternionW"
        case .quaternionX: "quaternionX"
        case .quaternionY: "quaternionY"
        case .quaternionZ: "quaternionZ"
        case .rotationRateX: "rotationRateX"
        case .rotationRateY: "rotationRateY"
        case .rotationRateZ: "rotationRateZ"
        case .accelerationX: "accelerationX"
        case .accelerationY: "accelerationY"
        case .accelerationZ: "accelerationZ"
        case .gravityX: "gravityX"
        case .gravityY: "gravityY"
        case .gravityZ: "gravityZ"
        case .devicelocation: "devicelocation"
        case .activity: "activity"
        case .confidence: "confidence"
        case .batteryLevel: "batteryLevel"
        case .batteryState: "batteryState"
        case .voltage: "voltage"
        case .health: "health"
        case .lowPowerMode: "lowPowerMode"
        }
    }
}
