import Foundation
import MotionService

/// The user's motion activity, live and from the last 7 days of history.
open class CMMotionActivityManager: NSObject, @unchecked Sendable {
    let service: MotionService

    public override init() {
        service = MotionService.current
        super.init()
    }

    /// Whether activity can be estimated: the device needs an accelerometer.
    open class func isActivityAvailable() -> Bool { MotionService.current.has(.accelerometer) }
    /// Authorization (see the README's authorization policy; `.authorized` by default).
    open class func authorizationStatus() -> CMAuthorizationStatus { Authorization.status }

    /// Reports the activities between `start` and `end` (the last 7 days) on `queue`. The first may
    /// start before `start`; a span without data gives `CMErrorUnknown`.
    open func queryActivityStarting(
        from start: Date, to end: Date, to queue: OperationQueue, withHandler handler: @escaping CMMotionActivityQueryHandler
    ) {
        let box = UncheckedBox(handler)
        queue.addOperation {
            box.value(nil, CMErrorMotionActivityNotAvailable.error("motion activity is not available on this device"))
        }
    }

    /// Starts activity updates on `queue`: the current activity first, then changes only. A second
    /// call replaces the handler.
    open func startActivityUpdates(to queue: OperationQueue, withHandler handler: @escaping CMMotionActivityHandler) {}

    /// Stops activity updates.
    open func stopActivityUpdates() {}
}
