import Foundation

/// One altimeter update as a client receives it (`CMAltitudeData`, and `CMAbsoluteAltitudeData` when a
/// reference is known).
@frozen
public struct AltitudeValue: Sendable, Hashable {
    /// Timestamp, seconds on the `systemUptime` clock.
    public var time: Double
    /// Altitude change since this client's first update, m.
    public var relativeAltitude: Double
    /// Pressure, kPa.
    public var pressure: Double
    /// Absolute altitude, when a reference is configured and asked for.
    public var absolute: AbsoluteAltitudeValue?

    public init(time: Double, relativeAltitude: Double, pressure: Double, absolute: AbsoluteAltitudeValue? = nil) {
        self.time = time
        self.relativeAltitude = relativeAltitude
        self.pressure = pressure
        self.absolute = absolute
    }
}

/// Altitude above mean sea level.
@frozen
public struct AbsoluteAltitudeValue: Sendable, Hashable {
    /// Metres above mean sea level.
    public var altitude: Double
    /// Uncertainty (1 σ), m.
    public var accuracy: Double
    /// Display resolution, m.
    public var precision: Double

    public init(altitude: Double, accuracy: Double, precision: Double) {
        self.altitude = altitude
        self.accuracy = accuracy
        self.precision = precision
    }
}
