import Foundation

/// Turns the classifier's per-window estimates into Core Motion's activity updates: the first update is
/// the current state, then an update only when the state changes.
///
/// Policy (each number is a ``Configuration`` field):
/// - Probabilities are smoothed with an exponential moving average (time constant 4 s).
/// - The state's flag is the most likely class of the smoothed probabilities; when that class has less
///   than 0.45 probability, no flag is set (movement the model cannot name, as Apple allows).
/// - **Hysteresis**: a new state is adopted only after it was the candidate for 3 consecutive estimates
///   (≈ 3.8 s at the default hop), and its start time is the middle of the first window of that run.
///   The first estimate (and the first after a gap) is adopted at once.
/// - **Entering a vehicle** takes more evidence: automotive must be the candidate for 20 s with a smoothed
///   probability of at least 0.75 (a handled phone gives vehicle-like windows, but with probabilities of
///   0.5–0.7 where a real trip gives 0.9 and more, measured on QROWD); weaker automotive windows leave the
///   state as it is. While those 20 s are gathered, a stretch of weaker windows in which automotive stays
///   the most likely class and stationary stays below 0.2 (a bend or a bumpy stretch: moving, and the
///   vehicle still the best explanation) pauses the count for up to 10 s instead of starting it over; the
///   confident windows must be at least half of the run. A dip towards stationary starts it over: a
///   still phone that the model takes for a parked vehicle's must not build a trip from interrupted runs.
/// - **Stops in a vehicle**: within a trip (an automotive state at least 20 s old), stationary windows give `stationary + automotive`
///   (a car at a red light, in a jam, a train at a station) for up to 3 minutes since the last
///   automotive window; walking, running or cycling end the trip at once (after the usual hysteresis).
/// - Confidence is that of the smoothed probability of the state's class (high ≥ 0.75, medium ≥ 0.5), with
///   a ±0.05 band around those thresholds once the state holds; a change of confidence alone is reported
///   when it persists as long as a change of state must.
/// - The first estimate is reported at once, but as automotive only with probability ≥ 0.75 (otherwise
///   the best other class).
/// - `unknown`: ``interrupt(at:)`` (the sensor stopped) makes the state unknown. After it, and after
///   estimates more than 10 s apart (a gap in the data), the next estimate is adopted at once.
public struct ActivityTracker: Sendable {
    /// The tracker's tunable numbers.
    public struct Configuration: Sendable, Hashable, Codable {
        /// Time constant of the probability smoothing, seconds.
        public var smoothingTime: Double
        /// Estimates a candidate must last before it becomes the state.
        public var confirmationCount: Int
        /// Below this smoothed probability of the top class, no flag is set.
        public var unclassifiedBelow: Double
        /// How long automotive must be the candidate before an automotive state begins, seconds.
        public var automotiveConfirmationTime: Double
        /// Smoothed automotive probability needed to make automotive a candidate when not already in a vehicle.
        public var automotiveEntryProbability: Double
        /// Longest stretch of weaker automotive estimates (automotive still the most likely class, below
        /// ``automotiveEntryProbability``) that pauses, rather than ends, the count towards a trip, seconds.
        public var automotivePauseLimit: Double
        /// A weaker automotive estimate pauses the count only while the smoothed stationary probability
        /// is below this.
        public var automotivePauseStationaryBelow: Double
        /// How long stationary windows keep the automotive flag after the last automotive window, seconds.
        public var vehicleStopHold: Double
        /// Estimates further apart than this are a gap (the state becomes unknown), seconds.
        public var maximumGap: Double

        /// The shipped tracker policy unless given (`docs/activity.md`, "Tracker policy").
        public init(
            smoothingTime: Double = 4, confirmationCount: Int = 3, unclassifiedBelow: Double = 0.45,
            automotiveConfirmationTime: Double = 20, automotiveEntryProbability: Double = 0.75, automotivePauseLimit: Double = 10,
            automotivePauseStationaryBelow: Double = 0.2, vehicleStopHold: Double = 180, maximumGap: Double = 10
        ) {
            self.automotivePauseStationaryBelow = automotivePauseStationaryBelow
            self.automotiveEntryProbability = automotiveEntryProbability
            self.automotivePauseLimit = automotivePauseLimit
            self.smoothingTime = smoothingTime
            self.confirmationCount = confirmationCount
            self.unclassifiedBelow = unclassifiedBelow
            self.automotiveConfirmationTime = automotiveConfirmationTime
            self.vehicleStopHold = vehicleStopHold
            self.maximumGap = maximumGap
        }
    }

    /// The policy this tracker applies.
    public let configuration: Configuration

    /// The state last reported, `nil` before the first estimate.
    public private(set) var current: ActivityState?

    private var smoothed = ActivityProbabilities.zero
    private var lastTime: Double?
    private var lastAutomotiveTime = -Double.infinity
    private var pending: ActivityState?
    private var pendingCount = 0
    private var pendingSince = 0.0
    /// Towards a trip: seconds of confident automotive estimates in the pending run, and of the current
    /// pause (weaker automotive estimates).
    private var pendingAutomotiveTime = 0.0
    private var pausedTime = 0.0
    /// Start of the current automotive state (the trip), seconds.
    private var tripStart = Double.infinity

