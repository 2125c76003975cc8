import Foundation

/// Sensor Logger's `headphone` values (a `Headphone.csv` row, or the `values` of a pushed
/// `{"name": "headphone", "time": ns, "values": {…}}` reading) as a ``HeadphoneMotionSample`` in Core Motion's
/// units: the one conversion of this app's headphone fields, for the CSV reader and for a live receiver.
///
/// Fields (tszheichoi/awesome-sensor-logger `PUSHING.md` `HeadphoneReading`, `UNITS.md`): `quaternionW…Z`
/// (Core Motion's attitude; from `roll, pitch, yaw` in rad when absent), `rotationRateX…Z` rad/s (app 1.30+;
/// zero when absent), `accelerationX…Z` user acceleration in g, `gravityX…Z` in **m/s²** (Core Motion's g ×
/// 9.80665), `devicelocation` `left`/`right`.
///
/// The push stream does not say whether "Standardise Units & Frames" is on (then the attitude is in Android's
/// convention): a receiver checks ``agreesWithCoreMotion(_:)`` on the first samples and refuses the stream
/// otherwise, as the CSV reader refuses such an export.
public enum SensorLoggerHeadphone {
    /// The reading's name in a push.
    public static let readingName = "headphone"

    /// The sample of one reading, or `nil` when a needed field is missing or not a finite number.
    ///
    /// - Parameters:
    ///   - time: the sample's time on the receiver's clock, seconds (the reading's UTC ns mapped to uptime).
    ///   - value: the reading's numeric field of that name.
    ///   - location: the `devicelocation` text, if any.
    public static func sample(time: Double, value: (String) -> Double?, location: String?) -> HeadphoneMotionSample? {
        func vector(_ prefix: String) -> Vector3? {
            guard let x = value(prefix + "X"), let y = value(prefix + "Y"), let z = value(prefix + "Z") else { return nil }
            return Vector3(x, y, z)
        }
        let attitude: Quaternion
        if let w = value("quaternionW"), let x = value("quaternionX"), let y = value("quaternionY"), let z = value("quaternionZ") {
            attitude = HeadphoneRecordingReader.asRecorded(Quaternion(w: w, x: x, y: y, z: z))
        } else if let roll = value("roll"), let pitch = value("pitch"), let yaw = value("yaw") {
            attitude = Quaternion(appleRoll: roll, pitch: pitch, yaw: yaw)
        } else {
            return nil
        }
        guard let user = vector("acceleration"), let gravity = vector("gravity") else { return nil }
        let sample = HeadphoneMotionSample(
            time: time, attitude: attitude, rotationRate: vector("rotationRate") ?? .zero, userAcceleration: user,
            gravity: gravity / standardGravity, location: location.flatMap(HeadphoneSensorLocation.init(name:)) ?? .unknown)
        return sample.isFinite ? sample : nil
    }

    /// Whether the sample's attitude and gravity agree under Core Motion's convention (`gravity = −(third row
    /// of R(q))`, within 0.1 rad): false for a stream in Android's convention.
    public static func agreesWithCoreMotion(_ sample: HeadphoneMotionSample) -> Bool {
        guard sample.gravity.norm > 0.1 else { return true }
        return gravity(of: sample.attitude).angle(to: sample.gravity) < 0.1
    }
}
