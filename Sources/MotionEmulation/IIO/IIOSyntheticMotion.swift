import Foundation
import MotionIIO
import MotionSamples

/// A hand-held device moving gently, as an endless ``SampleSource`` of physically consistent raw
/// samples in Apple's axes and units: the emulator's default input when no recording or simulator
/// scene is given.
///
/// Orientation follows slow sinusoids in roll, pitch and yaw (Apple's convention,
/// ``Quaternion/init(appleRoll:pitch:yaw:)``); the gyroscope reads the body rate that moves it
/// (plus a constant bias and noise), the accelerometer reads gravity in device axes (face-up reads
/// (0, 0, −1) g) plus small hand tremor, the magnetometer reads a 47 µT field with a 64° dip plus a
/// hard-iron offset, and the barometer reads about 101.3 kPa at 24 °C. Noise comes from a seeded
/// generator, so a seed gives the same stream every run.
public struct IIOSyntheticMotion: SampleSource {
    /// Samples per second of each sensor.
    public let rate: Double
    /// All four sensors at ``rate``.
    public let sensors: [SensorKind: SensorDescription]
    private let seed: UInt64
    private var state: UInt64
    private var step = 0
    private var pendingKinds: [SensorKind] = []
    private var pendingTime = 0.0

    /// Samples every sensor at `rate` Hz.
    public init(rate: Double = 100, seed: UInt64 = 0x5EED) {
        precondition(rate > 0 && rate.isFinite, "rate must be positive")
        self.rate = rate
        self.seed = seed
        self.state = seed | 1
        var s: [SensorKind: SensorDescription] = [:]
        for k in SensorKind.allCases {
            s[k] = SensorDescription(kind: k, name: "synthetic hand-held motion", minimumRate: rate, maximumRate: rate)
        }
        sensors = s
    }

    /// Device → reference rotation at time `t` seconds.
    public static func attitude(at t: Double) -> Quaternion {
        let roll = 0.20 * sin(2 * Double.pi * 0.30 * t)
        let pitch = 0.50 + 0.15 * sin(2 * Double.pi * 0.20 * t + 1)
        let yaw = 0.40 * sin(2 * Double.pi * 0.05 * t)
        return Quaternion(appleRoll: roll, pitch: pitch, yaw: yaw)
    }

    /// Field in the reference frame (x east, y north, z up), µT: 47 µT, dip 64° down.
    public static let earthField = Vector3(0, 47 * cos(64 * Double.pi / 180), -47 * sin(64 * Double.pi / 180))
    static let gyroBias = Vector3(0.010, -0.005, 0.003)
    static let hardIron = Vector3(5, -3, 8)

    private mutating func noise() -> Double {
        // xorshift64*, then a sum of uniforms ≈ normal(0, 1).
        var sum = 0.0
        for _ in 0..<4 {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            let v = state &* 2_685_821_657_736_338_717
            sum += Double(v >> 11) / Double(1 << 53) - 0.5
        }
        return sum * (3.0).squareRoot()
    }

    private mutating func noiseVector(_ sigma: Double) -> Vector3 { Vector3(noise(), noise(), noise()) * sigma }

    /// The next sample in time order (endless).
    public mutating func next() -> SensorSample? {
        if pendingKinds.isEmpty {
            pendingKinds = [.accelerometer, .gyroscope, .magnetometer, .barometer]
            pendingTime = Double(step) / rate
            step += 1
        }
        let kind = pendingKinds.removeFirst()
        let t = pendingTime
        let q = IIOSyntheticMotion.attitude(at: t)
        switch kind {
        case .accelerometer:
            let g = q.inverseRotate(Vector3(0, 0, -1))
            return .accelerometer(TimedVector(time: t, value: g + noiseVector(0.004)))
        case .gyroscope:
            let dt = 1e-3
            let delta = q.conjugate * IIOSyntheticMotion.attitude(at: t + dt)
            let omega = delta.rotationVector / dt
            return .gyroscope(TimedVector(time: t, value: omega + IIOSyntheticMotion.gyroBias + noiseVector(0.002)))
        case .magnetometer:
            let b = q.inverseRotate(IIOSyntheticMotion.earthField) + IIOSyntheticMotion.hardIron
            return .magnetometer(TimedVector(time: t, value: b + noiseVector(0.3)))
        case .barometer:
            let kPa = 101.3 + 0.002 * sin(2 * Double.pi * 0.01 * t) + 0.0005 * noise()
            return .barometer(PressureReading(time: t, kilopascals: kPa, celsius: 24 + 0.05 * noise()))
        }
    }

    /// Starts the motion again from time 0 with the same noise.
    public mutating func rewind() {
        state = seed | 1
        step = 0
        pendingKinds = []
    }
}
