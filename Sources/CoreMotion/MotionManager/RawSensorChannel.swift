import Foundation
import MotionService

/// One raw sensor stream of a ``CMMotionManager``: its interval, its pull value and, in push mode,
/// its delivery to the app's queue.
final class RawSensorChannel<Item: CMLogItem>: @unchecked Sendable {
    let sensor: SensorKind
    private let convert: @Sendable (SensorSample) -> Item?
    private let lock = NSLock()
    private var requestedInterval: TimeInterval = CMMotionManager.defaultUpdateInterval
    /// The latest sample as it came from the service; converted to an `Item` on first read (a pull
    /// client reads far less often than the sensor delivers, so no object is made per sample).
    private var latestSample: SensorSample?
    /// `latestSample` converted, once; `nil` until read or delivered.
    private var latestItem: Item?
    private var subscription: SensorSubscription?
    private var delivery: QueueDelivery<Item>?
    private var service: MotionService?

    init(_ sensor: SensorKind, convert: @escaping @Sendable (SensorSample) -> Item?) {
        self.sensor = sensor
        self.convert = convert
    }

    /// The latest sample, `nil` until the first one.
    var latest: Item? {
        lock.lock()
        defer { lock.unlock() }
        if latestItem == nil, let sample = latestSample { latestItem = convert(sample) }
        return latestItem
    }

    var isActive: Bool {
        lock.lock()
        defer { lock.unlock() }
        return subscription != nil
    }

    /// The interval in effect: the requested one clamped to the device's range.
    func interval(on service: MotionService) -> TimeInterval {
        lock.lock()
        let requested = requestedInterval
        lock.unlock()
        return service.clampInterval(requested, for: sensor)
    }

    /// Sets the interval; a running stream switches to it at once.
    func setInterval(_ interval: TimeInterval, on service: MotionService) {
        lock.lock()
        requestedInterval = interval.isNaN ? CMMotionManager.defaultUpdateInterval : interval
        let running = subscription
        lock.unlock()
        if running != nil { resubscribe(on: service) }
    }

    /// Starts the stream (pull only when `handler` is nil). Does nothing when the device lacks the
    /// sensor. A running stream is stopped first, so the last call wins.
    func start(on service: MotionService, queue: OperationQueue?, handler: ((Item?, (any Error)?) -> Void)?) {
        stop()
        guard service.has(sensor) else { return }
        var newDelivery: QueueDelivery<Item>?
        if let queue, let handler {
            let box = UncheckedBox(handler)
            newDelivery = QueueDelivery(queue: queue, label: sensor.rawValue) { item in box.value(item, nil) }
        }
        lock.lock()
        delivery = newDelivery
        self.service = service
        lock.unlock()
        if let newDelivery { service.track(newDelivery) }
        resubscribe(on: service)
    }

    private func resubscribe(on service: MotionService) {
        lock.lock()
        let old = subscription
        let requested = requestedInterval
        lock.unlock()
        let new = service.subscribe(to: sensor, interval: requested) { [weak self] sample in self?.receive(sample) }
        lock.lock()
        subscription = new
        lock.unlock()
        if let old { service.cancel(old) }
    }

    private func receive(_ sample: SensorSample) {
        lock.lock()
        guard let delivery = self.delivery else {
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
        delivery.deliver(item)
    }

    /// Stops the stream; operations not yet run on the app's queue do nothing.
    func stop() {
        lock.lock()
        let subscription = self.subscription
        let delivery = self.delivery
        let service = self.service
        self.subscription = nil
        self.delivery = nil
        lock.unlock()
        delivery?.cancel()
        if let service {
            if let subscription { service.cancel(subscription) }
            if let delivery { service.untrack(delivery) }
        }
    }
}
