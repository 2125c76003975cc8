import MotionSamples

/// The errors of one simulated sensor, in that sensor's units (g, rad/s, µT or kPa).
///
/// A three-axis reading is `quantise(clamp(T·truth + bias + b_rw(t) + n))`: `T` the linear
/// transform (scale-factor and cross-axis errors; for the magnetometer the soft-iron matrix),
/// `bias` constant (for the magnetometer the hard-iron offset), `b_rw` a random walk starting at
/// zero, `n` white noise. The barometer uses the x components of the vectors.
///
/// White noise is given as a density `N` (units/√Hz) and sampled with the standard deviation
/// `σ = N·√(f/2)` at rate `f`: white noise of one-sided density N band-limited to the Nyquist
/// frequency, as datasheets specify it (e.g. ST's "RMS noise related to BW = ODR/2"). The random
/// walk adds `K·√Δt·N(0,1)` every sample (`K` in units/√s).
public struct SensorErrorModel: Sendable, Hashable, Codable {
    /// White-noise density, units/√Hz.
    public var noiseDensity: Double
    /// Constant bias, units (magnetometer: hard-iron offset).
    public var bias: Vector3
    /// Bias random-walk coefficient, units/√s (0 = none).
    public var biasRandomWalk: Double
    /// Linear transform applied to the true value: identity = no scale or cross-axis error.
    /// For the magnetometer this is the soft-iron matrix.
    public var transform: Matrix3
    /// Quantisation step, units (`nil` = none).
    public var resolution: Double?
    /// Full-scale range: readings are clamped to ±range, units (`nil` = unlimited).
    public var range: Double?

    /// An error model; the defaults add no error.
    public init(
        noiseDensity: Double = 0, bias: Vector3 = .zero, biasRandomWalk: Double = 0,
        transform: Matrix3 = .identity, resolution: Double? = nil, range: Double? = nil
    ) {
        self.noiseDensity = noiseDensity
        self.bias = bias
        self.biasRandomWalk = biasRandomWalk
        self.transform = transform
        self.resolution = resolution
        self.range = range
    }

    /// No error at all: readings are the exact physical values.
    public static let ideal = SensorErrorModel()

    /// The transform of scale-factor errors `s` (fractions: 0.01 = reads 1 % high) and a small axis
    /// misalignment `m` (a rotation vector of the sensor axes against the device axes, radians):
    /// `T = (I + diag(s)) · (I − [m]×)` to first order in `m`.
    public static func transform(scaleFactorError s: Vector3, misalignment m: Vector3 = .zero) -> Matrix3 {
        let scale = Matrix3.diagonal(Vector3(1 + s.x, 1 + s.y, 1 + s.z))
        let skew = Matrix3(0, -m.z, m.y, m.z, 0, -m.x, -m.y, m.x, 0)
        return scale * (Matrix3.identity - skew)
    }

    /// True when the model adds no error at all.
    public var isIdeal: Bool {
        noiseDensity == 0 && bias == .zero && biasRandomWalk == 0 && transform == .identity
            && resolution == nil && range == nil
    }

    /// Standard deviation of the white noise per sample at `rate` Hz, units.
    public func noiseStandardDeviation(rate: Double) -> Double { noiseDensity * (rate / 2).squareRoot() }

    // MARK: Defaults (cited)

    /// Accelerometer, g: 60 µg/√Hz white noise (ST LSM6DSV datasheet, typical, high-performance
    /// mode: a current phone-class IMU), a constant bias of a few mg (within the ±20 mg zero-g
    /// offset such parts specify), and a 20 µg/√s bias random walk (about 1 mg of drift per hour).
    public static let phoneAccelerometer = SensorErrorModel(
        noiseDensity: 60e-6, bias: Vector3(0.004, -0.003, 0.006), biasRandomWalk: 20e-6
    )

    /// Gyroscope, rad/s: 2.8 mdps/√Hz = 4.9·10⁻⁵ rad/s/√Hz white noise (ST LSM6DSV datasheet,
    /// typical), a constant bias of about 0.1 °/s (what remains after factory calibration; the raw
    /// zero-rate level of such parts is specified at ±1 °/s) and a 10⁻⁵ rad/s/√s bias random walk.
    public static let phoneGyroscope = SensorErrorModel(
        noiseDensity: PortableMath.radians(2.8e-3), bias: Vector3(0.0020, -0.0015, 0.0010), biasRandomWalk: 1e-5
    )

