import Foundation

/// One value of a stream, as the daemon sends it in a ``DaemonMessage/samples(stream:values:)`` frame.
public enum StreamValue: Sendable, Hashable {
    case sensor(SensorSample)
    case deviceMotion(DeviceMotionUpdate)
    case altitude(AltitudeValue)
    case pedometer(PedometerTotals)
    case pedometerEvent(PedometerPauseEvent)
    case activity(ActivityReport)
    case recorded(RecordedAccelerometerSample)
    /// A headphone device-motion sample (version 2).
    case headphoneMotion(HeadphoneMotionSample)
    /// A headphone connection state (version 2).
    case headphoneConnection(HeadphoneConnectionState)

    /// The record kind it is written as.
    public var kind: RecordKind {
        switch self {
        case .sensor(let s):
            switch s {
            case .accelerometer: .accelerometer
            case .gyroscope: .gyroscope
            case .magnetometer: .magnetometer
            case .barometer: .barometer
            }
        case .deviceMotion(.motion): .deviceMotion
        case .deviceMotion(.needsMovement): .needsMovement
        case .altitude: .altitude
        case .pedometer: .pedometerTotals
        case .pedometerEvent: .pedometerEvent
        case .activity: .activity
        case .recorded: .recordedAccelerometer
        case .headphoneMotion: .headphoneMotion
        case .headphoneConnection: .headphoneConnection
        }
    }
}

/// The fixed-size little-endian records a samples frame carries: one kind per frame.
///
/// | kind | record | bytes |
/// |---|---|---|
/// | 1–3 accelerometer, gyroscope, magnetometer | time, x, y, z (f64; g, rad/s, µT) | 32 |
/// | 4 barometer | time, kPa, °C (NaN: none) | 24 |
/// | 5 device motion | time, attitude x y z w, rotation rate xyz, gravity xyz, user acceleration xyz, magnetic field xyz (f64), accuracy (i32), padding (4), heading (f64) | 152 |
/// | 6 needs movement | time (f64) | 8 |
/// | 7 altitude | time, relative m, kPa, absolute m, accuracy m, precision m (NaN: none) | 48 |
/// | 8 pedometer totals | start, end (Unix s), steps (u64), distance m, floors up (u32), floors down (u32), active s, cadence, pace (NaN: none) | 64 |
/// | 9 pedometer event | date (Unix s), resumed (u8), padding (7) | 16 |
/// | 10 activity | start date (Unix s), timestamp (s), flags (u8), confidence (u8), padding (6) | 24 |
/// | 11 recorded accelerometer | identifier (u64), date (Unix s), x, y, z (g) | 40 |
/// | 12 headphone motion (v2) | time, attitude x y z w (bud → the stream's anchored frame), rotation rate xyz (rad/s), user acceleration xyz (g), gravity xyz (g) (f64), sensor location (u8: 0 default, 1 left, 2 right), padding (7) | 120 |
/// | 13 headphone connection (v2) | time (f64), connected (u8: 0/1), padding (7) | 16 |
///
/// Times are seconds on the `systemUptime` clock (CLOCK_MONOTONIC, shared by every process of the
/// machine); dates are seconds since 1970-01-01 UTC.
public enum RecordKind: UInt8, Sendable, Hashable, CaseIterable {
    case accelerometer = 1
    case gyroscope = 2
    case magnetometer = 3
    case barometer = 4
    case deviceMotion = 5
    case needsMovement = 6
    case altitude = 7
    case pedometerTotals = 8
    case pedometerEvent = 9
    case activity = 10
    case recordedAccelerometer = 11
    case headphoneMotion = 12
    case headphoneConnection = 13

    /// Size of one record, bytes.
    public var size: Int {
        switch self {
        case .accelerometer, .gyroscope, .magnetometer: 32
        case .barometer: 24
        case .deviceMotion: 152
        case .needsMovement: 8
        case .altitude: 48
        case .pedometerTotals: 64
        case .pedometerEvent: 16
        case .activity: 24
        case .recordedAccelerometer: 40
        case .headphoneMotion: 120
        case .headphoneConnection: 16
        }
    }

    /// The sensor of a raw-sensor kind.
    public var sensor: SensorKind? {
        switch self {
        case .accelerometer: .accelerometer
        case .gyroscope: .gyroscope
        case .magnetometer: .magnetometer
        case .barometer: .barometer
        default: nil
        }
    }

    public init(sensor: SensorKind) {
        switch sensor {
        case .accelerometer: self = .accelerometer
        case .gyroscope: self = .gyroscope
        case .magnetometer: self = .magnetometer
        case .barometer: self = .barometer
        }
    }
}

/// Writes and reads the records of ``RecordKind``.
public enum RecordCodec {
    /// Most records in one samples frame.
    public static let maximumRecordsPerFrame = Int(UInt16.max)

