import Foundation
import MotionService

/// Steps, distance, floors, pace and cadence, live and from the last 7 days of history.
///
/// Handlers run on an internal serial queue, one at a time (Apple's behaviour: `CMPedometer` takes no
/// queue). Live updates are cumulative from the start date given.
open class CMPedometer: NSObject, @unchecked Sendable {
    let service: MotionService

    public override init() {
        service = MotionService.current
        super.init()
    }

    /// Whether steps can be counted: the device needs an accelerometer.
    open class func isStepCountingAvailable() -> Bool { MotionService.current.has(.accelerometer) }
    /// Whether distance can be estimated (from steps and the stride model).
    open class func isDistanceAvailable() -> Bool { MotionService.current.has(.accelerometer) }
    /// Whether floors can be counted: the device needs an accelerometer and a barometer.
    open class func isFloorCountingAvailable() -> Bool {
        MotionService.current.has(.accelerometer) && MotionService.current.has(.barometer)
    }
    /// Whether pace can be estimated.
    open class func isPaceAvailable() -> Bool { MotionService.current.has(.accelerometer) }
    /// Whether cadence can be estimated.
    open class func isCadenceAvailable() -> Bool { MotionService.current.has(.accelerometer) }
    /// Whether pause/resume events are available.
    open class func isPedometerEventTrackingAvailable() -> Bool { MotionService.current.has(.accelerometer) }
    /// Authorization (see the README's authorization policy; `.authorized` by default).
    open class func authorizationStatus() -> CMAuthorizationStatus { Authorization.status }

    /// Reports steps and the rest between `start` and `end` from history (the last 7 days); the
    /// handler is called once, on the pedometer's serial queue.
    open func queryPedometerData(from start: Date, to end: Date, withHandler handler: @escaping CMPedometerHandler) {
        let box = UncheckedBox(handler)
        callbackQueue.addOperation {
            box.value(nil, CMErrorMotionActivityNotAvailable.error("step counting is not available on this device"))
        }
    }

    /// Starts live updates, each cumulative from `start`.
    open func startUpdates(from start: Date, withHandler handler: @escaping CMPedometerHandler) {
        let box = UncheckedBox(handler)
        callbackQueue.addOperation {
            box.value(nil, CMErrorMotionActivityNotAvailable.error("step counting is not available on this device"))
        }
    }

    /// Stops live updates.
    open func stopUpdates() {}

    /// Starts pause/resume events.
    open func startEventUpdates(handler: @escaping CMPedometerEventHandler) {
        let box = UncheckedBox(handler)
        callbackQueue.addOperation {
            box.value(nil, CMErrorMotionActivityNotAvailable.error("pedometer events are not available on this device"))
        }
    }

    /// Stops pause/resume events.
    open func stopEventUpdates() {}

    /// The serial queue handlers run on.
    let callbackQueue: OperationQueue = {
        let q = OperationQueue()
        q.maxConcurrentOperationCount = 1
        q.name = "coremotion.pedometer"
        return q
    }()
}
