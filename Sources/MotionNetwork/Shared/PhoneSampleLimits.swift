// Shared helper of the phone network sources (phyphox, SensorServer; branch net-phyphox). At the merge, fold
// with the Sensor Logger server's checks, if it has any.
import MotionSamples

/// The range a converted reading must be in to be believed: beyond it a value is finite but no phone
/// sensor can have produced it (a hostile or corrupted message), and it is refused with a message rather
/// than delivered as a silently wrong number.
public enum PhoneSampleLimits {
    /// Largest accepted acceleration component, g (phone accelerometers saturate at 8–32 g).
    public static let acceleration = 64.0
    /// Largest accepted rotation-rate component, rad/s (gyroscopes saturate at about 35 rad/s).
    public static let rotationRate = 100.0
    /// Largest accepted field component, µT (Earth's field is under 70 µT; uncalibrated iPhone fields
    /// carry offsets of a few thousand).
    public static let magneticField = 10_000.0
    /// Accepted pressure, kPa (from high altitude to far over sea-level pressure).
    public static let pressure = 1.0...200.0

    /// Why `sample` is not believable, or `nil` when it is.
    public static func problem(_ sample: SensorSample) -> String? {
        func check(_ v: Vector3, _ limit: Double, _ unit: String) -> String? {
            guard v.isFinite else { return "a value is not finite" }
            let m = max(abs(v.x), abs(v.y), abs(v.z))
            return m > limit ? "a component of \(m) \(unit) is beyond ±\(limit) \(unit)" : nil
        }
        switch sample {
        case .accelerometer(let v): return check(v.value, acceleration, "g")
        case .gyroscope(let v): return check(v.value, rotationRate, "rad/s")
        case .magnetometer(let v): return check(v.value, magneticField, "µT")
        case .barometer(let p):
            guard p.kilopascals.isFinite else { return "the pressure is not finite" }
            return pressure.contains(p.kilopascals) ? nil : "a pressure of \(p.kilopascals) kPa is outside \(pressure.lowerBound)…\(pressure.upperBound) kPa"
        }
    }
}
