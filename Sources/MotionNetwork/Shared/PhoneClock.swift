import Foundation

/// Maps a phone's sample times onto the host's clock (seconds on `systemUptime`'s time base, the
/// ``MotionSamples/MotionClock`` of the device), for any network source: Sensor Logger's UTC epoch ns,
/// SensorServer's boot ns, phyphox's experiment seconds (× 10⁹).
///
/// The offset is the smallest `arrival − sample time` seen over a sliding window (NETWORK.md: "track
/// min(arrival − time) per device"): the message that travelled fastest bounds the offset best, and the
/// newest reading of each message is the one that waited least. The offset applied to samples then
/// *slews* towards that estimate at most ``Configuration/slewRate`` seconds per second, so sample
/// intervals stay the phone's (to 0.2 %) and times never jump back; an estimate further than
/// ``Configuration/stepThreshold`` from the applied offset (the phone's clock was set, the phone came
/// back after a long silence) is taken at once (a *step*, counted in ``steps``). In the first
/// ``Configuration/settling`` seconds after the first observation, and only while the caller says no
/// sample has reached an app yet (`mayStepBack`), a lower estimate is also taken at once: the first
/// messages of a connection are often the slowest (a receiver that has just started, a TCP handshake, a
/// radio waking), and slewing away from such a start at 2 ms/s would map every sample up to half a second
/// into the future for minutes (measured: the first push after a receiver started in a client's process
/// came 0.47 s slower than the ones after it). Once samples are delivered it slews, so the intervals an
/// app sees stay the phone's (a step back there broke a 9–11 ms interval check under load).
///
/// **One reading never moves the clock far.** An observation whose `arrival − time` lies more than
/// ``Configuration/earlyTolerance`` (1 s) below the current estimate (its sample claims to be newer than
/// the clock allows: a spoofed push with a far-future time, or the phone's clock set forward) or more
/// than ``Configuration/lateTolerance`` (5 s) above it (a far-past time, or the phone's clock set back) is
/// *held*: it neither enters the window nor maps samples (``observe(newestSample:arrival:mayStepBack:)``
/// returns `false`, counted in ``rejections``). When ``Configuration/confirmations`` (3) such observations
/// in a row agree with each other within ``Configuration/stepThreshold`` and span at least
/// ``Configuration/confirmationSpan`` (1 s) of arrival time, the clock was really set: the window starts
/// over from them and the offset is stepped. The early bound equals the step threshold because anything
/// lower is only slewed (2 ms/s, so a spoof inside it moves times by at most 60 ms over the 30 s window);
/// the late bound is wider because a late message cannot lower the minimum, and a message more than 5 s
/// late is older than any jitter buffer's delay anyway.
///
/// Times are kept as `Int64` ns relative to the first sample seen (the *anchor*), so a 19-digit epoch
/// never passes through a `Double` whole.
public struct PhoneClock: Sendable {
    /// How the offset is estimated and applied.
    public struct Configuration: Sendable, Hashable {
        /// How long an `arrival − time` observation counts towards the minimum, seconds.
        public var window: TimeInterval
        /// Largest change of the applied offset per second of arrival time (0.002 = 2 ms/s).
        public var slewRate: Double
        /// A difference between estimate and applied offset above this is stepped, not slewed, seconds.
        public var stepThreshold: TimeInterval
        /// For this long after the first observation, seconds of arrival time, a lower estimate is taken at
        /// once while nothing has been delivered (``observe(newestSample:arrival:mayStepBack:)``).
        public var settling: TimeInterval
        /// An observation this much below the estimate (its sample newer than the clock allows) is held, seconds.
        public var earlyTolerance: TimeInterval
        /// An observation this much above the estimate (its sample older than any late message) is held, seconds.
        public var lateTolerance: TimeInterval
        /// How many held observations in a row, agreeing within ``stepThreshold``, re-learn the clock.
        public var confirmations: Int
        /// The least arrival time those confirmations span, seconds (a burst of late messages is not a clock change).
        public var confirmationSpan: TimeInterval

        public init(
            window: TimeInterval = 30, slewRate: Double = 0.002, stepThreshold: TimeInterval = 1, settling: TimeInterval = 3,
            earlyTolerance: TimeInterval = 1, lateTolerance: TimeInterval = 5, confirmations: Int = 3, confirmationSpan: TimeInterval = 1
        ) {
            self.window = window
            self.slewRate = slewRate
            self.stepThreshold = stepThreshold
            self.settling = settling
            self.earlyTolerance = earlyTolerance
            self.lateTolerance = lateTolerance
            self.confirmations = confirmations
            self.confirmationSpan = confirmationSpan
        }
    }

