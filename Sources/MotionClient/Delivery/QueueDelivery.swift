import DequeModule
import Foundation
import Logging

/// Delivers values to a handler on an `OperationQueue`: one operation per value, in the order the
/// values were produced, one handler call at a time, losing nothing while the handler keeps up on
/// average.
///
/// Memory bound: at most ``capacity`` values wait for their operation (65,536 by default: about
/// 11 minutes of backlog at 100 Hz, 6.5 s at 10 kHz). Past it the **oldest** waiting value is
/// discarded, counted in ``droppedCount`` and reported in the log (at most once a second), so a
/// handler that is permanently too slow sees the freshest data instead of an ever-growing delay.
///
/// Order holds even on a concurrent queue: each operation takes the next waiting value under a
/// per-stream lock and calls the handler before releasing it. ``cancel()`` (used by the stop
/// methods) turns every operation still waiting into a no-op and drops the waiting values; a
/// handler call already running finishes.
///
/// `OperationQueue.main` needs nothing special: its operations run on the main dispatch queue, so a handler
/// runs on the main thread while the main run loop runs (`RunLoop.main.run()`, `UIApplicationMain` on iOS),
/// and on the main queue — serially, isolated to the main actor — after `dispatchMain()`. That function
/// parks the main thread and turns the main queue into an ordinary serial queue drained by a worker thread
/// (libdispatch's `_dispatch_queue_cleanup2`; "if you call dispatch_main(), then the main queue becomes
/// detached", swiftlang/swift-corelibs-libdispatch#299), on Apple's platforms as on Linux, so
/// `Thread.isMainThread` is false in such a handler there too. The compatibility clients
/// `main-queue-run-loop` and `main-queue-dispatch-main` (compat/) check both.
public final class QueueDelivery<Value: Sendable>: @unchecked Sendable {  // @unchecked: vars guarded by `state`; the non-Sendable `handler` runs only on `queue`, under `deliveryLock`
    /// Default bound on waiting values per stream.
    public static var defaultCapacity: Int { 65_536 }

    public let queue: OperationQueue
    public let capacity: Int
    private let label: String
    private let handler: (Value) -> Void
    private let state = NSCondition()
    private var waiting = Deque<Value>()
    private var inFlight = 0
    private var active = true
    private var dropped = 0
    private var lastDropLog = -Double.infinity
    private let deliveryLock = NSLock()
    private static var logger: Logger { Logger(label: "coremotion.delivery") }

    /// - Parameters:
    ///   - queue: where the handler runs.
    ///   - capacity: bound on waiting values.
    ///   - label: names the stream in log messages (e.g. "accelerometer").
    ///   - handler: called once per value, on `queue`.
    public init(queue: OperationQueue, capacity: Int = QueueDelivery.defaultCapacity, label: String, handler: @escaping (Value) -> Void) {
        self.queue = queue
        self.capacity = max(1, capacity)
        self.label = label
        self.handler = handler
    }

    /// Values discarded because the bound was reached.
    public var droppedCount: Int {
        state.lock()
        defer { state.unlock() }
        return dropped
    }

    /// Whether the stream still delivers.
    public var isActive: Bool {
        state.lock()
        defer { state.unlock() }
        return active
    }

    /// Queues `value` for delivery (no effect after ``cancel()``).
    public func deliver(_ value: Value) {
        state.lock()
        guard active else {
            state.unlock()
            return
        }
        if waiting.count >= capacity {
            waiting.removeFirst()
            dropped += 1
            let now = ProcessInfo.processInfo.systemUptime
            if now - lastDropLog >= 1 {
                lastDropLog = now
                let count = dropped
                state.unlock()
                Self.logger.warning(
                    "handler too slow: \(capacity) \(label) samples were waiting; oldest discarded (\(count) so far)"
                )
                state.lock()
            }
        }
        waiting.append(value)
        inFlight += 1
        state.unlock()
        queue.addOperation { [self] in self.runOne() }
    }

    private func runOne() {
        deliveryLock.lock()
        defer { deliveryLock.unlock() }
        state.lock()
        let value = active ? waiting.popFirst() : nil
        state.unlock()
        if let value { handler(value) }
        state.lock()
        inFlight -= 1
        if inFlight == 0 { state.broadcast() }
        state.unlock()
    }

    /// Stops delivery: operations still waiting do nothing, waiting values are dropped.
    public func cancel() {
        state.lock()
        active = false
        waiting.removeAll()
        state.unlock()
    }

    /// Blocks until every operation enqueued so far has run (or `timeout` passes). Returns whether it
    /// drained. Used by the virtual-clock test harness; never call it on the queue itself.
    @discardableResult
    public func waitUntilDrained(timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        state.lock()
        defer { state.unlock() }
        while inFlight > 0 {
            if !state.wait(until: deadline) { return inFlight == 0 }
        }
        return true
    }
}
