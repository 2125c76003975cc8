import Foundation
import MotionClient

/// One raw sensor stream of a ``CMMotionManager``: its interval, its pull value and, in push mode,
/// its delivery to the app's queue.
final class RawSensorChannel<Item: CMLogItem>: @unchecked Sendable {  // @unchecked: every var (and the inbox's delivery) is guarded by `inbox.lock`
    let sensor: SensorKind
    /// What the service's device thread writes into: captured strongly by the subscription (a weak
    /// capture of the channel would put every retain and release of it on the runtime's slow path,
    /// once per sample). It holds no reference back to the channel or the subscription.
    private let inbox: Inbox
    private var lock: NSLock { inbox.lock }
    private var requestedInterval: TimeInterval = CMMotionManager.defaultUpdateInterval
    private var subscription: (any MotionSubscription)?
    private var delivery: QueueDelivery<UncheckedBox<Item>>? {
        get { inbox.delivery }
        set { inbox.delivery = newValue }
    }
    private var provider: (any MotionProvider)?

    init(_ sensor: SensorKind, convert: @escaping @Sendable (SensorSample) -> Item?) {
        self.sensor = sensor
        self.inbox = Inbox(convert: convert)
    }

    /// The latest sample, `nil` until the first one.
    var latest: Item? {
        lock.lock()
        defer { lock.unlock() }
        return inbox.latestLocked()
    }

    var isActive: Bool {
        lock.lock()
        defer { lock.unlock() }
        return subscription != nil
    }

    /// The interval in effect: the requested one clamped to the device's range.
    func interval(on provider: any MotionProvider) -> TimeInterval {
        lock.lock()
        let requested = requestedInterval
        lock.unlock()
        return provider.clampInterval(requested, for: sensor)
    }

    /// Sets the interval; a running stream switches to it at once.
    func setInterval(_ interval: TimeInterval, on provider: any MotionProvider) {
        lock.lock()
        requestedInterval = interval.isNaN ? CMMotionManager.defaultUpdateInterval : interval
        let running = subscription
        lock.unlock()
        if running != nil { resubscribe(on: provider) }
    }

    /// Starts the stream (pull only when `handler` is nil). Does nothing when the device lacks the
    /// sensor. A running stream is stopped first, so the last call wins.
    func start(on provider: any MotionProvider, queue: OperationQueue?, handler: ((Item?, (any Error)?) -> Void)?) {
        stop()
        guard provider.has(sensor) else { return }
        var newDelivery: QueueDelivery<UncheckedBox<Item>>?
        if let queue, let handler {
            let box = UncheckedBox(handler)
            newDelivery = QueueDelivery(queue: queue, label: sensor.rawValue) { item in box.value(item.value, nil) }
        }
        lock.lock()
        delivery = newDelivery
        self.provider = provider
        lock.unlock()
        if let newDelivery { provider.deliveries.track(newDelivery) }
        resubscribe(on: provider)
    }

    private func resubscribe(on provider: any MotionProvider) {
        lock.lock()
        let old = subscription
        let requested = requestedInterval
        lock.unlock()
        let new = provider.subscribe(to: sensor, interval: requested) { [inbox] sample in inbox.receive(sample) }
        lock.lock()
        subscription = new
        lock.unlock()
        old?.cancel()
    }

    /// Stops the stream; operations not yet run on the app's queue do nothing.
    func stop() {
        lock.lock()
        let subscription = self.subscription
        let delivery = self.delivery
        let provider = self.provider
        self.subscription = nil
        self.delivery = nil
        lock.unlock()
        delivery?.cancel()
        subscription?.cancel()
        if let provider, let delivery { provider.deliveries.untrack(delivery) }
    }

    /// The latest sample and the push delivery, guarded by `lock` (which the channel shares).
    final class Inbox: @unchecked Sendable {  // @unchecked: its vars are guarded by `lock`; `latestLocked()` is only called with it held
        let lock = NSLock()
        let convert: @Sendable (SensorSample) -> Item?
        /// The latest sample as it came from the service; converted to an `Item` on first read (a
        /// pull client reads far less often than the sensor delivers, so no object is made per sample).
        private var latestSample: SensorSample?
        /// `latestSample` converted, once; `nil` until read or delivered.
        private var latestItem: Item?
        var delivery: QueueDelivery<UncheckedBox<Item>>?

        init(convert: @escaping @Sendable (SensorSample) -> Item?) {
            self.convert = convert
        }

        /// The latest item, made from the latest sample on first read. Caller holds `lock`.
        func latestLocked() -> Item? {
            if latestItem == nil, let sample = latestSample { latestItem = convert(sample) }
            return latestItem
        }

        func receive(_ sample: SensorSample) {
            lock.lock()
            guard let delivery else {
                // Pull only: keep the sample; the object is made when the app reads it.
                latestSample = sample
                latestItem = nil
                lock.unlock()
                return
            }
            lock.unlock()
            guard let item = convert(sample) else { return }
            lock.lock()
            latestSample = sample
            latestItem = item
            lock.unlock()
            delivery.deliver(UncheckedBox(item))
        }
    }
}
