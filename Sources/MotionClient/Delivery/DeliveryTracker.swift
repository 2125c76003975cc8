import Foundation

/// A delivery stream whose pending work the harness can wait for.
public protocol DrainableDelivery: AnyObject, Sendable {
    func waitUntilDrained(timeout: TimeInterval) -> Bool
}

extension QueueDelivery: DrainableDelivery {}

/// The delivery streams of one provider, so that a virtual-clock harness can wait until every handler
/// call due so far has run.
public final class DeliveryTracker: @unchecked Sendable {
    private let lock = NSLock()
    private var deliveries: [ObjectIdentifier: any DrainableDelivery] = [:]

    public init() {}

    /// Registers a delivery stream.
    public func track(_ delivery: some DrainableDelivery) {
        lock.lock()
        deliveries[ObjectIdentifier(delivery)] = delivery
        lock.unlock()
    }

    /// Forgets a delivery stream.
    public func untrack(_ delivery: some DrainableDelivery) {
        lock.lock()
        deliveries[ObjectIdentifier(delivery)] = nil
        lock.unlock()
    }

    /// Blocks until every handler operation enqueued so far has run. Returns false on timeout.
    @discardableResult
    public func waitUntilDelivered(timeout: TimeInterval = 10) -> Bool {
        lock.lock()
        let list = Array(deliveries.values)
        lock.unlock()
        let deadline = Date().addingTimeInterval(timeout)
        return list.allSatisfy { $0.waitUntilDrained(timeout: max(0, deadline.timeIntervalSinceNow)) }
    }
}
