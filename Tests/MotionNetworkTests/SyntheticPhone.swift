import Foundation
import MotionEmulation
import MotionRecordings
import MotionSamples

/// A synthetic phone that pushes like Sensor Logger: a device tilted 30° and turning slowly about the
/// vertical, its readings written in the convention of `platform`, 100 Hz motion sensors, a 1 Hz
/// barometer, 250 ms batches, payloads not sorted, times double-rendered.
struct SyntheticPhone {
    enum Platform { case ios, android, iosStandardised }

    var platform: Platform
    var deviceId = "3F2A0C1E-0000-4000-8000-000000000001"
    var sessionId = "9B1D2E3F-0000-4000-8000-00000000000A"
    /// Epoch ns of the first sample.
    var start: Int64 = 1_745_877_875_760_478_500
    var rate = 100.0
    var batch = 0.25
    /// Reading names to send (lowercase).
    var sensors: [String] = ["accelerometeruncalibrated", "gyroscopeuncalibrated", "magnetometeruncalibrated", "barometer"]
    var writer = SensorLoggerPushWriter()
    /// Whether `headphone` readings carry more than the quaternion (an older app sends no rotation rate).
    var headphoneFullReadings = true

    static let field = Vector3(20, 0, -40)
    static let spin = 0.2  // rad/s about the vertical

    /// Attitude (device → x-north z-up, Apple) at `t` seconds.
    static func attitude(_ t: Double) -> Quaternion {
        Quaternion.aboutZ(spin * t) * Quaternion(axis: .unitX, angle: 0.5)
    }

    /// Apple's gravity in device axes, g.
    static func gravity(_ t: Double) -> Vector3 { attitude(t).inverseRotate(Vector3(0, 0, -1)) }

    /// What the device should deliver for a sensor at phone time `t` (Apple's units).
    static func expected(_ sensor: SensorKind, _ t: Double) -> Vector3 {
        switch sensor {
        case .accelerometer: gravity(t)
        case .gyroscope: attitude(t).inverseRotate(Vector3(0, 0, spin))
        case .magnetometer: attitude(t).inverseRotate(field)
        case .barometer: Vector3(101.325, 0, 0)
        }
    }

    var android: Bool { platform != .ios }

    /// The readings of `name` at phone time `t` s (ns `time`).
    func reading(_ name: String, t: Double, time: Int64) -> SensorLoggerPushWriter.Reading? {
        let accuracy: Int? = platform == .android && name.hasSuffix("uncalibrated") ? 3 : nil
        switch name {
        case "accelerometeruncalibrated":
            let g = Self.gravity(t)
            let v = android ? g * -standardGravity : g
            return .vector(name, time: time, v.x, v.y, v.z, accuracy: accuracy)
        case "totalacceleration":
            let v = Self.gravity(t) * -standardGravity
            return .vector(name, time: time, v.x, v.y, v.z)
        case "gravity":
            let v = Self.gravity(t) * (android ? -standardGravity : standardGravity)
            return .vector(name, time: time, v.x, v.y, v.z)
        case "accelerometer":
            return .vector(name, time: time, 0, 0, 0)
        case "gyroscopeuncalibrated", "gyroscope":
            let v = Self.expected(.gyroscope, t)
            return .vector(name, time: time, v.x, v.y, v.z, accuracy: accuracy)
        case "magnetometeruncalibrated", "magnetometer":
            let v = Self.expected(.magnetometer, t)
            return .vector(name, time: time, v.x, v.y, v.z, accuracy: accuracy)
        case "orientation":
            var q = Self.attitude(t)
            if platform == .android { q = AndroidConventions.enuToNorthWestUp.conjugate * q }
            let e = q.appleEulerAngles
            return .init(name: name, time: time, values: [
                ("qx", .number(q.x)), ("qz", .number(q.z)), ("roll", .number(e.roll)), ("qw", .number(q.w)),
                ("qy", .number(q.y)), ("pitch", .number(e.pitch)), ("yaw", .number(e.yaw)),
            ])
        case "barometer":
            return .init(name: name, time: time, values: [("relativeAltitude", .number(0.25 * t)), ("pressure", .number(1013.25))])
        case "headphone":
            let q = Self.attitude(t)
            guard headphoneFullReadings else {
                return .init(name: name, time: time, values: [
                    ("quaternionW", .number(q.w)), ("quaternionX", .number(q.x)), ("quaternionY", .number(q.y)), ("quaternionZ", .number(q.z)),
                ])
            }
            return .init(name: name, time: time, values: [
                ("quaternionW", .number(q.w)), ("quaternionX", .number(q.x)), ("quaternionY", .number(q.y)), ("quaternionZ", .number(q.z)),
                ("rotationRateX", .number(0.1)), ("rotationRateY", .number(0)), ("rotationRateZ", .number(0)),
                ("accelerationX", .number(0.01)), ("accelerationY", .number(0)), ("accelerationZ", .number(0)),
                ("gravityX", .number(0)), ("gravityY", .number(0)), ("gravityZ", .number(-standardGravity)),
                ("devicelocation", .string("left")),
            ])
        case "pedometer":
            return .init(name: name, time: time, values: [("steps", .number((t * 2).rounded(.down)))])
        case "battery":
            return .init(name: name, time: time, values: [("batteryLevel", .number(0.8)), ("batteryState", .string("unplugged")), ("lowPowerMode", .string("False"))])
        default:
            return .init(name: name, time: time, values: [("value", .number(1))])
        }
    }

    /// The epoch ns of sample `i` of a sensor at `rate` (with a little jitter-free phase per sensor).
    func time(_ i: Int, rate: Double, phase: Double) -> Int64 {
        start + Int64(((Double(i) / rate) + phase) * 1e9)
    }

    /// Message `k` (0-based): the readings sampled in [k·batch, (k+1)·batch), shuffled.
    func message(_ k: Int, shuffleSeed: UInt64 = 1) -> [UInt8] {
        var readings: [SensorLoggerPushWriter.Reading] = []
        for (j, name) in sensors.enumerated() {
            let r = (name == "barometer" || name == "pedometer" || name == "battery") ? 1.0 : rate
            // Device-motion readings (Apple's outputs) share one time per instant, as on a real iPhone.
            let deviceMotion = ["gravity", "accelerometer", "orientation", "gyroscope", "magnetometer"].contains(name)
            let phase = deviceMotion ? 0.0025 : Double(j) * 0.0013
            let first = Int((Double(k) * batch * r).rounded(.up))
            var i = first
            while Double(i) / r < Double(k + 1) * batch {
                let t = Double(i) / r + phase
                if let reading = reading(name, t: t, time: time(i, rate: r, phase: phase)) { readings.append(reading) }
                i += 1
            }
        }
        var generator = SeededGenerator(seed: shuffleSeed &+ UInt64(k))
        readings.shuffle(using: &generator)
        return writer.body(messageId: Int64(k), sessionId: sessionId, deviceId: deviceId, readings: readings)
    }

    /// When message `k` arrives at the receiver, seconds after the phone's first sample (one batch late).
    func arrival(_ k: Int) -> Double { Double(k + 1) * batch + 0.005 }
}

/// A small deterministic generator (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
