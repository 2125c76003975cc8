import Foundation
import MotionRecordings
import MotionSamples

/// Which Sensor Logger reading feeds each raw sensor of a phone, and how one reading becomes a sample in
/// Apple's units and axes (NETWORK.md §1, conventions in `SensorLoggerConvention`).
///
/// The one conversion of Sensor Logger readings to raw samples: a live phone (``SensorLoggerPhone``) uses it
/// on every push, an ingest node's engines on the readings it stored, so both give the same samples.
///
/// | reading | becomes |
/// |---|---|
/// | `accelerometeruncalibrated` (else `totalacceleration`, else `gravity` + `accelerometer` of the same instant) | the raw accelerometer, g |
/// | `gyroscopeuncalibrated` (else `gyroscope`) | the raw gyroscope, rad/s |
/// | `magnetometeruncalibrated` (else `magnetometer`) | the raw magnetometer, µT |
/// | `barometer` `pressure` | the barometer, kPa (hPa ÷ 10) |
///
/// The source of each raw sensor is chosen by the first message that has one (the uncalibrated reading when
/// present) and kept, so two sources never interleave.
public struct SensorLoggerRawSources: Sendable, Hashable {
    /// The reading chosen for each raw sensor (`.gravity` for the accelerometer: gravity + accelerometer).
    public private(set) var sources: [SensorKind: SensorLoggerSensor] = [:]

    /// No source chosen yet.
    public init() {}

    /// The reading chosen for the accelerometer, if any (`.gravity`: the sum of `gravity` and `accelerometer`).
    public var accelerometer: SensorLoggerSensor? { sources[.accelerometer] }

    /// What one reading gives.
    public enum Conversion: Sendable, Hashable {
        /// A raw sensor's sample, in Apple's units and axes, at the time given.
        case sample(SensorSample)
        /// A `gravity` or `accelerometer` (user acceleration) reading, in g with Apple's sign: half of the raw
        /// accelerometer when ``SensorLoggerRawSources/accelerometer`` is `.gravity` (add the two parts of
        /// the same instant, ``rawAcceleration(gravity:user:)``).
        case motionPart(Vector3)
        /// A raw sensor's reading whose sensor takes another reading as its source.
        case notSource
        /// An acceleration while the phone's convention is not decided.
        case undecided
        /// Missing or non-finite values.
        case malformed
        /// Not a raw sensor's reading.
        case other
    }

    /// Chooses each raw sensor's source from the reading names of a message, for the sensors without one.
    public mutating func choose(from message: SensorLoggerMessage) {
        guard sources.count < 3 else { return }
        var present = Set<String>()
        for r in message.readings { present.insert(r.sensor.name) }
        choose(present: present)
    }

    /// Chooses each raw sensor's source from the reading names present (normalised wire names), for the
    /// sensors without one.
    public mutating func choose(present: Set<String>) {
        func has(_ s: SensorLoggerSensor) -> Bool { present.contains(s.name) }
        if sources[.accelerometer] == nil {
            if has(.accelerometerUncalibrated) { sources[.accelerometer] = .accelerometerUncalibrated }
            else if has(.totalAcceleration) { sources[.accelerometer] = .totalAcceleration }
            else if has(.gravity) && has(.accelerometer) { sources[.accelerometer] = .gravity }
        }
        if sources[.gyroscope] == nil {
            if has(.gyroscopeUncalibrated) { sources[.gyroscope] = .gyroscopeUncalibrated } else if has(.gyroscope) { sources[.gyroscope] = .gyroscope }
        }
        if sources[.magnetometer] == nil {
            if has(.magnetometerUncalibrated) { sources[.magnetometer] = .magnetometerUncalibrated } else if has(.magnetometer) { sources[.magnetometer] = .magnetometer }
        }
    }

    /// The sources in words, by sensor name (for listings).
    public var summary: [String: String] {
        Dictionary(uniqueKeysWithValues: sources.map { ($0.key.rawValue, $0.value == .gravity ? "gravity + accelerometer" : $0.value.name) })
    }

    /// Converts one reading of `message` taken at `time` (seconds, on whatever clock the caller keeps).
    public func convert(
        _ r: SensorLoggerReading, in message: SensorLoggerMessage, time t: TimeInterval, decision: SensorLoggerConventionDecision?
    ) -> Conversion {
        switch r.sensor {
        case .accelerometerUncalibrated, .totalAcceleration:
            guard let v = message.vector(in: r) else { return .malformed }
            guard let decision else { return .undecided }
            guard sources[.accelerometer] == r.sensor else { return .notSource }
            let g = r.sensor == .totalAcceleration ? SensorLoggerConvention.totalAcceleration(v) : decision.convention.rawAcceleration(v)
            return .sample(.accelerometer(TimedVector(time: t, value: g)))
        case .accelerometer, .gravity:
            guard let v = message.vector(in: r) else { return .malformed }
            guard let decision else { return .undecided }
            return .motionPart(decision.convention.motionAcceleration(v))
        case .gyroscopeUncalibrated, .gyroscope, .magnetometerUncalibrated, .magnetometer:
            guard let v = message.vector(in: r) else { return .malformed }
            let kind: SensorKind = (r.sensor == .gyroscope || r.sensor == .gyroscopeUncalibrated) ? .gyroscope : .magnetometer
            guard sources[kind] == r.sensor else { return .notSource }
            return .sample(kind == .gyroscope ? .gyroscope(TimedVector(time: t, value: v)) : .magnetometer(TimedVector(time: t, value: v)))
        case .barometer:
            guard let hPa = message.number(.pressure, in: r) else { return .other }
            return .sample(.barometer(PressureReading(time: t, kilopascals: SensorLoggerConvention.kilopascals(hectopascals: hPa))))
        default:
            return .other
        }
    }

    /// Apple's raw acceleration of an instant from its two parts (both in g, Apple's sign): gravity + user
    /// acceleration.
    public static func rawAcceleration(gravity: Vector3, user: Vector3) -> Vector3 { gravity + user }
}

extension SensorLoggerSensor {
    /// The sensor of a normalised wire name (lowercased, spaces removed, as ``name`` gives it): a known
    /// sensor, else `.other(name)`.
    public init(name: String) {
        self = Self.known.first { $0.0 == name }?.1 ?? .other(name)
    }
}

extension SensorLoggerField {
    /// The field of a wire key (``key``), or `nil` for a key the decoder does not keep.
    public init?(key: String) {
        guard let field = Self.allCases.first(where: { $0.key == key }) else { return nil }
        self = field
    }
}
