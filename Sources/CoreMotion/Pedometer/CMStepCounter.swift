import Foundation
import MotionClient

/// Step counting (deprecated by Apple in iOS 8 in favour of ``CMPedometer``), implemented on top of
/// ``CMPedometer``.
@available(*, deprecated, message: "Use CMPedometer instead")
open class CMStepCounter: NSObject {
    private let pedometer = CMPedometer()
    /// What the pedometer's handler touches on the pedometer's queue: the handler captures this, never the
    /// (non-`Sendable`) step counter itself.
    private let progress = StepCountProgress()

    /// A step counter over a ``CMPedometer`` of its own.
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
        let progress = self.progress
        progress.reset()
        pedometer.startUpdates(from: Date()) { data, error in
            if let error {
                queue.addOperation { box.value(0, Date(), error) }
                return
            }
            guard let data else { return }
            let steps = data.numberOfSteps.intValue
            let end = data.endDate
            if progress.reached(steps, threshold: threshold) { queue.addOperation { box.value(steps, end, nil) } }
        }
    }

    /// Stops step-counting updates.
    open func stopStepCountingUpdates() { pedometer.stopUpdates() }
}

/// The step count last reported by a ``CMStepCounter``, shared between the app's thread and the pedometer's
/// queue.
final class StepCountProgress: @unchecked Sendable {  // @unchecked: its one var `lastReported` is read and written only under `lock`
    private let lock = NSLock()
    private var lastReported = 0

    func reset() {
        lock.lock()
        lastReported = 0
        lock.unlock()
    }

    /// Whether `steps` is at least `threshold` past the last report; if so it becomes the last report.
    func reached(_ steps: Int, threshold: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard steps - lastReported >= threshold else { return false }
        lastReported = steps
        return true
    }
}
