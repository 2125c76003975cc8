import Foundation

/// Brings accelerometer samples of any rate onto a uniform grid (by default 25 Hz), so that features
/// mean the same whatever the device delivers (QROWD's Android phones at ~25 Hz, MotionSense at 50 Hz,
/// an iPhone at 100 Hz).
///
/// Output sample `k` is at time `k / rate` and is the mean of the input samples in
/// `((k − 1) / rate, k / rate]`: a box filter that also serves as the anti-aliasing low-pass when the
/// input is faster than the grid. When the input is slower (or a sensor that reports on change holds
/// its value), empty bins repeat the last value (zero-order hold). Input that goes back in time or is
/// not finite (or beyond ±10¹² s) is skipped; a silence longer than ``maximumGap`` ends the stream (``add(time:value:output:)``
/// returns `.gap` and the caller starts afresh).
///
/// No allocation: the state is a handful of scalars.
public struct AccelerationResampler: Sendable {
    /// What happened to an input sample.
    public enum Outcome: Sendable, Hashable {
        /// Accepted (zero or more grid samples were produced).
        case accepted
        /// Skipped: not finite, or not later than the previous sample.
        case skipped
        /// Accepted after a gap longer than ``AccelerationResampler/maximumGap``: the grid restarted at this sample.
        case gap
    }

    /// Grid rate, Hz.
    public let rate: Double
    /// Longest silence bridged by holding the last value, seconds.
    public let maximumGap: Double

    private var bin: Int64 = 0
    private var sum = Vector3.zero
    private var count = 0
    private var lastTime = -Double.infinity
    private var lastValue = Vector3.zero
    private var started = false

    /// - Parameters:
    ///   - rate: grid rate in Hz (positive).
    ///   - maximumGap: longest silence, in seconds, bridged by holding the last value.
    public init(rate: Double = 25, maximumGap: Double = 1.0) {
        self.rate = rate > 0 && rate.isFinite ? rate : 25
        self.maximumGap = maximumGap > 0 ? maximumGap : 1.0
    }

    /// Forgets everything; the next sample starts a new grid.
    public mutating func reset() {
        started = false
        count = 0
        sum = .zero
        lastTime = -.infinity
    }

    /// Adds one accelerometer sample (time in seconds, value in g) and calls `output` with each
    /// completed grid sample (time in seconds, mean acceleration in g), oldest first.
    @discardableResult
    public mutating func add(time: Double, value: Vector3, output: (Double, Vector3) -> Void) -> Outcome {
        guard time.isFinite, time.magnitude < 1e12, value.isFinite, time > lastTime else { return .skipped }
        // Bin k holds times in ((k − 1)/rate, k/rate]; the small offset keeps k/rate itself in bin k.
        let k = Int64((time * rate - 1e-9).rounded(.up))
        var outcome = Outcome.accepted
        if started, time - lastTime > maximumGap {
            reset()
            outcome = .gap
        }
        if !started {
            started = true
            bin = k
            sum = value
            count = 1
        } else if k == bin {
            sum += value
            count += 1
        } else {
            // Close the current bin, then hold the last value over the empty bins.
            let mean = count > 0 ? sum / Double(count) : lastValue
            output(Double(bin) / rate, mean)
            var b = bin + 1
            while b < k {
                output(Double(b) / rate, lastValue)
                b += 1
            }
            bin = k
            sum = value
            count = 1
        }
        lastTime = time
        lastValue = value
        return outcome
    }
}
