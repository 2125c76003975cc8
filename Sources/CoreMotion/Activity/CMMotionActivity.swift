import Foundation

/// The user's motion: stationary, walking, running, cycling, in a vehicle, or unknown. The flags are
/// not exclusive (stationary and automotive at a red light), and all may be false while the device
/// moves in a way not classified.
open class CMMotionActivity: CMLogItem {
    let storedConfidence: CMMotionActivityConfidence
    let storedStartDate: Date
    let flags: UInt8

    static let unknownFlag: UInt8 = 1 << 0
    static let stationaryFlag: UInt8 = 1 << 1
    static let walkingFlag: UInt8 = 1 << 2
    static let runningFlag: UInt8 = 1 << 3
    static let automotiveFlag: UInt8 = 1 << 4
    static let cyclingFlag: UInt8 = 1 << 5

    /// How likely the most likely reported state is correct.
    open var confidence: CMMotionActivityConfidence { storedConfidence }
    /// When this activity began.
    open var startDate: Date { storedStartDate }
    /// No estimate (for example the device was off).
    open var unknown: Bool { flags & Self.unknownFlag != 0 }
    /// Not moving.
    open var stationary: Bool { flags & Self.stationaryFlag != 0 }
    /// On a walking person.
    open var walking: Bool { flags & Self.walkingFlag != 0 }
    /// On a running person.
    open var running: Bool { flags & Self.runningFlag != 0 }
    /// In a vehicle.
    open var automotive: Bool { flags & Self.automotiveFlag != 0 }
    /// On a bicycle.
    open var cycling: Bool { flags & Self.cyclingFlag != 0 }

    /// An activity with every flag false, `.low` confidence, dated 2001-01-01, timestamp 0.
    public override init() {
        storedConfidence = .low
        storedStartDate = Date(timeIntervalSinceReferenceDate: 0)
        flags = 0
        super.init()
    }

    init(flags: UInt8, confidence: CMMotionActivityConfidence, startDate: Date, timestamp: TimeInterval) {
        self.flags = flags
        storedConfidence = confidence
        storedStartDate = startDate
        super.init(timestamp: timestamp)
    }

    /// Encodes the flags, the confidence, the start date and the timestamp.
    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(Int(flags), forKey: "flags")
        coder.encode(storedConfidence.rawValue, forKey: "confidence")
        coder.encode(storedStartDate.timeIntervalSinceReferenceDate, forKey: "startDate")
    }

    /// Decodes an activity written by `encode(with:)`.
    public required init?(coder: NSCoder) {
        flags = UInt8(truncatingIfNeeded: coder.decodeInteger(forKey: "flags"))
        storedConfidence = CMMotionActivityConfidence(rawValue: coder.decodeInteger(forKey: "confidence")) ?? .low
        storedStartDate = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "startDate"))
        super.init(coder: coder)
    }

    /// The start date, the flags that are set and the confidence, for logs.
    open override var description: String {
        let names = [
            (unknown, "unknown"), (stationary, "stationary"), (walking, "walking"), (running, "running"),
            (automotive, "automotive"), (cycling, "cycling"),
        ].filter(\.0).map(\.1)
        return "CMMotionActivity @ \(startDate): \(names.isEmpty ? "none" : names.joined(separator: "+")), confidence \(confidence.rawValue)"
    }
}

/// Receives activity updates (no error parameter, as on Apple's platforms).
public typealias CMMotionActivityHandler = (CMMotionActivity?) -> Void
/// Receives the result of an activity query.
public typealias CMMotionActivityQueryHandler = ([CMMotionActivity]?, (any Error)?) -> Void
