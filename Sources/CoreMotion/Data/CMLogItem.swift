import Foundation

/// The base class of every timestamped Core Motion sample.
///
/// Samples are immutable; `copy()` returns the same object. Subclasses may be made by apps (for
/// example to fake data in their tests) and may override the read-only properties.
open class CMLogItem: NSObject, NSCopying, NSSecureCoding {
    let storedTimestamp: TimeInterval

    /// When the sample was taken, in seconds since the device booted (the time base of
    /// `ProcessInfo.processInfo.systemUptime`).
    open var timestamp: TimeInterval { storedTimestamp }

    /// A sample with timestamp 0.
    public override init() {
        storedTimestamp = 0
        super.init()
    }

    init(timestamp: TimeInterval) {
        storedTimestamp = timestamp
        super.init()
    }

    /// `true`: every sample supports `NSSecureCoding`, so it decodes with `decodeObject(of:forKey:)`.
    public class var supportsSecureCoding: Bool { true }

    /// Encodes the timestamp (key `timestamp`); each subclass adds its own fields.
    open func encode(with coder: NSCoder) {
        coder.encode(storedTimestamp, forKey: "timestamp")
    }

    /// Decodes a sample written by `encode(with:)`.
    public required init?(coder: NSCoder) {
        storedTimestamp = coder.decodeDouble(forKey: "timestamp")
        super.init()
    }

    /// Returns the receiver itself: samples are immutable.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// The class name and the timestamp, for logs.
    open override var description: String { String(format: "%@ @ %f", String(describing: type(of: self)), timestamp) }
}

extension NSCoder {
    func encodeVector(_ x: Double, _ y: Double, _ z: Double, prefix: String) {
        encode(x, forKey: prefix + ".x")
        encode(y, forKey: prefix + ".y")
        encode(z, forKey: prefix + ".z")
    }

    func decodeVector(prefix: String) -> (Double, Double, Double) {
        (decodeDouble(forKey: prefix + ".x"), decodeDouble(forKey: prefix + ".y"), decodeDouble(forKey: prefix + ".z"))
    }
}

/// One accelerometer sample: acceleration including gravity, in g.
open class CMAccelerometerData: CMLogItem {
    let storedAcceleration: CMAcceleration

    /// Acceleration including gravity, g, device axes (face-up at rest ≈ (0, 0, −1)).
    open var acceleration: CMAcceleration { storedAcceleration }

    /// A sample of zero acceleration at timestamp 0 (the library makes the samples it delivers;
    /// subclasses made by an app override ``acceleration``).
    public override init() {
        storedAcceleration = CMAcceleration()
        super.init()
    }

    init(acceleration: CMAcceleration, timestamp: TimeInterval) {
        storedAcceleration = acceleration
        super.init(timestamp: timestamp)
    }

    /// Encodes the timestamp and the acceleration.
    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encodeVector(storedAcceleration.x, storedAcceleration.y, storedAcceleration.z, prefix: "acceleration")
    }

    /// Decodes a sample written by `encode(with:)`.
    public required init?(coder: NSCoder) {
        let (x, y, z) = coder.decodeVector(prefix: "acceleration")
        storedAcceleration = CMAcceleration(x: x, y: y, z: z)
        super.init(coder: coder)
    }

    /// The three components in g and the timestamp, for logs.
    open override var description: String {
        String(format: "x %f y %f z %f @ %f", acceleration.x, acceleration.y, acceleration.z, timestamp)
    }
}

/// An accelerometer sample kept by `CMSensorRecorder`.
open class CMRecordedAccelerometerData: CMAccelerometerData {
    let storedIdentifier: UInt64
    let storedStartDate: Date

    /// Unique identifier of the sample.
    open var identifier: UInt64 { storedIdentifier }
    /// Wall-clock time the sample was recorded.
    open var startDate: Date { storedStartDate }

    /// A sample with identifier 0, zero acceleration, timestamp 0 and the reference date 2001-01-01.
    public override init() {
        storedIdentifier = 0
        storedStartDate = Date(timeIntervalSinceReferenceDate: 0)
        super.init()
    }

    init(identifier: UInt64, startDate: Date, acceleration: CMAcceleration, timestamp: TimeInterval) {
        storedIdentifier = identifier
        storedStartDate = startDate
        super.init(acceleration: acceleration, timestamp: timestamp)
    }

    /// Encodes the timestamp, the acceleration, the identifier and the start date.
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

/// One raw gyroscope sample.
open class CMGyroData: CMLogItem {
    let storedRotationRate: CMRotationRate

