import Foundation

/// Steps, distance, floors and pace over a period, from live updates or a history query.
open class CMPedometerData: NSObject, NSCopying, NSSecureCoding {
    let storedStartDate: Date
    let storedEndDate: Date
    let storedSteps: NSNumber
    let storedDistance: NSNumber?
    let storedFloorsAscended: NSNumber?
    let storedFloorsDescended: NSNumber?
    let storedCurrentPace: NSNumber?
    let storedCurrentCadence: NSNumber?
    let storedAverageActivePace: NSNumber?

    /// Start of the period (the requested start for live updates and queries).
    open var startDate: Date { storedStartDate }
    /// End of the period (the latest update for live updates; the requested end for queries).
    open var endDate: Date { storedEndDate }
    /// Steps taken in the period.
    open var numberOfSteps: NSNumber { storedSteps }
    /// Estimated distance walked or run, metres.
    open var distance: NSNumber? { storedDistance }
    /// Floors climbed by stairs (about 3 m each), `nil` without a barometer.
    open var floorsAscended: NSNumber? { storedFloorsAscended }
    /// Floors descended by stairs, `nil` without a barometer.
    open var floorsDescended: NSNumber? { storedFloorsDescended }
    /// Current pace, seconds per metre; live updates only, `nil` when not known.
    open var currentPace: NSNumber? { storedCurrentPace }
    /// Current cadence, steps per second; live updates only, `nil` when not known.
    open var currentCadence: NSNumber? { storedCurrentCadence }
    /// Average pace while moving, seconds per metre; `nil` without movement.
    open var averageActivePace: NSNumber? { storedAverageActivePace }

    /// Zero steps over an empty period at 2001-01-01; every optional field `nil`.
    public override init() {
        storedStartDate = Date(timeIntervalSinceReferenceDate: 0)
        storedEndDate = storedStartDate
        storedSteps = 0
        storedDistance = nil
        storedFloorsAscended = nil
        storedFloorsDescended = nil
        storedCurrentPace = nil
        storedCurrentCadence = nil
        storedAverageActivePace = nil
        super.init()
    }

    init(
        startDate: Date, endDate: Date, steps: Int, distance: Double?, floorsAscended: Int?, floorsDescended: Int?,
        currentPace: Double?, currentCadence: Double?, averageActivePace: Double?
    ) {
        storedStartDate = startDate
        storedEndDate = endDate
        storedSteps = NSNumber(value: steps)
        storedDistance = distance.map { NSNumber(value: $0) }
        storedFloorsAscended = floorsAscended.map { NSNumber(value: $0) }
        storedFloorsDescended = floorsDescended.map { NSNumber(value: $0) }
        storedCurrentPace = currentPace.map { NSNumber(value: $0) }
        storedCurrentCadence = currentCadence.map { NSNumber(value: $0) }
        storedAverageActivePace = averageActivePace.map { NSNumber(value: $0) }
        super.init()
    }

    /// `true`: pedometer data supports `NSSecureCoding`.
    public class var supportsSecureCoding: Bool { true }

    /// Encodes the dates, the step count and every optional field that is present.
    open func encode(with coder: NSCoder) {
        coder.encode(storedStartDate.timeIntervalSinceReferenceDate, forKey: "startDate")
        coder.encode(storedEndDate.timeIntervalSinceReferenceDate, forKey: "endDate")
        coder.encode(storedSteps.intValue, forKey: "numberOfSteps")
        func put(_ n: NSNumber?, _ key: String) { if let n { coder.encode(n.doubleValue, forKey: key) } }
        put(storedDistance, "distance")
        put(storedFloorsAscended, "floorsAscended")
        put(storedFloorsDescended, "floorsDescended")
        put(storedCurrentPace, "currentPace")
        put(storedCurrentCadence, "currentCadence")
        put(storedAverageActivePace, "averageActivePace")
    }

    /// Decodes data written by `encode(with:)`; a field that was `nil` stays `nil`.
    public required init?(coder: NSCoder) {
        func get(_ key: String) -> NSNumber? {
            coder.containsValue(forKey: key) ? NSNumber(value: coder.decodeDouble(forKey: key)) : nil
        }
        func getInt(_ key: String) -> NSNumber? {
            coder.containsValue(forKey: key) ? NSNumber(value: Int(coder.decodeDouble(forKey: key))) : nil
        }
        storedStartDate = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "startDate"))
        storedEndDate = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "endDate"))
        storedSteps = NSNumber(value: coder.decodeInteger(forKey: "numberOfSteps"))
        storedDistance = get("distance")
        storedFloorsAscended = getInt("floorsAscended")
        storedFloorsDescended = getInt("floorsDescended")
        storedCurrentPace = get("currentPace")
        storedCurrentCadence = get("currentCadence")
        storedAverageActivePace = get("averageActivePace")
        super.init()
    }

    /// Returns the receiver itself: pedometer data is immutable.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// The period, the steps and the distance, for logs.
    open override var description: String {
        "CMPedometerData \(startDate)–\(endDate): \(numberOfSteps) steps, distance \(distance.map { "\($0) m" } ?? "nil")"
    }
}

/// A change between moving and not moving, from pedometer event updates.
open class CMPedometerEvent: NSObject, NSCopying, NSSecureCoding {
    let storedDate: Date
    let storedType: CMPedometerEventType

    /// When the change happened.
    open var date: Date { storedDate }
    /// `.pause` or `.resume`.
    open var type: CMPedometerEventType { storedType }

    /// A `.pause` at 2001-01-01.
    public override init() {
        storedDate = Date(timeIntervalSinceReferenceDate: 0)
        storedType = .pause
        super.init()
    }

    init(date: Date, type: CMPedometerEventType) {
        storedDate = date
        storedType = type
        super.init()
    }

    /// `true`: events support `NSSecureCoding`.
    public class var supportsSecureCoding: Bool { true }

    /// Encodes the date and the type.
    open func encode(with coder: NSCoder) {
        coder.encode(storedDate.timeIntervalSinceReferenceDate, forKey: "date")
        coder.encode(storedType.rawValue, forKey: "type")
    }

    /// Decodes an event written by `encode(with:)`.
    public required init?(coder: NSCoder) {
        storedDate = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "date"))
        storedType = CMPedometerEventType(rawValue: coder.decodeInteger(forKey: "type")) ?? .pause
        super.init()
    }

    /// Returns the receiver itself: events are immutable.
    open func copy(with zone: NSZone? = nil) -> Any { self }
}

/// Receives pedometer data.
public typealias CMPedometerHandler = (CMPedometerData?, (any Error)?) -> Void
/// Receives pedometer events.
public typealias CMPedometerEventHandler = (CMPedometerEvent?, (any Error)?) -> Void
/// Receives a step count (deprecated `CMStepCounter`).
public typealias CMStepQueryHandler = (Int, (any Error)?) -> Void
/// Receives a step count and its time (deprecated `CMStepCounter`).
public typealias CMStepUpdateHandler = (Int, Date, (any Error)?) -> Void