    public let configuration: Configuration
    /// The phone time (ns) that is 0 in the seconds this clock works in.
    public private(set) var anchor: Int64?
    /// The applied offset: host time = (phone ns − anchor) / 10⁹ + offset. `nil` before the first observation.
    public private(set) var offset: Double?
    /// How often the offset was stepped rather than slewed (not counting the first estimate).
    public private(set) var steps = 0
    /// Observations held as implausible (far from the estimate) and not (yet) confirmed.
    public private(set) var rejections = 0
    /// Held observations in a row (arrival, arrival − phone seconds), waiting for confirmation.
    private var held: [(arrival: Double, value: Double)] = []
    /// Monotonic deque of (arrival, arrival − phone seconds) with increasing values: its front is the window's minimum.
    private var minima: [(arrival: Double, value: Double)] = []
    private var head = 0
    private var lastArrival: Double?
    private var firstArrival: Double?

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The current estimate of the offset (the window's minimum of `arrival − time`), seconds.
    public var estimate: Double? { head < minima.count ? minima[head].value : nil }

    /// Phone ns as seconds from the anchor (sets the anchor on first use).
    @inline(__always)
    mutating func seconds(_ nanoseconds: Int64) -> Double {
        if anchor == nil { anchor = nanoseconds }
        return Double(nanoseconds &- anchor!) / 1e9
    }

    /// Records that a message whose newest sample was taken at `nanoseconds` (phone clock) arrived at
    /// `arrival` (host clock), and updates the offset. Call once per message, before ``hostTime(_:)``.
    ///
    /// - Parameter mayStepBack: no sample mapped by this clock has been delivered yet, so a faster message
    ///   in the settling time may move the offset back at once.
    /// - Returns: whether the observation was taken; `false`: it is far from the estimate and held (see the
    ///   type's documentation), and the message's samples should not be mapped.
    @discardableResult
    public mutating func observe(newestSample nanoseconds: Int64, arrival: TimeInterval, mayStepBack: Bool = false) -> Bool {
        let value = arrival - seconds(nanoseconds)
        guard value.isFinite else { return false }
        if let current = estimate, offset != nil {
            let deviation = value - current
            if deviation < -configuration.earlyTolerance || deviation > configuration.lateTolerance {
                return hold(value: value, arrival: arrival)
            }
            held.removeAll()
        }
        // Sliding-window minimum.
        while minima.count > head && minima[minima.count - 1].value >= value { minima.removeLast() }
        minima.append((arrival, value))
        while head < minima.count - 1 && minima[head].arrival < arrival - configuration.window { head += 1 }
        if head > 64 {
            minima.removeFirst(head)
            head = 0
        }
        let estimate = minima[head].value
        if firstArrival == nil { firstArrival = arrival }
        if let applied = offset, let last = lastArrival {
            let difference = estimate - applied
            if difference < 0, mayStepBack, arrival - firstArrival! <= configuration.settling {
                offset = estimate
            } else if abs(difference) > configuration.stepThreshold {
                offset = estimate
                steps += 1
            } else {
                let allowed = configuration.slewRate * max(0, arrival - last)
                offset = applied + min(max(difference, -allowed), allowed)
            }
        } else {
            offset = estimate
        }
        lastArrival = arrival
        return true
    }

    /// Holds an implausible observation; re-learns the clock once enough of them agree. Returns whether it was taken.
    private mutating func hold(value: Double, arrival: Double) -> Bool {
        if let first = held.first, abs(value - first.value) > configuration.stepThreshold { held.removeAll() }
        held.append((arrival, value))
        guard held.count >= max(configuration.confirmations, 1),
              arrival - held[0].arrival >= configuration.confirmationSpan else {
            rejections += 1
            return false
        }
        // The phone's clock really moved: start the window over from the agreeing observations.
        var fresh: [(arrival: Double, value: Double)] = []
        for h in held {
            while let last = fresh.last, last.value >= h.value { fresh.removeLast() }
            fresh.append(h)
        }
        minima = fresh
        head = 0
        held.removeAll()
        offset = minima[0].value
        steps += 1
        lastArrival = arrival
        return true
    }

    /// The host time of a phone sample time (ns), or `nil` before the first ``observe(newestSample:arrival:)``.
    @inline(__always)
    public func hostTime(_ nanoseconds: Int64) -> TimeInterval? {
        guard let anchor, let offset else { return nil }
        return Double(nanoseconds &- anchor) / 1e9 + offset
    }

    /// Seconds on a phone clock (phyphox's wall-clock-placed experiment time) as nanoseconds; `nil` when not
    /// finite or beyond ±292 years.
    public static func nanoseconds(fromSeconds seconds: Double) -> Int64? {
        let ns = (seconds * 1e9).rounded()
        guard ns.isFinite, abs(ns) < 9.2e18 else { return nil }
        return Int64(ns)
    }

    /// Forgets everything (a new recording, or a phone back after a long silence).
    public mutating func reset() {
        self = PhoneClock(configuration: configuration)
    }
}
