import Foundation
import NIOConcurrencyHelpers

/// A delivery stream whose pending work the harness can wait for.
public protocol DrainableDelivery: AnyObject, Sendable {
    func waitUntilDrained(timeout: TimeInterval) -> Bool
}

extension QueueDelivery: DrainableDelivery {}

/// The delivery streams of one provider, so that a virtual-clock harness can wait until every handler
/// call due so far has run.
public final class DeliveryTracker: Sendable {
    private let deliveries = NIOLockedValueBox<[ObjectIdentifier: any DrainableDelivery]>([:])

    public init() {}

    /// Registers a delivery stream.
    public func track(_ delivery: some DrainableDelivery) {
        deliveries.withLockedValue { $0[ObjectIdentifier(delivery)] = delivery }
    }

    /// Forgets a delivery stream.
    public func untrack(_ delivery: some DrainableDelivery) {
        deliveries.withLockedValue { $0[ObjectIdentifier(delivery)] = nil }
    }

    /// Blocks until every handler operation enqueued so far has run. Returns false on timeout.
    @discardableResult
    public func waitUntilDelivered(timeout: TimeInterval = 10) -> Bool {
        let list = deliveries.withLockedValue { Array($0.values) }
        let deadline = Date().addingTimeInterval(timeout)
        return list.allSatisfy { $0.waitUntilDrained(timeout: max(0, deadline.timeIntervalSinceNow)) }
    }
}
