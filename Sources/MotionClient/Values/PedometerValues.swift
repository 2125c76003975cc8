import Foundation

/// Totals of a pedometer session or query (the API turns them into `CMPedometerData`).
public struct PedometerTotals: Sendable, Hashable {
    public var start: Date
    public var end: Date
    public var steps: Int
    /// Metres.
    public var distance: Double
    public var floorsAscended: Int
    public var floorsDescended: Int
    /// Seconds spent moving (between steps at most 2 s apart).
    public var activeDuration: Double
    /// Steps per second, live sessions only.
    public var currentCadence: Double?
    /// Seconds per metre, live sessions only.
    public var currentPace: Double?

    public init(
        start: Date, end: Date, steps: Int = 0, distance: Double = 0, floorsAscended: Int = 0, floorsDescended: Int = 0,
        activeDuration: Double = 0, currentCadence: Double? = nil, currentPace: Double? = nil
    ) {
        self.start = start
        self.end = end
        self.steps = steps
        self.distance = distance
        self.floorsAscended = floorsAscended
        self.floorsDescended = floorsDescended
        self.activeDuration = activeDuration
        self.currentCadence = currentCadence
        self.currentPace = currentPace
    }

    /// Seconds per metre while moving, or `nil` without movement.
    public var averageActivePace: Double? {
        distance > 0 && activeDuration > 0 ? activeDuration / distance : nil
    }
}

/// A pedometer pause or resume (`CMPedometerEvent`).
public struct PedometerPauseEvent: Sendable, Hashable {
    public var date: Date
    /// `true` for a resume, `false` for a pause.
    public var resumed: Bool

    public init(date: Date, resumed: Bool) {
        self.date = date
        self.resumed = resumed
    }
}

/// An activity state (the API turns it into `CMMotionActivity`).
public struct ActivityReport: Sendable, Hashable {
    /// When the state began.
    public var startDate: Date
    /// Device time of the report, seconds.
    public var timestamp: TimeInterval
    /// The classes (they may overlap, e.g. stationary + automotive).
    public var flags: ActivityFlags
    /// How likely the state is right.
    public var confidence: ActivityConfidence

    public init(startDate: Date, timestamp: TimeInterval, flags: ActivityFlags, confidence: ActivityConfidence) {
        self.startDate = startDate
        self.timestamp = timestamp
        self.flags = flags
        self.confidence = confidence
    }
}
