import Foundation

/// A headphone stream known in advance: a recording or a simulated scene, as the events a headset would
/// deliver (connection changes and samples) on the source's own time axis, ready to play against a clock
/// (``ScheduledHeadphoneDevice``).
///
/// **Connection follows the samples** (the one rule for every source, `docs/headphones.md#connection`):
/// - `connected` just before the first sample (at the source's own `connected` record when it has one,
///   as the AirPods capture does 256 ms before its first sample), and again before the first sample after
///   a disconnection;
/// - `disconnected` when the next sample is more than ``gapThreshold`` (1 s) away, at the last sample's time
///   + 1 s (the moment a live receiver would notice), or at a recorded `disconnected`/`stopped` record;
/// - `disconnected` one sample period after the last sample, at the end of a stream that does not loop.
///
/// The threshold is above every ordinary dropout of real AirPods streams (typically 120–220 ms, some
/// ≈ 360 ms; `spec/HEADPHONES.md` §2) and below a bud taken out of the ear for a moment. Samples keep their
/// own times: a gap shorter than the threshold stays a gap in the data, never filled or resampled.
public struct HeadphoneTimeline: Sendable {
    /// A silence longer than this (seconds) is a disconnection.
    public static let gapThreshold: TimeInterval = 1.0

    /// What the timeline plays (a file, a scene).
    public let name: String
    /// One pass of events, in non-decreasing time.
    public let events: [HeadphoneEvent]
    /// The samples' nominal rate, Hz (from the median interval unless given).
    public let rate: Double
    /// The source time that plays at the moment a device is made.
    public let startTime: Double
    /// When set, the pass repeats every `loopSpan` seconds (each pass shifted by that much).
    public let loopSpan: Double?
    /// Whether the headphones are connected at the end of a pass (then a repeated pass does not connect again).
    public let endsConnected: Bool
    /// The connection changes of one pass (time, connected), for ``isConnected(at:)``.
    private let transitions: [(time: Double, connected: Bool)]

    /// Builds the events from samples (and the source's own status records) with the connection rule above.
    ///
    /// - Parameters:
    ///   - samples: time-ordered samples; a sample not later than the one before it is left out.
    ///   - status: the source's own connection records (used for the time of the first connection and for
    ///     disconnections it recorded), on the samples' axis.
    ///   - rate: the nominal rate, Hz; `nil` measures the median interval.
    ///   - startTime: the source time that plays first; `nil`: the first event's.
    ///   - loopSpan: repeat the samples every `loopSpan` seconds (`nil`: play once, then disconnect). A
    ///     looping timeline connects at its first sample (recorded connection times are for a single pass).
    ///   - gapThreshold: the silence that disconnects, seconds.
    public init(
        name: String, samples: [HeadphoneMotionSample], status: [HeadphoneStatusRecord] = [], rate: Double? = nil,
        startTime: Double? = nil, loopSpan: Double? = nil, gapThreshold: TimeInterval = HeadphoneTimeline.gapThreshold
    ) {
        var kept: [HeadphoneMotionSample] = []
        kept.reserveCapacity(samples.count)
        for s in samples where s.isFinite && (kept.last.map { s.time > $0.time } ?? true) { kept.append(s) }
        let rate = rate ?? Self.nominalRate(kept.map(\.time))
        let period = 1 / rate
        let status = status.sorted { $0.time < $1.time }
        var events: [HeadphoneEvent] = []
        events.reserveCapacity(kept.count + 8)
        var transitions: [(time: Double, connected: Bool)] = []
        var connected = false
        var lastDisconnect = -Double.infinity
        for (i, sample) in kept.enumerated() {
            if !connected {
                // The source's own `connected` record since the last disconnection, if any (single pass only).
                let recorded = loopSpan == nil
                    ? status.last { $0.connected && $0.time > lastDisconnect && $0.time <= sample.time }?.time : nil
                let t = recorded ?? sample.time
                events.append(.connected(time: t))
                transitions.append((t, true))
                connected = true
            }
            events.append(.motion(sample))
            let next: Double? = i + 1 < kept.count ? kept[i + 1].time : loopSpan.map { kept[0].time + $0 }
            let upper = next ?? .infinity
            if let stop = status.first(where: { !$0.connected && $0.time > sample.time && $0.time < upper }) {
                events.append(.disconnected(time: stop.time, reason: "the source says \(stop.label)"))
                transitions.append((stop.time, false))
                connected = false
                lastDisconnect = stop.time
            } else if let next, next - sample.time > gapThreshold {
                let t = sample.time + gapThreshold
                events.append(.disconnected(time: t, reason: "no sample for more than \(Self.describe(gapThreshold))"))
                transitions.append((t, false))
                connected = false
                lastDisconnect = t
            } else if next == nil {
                let t = sample.time + period
                events.append(.disconnected(time: t, reason: "end of the stream"))
                transitions.append((t, false))
                connected = false
            }
        }
        self.name = name
        self.events = events
        self.rate = rate
        self.startTime = startTime ?? events.first?.time ?? 0
        self.loopSpan = kept.isEmpty ? nil : loopSpan
        self.endsConnected = connected
        self.transitions = transitions
    }

    /// Whether the headphones are connected at source time `t` (connection changes at their own times,
    /// passes repeated when looping).
    public func isConnected(at t: Double) -> Bool {
        guard let first = events.first?.time, t >= first else { return false }
        var local = t
        var before = false
        if let span = loopSpan, span > 0, t >= first + span {
            let passes = ((t - first) / span).rounded(.down)
            local = t - passes * span
            before = endsConnected
        }
        // Last change at or before `local`.
        var lo = 0, hi = transitions.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if transitions[mid].time <= local { lo = mid + 1 } else { hi = mid }
        }
        return lo > 0 ? transitions[lo - 1].connected : before
    }

    /// Time of the last event of a pass (seconds), or `nil` when there is none.
    public var endTime: Double? { events.last?.time }

    /// The samples of one pass.
    public var samples: [HeadphoneMotionSample] {
        events.compactMap { if case .motion(let s) = $0 { s } else { nil } }
    }

    /// Rate from the median interval of `times`, Hz; 50 Hz (today's AirPods) for fewer than two samples.
    public static func nominalRate(_ times: [Double]) -> Double {
        guard times.count > 1 else { return 50 }
        var d = zip(times.dropFirst(), times).map { $0 - $1 }.filter { $0 > 0 }
        guard !d.isEmpty else { return 50 }
        d.sort()
        return 1 / d[d.count / 2]
    }

    private static func describe(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}
