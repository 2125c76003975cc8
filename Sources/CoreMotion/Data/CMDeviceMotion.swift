import Foundation
import MotionSamples

/// One device-motion sample: attitude, bias-corrected rotation rate, gravity and user acceleration,
/// calibrated magnetic field and heading, computed by this library's sensor fusion from the raw
/// sensors (`CMMotionManager`), or by the headset's own fusion for headphone motion
/// (`CMHeadphoneMotionManager`: no magnetic field, heading 0, and the bud in ``sensorLocation``).
open class CMDeviceMotion: CMLogItem {
    /// Where the sensors that produced a sample are.
    public enum SensorLocation: Int, Sendable, Hashable, BitwiseCopyable {
        /// The device itself.
        case `default` = 0
        /// The left headphone.
        case headphoneLeft = 1
        /// The right headphone.
        case headphoneRight = 2
    }

    let storedAttitude: CMAttitude
    let storedRotationRate: CMRotationRate
    let storedGravity: CMAcceleration
    let storedUserAcceleration: CMAcceleration
    let storedMagneticField: CMCalibratedMagneticField
    let storedHeading: Double
    let storedHeadingAccuracy: Double
    let storedSensorLocation: SensorLocation

    /// Orientation relative to the reference frame the updates were started with.
    open var attitude: CMAttitude { storedAttitude }
    /// Rotation rate with the estimated gyroscope bias removed, rad/s.
    open var rotationRate: CMRotationRate { storedRotationRate }
    /// Gravity in device axes, g (norm 1). `gravity + userAcceleration` is the raw accelerometer sample.
    open var gravity: CMAcceleration { storedGravity }
    /// Acceleration the user gives the device, gravity removed, g, device axes.
    open var userAcceleration: CMAcceleration { storedUserAcceleration }
    /// Magnetic field without the device's own bias, µT, and its calibration accuracy
    /// (`.uncalibrated` without a magnetometer).
    open var magneticField: CMCalibratedMagneticField { storedMagneticField }
    /// Heading in degrees, 0 ≤ h < 360, relative to the reference frame's x axis for the north frames;
    /// negative for the arbitrary frames.
    open var heading: Double { storedHeading }
    /// Estimated heading error, degrees; negative when ``heading`` is invalid.
    open var headingAccuracy: Double { storedHeadingAccuracy }
    /// Where the sensors are: `.default` (the device) for `CMMotionManager`; for `CMHeadphoneMotionManager` the
    /// bud that measured the sample (`.headphoneLeft`, `.headphoneRight`, or `.default` when the source does
    /// not say).
    open var sensorLocation: SensorLocation { storedSensorLocation }

    /// A sample with the identity attitude, zero vectors, an uncalibrated field, heading −1 and
    /// timestamp 0 (the library makes the samples it delivers; an app's subclass may override the
    /// properties, to fake data in its tests).
    public override init() {
        storedAttitude = CMAttitude()
        storedRotationRate = CMRotationRate()
        storedGravity = CMAcceleration()
        storedUserAcceleration = CMAcceleration()
        storedMagneticField = CMCalibratedMagneticField()
        storedHeading = -1
        storedHeadingAccuracy = -1
        storedSensorLocation = .default
        super.init()
    }

    init(
        timestamp: TimeInterval, attitude: Quaternion, rotationRate: Vector3, gravity: Vector3,
        userAcceleration: Vector3, magneticField: Vector3, accuracy: CMMagneticFieldCalibrationAccuracy,
        heading: Double, headingAccuracy: Double, sensorLocation: SensorLocation = .default
    ) {
        storedAttitude = CMAttitude(attitude)
        storedRotationRate = CMRotationRate(x: rotationRate.x, y: rotationRate.y, z: rotationRate.z)
        storedGravity = CMAcceleration(x: gravity.x, y: gravity.y, z: gravity.z)
        storedUserAcceleration = CMAcceleration(x: userAcceleration.x, y: userAcceleration.y, z: userAcceleration.z)
        storedMagneticField = CMCalibratedMagneticField(
            field: CMMagneticField(x: magneticField.x, y: magneticField.y, z: magneticField.z), accuracy: accuracy
        )
        storedHeading = heading
        storedHeadingAccuracy = headingAccuracy
        storedSensorLocation = sensorLocation
        super.init(timestamp: timestamp)
    }

