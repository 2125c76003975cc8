import MotionSamples

/// Earth's magnetic field at the scene's place, as a geomagnetic model gives it.
public struct EarthMagneticField: Sendable, Hashable, Codable {
    /// Total intensity, µT (25–65 on Earth; about 50 at mid-latitudes).
    public var intensityMicrotesla: Double
    /// Inclination (dip) below the horizontal, degrees, positive downward (northern hemisphere).
    public var inclinationDegrees: Double
    /// Declination: angle from true north to magnetic north, degrees, positive east.
    public var declinationDegrees: Double

    /// A field of `intensityMicrotesla` µT dipping `inclinationDegrees` with `declinationDegrees` declination.
    public init(intensityMicrotesla: Double = 50, inclinationDegrees: Double = 60, declinationDegrees: Double = 0) {
        self.intensityMicrotesla = intensityMicrotesla
        self.inclinationDegrees = inclinationDegrees
        self.declinationDegrees = declinationDegrees
    }

    /// The field in the world frame (x magnetic north, y west, z up), µT: horizontal part along
    /// +x, vertical part down (−z) for a positive inclination.
    public var worldVector: Vector3 {
        let (s, c) = PortableMath.sinCos(PortableMath.radians(inclinationDegrees))
        return Vector3(intensityMicrotesla * c, 0, -intensityMicrotesla * s)
    }

    /// Rotation from the magnetic-north world frame to the true-north frame (x true north, y west,
    /// z up): magnetic north lies `declination` east of true north, i.e. a rotation of −declination
    /// about up.
    public var magneticToTrueNorth: Quaternion {
        let (s, c) = PortableMath.sinCos(-PortableMath.radians(declinationDegrees) / 2)
        return Quaternion(w: c, x: 0, y: 0, z: s)
    }
}

/// The atmosphere: the International Standard Atmosphere's troposphere (ICAO Doc 7488/3; ISO
/// 2533:1975) with a configurable sea-level pressure.
///
/// p(h) = p₀ · (1 − L·H / T₀)^(g₀·M / (R·L)), T₀ = 288.15 K, L = 0.0065 K/m, g₀ = 9.80665 m/s²,
/// M = 0.0289644 kg/mol, R = 8.3144598 J/(mol·K) (exponent 5.25588), with `H = r·h / (r + h)` the
/// geopotential height of the geometric altitude `h` (r = 6 356 766 m, as the U.S. Standard
/// Atmosphere 1976 tables, which this reproduces: 89.876 kPa at 1000 m, 70.121 kPa at 3000 m).
/// Near sea level the pressure falls by about 12 Pa per metre (0.036 kPa per 3 m floor).
public struct Atmosphere: Sendable, Hashable, Codable {
    /// Pressure at sea level, kPa (standard 101.325).
    public var seaLevelPressureKilopascals: Double
    /// Temperature the barometer reports, °C (the phone's own temperature, constant).
    public var sensorTemperatureCelsius: Double

    /// Sea-level temperature T₀, K.
    public static let standardTemperatureKelvin = 288.15
    /// Temperature lapse rate L, K/m.
    public static let lapseRateKelvinPerMetre = 0.0065
    /// Molar mass of dry air M, kg/mol.
    public static let molarMassOfAir = 0.0289644
    /// Universal gas constant R, J/(mol·K).
    public static let gasConstant = 8.3144598

    /// Earth radius used for geopotential height, metres (U.S. Standard Atmosphere 1976).
    public static let earthRadius = 6_356_766.0

    /// g₀·M / (R·L) ≈ 5.25588.
    public static let exponent = standardGravity * molarMassOfAir / (gasConstant * lapseRateKelvinPerMetre)

    /// An atmosphere with `seaLevelPressureKilopascals` kPa at sea level.
    public init(seaLevelPressureKilopascals: Double = 101.325, sensorTemperatureCelsius: Double = 25) {
        self.seaLevelPressureKilopascals = seaLevelPressureKilopascals
        self.sensorTemperatureCelsius = sensorTemperatureCelsius
    }

    /// Static pressure at `altitude` metres above sea level, kPa (valid in the troposphere,
    /// below 11 km).
    public func pressure(altitude: Double) -> Double {
        let geopotential = Atmosphere.earthRadius * altitude / (Atmosphere.earthRadius + altitude)
        let base = 1 - Atmosphere.lapseRateKelvinPerMetre * geopotential / Atmosphere.standardTemperatureKelvin
        return seaLevelPressureKilopascals * PortableMath.pow(base, Atmosphere.exponent)
    }

    /// The altitude at which the pressure is `kilopascals`, metres (the inverse of ``pressure(altitude:)``).
    public func altitude(pressure kilopascals: Double) -> Double {
        let ratio = PortableMath.pow(kilopascals / seaLevelPressureKilopascals, 1 / Atmosphere.exponent)
        let geopotential = Atmosphere.standardTemperatureKelvin / Atmosphere.lapseRateKelvinPerMetre * (1 - ratio)
        return Atmosphere.earthRadius * geopotential / (Atmosphere.earthRadius - geopotential)
    }
}

/// The physical surroundings of a scene.
public struct Environment: Sendable, Hashable, Codable {
    /// Earth's magnetic field.
    public var magneticField: EarthMagneticField
    /// The atmosphere (barometer).
    public var atmosphere: Atmosphere
    /// Local gravity, m/s² (standard 9.80665). The accelerometer still reports in units of standard
    /// gravity, as Apple's does, so a local gravity of 9.81 reads 1.00035 g at rest.
    public var gravity: Double
    /// Latitude, degrees, to add Earth's rotation (7.292115·10⁻⁵ rad/s) to the gyroscope; `nil`
    /// (the default) leaves it out.
    public var latitudeDegrees: Double?

    /// Earth's rotation rate, rad/s (IERS).
    public static let earthRotationRate = 7.292115e-5

    /// Surroundings; the defaults are 50 µT dipping 60°, the standard atmosphere and standard gravity.
    public init(
        magneticField: EarthMagneticField = EarthMagneticField(), atmosphere: Atmosphere = Atmosphere(),
        gravity: Double = standardGravity, latitudeDegrees: Double? = nil
    ) {
        self.magneticField = magneticField
        self.atmosphere = atmosphere
        self.gravity = gravity
        self.latitudeDegrees = latitudeDegrees
    }

    /// Earth's rotation in the world frame (x magnetic north, y west, z up), rad/s, or zero.
    public var earthRotation: Vector3 {
        guard let lat = latitudeDegrees else { return .zero }
        let (s, c) = PortableMath.sinCos(PortableMath.radians(lat))
        // Earth's axis points to true north, tilted up by the latitude; express it in the
        // magnetic frame (true north lies `declination` west of magnetic north).
        let trueNorthAxis = Vector3(c, 0, s) * Environment.earthRotationRate
        return magneticField.magneticToTrueNorth.inverseRotate(trueNorthAxis)
    }
}