    /// Magnetometer, µT: 0.05 µT/√Hz white noise (0.35 µT r.m.s. at 100 Hz, comparable with the
    /// ~0.3 µT resolution of the Bosch BMM150 datasheet), and a hard-iron offset of tens of µT from
    /// the phone's own parts (real iPhone recordings show uncalibrated offsets of that size), no
    /// soft iron.
    public static let phoneMagnetometer = SensorErrorModel(
        noiseDensity: 0.05, bias: Vector3(12, -7, 20), biasRandomWalk: 0.002
    )

    /// Barometer, kPa: 1.5 Pa/√Hz white noise (1.1 Pa r.m.s. at 1 Hz; the Bosch BMP280 datasheet
    /// gives a relative accuracy of ±0.12 hPa and a noise of about 1.3 Pa in its low-power modes)
    /// and a slow 0.02 Pa/√s random walk standing for sensor drift and weather.
    public static let phoneBarometer = SensorErrorModel(
        noiseDensity: 0.0015, bias: .zero, biasRandomWalk: 0.00002
    )
}

/// One simulated sensor: whether it exists, its rate and its errors.
public struct SimulatedSensor: Sendable, Hashable, Codable {
    /// Sample rate, Hz.
    public var rate: Double
    /// The sensor's errors.
    public var errors: SensorErrorModel
    /// Time of the first sample, seconds into the scene (lets sensors run out of step, as real
    /// ones do); must be in [0, 1/rate).
    public var startOffset: Double

    /// A sensor sampling at `rate` Hz from `startOffset` s.
    public init(rate: Double, errors: SensorErrorModel, startOffset: Double = 0) {
        self.rate = rate
        self.errors = errors
        self.startOffset = startOffset
    }
}

/// The sensors of a simulated device. A `nil` sensor is absent.
///
/// Default rates: accelerometer, gyroscope and magnetometer 100 Hz (Core Motion's documented
/// maximum update rate for apps, and what an iPhone 13 delivers: median interval 9.93 ms in the
/// Sensor Logger recording in `shared/data/iphone13-walk-sensorlogger`); barometer 1 Hz (an
/// iPhone's altimeter updates about once a second: 1.06 s median interval in that recording; and
/// reinforce-lab's 2014 iPhone 6 measurement, "once per second", no way to set the rate).
public struct SensorSuite: Sendable, Hashable, Codable {
    /// The accelerometer (g).
    public var accelerometer: SimulatedSensor?
    /// The gyroscope (rad/s).
    public var gyroscope: SimulatedSensor?
    /// The magnetometer (µT).
    public var magnetometer: SimulatedSensor?
    /// The barometer (kPa).
    public var barometer: SimulatedSensor?

    /// The sensors; by default a phone's four with ``SensorErrorModel``'s phone defaults.
    public init(
        accelerometer: SimulatedSensor? = SimulatedSensor(rate: 100, errors: .phoneAccelerometer),
        gyroscope: SimulatedSensor? = SimulatedSensor(rate: 100, errors: .phoneGyroscope),
        magnetometer: SimulatedSensor? = SimulatedSensor(rate: 100, errors: .phoneMagnetometer),
        barometer: SimulatedSensor? = SimulatedSensor(rate: 1, errors: .phoneBarometer)
    ) {
        self.accelerometer = accelerometer
        self.gyroscope = gyroscope
        self.magnetometer = magnetometer
        self.barometer = barometer
    }

    /// A phone's four sensors with the default rates and errors.
    public static let phone = SensorSuite()

    /// The same sensors and rates with every error removed: readings are exact.
    public var ideal: SensorSuite {
        var out = self
        for kind in SensorKind.allCases { out[kind]?.errors = .ideal }
        return out
    }

    /// The sensor of `kind`, if present.
    public subscript(kind: SensorKind) -> SimulatedSensor? {
        get {
            switch kind {
            case .accelerometer: accelerometer
            case .gyroscope: gyroscope
            case .magnetometer: magnetometer
            case .barometer: barometer
            }
        }
        set {
            switch kind {
            case .accelerometer: accelerometer = newValue
            case .gyroscope: gyroscope = newValue
            case .magnetometer: magnetometer = newValue
            case .barometer: barometer = newValue
            }
        }
    }
}
