import Foundation

/// The barometric formula of the International Standard Atmosphere (ICAO Doc 7488, troposphere):
///
///     h = (T₀ / L) · (1 − (p / p₀)^(R·L / (g·M)))  ≈  44 330.8 m · (1 − (p / p₀)^0.190263)
///
/// with T₀ = 288.15 K, L = 0.0065 K/m, g = 9.80665 m/s², M = 0.0289644 kg/mol and
/// R = 8.31446 J/(mol·K). Differences of altitude between two pressures measured close in time do not
/// depend on p₀; absolute altitude needs the sea-level pressure of the day (QNH).
public enum BarometricFormula {
    /// ISA sea-level pressure, kPa.
    public static let standardSeaLevelPressure = 101.325
    /// T₀ / L, m.
    public static let scaleHeight = 288.15 / 0.0065
    /// R·L / (g·M).
    public static let exponent = 8.31446 * 0.0065 / (9.80665 * 0.0289644)

    /// Altitude in metres of pressure `kPa` above the level where the pressure is `seaLevel` kPa.
    @inlinable
    public static func altitude(pressure kPa: Double, seaLevel: Double = standardSeaLevelPressure) -> Double {
        scaleHeight * (1 - pow(kPa / seaLevel, exponent))
    }

    /// Pressure in kPa at `altitude` metres when the sea-level pressure is `seaLevel` kPa.
    @inlinable
    public static func pressure(altitude: Double, seaLevel: Double = standardSeaLevelPressure) -> Double {
        seaLevel * pow(1 - altitude / scaleHeight, 1 / exponent)
    }

    /// Metres of altitude per kPa of pressure near `kPa` (the local slope, positive), m/kPa.
    public static func metresPerKilopascal(near kPa: Double) -> Double {
        let d = 0.01
        return (altitude(pressure: kPa - d) - altitude(pressure: kPa + d)) / (2 * d)
    }
}
