import Foundation
import MotionClient

/// The user's motion activity (stationary, walking, running, cycling, automotive), live and from the
/// last 7 days of history.
///
/// History: through `coremotiond` the activity is classified all day, whether or not any app runs, and
/// kept 7 days; queries need the app to be `.authorized`. In process, classification starts when the
/// process makes a `CMMotionActivityManager` (or a `CMPedometer`) and lasts while it runs; a span nobody
/// recorded reads as `unknown`.
open class CMMotionActivityManager: NSObject {
    let provider: any MotionProvider
    private let lock = NSLock()
    private var client: (any MotionSubscription)?
    private var delivery: QueueDelivery<UncheckedBox<CMMotionActivity>>?

    /// A manager on the process's motion service. Where the device has an accelerometer and live
    /// data is allowed, making one starts activity classification into the history (in process;
    /// `coremotiond` classifies all day anyway).
    public override init() {
        provider = MotionProviders.current
        super.init()
        if provider.has(.accelerometer) && Authorization.allowsLiveData(provider) { provider.startActivityRecording() }
    }

    deinit { stopActivityUpdates() }

    /// Whether activity can be estimated: the device needs an accelerometer.
    open class func isActivityAvailable() -> Bool { MotionProviders.current.has(.accelerometer) }
    /// Authorization: the daemon's decision for this user and app, or `.authorized` in process.
    open class func authorizationStatus() -> CMAuthorizationStatus { Authorization.status }

    private func refusal(history: Bool) -> NSError? {
        if !provider.has(.accelerometer) {
            return CMErrorMotionActivityNotAvailable.error("motion activity is not available on this device (no accelerometer)")
        }
        return Authorization.refusal(provider, history: history)
    }

    /// Reports the activities between `start` and `end` (the last 7 days) on `queue`; returns at once.
    /// The first activity may start before `start` (it is the state at `start`); a span without data
    /// gives `CMErrorUnknown`.
    open func queryActivityStarting(
        from start: Date, to end: Date, to queue: OperationQueue, withHandler handler: @escaping CMMotionActivityQueryHandler
    ) {
        let box = UncheckedBox(handler)
        let refusal = self.refusal(history: true)
        let provider = self.provider
        queue.addOperation {
            if let refusal { return box.value(nil, refusal) }
            guard end >= start else { return box.value(nil, CMErrorInvalidParameter.error("the end date is before the start date")) }
            do {
                let reports = try provider.activityHistory(from: start, to: end)
                guard !reports.isEmpty else {
                    return box.value(nil, CMErrorUnknown.error("no activity was recorded between \(start) and \(end)"))
                }
                box.value(reports.map(CMMotionActivity.init(report:)), nil)
            } catch {
                box.value(nil, CMError.from(error, reading: "the activity history"))
            }
        }
    }

    /// Starts activity updates on `queue`: the current activity first, then changes only. A second call
    /// replaces the handler. Without an accelerometer (or authorization) nothing is delivered.
    open func startActivityUpdates(to queue: OperationQueue, withHandler handler: @escaping CMMotionActivityHandler) {
        stopActivityUpdates()
        guard refusal(history: false) == nil else { return }
        let box = UncheckedBox(handler)
        let delivery = QueueDelivery<UncheckedBox<CMMotionActivity>>(queue: queue, label: "activity") { box.value($0.value) }
        provider.deliveries.track(delivery)
        lock.lock()
        self.delivery = delivery
        lock.unlock()
        let client = provider.subscribeActivity { report in delivery.deliver(UncheckedBox(CMMotionActivity(report: report))) }
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
        client?.cancel()
        delivery?.cancel()
        if let delivery { provider.deliveries.untrack(delivery) }
    }
}

extension CMMotionActivity {
    convenience init(report r: ActivityReport) {
        var flags: UInt8 = 0
        if r.flags.contains(.unknown) { flags |= CMMotionActivity.unknownFlag }
        if r.flags.contains(.stationary) { flags |= CMMotionActivity.stationaryFlag }
        if r.flags.contains(.walking) { flags |= CMMotionActivity.walkingFlag }
        if r.flags.contains(.running) { flags |= CMMotionActivity.runningFlag }
        if r.flags.contains(.automotive) { flags |= CMMotionActivity.automotiveFlag }
        if r.flags.contains(.cycling) { flags |= CMMotionActivity.cyclingFlag }
        self.init(
            flags: flags, confidence: CMMotionActivityConfidence(rawValue: r.confidence.rawValue) ?? .low,
            startDate: r.startDate, timestamp: r.timestamp
        )
    }
}
