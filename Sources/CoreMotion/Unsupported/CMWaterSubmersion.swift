import Foundation

/// Water submersion (depth, pressure, temperature) from an Apple Watch Ultra's depth gauge. Linux
/// devices have no depth gauge: ``waterSubmersionAvailable`` is false and the delegate is never
/// called — app code compiles and behaves as on a device without the sensor.
open class CMWaterSubmersionManager: NSObject {
    private let lock = NSLock()
    private weak var storedDelegate: (any CMWaterSubmersionManagerDelegate)?

    /// A manager; it never reports anything on Linux.
    public override init() { super.init() }

    /// Receives submersion events (never on Linux).
    open weak var delegate: (any CMWaterSubmersionManagerDelegate)? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return storedDelegate
        }
        set {
            lock.lock()
            storedDelegate = newValue
            lock.unlock()
        }
    }

    /// Always false on Linux (no depth gauge).
    open class var waterSubmersionAvailable: Bool { false }
    /// Authorization: the daemon's decision for this user and app, or `.authorized` in process
    /// (<doc:PortingAnIOSApp#Authorization>).
    open class var authorizationStatus: CMAuthorizationStatus { Authorization.status }
    /// The deepest supported depth; `nil` without a depth gauge.
    open var maximumDepth: Measurement<UnitLength>? { nil }
}

/// Receives water-submersion updates.
public protocol CMWaterSubmersionManagerDelegate: NSObjectProtocol {
    /// The submersion state changed.
    func manager(_ manager: CMWaterSubmersionManager, didUpdate event: CMWaterSubmersionEvent)
    /// A new depth and pressure measurement.
    func manager(_ manager: CMWaterSubmersionManager, didUpdate measurement: CMWaterSubmersionMeasurement)
    /// A new water temperature.
    func manager(_ manager: CMWaterSubmersionManager, didUpdate measurement: CMWaterTemperature)
    /// The manager failed.
    func manager(_ manager: CMWaterSubmersionManager, errorOccurred error: any Error)
}

/// A change of submersion state.
open class CMWaterSubmersionEvent: NSObject {
    /// Submersion state.
    public enum State: Int, Sendable, Hashable, BitwiseCopyable {
        /// The state is not known.
        case unknown = 0
        /// Out of the water.
        case notSubmerged = 1
        /// Under water.
        case submerged = 2
    }

    /// When the state changed.
    open var date: Date { Date(timeIntervalSinceReferenceDate: 0) }
    /// The new state.
    open var state: State { .unknown }
    /// An `.unknown` state dated 2001-01-01.
    public override init() { super.init() }
}

/// A depth and pressure measurement.
open class CMWaterSubmersionMeasurement: NSObject {
    /// Depth state.
    public enum DepthState: Int, Sendable, Hashable, BitwiseCopyable {
        /// The depth state is not known.
        case unknown = 0
        /// Out of the water.
        case notSubmerged = 100
        /// Under water, shallow.
        case submergedShallow = 200
        /// Under water, deep.
        case submergedDeep = 300
        /// Close to the deepest supported depth.
        case approachingMaxDepth = 400
        /// Below the deepest supported depth.
        case pastMaxDepth = 500
        /// The depth sensor failed.
        case sensorDepthError = 600
    }

    /// When measured.
    open var date: Date { Date(timeIntervalSinceReferenceDate: 0) }
    /// Depth, when submerged.
    open var depth: Measurement<UnitLength>? { nil }
    /// Pressure, when submerged.
    open var pressure: Measurement<UnitPressure>? { nil }
    /// Surface pressure.
    open var surfacePressure: Measurement<UnitPressure> { Measurement(value: 0, unit: .kilopascals) }
    /// Depth state.
    open var submersionState: DepthState { .unknown }
    /// An `.unknown` measurement dated 2001-01-01, without depth or pressure.
    public override init() { super.init() }
}

/// A water temperature measurement.
open class CMWaterTemperature: NSObject {
    /// When measured.
    open var date: Date { Date(timeIntervalSinceReferenceDate: 0) }
    /// Water temperature.
    open var temperature: Measurement<UnitTemperature> { Measurement(value: 0, unit: .celsius) }
    /// Its uncertainty.
    open var temperatureUncertainty: Measurement<UnitTemperature> { Measurement(value: 0, unit: .celsius) }
    /// 0 °C with no uncertainty, dated 2001-01-01.
    public override init() { super.init() }
}
