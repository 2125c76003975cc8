import Foundation
import MotionClient

/// Activity and connection status from motion-sensing headphones (iOS 18, macOS 15, watchOS 11).
///
/// Available wherever ``CMHeadphoneMotionManager`` is: a headphone source is configured
/// (`COREMOTION_HEADPHONE_DEVICE`, or the daemon's).
///
/// **Activity** is what the head's own motion can honestly tell, classified every 0.5 s over the last 3 s
/// of headphone samples: *stationary* (the head still: vertical acceleration spread under 0.02 g, user
/// acceleration under 0.03 g RMS, rotation under 0.2 rad/s), *walking* or *running* (a step rhythm in the
/// head's vertical acceleration, below or above 2.3 steps/s), or none of them (all flags false: the head
/// moves without a step rhythm, e.g. turning or nodding). A state is reported once it has held for 1 s;
/// `automotive` and `cycling` are never reported (Apple's headphone activity does not support them either).
/// The current state comes first when known, then changes. `unknown` is never set.
///
/// **Status**: `.connected` at once when the headphones are already connected, then every change
/// (disconnected after a silence longer than 1 s, connected when samples come back).
open class CMHeadphoneActivityManager: NSObject {
    /// Headphone connection state.
    public enum Status: Int, Sendable, Hashable, BitwiseCopyable {
        /// No supported headphones are connected.
        case disconnected = 0
        /// Supported headphones are connected.
        case connected = 1
    }

    /// Receives headphone activity.
    public typealias ActivityHandler = (CMMotionActivity?, (any Error)?) -> Void
    /// Receives headphone connection status.
    public typealias StatusHandler = (CMHeadphoneActivityManager.Status, (any Error)?) -> Void

    let provider: any MotionProvider
    private let lock = NSLock()
    private var activity: (subscription: (any MotionSubscription)?, delivery: QueueDelivery<UncheckedBox<CMMotionActivity>>)?
    private var status: (subscription: (any MotionSubscription)?, delivery: QueueDelivery<CMHeadphoneActivityManager.Status>)?

    /// A manager on the process's motion service and its headphones.
    public override init() {
        provider = MotionProviders.current
        super.init()
    }

    deinit {
        stopActivityUpdates()
        stopStatusUpdates()
    }

    /// Authorization: the daemon's decision for this user and app, or `.authorized` in process
    /// (<doc:PortingAnIOSApp#Authorization>).
    open class func authorizationStatus() -> CMAuthorizationStatus { Authorization.status }

    /// Whether headphone activity is supported here: a headphone source is configured.
    open var isActivityAvailable: Bool { provider.isHeadphoneMotionAvailable }
    /// Whether activity updates run.
    open var isActivityActive: Bool {
        lock.lock()
        defer { lock.unlock() }
        return activity != nil
    }
    /// Whether connection status is supported here: a headphone source is configured.
    open var isStatusAvailable: Bool { provider.isHeadphoneMotionAvailable }
    /// Whether status updates run.
    open var isStatusActive: Bool {
        lock.lock()
        defer { lock.unlock() }
        return status != nil
    }

    /// Starts activity updates on `queue`: the current activity first when known, then changes. Without
    /// headphones the handler gets `CMErrorNotAvailable` once; without authorization
    /// `CMErrorMotionActivityNotAuthorized`. A second call replaces the handler.
    open func startActivityUpdates(to queue: OperationQueue, withHandler handler: @escaping ActivityHandler) {
        stopActivityUpdates()
        let box = UncheckedBox(handler)
        guard provider.isHeadphoneMotionAvailable else {
            queue.addOperation { box.value(nil, CMErrorNotAvailable.error("headphone activity is not available: no headphones are configured (COREMOTION_HEADPHONE_DEVICE)")) }
            return
        }
        if let refusal = Authorization.refusal(provider, history: false) {
            queue.addOperation { box.value(nil, refusal) }
            return
        }
        let delivery = QueueDelivery<UncheckedBox<CMMotionActivity>>(queue: queue, label: "headphone activity") { box.value($0.value, nil) }
        provider.deliveries.track(delivery)
        lock.lock()
        activity = (nil, delivery)
        lock.unlock()
        let subscription = provider.subscribeHeadphoneActivity { report in
            delivery.deliver(UncheckedBox(CMMotionActivity(report: report)))
        }
        lock.lock()
        if activity?.delivery === delivery { activity?.subscription = subscription } else { subscription?.cancel() }
        lock.unlock()
    }

    /// Stops activity updates.
    open func stopActivityUpdates() {
        lock.lock()
        let running = activity
        activity = nil
        lock.unlock()
        guard let running else { return }
        running.subscription?.cancel()
        running.delivery.cancel()
        provider.deliveries.untrack(running.delivery)
    }

    /// Starts connection-status updates on `queue`: `.connected` at once when the headphones are already
    /// connected, then each change. Without headphones nothing is reported (as with no compatible headphones
    /// on Apple's devices); without authorization the handler gets `.disconnected` with
    /// `CMErrorNotAuthorized` once.
    open func startStatusUpdates(to queue: OperationQueue, withHandler handler: @escaping StatusHandler) {
        stopStatusUpdates()
        let box = UncheckedBox(handler)
        guard provider.isHeadphoneMotionAvailable else { return }
        if let refusal = Authorization.refusal(provider, history: false, code: CMErrorNotAuthorized) {
            queue.addOperation { box.value(.disconnected, refusal) }
            return
        }
        let reported = ReportedStatus()
        let delivery = QueueDelivery<CMHeadphoneActivityManager.Status>(queue: queue, label: "headphone status") { box.value($0, nil) }
        provider.deliveries.track(delivery)
        lock.lock()
        status = (nil, delivery)
        lock.unlock()
        let subscription = provider.subscribeHeadphoneConnection { state in
            if reported.change(to: state.isConnected) { delivery.deliver(state.isConnected ? .connected : .disconnected) }
        }
        lock.lock()
        if status?.delivery === delivery { status?.subscription = subscription } else { subscription?.cancel() }
        lock.unlock()
    }

    /// Stops connection-status updates.
    open func stopStatusUpdates() {
        lock.lock()
        let running = status
        status = nil
        lock.unlock()
        guard let running else { return }
        running.subscription?.cancel()
        running.delivery.cancel()
        provider.deliveries.untrack(running.delivery)
    }
}

/// The connection as last reported: each change once, the first only when connected.
final class ReportedStatus: @unchecked Sendable {  // @unchecked: its one var `connected` is read and written only under `lock`
    private let lock = NSLock()
    private var connected = false

    /// Whether `value` is a change to report.
    func change(to value: Bool) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard value != connected else { return false }
        connected = value
        return true
    }
}
