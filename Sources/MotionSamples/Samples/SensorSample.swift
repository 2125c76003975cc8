import Foundation

/// The four raw motion sensors a device can have.
public enum SensorKind: String, CaseIterable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Acceleration including gravity, in g, Apple's sign (face-up at rest reads (0, 0, −1)).
    case accelerometer
    /// Rotation rate in rad/s, right-hand rule about each device axis, bias not removed.
    case gyroscope
    /// Magnetic field in µT, uncalibrated (Earth's field plus the device's own bias).
    case magnetometer
    /// Static air pressure in kPa (and temperature in °C where the sensor reports it).
    case barometer

    public var description: String { rawValue }

    /// Unit of the values of this sensor, as delivered (Apple's units).
    public var unit: String {
        switch self {
        case .accelerometer: "g"
        case .gyroscope: "rad/s"
        case .magnetometer: "µT"
        case .barometer: "kPa"
        }
    }
}

/// A three-axis reading at a time.
///
/// `time` is in seconds. On a device it is on the clock of `ProcessInfo.systemUptime`; inside a
/// ``Recording`` it is seconds from the recording's time origin.
@frozen
public struct TimedVector: Sendable, Hashable, Codable {
    public var time: Double
    public var value: Vector3

    @inlinable
    public init(time: Double, value: Vector3) {
        self.time = time
        self.value = value
    }
}

/// A barometer reading: pressure in kPa and, where the sensor reports it, temperature in °C.
@frozen
public struct PressureReading: Sendable, Hashable, Codable {
    public var time: Double
    /// Static pressure in kilopascals.
    public var kilopascals: Double
    /// Sensor temperature in degrees Celsius, when known.
    public var celsius: Double?

    @inlinable
    public init(time: Double, kilopascals: Double, celsius: Double? = nil) {
        self.time = time
        self.kilopascals = kilopascals
        self.celsius = celsius
    }
}

/// One raw sample of one sensor, in Apple's device axes and units.
///
/// Every device (IIO, replay, simulator) produces these; nothing above the device layer ever sees
/// another unit, sign or axis order.
@frozen
public enum SensorSample: Sendable, Hashable {
    /// Acceleration including gravity, g.
    case accelerometer(TimedVector)
    /// Raw rotation rate, rad/s.
    case gyroscope(TimedVector)
    /// Raw magnetic field, µT.
    case magnetometer(TimedVector)
    /// Pressure, kPa.
    case barometer(PressureReading)

    /// The sensor that produced the sample.
    @inlinable
    public var sensor: SensorKind {
        switch self {
        case .accelerometer: .accelerometer
        case .gyroscope: .gyroscope
        case .magnetometer: .magnetometer
        case .barometer: .barometer
        }
    }

    /// Time of the sample, seconds.
    @inlinable
    public var time: Double {
        switch self {
        case .accelerometer(let v), .gyroscope(let v), .magnetometer(let v): v.time
        case .barometer(let p): p.time
        }
    }

    /// The same sample at another time.
    @inlinable
    public func at(time: Double) -> SensorSample {
        switch self {
        case .accelerometer(var v): v.time = time; return .accelerometer(v)
        case .gyroscope(var v): v.time = time; return .gyroscope(v)
        case .magnetometer(var v): v.time = time; return .magnetometer(v)
        case .barometer(var p): p.time = time; return .barometer(p)
        }
    }

    /// The vector of a three-axis sample; `nil` for the barometer.
    @inlinable
    public var vector: Vector3? {
        switch self {
        case .accelerometer(let v), .gyroscope(let v), .magnetometer(let v): v.value
        case .barometer: nil
        }
    }

    /// Builds a three-axis sample of `sensor`; `nil` for the barometer.
    @inlinable
    public static func vector(_ sensor: SensorKind, _ value: TimedVector) -> SensorSample? {
        switch sensor {
        case .accelerometer: .accelerometer(value)
        case .gyroscope: .gyroscope(value)
        case .magnetometer: .magnetometer(value)
        case .barometer: nil
        }
    }
}

/// Standard gravity, m/s² (the value Sensor Logger and Android use to convert g).
public let standardGravity = 9.80665
