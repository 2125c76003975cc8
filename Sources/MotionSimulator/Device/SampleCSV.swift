import MotionSamples

/// The simulator's plain-text export: one sample per line, `time,sensor,x,y,z`.
///
/// Times are scene seconds; values are in Apple's units (g, rad/s, µT); a barometer line carries
/// kPa in `x`, °C in `y` and nothing in `z`. Numbers are written in Swift's shortest round-trip
/// form, so reading them back gives the identical doubles.
public enum SampleCSV {
    /// The header line.
    public static let header = "time,sensor,x,y,z"

    /// One line (without the newline) for `sample`.
    public static func line(_ sample: SensorSample) -> String {
        switch sample {
        case .accelerometer(let v), .gyroscope(let v), .magnetometer(let v):
            return "\(v.time),\(sample.sensor.rawValue),\(v.value.x),\(v.value.y),\(v.value.z)"
        case .barometer(let p):
            return "\(p.time),barometer,\(p.kilopascals),\(p.celsius.map { "\($0)" } ?? ""),"
        }
    }

    /// Header of the ground-truth export: attitude quaternion (device → x magnetic north, y west,
    /// z up), gravity and user acceleration (g, device axes, Apple's conventions), rotation rate
    /// (rad/s), position (m), altitude and floor altitude (m above sea level), pressure (kPa),
    /// steps since the start.
    public static let truthHeader = "time,qw,qx,qy,qz,gravity_x,gravity_y,gravity_z,user_x,user_y,user_z,"
        + "rate_x,rate_y,rate_z,north,west,altitude,floor_altitude,pressure,steps"

    /// One ground-truth line (without the newline).
    public static func truthLine(_ t: GroundTruth) -> String {
        let q = t.attitude
        let fields: [Double] = [
            t.time, q.w, q.x, q.y, q.z, t.gravity.x, t.gravity.y, t.gravity.z,
            t.userAcceleration.x, t.userAcceleration.y, t.userAcceleration.z,
            t.rotationRate.x, t.rotationRate.y, t.rotationRate.z,
            t.position.x, t.position.y, t.altitude, t.floorAltitude, t.pressure,
        ]
        return fields.map { "\($0)" }.joined(separator: ",") + ",\(t.stepCount)"
    }

    /// Parses one sample line back (the inverse of ``line(_:)``); `nil` for a malformed line.
    public static func parse(_ line: Substring) -> SensorSample? {
        let f = line.split(separator: ",", omittingEmptySubsequences: false)
        guard f.count == 5, let t = Double(f[0]), let kind = SensorKind(rawValue: String(f[1])), let x = Double(f[2]) else {
            return nil
        }
        if kind == .barometer { return .barometer(PressureReading(time: t, kilopascals: x, celsius: Double(f[3]))) }
        guard let y = Double(f[3]), let z = Double(f[4]) else { return nil }
        return SensorSample.vector(kind, TimedVector(time: t, value: Vector3(x, y, z)))
    }
}