    /// Raw rotation rate, rad/s, right-hand rule per axis. It may include a bias; device motion's
    /// ``CMDeviceMotion/rotationRate`` has the bias removed.
    open var rotationRate: CMRotationRate { storedRotationRate }

    /// A sample of zero rotation rate at timestamp 0.
    public override init() {
        storedRotationRate = CMRotationRate()
        super.init()
    }

    init(rotationRate: CMRotationRate, timestamp: TimeInterval) {
        storedRotationRate = rotationRate
        super.init(timestamp: timestamp)
    }

    /// Encodes the timestamp and the rotation rate.
    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encodeVector(storedRotationRate.x, storedRotationRate.y, storedRotationRate.z, prefix: "rotationRate")
    }

    /// Decodes a sample written by `encode(with:)`.
    public required init?(coder: NSCoder) {
        let (x, y, z) = coder.decodeVector(prefix: "rotationRate")
        storedRotationRate = CMRotationRate(x: x, y: y, z: z)
        super.init(coder: coder)
    }

    /// The three components in rad/s and the timestamp, for logs.
    open override var description: String {
        String(format: "x %f y %f z %f @ %f", rotationRate.x, rotationRate.y, rotationRate.z, timestamp)
    }
}

/// One raw magnetometer sample.
open class CMMagnetometerData: CMLogItem {
    let storedMagneticField: CMMagneticField

    /// Total field seen by the device, µT: Earth's field plus the device's own bias (uncalibrated).
    open var magneticField: CMMagneticField { storedMagneticField }

    /// A sample of zero field at timestamp 0.
    public override init() {
        storedMagneticField = CMMagneticField()
        super.init()
    }

    init(magneticField: CMMagneticField, timestamp: TimeInterval) {
        storedMagneticField = magneticField
        super.init(timestamp: timestamp)
    }

    /// Encodes the timestamp and the magnetic field.
    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encodeVector(storedMagneticField.x, storedMagneticField.y, storedMagneticField.z, prefix: "magneticField")
    }

    /// Decodes a sample written by `encode(with:)`.
    public required init?(coder: NSCoder) {
        let (x, y, z) = coder.decodeVector(prefix: "magneticField")
        storedMagneticField = CMMagneticField(x: x, y: y, z: z)
        super.init(coder: coder)
    }

    /// The three components in µT and the timestamp, for logs.
    open override var description: String {
        String(format: "x %f y %f z %f @ %f", magneticField.x, magneticField.y, magneticField.z, timestamp)
    }
}

/// One gyroscope rotation-rate measurement.
open class CMRotationRateData: CMLogItem {
    let storedRotationRate: CMRotationRate

    /// Rotation rate, rad/s.
    open var rotationRate: CMRotationRate { storedRotationRate }

    /// A measurement of zero rotation rate at timestamp 0.
    public override init() {
        storedRotationRate = CMRotationRate()
        super.init()
    }

    init(rotationRate: CMRotationRate, timestamp: TimeInterval) {
        storedRotationRate = rotationRate
        super.init(timestamp: timestamp)
    }

    /// Encodes the timestamp and the rotation rate.
    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encodeVector(storedRotationRate.x, storedRotationRate.y, storedRotationRate.z, prefix: "rotationRate")
    }

    /// Decodes a measurement written by `encode(with:)`.
    public required init?(coder: NSCoder) {
        let (x, y, z) = coder.decodeVector(prefix: "rotationRate")
        storedRotationRate = CMRotationRate(x: x, y: y, z: z)
        super.init(coder: coder)
    }
}

/// A recorded rotation-rate measurement.
open class CMRecordedRotationRateData: CMRotationRateData {
    let storedStartDate: Date

    /// Wall-clock time of the measurement.
    open var startDate: Date { storedStartDate }

    /// A measurement of zero rotation rate at timestamp 0, dated 2001-01-01.
    public override init() {
        storedStartDate = Date(timeIntervalSinceReferenceDate: 0)
        super.init()
    }

    init(startDate: Date, rotationRate: CMRotationRate, timestamp: TimeInterval) {
        storedStartDate = startDate
        super.init(rotationRate: rotationRate, timestamp: timestamp)
    }

    /// Encodes the timestamp, the rotation rate and the start date.
    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(storedStartDate.timeIntervalSinceReferenceDate, forKey: "startDate")
    }

    /// Decodes a measurement written by `encode(with:)`.
    public required init?(coder: NSCoder) {
        storedStartDate = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "startDate"))
        super.init(coder: coder)
    }
}
