import Foundation

/// A change in relative altitude, from the barometer.
open class CMAltitudeData: CMLogItem {
    let storedRelativeAltitude: NSNumber
    let storedPressure: NSNumber

    /// Change in altitude since the first update of this session, metres.
    open var relativeAltitude: NSNumber { storedRelativeAltitude }
    /// Recorded pressure, kilopascals.
    open var pressure: NSNumber { storedPressure }

    /// A sample of 0 m and 0 kPa at timestamp 0.
    public override init() {
        storedRelativeAltitude = 0
        storedPressure = 0
        super.init()
    }

    init(relativeAltitude: Double, pressure: Double, timestamp: TimeInterval) {
        storedRelativeAltitude = NSNumber(value: relativeAltitude)
        storedPressure = NSNumber(value: pressure)
        super.init(timestamp: timestamp)
    }

    /// Encodes the timestamp, the relative altitude and the pressure.
    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(storedRelativeAltitude.doubleValue, forKey: "relativeAltitude")
        coder.encode(storedPressure.doubleValue, forKey: "pressure")
    }

    /// Decodes a sample written by `encode(with:)`.
    public required init?(coder: NSCoder) {
        storedRelativeAltitude = NSNumber(value: coder.decodeDouble(forKey: "relativeAltitude"))
        storedPressure = NSNumber(value: coder.decodeDouble(forKey: "pressure"))
        super.init(coder: coder)
    }
}

/// Altitude above sea level.
open class CMAbsoluteAltitudeData: CMLogItem {
    let storedAltitude: Double
    let storedAccuracy: Double
    let storedPrecision: Double

    /// Altitude above sea level, metres.
    open var altitude: Double { storedAltitude }
    /// Estimated uncertainty (one standard deviation), metres.
    open var accuracy: Double { storedAccuracy }
    /// Recommended resolution for display and use, metres.
    open var precision: Double { storedPrecision }

    /// A sample of 0 m with accuracy and precision −1 (unknown) at timestamp 0.
    public override init() {
        storedAltitude = 0
        storedAccuracy = -1
        storedPrecision = -1
        super.init()
    }

    init(altitude: Double, accuracy: Double, precision: Double, timestamp: TimeInterval) {
        storedAltitude = altitude
        storedAccuracy = accuracy
        storedPrecision = precision
        super.init(timestamp: timestamp)
    }

    /// Encodes the timestamp, the altitude, its accuracy and its precision.
    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(storedAltitude, forKey: "altitude")
        coder.encode(storedAccuracy, forKey: "accuracy")
        coder.encode(storedPrecision, forKey: "precision")
    }

    /// Decodes a sample written by `encode(with:)`.
    public required init?(coder: NSCoder) {
        storedAltitude = coder.decodeDouble(forKey: "altitude")
        storedAccuracy = coder.decodeDouble(forKey: "accuracy")
        storedPrecision = coder.decodeDouble(forKey: "precision")
        super.init(coder: coder)
    }
}

/// Ambient pressure and temperature.
open class CMAmbientPressureData: CMLogItem {
    let storedPressure: Double
    let storedTemperature: Double

    /// Pressure (the sensor reports kilopascals).
    open var pressure: Measurement<UnitPressure> { Measurement(value: storedPressure, unit: .kilopascals) }
    /// Temperature (the sensor reports degrees Celsius).
    open var temperature: Measurement<UnitTemperature> { Measurement(value: storedTemperature, unit: .celsius) }

    /// A sample of 0 kPa and 0 °C at timestamp 0.
    public override init() {
        storedPressure = 0
        storedTemperature = 0
        super.init()
    }

    init(kilopascals: Double, celsius: Double, timestamp: TimeInterval) {
        storedPressure = kilopascals
        storedTemperature = celsius
        super.init(timestamp: timestamp)
    }

    /// Encodes the timestamp, the pressure (kPa) and the temperature (°C).
    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(storedPressure, forKey: "pressure")
        coder.encode(storedTemperature, forKey: "temperature")
    }

    /// Decodes a sample written by `encode(with:)`.
    public required init?(coder: NSCoder) {
        storedPressure = coder.decodeDouble(forKey: "pressure")
        storedTemperature = coder.decodeDouble(forKey: "temperature")
        super.init(coder: coder)
    }
}

/// A recorded ambient-pressure sample.
open class CMRecordedPressureData: CMAmbientPressureData {
    let storedIdentifier: UInt64
    let storedStartDate: Date

    /// Unique identifier of the sample.
    open var identifier: UInt64 { storedIdentifier }
    /// When the sample was recorded.
    open var startDate: Date { storedStartDate }

    /// A sample of 0 kPa and 0 °C with identifier 0, dated 2001-01-01.
    public override init() {
        storedIdentifier = 0
        storedStartDate = Date(timeIntervalSinceReferenceDate: 0)
        super.init()
    }

    init(identifier: UInt64, startDate: Date, kilopascals: Double, celsius: Double, timestamp: TimeInterval) {
        storedIdentifier = identifier
        storedStartDate = startDate
        super.init(kilopascals: kilopascals, celsius: celsius, timestamp: timestamp)
    }

    /// Encodes the pressure fields, the identifier and the start date.
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

/// Receives relative-altitude updates.
public typealias CMAltitudeHandler = (CMAltitudeData?, (any Error)?) -> Void
/// Receives absolute-altitude updates.
public typealias CMAbsoluteAltitudeHandler = (CMAbsoluteAltitudeData?, (any Error)?) -> Void
