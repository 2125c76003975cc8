import Foundation
import MotionClient

/// Steps, distance, floors, pace and cadence, live and from the last 7 days of history.
///
/// Handlers run on an internal serial queue, one at a time (`CMPedometer` takes no queue). Live
/// updates are cumulative from the start date given, reported at most once a second while steps
/// come in and at each pause.
///
/// History: through `coremotiond` (the system service), steps, floors and pauses are counted all day,
/// whether or not any app runs, and kept 7 days; queries answer from that history and need the app to be
/// `.authorized` (`coremotion permissions grant APP`). In process (recordings, the simulator, no daemon),
/// counting starts when the process makes a `CMPedometer` (or a `CMMotionActivityManager`) and lasts while
/// it runs, into the history store `COREMOTION_HISTORY` names.
open class CMPedometer: NSObject {
    let provider: any MotionProvider
    private let lock = NSLock()
    private var session: (any MotionSubscription)?
    private var sessionDelivery: QueueDelivery<PedometerUpdate>?
    private var eventClient: (any MotionSubscription)?
    private var eventDelivery: QueueDelivery<PedometerUpdate>?

    /// A pedometer on the process's motion service. Where the device has an accelerometer and live
    /// data is allowed, making one starts step counting into the history (in process; `coremotiond`
    /// counts all day anyway).
    public override init() {
        provider = MotionProviders.current
        super.init()
        if provider.has(.accelerometer) && Authorization.allowsLiveData(provider) { provider.startPedometerRecording() }
    }

    deinit {
        stopUpdates()
        stopEventUpdates()
    }

    /// Whether steps can be counted: the device needs an accelerometer.
    open class func isStepCountingAvailable() -> Bool { MotionProviders.current.has(.accelerometer) }
    /// Whether distance can be estimated (from steps and the stride model).
    open class func isDistanceAvailable() -> Bool { MotionProviders.current.has(.accelerometer) }
    /// Whether floors can be counted: the device needs an accelerometer and a barometer.
    open class func isFloorCountingAvailable() -> Bool {
        let provider = MotionProviders.current
        return provider.has(.accelerometer) && provider.has(.barometer)
    }
    /// Whether pace can be estimated.
    open class func isPaceAvailable() -> Bool { MotionProviders.current.has(.accelerometer) }
    /// Whether cadence can be estimated.
    open class func isCadenceAvailable() -> Bool { MotionProviders.current.has(.accelerometer) }
    /// Whether pause/resume events are available.
    open class func isPedometerEventTrackingAvailable() -> Bool { MotionProviders.current.has(.accelerometer) }
    /// Authorization: the daemon's decision for this user and app, or `.authorized` in process
    /// (<doc:PortingAnIOSApp#Authorization>).
    open class func authorizationStatus() -> CMAuthorizationStatus { Authorization.status }

    /// The error to report instead of data, if any.
    private func refusal(history: Bool) -> NSError? {
        if !provider.has(.accelerometer) {
            return CMErrorMotionActivityNotAvailable.error("step counting is not available on this device (no accelerometer)")
        }
        return Authorization.refusal(provider, history: history)
    }

    /// Reports steps, distance and floors between `start` and `end` from history (the last 7 days;
    /// an earlier start gives what is stored). The handler is called once, on the pedometer's serial
    /// queue; `currentPace` and `currentCadence` are `nil` for queries.
    open func queryPedometerData(from start: Date, to end: Date, withHandler handler: @escaping CMPedometerHandler) {
        let box = UncheckedBox(handler)
        let refusal = self.refusal(history: true)
        let provider = self.provider
        let floors = provider.has(.barometer)
        callbackQueue.addOperation {
            if let refusal { return box.value(nil, refusal) }
            guard end >= start else {
                return box.value(nil, CMErrorInvalidParameter.error("the end date is before the start date"))
            }
            do {
                let totals = try provider.pedometerTotals(from: start, to: end)
                box.value(CMPedometerData(totals, floors: floors, live: false), nil)
            } catch {
                box.value(nil, CMError.from(error, reading: "the pedometer history"))
            }
        }
    }

    /// Starts live updates, each cumulative from `start`. A second call replaces the first.
    open func startUpdates(from start: Date, withHandler handler: @escaping CMPedometerHandler) {
        stopUpdates()
        let box = UncheckedBox(handler)
        if let refusal = refusal(history: false) {
            callbackQueue.addOperation { box.value(nil, refusal) }
            return
        }
        let floors = provider.has(.barometer)
        let delivery = QueueDelivery<PedometerUpdate>(queue: callbackQueue, label: "pedometer") { update in
            if case .data(let data) = update { box.value(data, nil) }
        }
        provider.deliveries.track(delivery)
        let session = provider.subscribePedometer(from: start) { totals in
            delivery.deliver(.data(CMPedometerData(totals, floors: floors, live: true)))
        }
        lock.lock()
        self.session = session
        sessionDelivery = delivery
        lock.unlock()
    }

    /// Stops live updates.
    open func stopUpdates() {
        lock.lock()
        let session = self.session
        let delivery = sessionDelivery
        self.session = nil
        sessionDelivery = nil
        lock.unlock()
        session?.cancel()
        delivery?.cancel()
        if let delivery { provider.deliveries.untrack(delivery) }
    }

    /// Starts pause/resume events (on the pedometer's serial queue).
    open func startEventUpdates(handler: @escaping CMPedometerEventHandler) {
        stopEventUpdates()
        let box = UncheckedBox(handler)
        if let refusal = refusal(history: false) {
            callbackQueue.addOperation { box.value(nil, refusal) }
            return
        }
        let delivery = QueueDelivery<PedometerUpdate>(queue: callbackQueue, label: "pedometer events") { update in
            if case .event(let event) = update { box.value(event, nil) }
        }
        provider.deliveries.track(delivery)
        let client = provider.subscribePedometerEvents { event in
            delivery.deliver(.event(CMPedometerEvent(date: event.date, type: event.resumed ? .resume : .pause)))
        }
        lock.lock()
        eventClient = client
        eventDelivery = delivery
        lock.unlock()
    }

    /// Stops pause/resume events.
    open func stopEventUpdates() {
        lock.lock()
        let client = eventClient
        let delivery = eventDelivery
        eventClient = nil
        eventDelivery = nil
        lock.unlock()
        client?.cancel()
        delivery?.cancel()
        if let delivery { provider.deliveries.untrack(delivery) }
    }

    /// The serial queue handlers run on.
    let callbackQueue: OperationQueue = {
        let q = OperationQueue()
        q.maxConcurrentOperationCount = 1
        q.name = "coremotion.pedometer"
        return q
    }()
}

/// Pedometer data or an event for the app's handler.
enum PedometerUpdate: @unchecked Sendable {  // @unchecked: payloads are CMPedometerData/Event, all-`let` NSObjects made once and handed to the app's queue
    case data(CMPedometerData)
    case event(CMPedometerEvent)
}

extension CMPedometerData {
    convenience init(_ t: PedometerTotals, floors: Bool, live: Bool) {
        self.init(
            startDate: t.start, endDate: t.end, steps: t.steps, distance: t.distance,
            floorsAscended: floors ? t.floorsAscended : nil, floorsDescended: floors ? t.floorsDescended : nil,
            currentPace: live ? t.currentPace : nil, currentCadence: live ? t.currentCadence : nil,
            averageActivePace: t.averageActivePace
        )
    }
}
