import Foundation
import NIOConcurrencyHelpers

/// A ``MotionSubscription`` that runs its stop action once, on the first ``cancel()`` (both implementations
/// of the client interface hand these out).
public final class CancellableStream: MotionSubscription, Sendable {
    public let interval: TimeInterval
    private let stop: NIOLockedValueBox<(@Sendable () -> Void)?>

    /// - Parameters:
    ///   - interval: the interval in effect, seconds (0 for streams without one).
    ///   - stop: what ends the stream; run at most once.
    public init(interval: TimeInterval, stop: @escaping @Sendable () -> Void) {
        self.interval = interval
        self.stop = NIOLockedValueBox(stop)
    }

    public func cancel() {
        // Taken out under the lock, run outside it.
        let stop = self.stop.withLockedValue { stop in
            defer { stop = nil }
            return stop
        }
        stop?()
    }
}
