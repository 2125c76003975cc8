import Foundation
import MotionService

/// Steps, distance, floors, pace and cadence, live and from the last 7 days of history.
///
/// Handlers run on an internal serial queue, one at a time (`CMPedometer` takes no queue). Live
/// updates are cumulative from the start date given, reported at most once a second while steps
/// come in and at each pause.
///
/// History: from the moment a process makes a `CMPedometer` (or a `CMMotionActivityManager`), this
/// library counts steps, floors and pauses for as long as the process runs and keeps them 7 days in
/// the history store (`COREMOTION_HISTORY`). Queries answer from it; steps taken while no process used
/// the device are not known (there is no system daemon yet).
open class CMPedometer: NSObject, @unchecked Sendable {
    let service: MotionService
    private let lock = NSLock()
    private var session: PedometerSession?
    private var sessionDelivery: QueueDelivery<PedometerUpdate>?
    private var eventClient: PedometerEventClient?
    private var eventDelivery: QueueDelivery<PedometerUpdate>?

    public override init() {
        service = MotionService.current
        super.init()
        if service.has(.accelerometer) && Authorization.allowsData { service.startPedometerRecording() }
    }

    deinit {
        stopUpdates()
        stopEventUpdates()
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

    /// The error to report instead of data, if any.
    private func refusal() -> NSError? {
        if !service.has(.accelerometer) {
            return CMErrorMotionActivityNotAvailable.error("step counting is not available on this device (no accelerometer)")
        }
        if !Authorization.allowsData {
            return CMErrorMotionActivityNotAuthorized.error("motion data is not authorized (COREMOTION_AUTHORIZATION)")
        }
        return nil
    }

    /// Reports steps, distance and floors between `start` and `end` from history (the last 7 days;
    /// an earlier start gives what is stored). The handler is called once, on the pedometer's serial
    /// queue; `currentPace` and `currentCadence` are `nil` for queries.
    open func queryPedometerData(from start: Date, to end: Date, withHandler handler: @escaping CMPedometerHandler) {
        let box = UncheckedBox(handler)
        let refusal = self.refusal()
        let service = self.service
        let floors = CMPedometer.isFloorCountingAvailable()
        callbackQueue.addOperation {
            if let refusal { return box.value(nil, refusal) }
            guard end >= start else {
                return box.value(nil, CMErrorInvalidParameter.error("the end date is before the start date"))
            }
            do {
                let totals = try service.pedometerTotals(from: start, to: end)
                box.value(CMPedometerData(totals, floors: floors, live: false), nil)
            } catch {
                box.value(nil, CMErrorUnknown.error("the pedometer history cannot be read: \(error)"))
            }
        }
    }

    /// Starts live updates, each cumulative from `start`. A second call replaces the first.
    open func startUpdates(from start: Date, withHandler handler: @escaping CMPedometerHandler) {
        stopUpdates()
        let box = UncheckedBox(handler)
        if let refusal = refusal() {
            callbackQueue.addOperation { box.value(nil, refusal) }
            return
        }
        let floors = CMPedometer.isFloorCountingAvailable()
        let delivery = QueueDelivery<PedometerUpdate>(queue: callbackQueue, label: "pedometer") { update in
            if case .data(let data) = update { box.value(data, nil) }
        }
        service.track(delivery)
        let session = service.startPedometerSession(from: start) { totals in
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
        if let session { service.stopPedometerSession(session) }
        delivery?.cancel()
        if let delivery { service.untrack(delivery) }
    }

    /// Starts pause/resume events (on the pedometer's serial queue).
    open func startEventUpdates(handler: @escaping CMPedometerEventHandler) {
        stopEventUpdates()
        let box = UncheckedBox(handler)
        if let refusal = refusal() {
            callbackQueue.addOperation { box.value(nil, refusal) }
            return
        }
        let delivery = QueueDelivery<PedometerUpdate>(queue: callbackQueue, label: "pedometer events") { update in
            if case .event(let event) = update { box.value(event, nil) }
        }
        service.track(delivery)
        let client = service.startPedometerEvents { date, resumed in
            delivery.deliver(.event(CMPedometerEvent(date: date, type: resumed ? .resume : .pause)))
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
        if let client { service.stopPedometerEvents(client) }
        delivery?.cancel()
        if let delivery { service.untrack(delivery) }
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
enum PedometerUpdate: @unchecked Sendable {
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