    /// A tracker before the first estimate (``current`` is `nil`).
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The state's flags and confidence that the smoothed probabilities argue for.
    private func candidate(at time: Double, startTime: Double) -> ActivityState {
        var top = smoothed.mostLikely
        var p = smoothed[top]
        if top == .automotive, p < configuration.automotiveEntryProbability {
            if let current, !current.automotive {
                // Not enough evidence to start a trip: no change.
                return current
            }
            if current == nil {
                // A first estimate is not a trip unless it is confident: take the best other class.
                top = ActivityClass.allCases.filter { $0 != .automotive }.max { smoothed[$0] < smoothed[$1] } ?? .stationary
                p = smoothed[top]
            }
        }
        guard p >= configuration.unclassifiedBelow else {
            return ActivityState(startTime: startTime, flags: [], confidence: .low)
        }
        var flags = ActivityFlags(top)
        // A stop within an established trip (automotive for at least the confirmation time).
        if top == .stationary, let current, current.automotive,
            time - tripStart >= configuration.automotiveConfirmationTime,
            time - lastAutomotiveTime <= configuration.vehicleStopHold
        {
            flags.insert(.automotive)
        }
        // Confidence with a ±0.05 band around the thresholds while the flags stay, so that a probability
        // hovering at 0.75 does not report high, medium, high…
        var confidence = ActivityConfidence(probability: p)
        if let current, current.flags == flags, confidence != current.confidence {
            let band = 0.05
            let shifted = ActivityConfidence(probability: confidence > current.confidence ? p - band : p + band)
            if shifted == current.confidence { confidence = current.confidence }
        }
        return ActivityState(startTime: startTime, flags: flags, confidence: confidence)
    }

    /// Takes one estimate; returns the new state when it differs from the last one reported (always for
    /// the first estimate).
    public mutating func update(_ estimate: ActivityEstimate) -> ActivityState? {
        let p = estimate.probabilities
        let fresh: Bool
        let interval = lastTime.map { estimate.time - $0 } ?? 0
        if let last = lastTime, estimate.time - last <= configuration.maximumGap, estimate.time >= last,
            let current, !current.unknown
        {
            let alpha = 1 - exp(-(estimate.time - last) / configuration.smoothingTime)
            for c in ActivityClass.allCases { smoothed[c] += alpha * (p[c] - smoothed[c]) }
            fresh = false
        } else {
            smoothed = p
            fresh = true
        }
        lastTime = estimate.time
        if smoothed.mostLikely == .automotive { lastAutomotiveTime = estimate.time }

        if fresh {
            // First estimate or first after a gap: report at once, without the automotive context.
            current = nil
            let state = candidate(at: estimate.time, startTime: estimate.midTime)
            current = state
            tripStart = state.automotive ? state.startTime : .infinity
            pending = nil
            pendingCount = 0
            return state
        }
        guard let current else { return nil }
        // A weaker automotive estimate while a trip is being confirmed pauses the count (bounded).
        if let pending, pending.automotive, !current.automotive, smoothed.mostLikely == .automotive,
            smoothed[.automotive] < configuration.automotiveEntryProbability,
            smoothed[.stationary] < configuration.automotivePauseStationaryBelow
        {
            pausedTime += interval
            if pausedTime <= configuration.automotivePauseLimit { return nil }
        } else {
            pausedTime = 0
        }
        let next = candidate(at: estimate.time, startTime: estimate.midTime)
        if next.flags == current.flags && next.confidence == current.confidence {
            pending = nil
            pendingCount = 0
            return nil
        }
        // A run continues while the candidate keeps the same flags (and, for a change of confidence
        // alone, the same confidence).
        var sameRun = false
        if let pending {
            sameRun = pending.flags == next.flags && (next.flags != current.flags || pending.confidence == next.confidence)
        }
        if sameRun {
            pendingCount += 1
            pendingAutomotiveTime += interval
            // Keep the start of the run; follow the confidence as it settles.
            pending?.confidence = next.confidence
        } else {
            pending = next
            pendingCount = 1
            pendingSince = estimate.time
            pendingAutomotiveTime = 0
            pausedTime = 0
        }
        guard pendingCount >= configuration.confirmationCount, var adopted = pending else { return nil }
        if adopted.automotive, !current.automotive,
            pendingAutomotiveTime < configuration.automotiveConfirmationTime
                || pendingAutomotiveTime < 0.5 * (estimate.time - pendingSince)
        {
            return nil
        }
        if adopted.flags == current.flags { adopted.startTime = current.startTime }
        if !adopted.automotive {
            tripStart = .infinity
        } else if !current.automotive {
            tripStart = adopted.startTime
        }
        self.current = adopted
        pending = nil
        pendingCount = 0
        return adopted
    }

    /// Reports that the sensor stopped (or data is missing) at `time`, seconds: the state becomes unknown.
    /// Returns the unknown state unless it already was.
    public mutating func interrupt(at time: Double) -> ActivityState? {
        lastTime = nil
        pending = nil
        pendingCount = 0
        if let current, current.unknown { return nil }
        let state = ActivityState(startTime: time, flags: .unknown, confidence: .low)
        current = state
        return state
    }
}
