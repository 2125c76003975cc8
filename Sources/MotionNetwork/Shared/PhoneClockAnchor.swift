// Shared helper of the phone network sources (phyphox, SensorServer; branch net-phyphox). At the merge, fold
// with the Sensor Logger server's clock mapping (`Shared/`): both track min(arrival − sample time).

/// Places a phone's sample times on this machine's clock (`systemUptime`) by the smallest observed
/// `arrival − sample time`: the sample that travelled fastest sets the offset (NETWORK.md §6).
///
/// The phone's clock (boot nanoseconds for SensorServer, phyphox's experiment time placed on the phone's wall
/// clock) and this machine's run at the same rate, up to drift; what differs is an unknown offset plus
/// the time each reading took to arrive. `offset = min(arrival − phoneTime)` is the offset plus the
/// shortest delivery delay seen, so a mapped time is never later than the moment the sample arrived, and
/// the error is the delay of the fastest sample (a few milliseconds on a LAN). The offset only ever
/// decreases; ``observe(phoneTime:arrival:)`` says by how much, so that a device can tell a tightening
/// from a jump.
public struct PhoneClockAnchor: Sendable, Equatable {
    /// `uptime − phone time` of the fastest sample so far, seconds; `nil` before the first one.
    public private(set) var offset: Double?

    public init() {}

    /// Records a sample's phone time and the uptime it arrived at (both seconds); returns by how much the
    /// offset decreased (0 when it did not, or for the first sample).
    @discardableResult
    public mutating func observe(phoneTime: Double, arrival: Double) -> Double {
        guard phoneTime.isFinite, arrival.isFinite else { return 0 }
        let candidate = arrival - phoneTime
        guard let current = offset else {
            offset = candidate
            return 0
        }
        guard candidate < current else { return 0 }
        offset = candidate
        return current - candidate
    }

    /// The uptime of a phone time, once a sample was observed.
    public func uptime(of phoneTime: Double) -> Double? {
        offset.map { phoneTime + $0 }
    }

    /// Forgets the offset (a new connection or session: the phone may have rebooted).
    public mutating func reset() {
        offset = nil
    }
}
