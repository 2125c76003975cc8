import Foundation
import MotionSamples

/// Activity from headphone motion (`CMHeadphoneActivityManager`): what the head's own motion can honestly
/// tell, and no more.
///
/// Every ``hop`` (0.5 s) it looks at the last ``window`` (3 s) of samples:
/// - the **vertical acceleration** `a_v = userAcceleration · up` (up = −gravity, g): its standard deviation
///   and the strongest normalised autocorrelation over the lags of a step rhythm (1.2–3.5 steps/s);
/// - the mean **rotation rate** |ω| and the RMS of the whole user acceleration.
///
/// | state | condition |
/// |---|---|
/// | `stationary` | std(a_v) < 0.02 g, RMS |userAcceleration| < 0.03 g and mean |ω| < 0.2 rad/s |
/// | `walking` | a step rhythm (autocorrelation ≥ 0.5) below 2.3 steps/s with std(a_v) ≥ 0.03 g and mean |ω| ≤ 7 rad/s per g of std(a_v) |
/// | `running` | a step rhythm at 2.3 steps/s or more with std(a_v) ≥ 0.15 g |
/// | none (all flags false) | the head moves without a step rhythm: turning, nodding, shaking, gesturing |
///
/// A new state is reported once it has held for two evaluations in a row (1 s), with its start time the
/// first of them; confidence is high for a clear case (autocorrelation ≥ 0.7, or far inside the stationary
/// limits), medium otherwise. Automotive and cycling are never reported (Apple's headphone activity does
/// not support them either, `CMHeadphoneActivityManager.h`). After a gap longer than 1 s the window starts
/// again. Pure and deterministic; a few kB of state.
public struct HeadActivityClassifier: Sendable {
    /// One reported state.
    public struct Report: Sendable, Hashable {
        /// When the state began, seconds (the samples' clock).
        public var startTime: Double
        /// When it was decided, seconds.
        public var time: Double
        /// The classes: one of stationary, walking, running, or none.
        public var flags: ActivityFlags
        /// How sure.
        public var confidence: ActivityConfidence
    }

    /// Seconds of samples each decision looks at.
    public static let window = 3.0
    /// Seconds between decisions.
    public static let hop = 0.5
    /// The most mean rotation rate (rad/s) per g of vertical acceleration (standard deviation) that a step
    /// rhythm may come with: a head shaken in rhythm turns about 10 rad/s per g.
    public static let maximumTurningPerBounce = 7.0

    private var times: [Double] = []
    private var vertical: [Double] = []
    private var userSquared: [Double] = []
    private var rotation: [Double] = []
    private var lastDecision = -Double.infinity
    private var candidate: (flags: ActivityFlags, confidence: ActivityConfidence, since: Double)?
    private var reported: ActivityFlags?

    /// A classifier before its first sample.
    public init() {}

    /// The state reported last, if any.
    public var current: ActivityFlags? { reported }

    /// Adds a sample (in time order); returns a report when the state changes.
    public mutating func add(_ sample: HeadphoneMotionSample) -> Report? {
        if let last = times.last, sample.time - last > 1 || sample.time <= last { reset() }
        let up = -sample.gravity.normalized
        times.append(sample.time)
        vertical.append(sample.userAcceleration.dot(up))
        userSquared.append(sample.userAcceleration.normSquared)
        rotation.append(sample.rotationRate.norm)
        // Keep the window.
        if let first = times.first, sample.time - first > Self.window {
            let cut = times.firstIndex { sample.time - $0 <= Self.window } ?? 0
            times.removeFirst(cut)
            vertical.removeFirst(cut)
            userSquared.removeFirst(cut)
            rotation.removeFirst(cut)
        }
        guard let first = times.first, sample.time - first >= Self.window - 0.1, sample.time - lastDecision >= Self.hop else {
            return nil
        }
        lastDecision = sample.time
        let (flags, confidence) = classify()
        if let c = candidate, c.flags == flags {
            guard reported != flags else { return nil }
            reported = flags
            return Report(startTime: c.since, time: sample.time, flags: flags, confidence: max(c.confidence, confidence))
        }
        candidate = (flags, confidence, sample.time)
        return nil
    }

    /// Forgets the window (the headphones disconnected); the next state is reported afresh.
    public mutating func reset() {
        times.removeAll(keepingCapacity: true)
        vertical.removeAll(keepingCapacity: true)
        userSquared.removeAll(keepingCapacity: true)
        rotation.removeAll(keepingCapacity: true)
        lastDecision = -Double.infinity
        candidate = nil
        reported = nil
    }

    private func classify() -> (ActivityFlags, ActivityConfidence) {
        let n = Double(vertical.count)
        let mean = vertical.reduce(0, +) / n
        let std = (vertical.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / n).squareRoot()
        let userRMS = (userSquared.reduce(0, +) / n).squareRoot()
        let turning = rotation.reduce(0, +) / n
        if std < 0.02 && userRMS < 0.03 && turning < 0.2 {
            let clear = std < 0.01 && userRMS < 0.015 && turning < 0.1
            return (.stationary, clear ? .high : .medium)
        }
        let (correlation, cadence) = stepRhythm(mean: mean, std: std)
        // Shaking or nodding the head in rhythm also moves it up and down in rhythm; steps bounce the head
        // with little turning. Real AirPods shaking (`airpods-head-shake`, 3 s windows) turned 9.4–10.9 rad/s
        // per g of vertical bounce; a rhythm with more than `maximumTurningPerBounce` is no gait.
        if correlation >= 0.5 && turning <= Self.maximumTurningPerBounce * std {
            if cadence >= 2.3 && std >= 0.15 { return (.running, correlation >= 0.7 ? .high : .medium) }
            if cadence < 2.3 && std >= 0.03 { return (.walking, correlation >= 0.7 ? .high : .medium) }
        }
        return ([], .low)
    }

    /// The strongest autocorrelation of the vertical acceleration over step-rhythm lags, and its rate (steps/s).
    private func stepRhythm(mean: Double, std: Double) -> (Double, Double) {
        guard std > 1e-9, times.count > 8, let first = times.first, let last = times.last, last > first else { return (0, 0) }
        let period = (last - first) / Double(times.count - 1)
        let shortest = max(1, Int((1 / 3.5 / period).rounded(.down)))
        let longest = min(times.count / 2, Int((1 / 1.2 / period).rounded(.up)))
        guard longest >= shortest else { return (0, 0) }
        let variance = std * std
        var best = 0.0
        var bestLag = 0
        for lag in shortest...longest {
            var sum = 0.0
            for i in lag..<vertical.count { sum += (vertical[i] - mean) * (vertical[i - lag] - mean) }
            let r = sum / (Double(vertical.count - lag) * variance)
            if r > best {
                best = r
                bestLag = lag
            }
        }
        return bestLag > 0 ? (best, 1 / (Double(bestLag) * period)) : (0, 0)
    }
}
