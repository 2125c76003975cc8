import MotionSamples

/// The one set of plausibility limits of every phone source (Sensor Logger, phyphox, SensorServer): the
/// range a converted reading must be in to be believed. Beyond it a value is finite but no phone sensor can
/// have produced it (a hostile or corrupted message), and ``LiveDevice`` refuses it with a message (counted
/// in ``LiveDevice/Statistics/refusedReadings``, logged) rather than deliver a silently wrong number. The
/// table is in docs/network.md, "What every phone device does".
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
    /// Least norm of a sent attitude quaternion (a rotation's is 1; one this far off is not a rotation, and
    /// one closer is normalised).
    public static let minimumQuaternionNorm = 0.5
    /// Longest activity label kept, UTF-8 bytes (Apple's and Android's labels are under 20).
    public static let labelBytes = 64

    /// Why `sample` is not believable, or `nil` when it is.
    public static func problem(_ sample: SensorSample) -> String? {
        switch sample {
        case .accelerometer(let v): return check(v.value, acceleration, "g")
        case .gyroscope(let v): return check(v.value, rotationRate, "rad/s")
        case .magnetometer(let v): return check(v.value, magneticField, "µT")
        case .barometer(let p):
            guard p.kilopascals.isFinite else { return "the pressure is not finite" }
            return pressure.contains(p.kilopascals) ? nil : "a pressure of \(p.kilopascals) kPa is outside \(pressure.lowerBound)…\(pressure.upperBound) kPa"
        }
    }

    /// Why `item` is not believable, or `nil` when it is: a raw sample as for a `SensorSample`; a headphone
    /// sample with a non-finite value, an acceleration or rotation rate beyond the phone's limits, or an
    /// attitude that is not a rotation; a fix off the globe.
    public static func problem(_ item: LiveItem) -> String? {
        switch item {
        case .sample(let s):
            return problem(s)
        case .headphone(let h):
            guard h.isFinite else { return "a headphone value is not finite" }
            guard abs(h.attitude.norm - 1) < 1 - minimumQuaternionNorm else { return "a headphone attitude of norm \(h.attitude.norm) is not a rotation" }
            return check(h.rotationRate, rotationRate, "rad/s") ?? check(h.userAcceleration, acceleration, "g") ?? check(h.gravity, acceleration, "g")
        case .location(let fix):
            guard fix.latitude.isFinite, fix.longitude.isFinite, abs(fix.latitude) <= 90, abs(fix.longitude) <= 180 else {
                return "a position of \(fix.latitude), \(fix.longitude) is off the globe"
            }
            return nil
        }
    }

    private static func check(_ v: Vector3, _ limit: Double, _ unit: String) -> String? {
        guard v.isFinite else { return "a value is not finite" }
        let m = max(abs(v.x), abs(v.y), abs(v.z))
        return m > limit ? "a component of \(m) \(unit) is beyond ±\(limit) \(unit)" : nil
    }
}
