import Foundation

// watchOS-only services (fall detection, movement disorders) and data types with no producer on any
// platform Apple documents for iOS. They exist so that shared code compiles; the watchOS-only ones are
// marked unavailable with the reason, as swift-corelibs-foundation does for unsupported API.

/// Fall detection (Apple Watch only).
@available(*, unavailable, message: "Fall detection needs an Apple Watch; it is not available on Linux")
open class CMFallDetectionManager: NSObject {
    open class var isAvailable: Bool { false }
    open var authorizationStatus: CMAuthorizationStatus { .restricted }
    open weak var delegate: (any CMFallDetectionDelegate)?
    open func requestAuthorization(handler: @escaping (CMAuthorizationStatus) -> Void) {}
}

/// Fall-detection events (Apple Watch only).
@available(*, unavailable, message: "Fall detection needs an Apple Watch; it is not available on Linux")
public protocol CMFallDetectionDelegate: NSObjectProtocol {
    func fallDetectionManager(
        _ fallDetectionManager: CMFallDetectionManager, didDetect event: CMFallDetectionEvent, completionHandler handler: @escaping () -> Void
    )
    func fallDetectionManagerDidChangeAuthorization(_ fallDetectionManager: CMFallDetectionManager)
}

/// A detected fall (Apple Watch only).
@available(*, unavailable, message: "Fall detection needs an Apple Watch; it is not available on Linux")
open class CMFallDetectionEvent: NSObject {
    /// How the user resolved the alert.
    public enum UserResolution: Int, Sendable {
        case confirmed = 0
        case dismissed = 1
        case rejected = 2
        case unresponsive = 3
    }

    open var date: Date { Date(timeIntervalSinceReferenceDate: 0) }
    open var resolution: UserResolution { .dismissed }
}

/// Tremor and dyskinesia monitoring (Apple Watch only).
@available(*, unavailable, message: "Movement-disorder monitoring needs an Apple Watch; it is not available on Linux")
open class CMMovementDisorderManager: NSObject {
    open class func isAvailable() -> Bool { false }
    open class func authorizationStatus() -> CMAuthorizationStatus { .restricted }
    open class func version() -> String? { nil }
    open func monitorKinesias(forDuration duration: TimeInterval) {}
    open func queryTremor(from fromDate: Date, to toDate: Date, withHandler handler: @escaping CMTremorResultHandler) {}
    open func queryDyskineticSymptom(
        from fromDate: Date, to toDate: Date, withHandler handler: @escaping CMDyskineticSymptomResultHandler
    ) {}
    open func lastProcessedDate() -> Date? { nil }
    open func monitorKinesiasExpirationDate() -> Date? { nil }
}

/// One minute of tremor classification (Apple Watch only).
@available(*, unavailable, message: "Movement-disorder monitoring needs an Apple Watch; it is not available on Linux")
open class CMTremorResult: NSObject {
    open var startDate: Date { Date(timeIntervalSinceReferenceDate: 0) }
    open var endDate: Date { Date(timeIntervalSinceReferenceDate: 0) }
    open var percentUnknown: Float { 1 }
    open var percentNone: Float { 0 }
    open var percentSlight: Float { 0 }
    open var percentMild: Float { 0 }
    open var percentModerate: Float { 0 }
    open var percentStrong: Float { 0 }
}

/// One minute of dyskinesia classification (Apple Watch only).
@available(*, unavailable, message: "Movement-disorder monitoring needs an Apple Watch; it is not available on Linux")
open class CMDyskineticSymptomResult: NSObject {
    open var startDate: Date { Date(timeIntervalSinceReferenceDate: 0) }
    open var endDate: Date { Date(timeIntervalSinceReferenceDate: 0) }
    open var percentUnlikely: Float { 1 }
    open var percentLikely: Float { 0 }
}

/// Receives tremor results (Apple Watch only).
@available(*, unavailable, message: "Movement-disorder monitoring needs an Apple Watch; it is not available on Linux")
public typealias CMTremorResultHandler = ([CMTremorResult], (any Error)?) -> Void
/// Receives dyskinesia results (Apple Watch only).
@available(*, unavailable, message: "Movement-disorder monitoring needs an Apple Watch; it is not available on Linux")
public typealias CMDyskineticSymptomResultHandler = ([CMDyskineticSymptomResult], (any Error)?) -> Void

/// Distance in metres (CoreLocation's type, which Linux lacks).
public typealias CLLocationDistance = Double
/// Accuracy in metres (CoreLocation's type).
public typealias CLLocationAccuracy = Double
/// Speed in metres per second (CoreLocation's type).
public typealias CLLocationSpeed = Double
/// Speed accuracy in metres per second (CoreLocation's type).
public typealias CLLocationSpeedAccuracy = Double

/// Where odometer data came from.
public enum CMOdometerOriginDevice: Int, Sendable, Hashable, BitwiseCopyable {
    case unknown = 0
    case local = 1
    case remote = 2
}

/// GPS-fused distance and speed from a workout. No public API produces it (HealthKit workouts do, on
/// Apple's platforms); it exists as a data type. Values of a default instance are zero / invalid.
open class CMOdometerData: NSObject, @unchecked Sendable {
    public override init() { super.init() }
    open var startDate: Date { Date(timeIntervalSinceReferenceDate: 0) }
    open var endDate: Date { Date(timeIntervalSinceReferenceDate: 0) }
    open var deltaDistance: CLLocationDistance { 0 }
    open var deltaDistanceAccuracy: CLLocationAccuracy { -1 }
    open var speed: CLLocationSpeed { 0 }
    open var speedAccuracy: CLLocationSpeedAccuracy { -1 }
    open var gpsDate: Date { Date(timeIntervalSinceReferenceDate: 0) }
    open var deltaAltitude: CLLocationDistance { 0 }
    open var verticalAccuracy: CLLocationAccuracy { -1 }
    open var originDevice: CMOdometerOriginDevice { .unknown }
    open var slope: Double? { nil }
    open var maxAbsSlope: Double? { nil }
}

/// Confidence of a heart-rate sample.
public enum CMHighFrequencyHeartRateDataConfidence: Int, Sendable, Hashable, BitwiseCopyable {
    case low = 0
    case medium = 1
    case high = 2
    case highest = 3
}

/// A 1 Hz heart-rate sample. Linux devices have no heart-rate sensor; no API produces it here.
open class CMHighFrequencyHeartRateData: CMLogItem {
    /// Beats per minute.
    open var heartRate: Double { 0 }
    /// Confidence of the sample.
    open var confidence: CMHighFrequencyHeartRateDataConfidence { .low }
    /// When the sample was taken.
    open var date: Date? { nil }
}