    /// Encodes every field of the sample.
    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(storedAttitude, forKey: "attitude")
        coder.encodeVector(storedRotationRate.x, storedRotationRate.y, storedRotationRate.z, prefix: "rotationRate")
        coder.encodeVector(storedGravity.x, storedGravity.y, storedGravity.z, prefix: "gravity")
        coder.encodeVector(storedUserAcceleration.x, storedUserAcceleration.y, storedUserAcceleration.z, prefix: "userAcceleration")
        let f = storedMagneticField.field
        coder.encodeVector(f.x, f.y, f.z, prefix: "magneticField")
        coder.encode(Int(storedMagneticField.accuracy.rawValue), forKey: "magneticField.accuracy")
        coder.encode(storedHeading, forKey: "heading")
        coder.encode(storedHeadingAccuracy, forKey: "headingAccuracy")
        coder.encode(storedSensorLocation.rawValue, forKey: "sensorLocation")
    }

    /// Decodes a sample written by `encode(with:)`.
    public required init?(coder: NSCoder) {
        storedAttitude = coder.decodeObject(of: CMAttitude.self, forKey: "attitude") ?? CMAttitude()
        let r = coder.decodeVector(prefix: "rotationRate")
        storedRotationRate = CMRotationRate(x: r.0, y: r.1, z: r.2)
        let g = coder.decodeVector(prefix: "gravity")
        storedGravity = CMAcceleration(x: g.0, y: g.1, z: g.2)
        let u = coder.decodeVector(prefix: "userAcceleration")
        storedUserAcceleration = CMAcceleration(x: u.0, y: u.1, z: u.2)
        let f = coder.decodeVector(prefix: "magneticField")
        let accuracy = CMMagneticFieldCalibrationAccuracy(rawValue: Int32(coder.decodeInteger(forKey: "magneticField.accuracy"))) ?? .uncalibrated
        storedMagneticField = CMCalibratedMagneticField(field: CMMagneticField(x: f.0, y: f.1, z: f.2), accuracy: accuracy)
        storedHeading = coder.decodeDouble(forKey: "heading")
        storedHeadingAccuracy = coder.decodeDouble(forKey: "headingAccuracy")
        storedSensorLocation = SensorLocation(rawValue: coder.decodeInteger(forKey: "sensorLocation")) ?? .default
        super.init(coder: coder)
    }
}

/// Historical device motion recorded for later retrieval (a 27.x beta type on Apple's platforms, with
/// no public producer yet; it exists here as a data type).
open class CMRecordedDeviceMotion: CMDeviceMotion {
    let storedIdentifier: UInt64
    let storedStartDate: Date

    /// Unique identifier of the sample.
    open var identifier: UInt64 { storedIdentifier }
    /// Wall-clock time of the sample.
    open var startDate: Date { storedStartDate }

    /// A sample as ``CMDeviceMotion/init()`` makes it, with identifier 0, dated 2001-01-01.
    public override init() {
        storedIdentifier = 0
        storedStartDate = Date(timeIntervalSinceReferenceDate: 0)
        super.init()
    }

    /// Encodes the device-motion fields, the identifier and the start date.
    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(Int64(bitPattern: storedIdentifier), forKey: "identifier")
        coder.encode(storedStartDate.timeIntervalSinceReferenceDate, forKey: "startDate")
    }

    /// Decodes a sample written by `encode(with:)`.
    public required init?(coder: NSCoder) {
        storedIdentifier = UInt64(bitPattern: coder.decodeInt64(forKey: "identifier"))
        storedStartDate = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "startDate"))
        super.init(coder: coder)
    }
}
