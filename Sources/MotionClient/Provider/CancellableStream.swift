import Foundation

/// A ``MotionSubscription`` that runs its stop action once, on the first ``cancel()`` (both implementations
/// of the client interface hand these out).
public final class CancellableStream: MotionSubscription, @unchecked Sendable {
    public let interval: TimeInterval
    private let lock = NSLock()
    private var stop: (@Sendable () -> Void)?

    /// - Parameters:
    ///   - interval: the interval in effect, seconds (0 for streams without one).
    ///   - stop: what ends the stream; run at most once.
    public init(interval: TimeInterval, stop: @escaping @Sendable () -> Void) {
        self.interval = interval
        self.stop = stop
    }

    public func cancel() {
        lock.lock()
        let stop = self.stop
        self.stop = nil
        lock.unlock()
        stop?()
    }
}