    /// Appends `value`'s record (no header).
    public static func encode(_ value: StreamValue, into w: inout ByteWriter) {
        switch value {
        case .sensor(let s):
            switch s {
            case .accelerometer(let v), .gyroscope(let v), .magnetometer(let v):
                w.f64(v.time)
                w.vector(v.value)
            case .barometer(let p):
                w.f64(p.time)
                w.f64(p.kilopascals)
                w.optional(p.celsius)
            }
        case .deviceMotion(.motion(let m)):
            w.f64(m.time)
            w.f64(m.attitude.x)
            w.f64(m.attitude.y)
            w.f64(m.attitude.z)
            w.f64(m.attitude.w)
            w.vector(m.rotationRate)
            w.vector(m.gravity)
            w.vector(m.userAcceleration)
            w.vector(m.magneticField)
            w.i32(m.magneticFieldAccuracy)
            w.u32(0)
            w.f64(m.heading)
        case .deviceMotion(.needsMovement):
            w.f64(0)
        case .altitude(let a):
            w.f64(a.time)
            w.f64(a.relativeAltitude)
            w.f64(a.pressure)
            w.optional(a.absolute?.altitude)
            w.optional(a.absolute?.accuracy)
            w.optional(a.absolute?.precision)
        case .pedometer(let t):
            w.f64(t.start.timeIntervalSince1970)
            w.f64(t.end.timeIntervalSince1970)
            w.u64(UInt64(max(0, t.steps)))
            w.f64(t.distance)
            w.u32(UInt32(clamping: t.floorsAscended))
            w.u32(UInt32(clamping: t.floorsDescended))
            w.f64(t.activeDuration)
            w.optional(t.currentCadence)
            w.optional(t.currentPace)
        case .pedometerEvent(let e):
            w.f64(e.date.timeIntervalSince1970)
            w.u8(e.resumed ? 1 : 0)
            w.zeros(7)
        case .activity(let a):
            w.f64(a.startDate.timeIntervalSince1970)
            w.f64(a.timestamp)
            w.u8(a.flags.rawValue)
            w.u8(UInt8(a.confidence.rawValue))
            w.zeros(6)
        case .recorded(let r):
            w.u64(r.identifier)
            w.f64(r.date.timeIntervalSince1970)
            w.vector(r.acceleration)
        case .headphoneMotion(let m):
            w.f64(m.time)
            w.f64(m.attitude.x)
            w.f64(m.attitude.y)
            w.f64(m.attitude.z)
            w.f64(m.attitude.w)
            w.vector(m.rotationRate)
            w.vector(m.userAcceleration)
            w.vector(m.gravity)
            w.u8(UInt8(m.location.rawValue))
            w.zeros(7)
        case .headphoneConnection(let c):
            w.f64(c.time)
            w.u8(c.isConnected ? 1 : 0)
            w.zeros(7)
        }
    }

