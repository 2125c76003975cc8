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

        public init(window: TimeInterval = 30, slewRate: Double = 0.002, stepThreshold: TimeInterval = 1, settling: TimeInterval = 3) {
            self.window = window
            self.slewRate = slewRate
            self.stepThreshold = stepThreshold
            self.settling = settling
        }
    }

    public let configuration: Configuration
    /// The phone time (ns) that is 0 in the seconds this clock works in.
    public private(set) var anchor: Int64?
    /// The applied offset: host time = (phone ns − anchor) / 10⁹ + offset. `nil` before the first observation.
    public private(set) var offset: Double?
    /// How often the offset was stepped rather than slewed (not counting the first estimate).
    public private(set) var steps = 0
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
    public mutating func observe(newestSample nanoseconds: Int64, arrival: TimeInterval, mayStepBack: Bool = false) {
        let value = arrival - seconds(nanoseconds)
        guard value.isFinite else { return }
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
