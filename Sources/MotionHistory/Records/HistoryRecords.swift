import Foundation

/// One step, as the step detector reports it.
public struct StepRecord: Sendable, Hashable {
    /// Wall-clock date of the step (heel strike). Stored to the millisecond (rounded).
    public var date: Date
    /// Length of this step, metres; `0...65.535`, stored to the millimetre (rounded).
    public var strideLength: Double

    public init(date: Date, strideLength: Double) {
        self.date = date
        self.strideLength = strideLength
    }
}

/// Direction of one floor change counted by the altimeter (stairs, not lifts).
public enum FloorChange: Int, Sendable, Hashable, CaseIterable {
    /// One floor up.
    case ascended = 1
    /// One floor down.
    case descended = -1
}

/// One floor climbed or descended.
public struct FloorRecord: Sendable, Hashable {
    /// Wall-clock date at which the floor change was counted.
    public var date: Date
    /// Up or down.
    public var change: FloorChange

    public init(date: Date, change: FloorChange) {
        self.date = date
        self.change = change
    }
}

/// A pedometer transition between walking and pausing.
public enum PedometerTransition: Int, Sendable, Hashable, CaseIterable {
    /// The person stopped walking or running.
    case pause = 0
    /// The person started walking or running again.
    case resume = 1
}

/// One pause or resume event of the pedometer.
public struct PedometerTransitionRecord: Sendable, Hashable {
    /// Wall-clock date of the transition.
    public var date: Date
    /// Pause or resume.
    public var transition: PedometerTransition

    public init(date: Date, transition: PedometerTransition) {
        self.date = date
        self.transition = transition
    }
}

// Activity states use the shared `ActivityFlags` and `ActivityConfidence` of `MotionSamples`; the flags are
// stored as their raw bits (schema version 1).

/// The start of an activity state; the state lasts until the next record of the same source.
public struct ActivityRecord: Sendable, Hashable {
    /// Wall-clock date at which this state began.
    public var startDate: Date
    /// The state.
    public var flags: ActivityFlags
    /// Confidence in the state.
    public var confidence: ActivityConfidence

    public init(startDate: Date, flags: ActivityFlags, confidence: ActivityConfidence) {
        self.startDate = startDate
        self.flags = flags
        self.confidence = confidence
    }
}

/// An activity state read back from the store.
public struct ActivitySegment: Sendable, Hashable {
    /// Wall-clock date at which this state began (may be before the query's start: it is then the state at
    /// the start).
    public var startDate: Date
    /// The state.
    public var flags: ActivityFlags
    /// Confidence in the state.
    public var confidence: ActivityConfidence
    /// The source that recorded it.
    public var source: String

    public init(startDate: Date, flags: ActivityFlags, confidence: ActivityConfidence, source: String) {
        self.startDate = startDate
        self.flags = flags
        self.confidence = confidence
        self.source = source
    }
}

/// One accelerometer sample to record.
public struct AccelerometerRecord: Sendable, Hashable {
    /// Wall-clock date of the sample; stored to the microsecond (rounded).
    public var date: Date
    /// Acceleration including gravity, g, Apple's device axes. Stored as 32-bit floats (relative error
    /// below 6·10⁻⁸).
    public var acceleration: Vector3

    public init(date: Date, acceleration: Vector3) {
        self.date = date
        self.acceleration = acceleration
    }
}

/// A request to record the accelerometer over a span, kept so that recording resumes after a restart.
public struct AccelerometerRecordingRequest: Sendable, Hashable {
    /// Wall-clock start of the recording.
    public var start: Date
    /// Wall-clock end of the recording.
    public var end: Date
    /// The source that was asked to record.
    public var source: String

    public init(start: Date, end: Date, source: String) {
        self.start = start
        self.end = end
        self.source = source
    }
}

/// Pedometer totals over a span, computed exactly from the stored steps and floors.
public struct PedometerSummary: Sendable, Hashable {
    /// Start of the span (inclusive).
    public var start: Date
    /// End of the span (exclusive).
    public var end: Date
    /// Steps whose date is in `[start, end)`.
    public var steps: Int
    /// Sum of the stride lengths of those steps, metres.
    public var distance: Double
    /// Floors ascended in `[start, end)`.
    public var floorsAscended: Int
    /// Floors descended in `[start, end)`.
    public var floorsDescended: Int
    /// Time spent moving inside the span, seconds: the part of `[start, end)` covered by intervals between
    /// consecutive steps of one source that are at most ``HistoryStore/maximumActiveStepGap`` apart.
    /// Divide by ``distance`` for the average active pace (s/m).
    public var activeDuration: TimeInterval
    /// Date of the first step in the span, if any.
    public var firstStepDate: Date?
    /// Date of the last step in the span, if any.
    public var lastStepDate: Date?

    public init(
        start: Date, end: Date, steps: Int = 0, distance: Double = 0, floorsAscended: Int = 0,
        floorsDescended: Int = 0, activeDuration: TimeInterval = 0, firstStepDate: Date? = nil,
        lastStepDate: Date? = nil
    ) {
        self.start = start
        self.end = end
        self.steps = steps
        self.distance = distance
        self.floorsAscended = floorsAscended
        self.floorsDescended = floorsDescended
        self.activeDuration = activeDuration
        self.firstStepDate = firstStepDate
        self.lastStepDate = lastStepDate
    }

    /// Average pace while moving, seconds per metre; `nil` when there was no movement.
    public var averageActivePace: Double? {
        distance > 0 && activeDuration > 0 ? activeDuration / distance : nil
    }
}