    /// Reads one record of `kind`. Non-finite numbers where a number is required, unknown flags or
    /// values out of their domain throw, naming the field.
    public static func decode(_ kind: RecordKind, from r: inout ByteReader) throws(ProtocolError) -> StreamValue {
        switch kind {
        case .accelerometer, .gyroscope, .magnetometer:
            let time = try r.finite("sample time")
            let v = Vector3(try r.finite("x"), try r.finite("y"), try r.finite("z"))
            let timed = TimedVector(time: time, value: v)
            switch kind {
            case .accelerometer: return .sensor(.accelerometer(timed))
            case .gyroscope: return .sensor(.gyroscope(timed))
            default: return .sensor(.magnetometer(timed))
            }
        case .barometer:
            let time = try r.finite("sample time")
            let kPa = try r.finite("pressure")
            let celsius = try r.optionalFinite("temperature")
            return .sensor(.barometer(PressureReading(time: time, kilopascals: kPa, celsius: celsius)))
        case .deviceMotion:
            let time = try r.finite("device-motion time")
            let qx = try r.finite("attitude x")
            let qy = try r.finite("attitude y")
            let qz = try r.finite("attitude z")
            let qw = try r.finite("attitude w")
            let rotation = Vector3(try r.finite("rotation x"), try r.finite("rotation y"), try r.finite("rotation z"))
            let gravity = Vector3(try r.finite("gravity x"), try r.finite("gravity y"), try r.finite("gravity z"))
            let user = Vector3(try r.finite("user x"), try r.finite("user y"), try r.finite("user z"))
            let field = Vector3(try r.finite("field x"), try r.finite("field y"), try r.finite("field z"))
            let accuracy = try r.i32("field accuracy")
            guard (-1...2).contains(accuracy) else { throw .invalidValue(field: "field accuracy", value: "\(accuracy)") }
            try r.skip(4, "padding")
            let heading = try r.finite("heading")
            return .deviceMotion(.motion(DeviceMotionValue(
                time: time, attitude: Quaternion(w: qw, x: qx, y: qy, z: qz), rotationRate: rotation, gravity: gravity,
                userAcceleration: user, magneticField: field, magneticFieldAccuracy: accuracy, heading: heading)))
        case .needsMovement:
            _ = try r.f64("needs-movement time")
            return .deviceMotion(.needsMovement)
        case .altitude:
            let time = try r.finite("altitude time")
            let relative = try r.finite("relative altitude")
            let pressure = try r.finite("pressure")
            let altitude = try r.optionalFinite("absolute altitude")
            let accuracy = try r.optionalFinite("altitude accuracy")
            let precision = try r.optionalFinite("altitude precision")
            var absolute: AbsoluteAltitudeValue?
            if let altitude, let accuracy, let precision {
                absolute = AbsoluteAltitudeValue(altitude: altitude, accuracy: accuracy, precision: precision)
            } else if altitude != nil || accuracy != nil || precision != nil {
                throw .invalidValue(field: "absolute altitude", value: "partly given")
            }
            return .altitude(AltitudeValue(time: time, relativeAltitude: relative, pressure: pressure, absolute: absolute))
        case .pedometerTotals:
            let start = try r.finite("start date")
            let end = try r.finite("end date")
            let steps = try r.u64("steps")
            guard steps <= UInt64(Int32.max) else { throw .invalidValue(field: "steps", value: "\(steps)") }
            let distance = try r.finite("distance")
            let up = try r.u32("floors ascended")
            let down = try r.u32("floors descended")
            let active = try r.finite("active duration")
            let cadence = try r.optionalFinite("cadence")
            let pace = try r.optionalFinite("pace")
            return .pedometer(PedometerTotals(
                start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: end), steps: Int(steps),
                distance: distance, floorsAscended: Int(up), floorsDescended: Int(down), activeDuration: active,
                currentCadence: cadence, currentPace: pace))
        case .pedometerEvent:
            let date = try r.finite("event date")
            let resumed = try r.u8("resumed")
            guard resumed <= 1 else { throw .invalidValue(field: "resumed", value: "\(resumed)") }
            try r.skip(7, "padding")
            return .pedometerEvent(PedometerPauseEvent(date: Date(timeIntervalSince1970: date), resumed: resumed == 1))
        case .activity:
            let start = try r.finite("activity start date")
            let timestamp = try r.finite("activity timestamp")
            let flags = ActivityFlags(rawValue: try r.u8("activity flags"))
            guard ActivityFlags.all.isSuperset(of: flags) else {
                throw .invalidValue(field: "activity flags", value: "0x\(String(flags.rawValue, radix: 16))")
            }
            let rawConfidence = try r.u8("confidence")
            guard let confidence = ActivityConfidence(rawValue: Int(rawConfidence)) else {
                throw .invalidValue(field: "confidence", value: "\(rawConfidence)")
            }
            try r.skip(6, "padding")
            return .activity(ActivityReport(
                startDate: Date(timeIntervalSince1970: start), timestamp: timestamp, flags: flags, confidence: confidence))
        case .recordedAccelerometer:
            let id = try r.u64("identifier")
            let date = try r.finite("sample date")
            let v = Vector3(try r.finite("x"), try r.finite("y"), try r.finite("z"))
            return .recorded(RecordedAccelerometerSample(identifier: id, date: Date(timeIntervalSince1970: date), acceleration: v))
        case .headphoneMotion:
            let time = try r.finite("headphone time")
            let qx = try r.finite("attitude x")
            let qy = try r.finite("attitude y")
            let qz = try r.finite("attitude z")
            let qw = try r.finite("attitude w")
            let rotation = Vector3(try r.finite("rotation x"), try r.finite("rotation y"), try r.finite("rotation z"))
            let user = Vector3(try r.finite("user x"), try r.finite("user y"), try r.finite("user z"))
            let gravity = Vector3(try r.finite("gravity x"), try r.finite("gravity y"), try r.finite("gravity z"))
            let rawLocation = try r.u8("sensor location")
            guard let location = HeadphoneSensorLocation(rawValue: Int(rawLocation)) else {
                throw .invalidValue(field: "sensor location", value: "\(rawLocation)")
            }
            try r.skip(7, "padding")
            return .headphoneMotion(HeadphoneMotionSample(
                time: time, attitude: Quaternion(w: qw, x: qx, y: qy, z: qz), rotationRate: rotation, userAcceleration: user,
                gravity: gravity, location: location))
        case .headphoneConnection:
            let time = try r.finite("connection time")
            let connected = try r.u8("connected")
            guard connected <= 1 else { throw .invalidValue(field: "connected", value: "\(connected)") }
            try r.skip(7, "padding")
            return .headphoneConnection(HeadphoneConnectionState(time: time, isConnected: connected == 1))
        }
    }
}
