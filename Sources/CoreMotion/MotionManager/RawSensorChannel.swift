import Foundation
import MotionService

/// One raw sensor stream of a ``CMMotionManager``: its interval, its pull value and, in push mode,
/// its delivery to the app's queue.
final class RawSensorChannel<Item: CMLogItem>: @unchecked Sendable {
    let sensor: SensorKind
    private let convert: @Sendable (SensorSample) -> Item?
    private let lock = NSLock()
    private var requestedInterval: TimeInterval = CMMotionManager.defaultUpdateInterval
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
        guard let item = convert(sample) else { return }
        lock.lock()
        latestItem = item
        let delivery = self.delivery
        lock.unlock()
        delivery?.deliver(item)
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
