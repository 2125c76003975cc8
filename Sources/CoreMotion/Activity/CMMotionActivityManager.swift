import Foundation
import MotionService

/// The user's motion activity (stationary, walking, running, cycling, automotive), live and from the
/// last 7 days of history.
///
/// History: from the moment a process makes a `CMMotionActivityManager` (or a `CMPedometer`), this
/// library classifies the accelerometer for as long as the process runs and keeps the states 7 days
/// in the history store (`COREMOTION_HISTORY`). A span recorded by no process reads as `unknown`.
open class CMMotionActivityManager: NSObject, @unchecked Sendable {
    let service: MotionService
    private let lock = NSLock()
    private var client: ActivityClient?
    private var delivery: QueueDelivery<CMMotionActivity>?

    public override init() {
        service = MotionService.current
        super.init()
        if service.has(.accelerometer) && Authorization.allowsData { service.startActivityRecording() }
    }

    deinit { stopActivityUpdates() }

    /// Whether activity can be estimated: the device needs an accelerometer.
    open class func isActivityAvailable() -> Bool { MotionService.current.has(.accelerometer) }
    /// Authorization (see the README's authorization policy; `.authorized` by default).
    open class func authorizationStatus() -> CMAuthorizationStatus { Authorization.status }

    private func refusal() -> NSError? {
        if !service.has(.accelerometer) {
            return CMErrorMotionActivityNotAvailable.error("motion activity is not available on this device (no accelerometer)")
        }
        if !Authorization.allowsData {
            return CMErrorMotionActivityNotAuthorized.error("motion activity is not authorized (COREMOTION_AUTHORIZATION)")
        }
        return nil
    }

    /// Reports the activities between `start` and `end` (the last 7 days) on `queue`; returns at once.
    /// The first activity may start before `start` (it is the state at `start`); a span without data
    /// gives `CMErrorUnknown`.
    open func queryActivityStarting(
        from start: Date, to end: Date, to queue: OperationQueue, withHandler handler: @escaping CMMotionActivityQueryHandler
    ) {
        let box = UncheckedBox(handler)
        let refusal = self.refusal()
        let service = self.service
        queue.addOperation {
            if let refusal { return box.value(nil, refusal) }
            guard end >= start else { return box.value(nil, CMErrorInvalidParameter.error("the end date is before the start date")) }
            do {
                let reports = try service.activityHistory(from: start, to: end)
                guard !reports.isEmpty else {
                    return box.value(nil, CMErrorUnknown.error("no activity was recorded between \(start) and \(end)"))
                }
                box.value(reports.map(CMMotionActivity.init(report:)), nil)
            } catch {
                box.value(nil, CMErrorUnknown.error("the activity history cannot be read: \(error)"))
            }
        }
    }

    /// Starts activity updates on `queue`: the current activity first, then changes only. A second call
    /// replaces the handler. Without an accelerometer (or authorization) nothing is delivered.
    open func startActivityUpdates(to queue: OperationQueue, withHandler handler: @escaping CMMotionActivityHandler) {
        stopActivityUpdates()
        guard refusal() == nil else { return }
        let box = UncheckedBox(handler)
        let delivery = QueueDelivery<CMMotionActivity>(queue: queue, label: "activity") { box.value($0) }
        service.track(delivery)
        lock.lock()
        self.delivery = delivery
        lock.unlock()
        let client = service.startActivityUpdates { report in delivery.deliver(CMMotionActivity(report: report)) }
        lock.lock()
        self.client = client
        lock.unlock()
    }

    /// Stops activity updates.
    open func stopActivityUpdates() {
        lock.lock()
        let client = self.client
        let delivery = self.delivery
        self.client = nil
        self.delivery = nil
        lock.unlock()
        if let client { service.stopActivityUpdates(client) }
        delivery?.cancel()
        if let delivery { service.untrack(delivery) }
    }
}

extension CMMotionActivity {
    convenience init(report r: ActivityReport) {
        var flags: UInt8 = 0
        if r.unknown { flags |= CMMotionActivity.unknownFlag }
        if r.stationary { flags |= CMMotionActivity.stationaryFlag }
        if r.walking { flags |= CMMotionActivity.walkingFlag }
        if r.running { flags |= CMMotionActivity.runningFlag }
        if r.automotive { flags |= CMMotionActivity.automotiveFlag }
        if r.cycling { flags |= CMMotionActivity.cyclingFlag }
        self.init(
            flags: flags, confidence: CMMotionActivityConfidence(rawValue: r.confidence) ?? .low,
            startDate: r.startDate, timestamp: r.timestamp
        )
    }
}
