import Foundation
import MotionClient

/// Step counting (deprecated by Apple in iOS 8 in favour of ``CMPedometer``), implemented on top of
/// ``CMPedometer``.
@available(*, deprecated, message: "Use CMPedometer instead")
open class CMStepCounter: NSObject, @unchecked Sendable {
    private let pedometer = CMPedometer()
    private let lock = NSLock()
    private var lastReported = 0

    public override init() { super.init() }

    /// Whether steps can be counted.
    open class func isStepCountingAvailable() -> Bool { CMPedometer.isStepCountingAvailable() }

    /// Counts the steps between the dates and reports them on `queue`.
    open func queryStepCountStarting(
        from start: Date, to end: Date, to queue: OperationQueue, withHandler handler: @escaping CMStepQueryHandler
    ) {
        let box = UncheckedBox(handler)
        pedometer.queryPedometerData(from: start, to: end) { data, error in
            let steps = data?.numberOfSteps.intValue ?? 0
            queue.addOperation { box.value(steps, error) }
        }
    }

    /// Reports the step count since the call on `queue` each time it grows by `stepCounts` or more.
    open func startStepCountingUpdates(
        to queue: OperationQueue, updateOn stepCounts: Int, withHandler handler: @escaping CMStepUpdateHandler
    ) {
        let box = UncheckedBox(handler)
        let threshold = max(1, stepCounts)
        lock.lock()
        lastReported = 0
        lock.unlock()
        pedometer.startUpdates(from: Date()) { [weak self] data, error in
            guard let self else { return }
            if let error {
                queue.addOperation { box.value(0, Date(), error) }
                return
            }
            guard let data else { return }
            let steps = data.numberOfSteps.intValue
            self.lock.lock()
            let due = steps - self.lastReported >= threshold
            if due { self.lastReported = steps }
            self.lock.unlock()
            if due { queue.addOperation { box.value(steps, data.endDate, nil) } }
        }
    }

    /// Stops step-counting updates.
    open func stopStepCountingUpdates() { pedometer.stopUpdates() }
}
