import MotionLiveViewProtocol

/// Thins each channel to at most `rate` samples per second of the source's clock: a sample passes when
/// at least `1/rate` has gone by since the last one that passed on its channel. A 1 kHz sensor at
/// `rate` 60 keeps one sample in about 17. A clock that goes back (a seek, a restart) starts over.
public struct SampleDecimator: Sendable {
    /// The most samples per second and channel that pass.
    public let rate: Double
    private let period: Double
    private var lastPassed: [LiveChannel: Double] = [:]

    /// A decimator letting through at most `rate` samples per second per channel (`rate` > 0).
    public init(rate: Double) {
        precondition(rate > 0 && rate.isFinite, "rate must be positive")
        self.rate = rate
        // A little under one period, so that a source exactly at `rate` is not halved by jitter.
        self.period = 0.999 / rate
    }

    /// Whether `sample` passes; if so it becomes its channel's last passed sample.
    public mutating func admit(_ sample: LiveSample) -> Bool {
        guard sample.time.isFinite else { return false }
        if let last = lastPassed[sample.channel], sample.time >= last, sample.time - last < period {
            return false
        }
        lastPassed[sample.channel] = sample.time
        return true
    }

    /// Forgets every channel's last sample (after a seek).
    public mutating func reset() { lastPassed.removeAll(keepingCapacity: true) }
}
