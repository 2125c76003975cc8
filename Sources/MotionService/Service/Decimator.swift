/// Thins a sample stream to a client's update interval.
///
/// A sample is passed when it is due: at most half a device period before the next due time.
/// Due times advance by the interval, so the delivered rate matches the interval on average, and
/// restart from the current sample after a gap so that a pause never causes a burst.
public struct Decimator: Sendable {
    /// The client's interval, seconds (0 passes every sample).
    public var interval: Double
    /// Half the device's sample period, seconds.
    public var tolerance: Double
    private var nextDue = -Double.infinity

    public init(interval: Double, devicePeriod: Double) {
        self.interval = max(0, interval)
        self.tolerance = max(0, devicePeriod) / 2
    }

    /// Whether the sample at `time` should be delivered; updates the due time when it is.
    public mutating func admit(_ time: Double) -> Bool {
        guard time + tolerance >= nextDue else { return false }
        if nextDue == -Double.infinity || time - nextDue > interval + tolerance {
            nextDue = time + interval
        } else {
            nextDue += interval
        }
        return true
    }
}
