import Foundation

// watchOS-only services (fall detection, movement disorders) and data types with no producer on any
// platform Apple documents for iOS. They exist so that shared code compiles; the watchOS-only ones are
// marked unavailable with the reason, as swift-corelibs-foundation does for unsupported API.

/// Fall detection (Apple Watch only).
@available(*, unavailable, message: "Fall detection needs an Apple Watch; it is not available on Linux")
open class CMFallDetectionManager: NSObject {
    /// Always false.
    open class var isAvailable: Bool { false }
    /// Always `.restricted`.
    open var authorizationStatus: CMAuthorizationStatus { .restricted }
    /// Would receive falls; never called.
    open weak var delegate: (any CMFallDetectionDelegate)?
    /// Does nothing.
    open func requestAuthorization(handler: @escaping (CMAuthorizationStatus) -> Void) {}
}

/// Fall-detection events (Apple Watch only).
@available(*, unavailable, message: "Fall detection needs an Apple Watch; it is not available on Linux")
public protocol CMFallDetectionDelegate: NSObjectProtocol {
    /// A fall was detected (never on Linux).
    func fallDetectionManager(
        _ fallDetectionManager: CMFallDetectionManager, didDetect event: CMFallDetectionEvent, completionHandler handler: @escaping () -> Void
    )
    /// The authorization changed (never on Linux).
    func fallDetectionManagerDidChangeAuthorization(_ fallDetectionManager: CMFallDetectionManager)
}

/// A detected fall (Apple Watch only).
@available(*, unavailable, message: "Fall detection needs an Apple Watch; it is not available on Linux")
open class CMFallDetectionEvent: NSObject {
    /// How the user resolved the alert.
    public enum UserResolution: Int, Sendable {
        /// The user confirmed the fall.
        case confirmed = 0
        /// The user dismissed the alert.
        case dismissed = 1
        /// The user said there was no fall.
        case rejected = 2
        /// The user did not respond.
        case unresponsive = 3
    }

    /// When the fall happened.
    open var date: Date { Date(timeIntervalSinceReferenceDate: 0) }
    /// How the alert was resolved.
    open var resolution: UserResolution { .dismissed }
}

/// Tremor and dyskinesia monitoring (Apple Watch only).
@available(*, unavailable, message: "Movement-disorder monitoring needs an Apple Watch; it is not available on Linux")
open class CMMovementDisorderManager: NSObject {
    /// Always false.
    open class func isAvailable() -> Bool { false }
    /// Always `.restricted`.
    open class func authorizationStatus() -> CMAuthorizationStatus { .restricted }
    /// Always `nil`.
    open class func version() -> String? { nil }
    /// Does nothing.
    open func monitorKinesias(forDuration duration: TimeInterval) {}
    /// Does nothing.
    open func queryTremor(from fromDate: Date, to toDate: Date, withHandler handler: @escaping CMTremorResultHandler) {}
    /// Does nothing.
    open func queryDyskineticSymptom(
        from fromDate: Date, to toDate: Date, withHandler handler: @escaping CMDyskineticSymptomResultHandler
    ) {}
    /// Always `nil`.
    open func lastProcessedDate() -> Date? { nil }
    /// Always `nil`.
    open func monitorKinesiasExpirationDate() -> Date? { nil }
}

/// One minute of tremor classification (Apple Watch only).
@available(*, unavailable, message: "Movement-disorder monitoring needs an Apple Watch; it is not available on Linux")
open class CMTremorResult: NSObject {
    /// Start of the minute.
    open var startDate: Date { Date(timeIntervalSinceReferenceDate: 0) }
    /// End of the minute.
    open var endDate: Date { Date(timeIntervalSinceReferenceDate: 0) }
    /// Share of the minute without a classification.
    open var percentUnknown: Float { 1 }
    /// Share of the minute without tremor.
    open var percentNone: Float { 0 }
    /// Share of the minute with slight tremor.
    open var percentSlight: Float { 0 }
    /// Share of the minute with mild tremor.
    open var percentMild: Float { 0 }
    /// Share of the minute with moderate tremor.
    open var percentModerate: Float { 0 }
    /// Share of the minute with strong tremor.
    open var percentStrong: Float { 0 }
}

/// One minute of dyskinesia classification (Apple Watch only).
@available(*, unavailable, message: "Movement-disorder monitoring needs an Apple Watch; it is not available on Linux")
open class CMDyskineticSymptomResult: NSObject {
    /// Start of the minute.
    open var startDate: Date { Date(timeIntervalSinceReferenceDate: 0) }
    /// End of the minute.
    open var endDate: Date { Date(timeIntervalSinceReferenceDate: 0) }
    /// Share of the minute where dyskinesia is unlikely.
    open var percentUnlikely: Float { 1 }
    /// Share of the minute where dyskinesia is likely.
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
    /// The origin is not known.
    case unknown = 0
    /// This device measured the data.
    case local = 1
    /// A paired device measured the data.
    case remote = 2
}

/// GPS-fused distance and speed from a workout. No public API produces it (HealthKit workouts do, on
/// Apple's platforms); it exists as a data type. Values of a default instance are zero / invalid.
open class CMOdometerData: NSObject, @unchecked Sendable {  // @unchecked: no stored properties: every accessor returns a constant
    /// Data with zero distance and speed and negative (invalid) accuracies, dated 2001-01-01.
    public override init() { super.init() }
    /// Start of the interval.
    open var startDate: Date { Date(timeIntervalSinceReferenceDate: 0) }
    /// End of the interval.
    open var endDate: Date { Date(timeIntervalSinceReferenceDate: 0) }
    /// Distance travelled in the interval, metres.
    open var deltaDistance: CLLocationDistance { 0 }
    /// Uncertainty of ``deltaDistance``, metres; negative when invalid.
    open var deltaDistanceAccuracy: CLLocationAccuracy { -1 }
    /// Speed, m/s.
    open var speed: CLLocationSpeed { 0 }
    /// Uncertainty of ``speed``, m/s; negative when invalid.
    open var speedAccuracy: CLLocationSpeedAccuracy { -1 }
    /// Time of the GPS fix the values come from.
    open var gpsDate: Date { Date(timeIntervalSinceReferenceDate: 0) }
    /// Change in altitude in the interval, metres.
    open var deltaAltitude: CLLocationDistance { 0 }
    /// Uncertainty of ``deltaAltitude``, metres; negative when invalid.
    open var verticalAccuracy: CLLocationAccuracy { -1 }
    /// Which device measured the data.
    open var originDevice: CMOdometerOriginDevice { .unknown }
    /// Slope of the path, when known.
    open var slope: Double? { nil }
    /// Steepest absolute slope in the interval, when known.
    open var maxAbsSlope: Double? { nil }
}

/// Confidence of a heart-rate sample.
public enum CMHighFrequencyHeartRateDataConfidence: Int, Sendable, Hashable, BitwiseCopyable {
    /// Low confidence.
    case low = 0
    /// Medium confidence.
    case medium = 1
    /// High confidence.
    case high = 2
    /// The highest confidence.
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
