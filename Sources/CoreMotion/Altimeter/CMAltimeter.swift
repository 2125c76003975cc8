import Foundation
import MotionClient

/// Altitude from the barometer: relative to the first update, one update per barometer sample
/// stamped with the sample's own time (about every 1.06 s, as an iPhone delivers); and absolute where
/// the device has it: GNSS altitude fused with the barometer on a recording of an iPhone 12 or later
/// (or of any phone with location fixes), or a configured reference (`COREMOTION_SEA_LEVEL_PRESSURE=kPa`
/// or `COREMOTION_ALTITUDE=metres`) on live devices.
open class CMAltimeter: NSObject {
    let provider: any MotionProvider
    private let lock = NSLock()
    private var relative: ((any MotionSubscription), QueueDelivery<AltimeterUpdate>)?
    private var absolute: ((any MotionSubscription), QueueDelivery<AltimeterUpdate>)?

    /// An altimeter on the process's motion service.
    public override init() {
        provider = MotionProviders.current
        super.init()
    }

    deinit {
        stopRelativeAltitudeUpdates()
        stopAbsoluteAltitudeUpdates()
    }

    /// Whether relative altitude is available: the device needs a barometer.
    open class func isRelativeAltitudeAvailable() -> Bool { MotionProviders.current.has(.barometer) }
    /// Whether absolute altitude is available. It follows the device: a recording of an Apple device
    /// has it as that model does (iPhone 12 and later, Apple Watch Series 6, SE and later); other
    /// devices have it with a barometer and a reference (location fixes with altitude, or
    /// `COREMOTION_SEA_LEVEL_PRESSURE` / `COREMOTION_ALTITUDE`).
    open class func isAbsoluteAltitudeAvailable() -> Bool { MotionProviders.current.isAbsoluteAltitudeAvailable }
    /// Authorization: the daemon's decision for this user and app, or `.authorized` in process.
    open class func authorizationStatus() -> CMAuthorizationStatus { Authorization.status }

    /// Starts relative-altitude updates on `queue`: the first update is the reference (0 m), then one per
    /// barometer sample (at most one per 1.06 s for a faster barometer), whether or not the altitude
    /// changed. Each update's `timestamp` is its barometer sample's time and its relative altitude is
    /// the altitude at that time (no smoothing lag), so Δ`relativeAltitude` / Δ`timestamp` of
    /// consecutive updates is the vertical speed. No effect without a barometer; a second call
    /// replaces the queue and handler.
    open func startRelativeAltitudeUpdates(to queue: OperationQueue, withHandler handler: @escaping CMAltitudeHandler) {
        stopRelativeAltitudeUpdates()
        guard provider.has(.barometer) else { return }
        let box = UncheckedBox(handler)
        if let refusal = Authorization.refusal(provider, history: false, code: CMErrorNotAuthorized) {
            queue.addOperation { box.value(nil, refusal) }
            return
        }
        let delivery = QueueDelivery<AltimeterUpdate>(queue: queue, label: "altitude") { update in
            if case .relative(let data) = update { box.value(data, nil) }
        }
        provider.deliveries.track(delivery)
        guard let client = provider.subscribeAltitude(absolute: false, receive: { u in
            delivery.deliver(.relative(CMAltitudeData(relativeAltitude: u.relativeAltitude, pressure: u.pressure, timestamp: u.time)))
        }) else { return }
        lock.lock()
        relative = (client, delivery)
        lock.unlock()
    }

    /// Stops relative-altitude updates.
    open func stopRelativeAltitudeUpdates() {
        lock.lock()
        let running = relative
        relative = nil
        lock.unlock()
        if let (client, delivery) = running {
            client.cancel()
            delivery.cancel()
            provider.deliveries.untrack(delivery)
        }
    }

    /// Starts absolute-altitude updates on `queue`, delivered when the altitude changes by at least the
    /// reported precision, from the first fix (or reference) on. Where absolute altitude is not
    /// available (``isAbsoluteAltitudeAvailable()``) the handler gets `CMErrorNotAvailable` once.
    open func startAbsoluteAltitudeUpdates(to queue: OperationQueue, withHandler handler: @escaping CMAbsoluteAltitudeHandler) {
        stopAbsoluteAltitudeUpdates()
        let box = UncheckedBox(handler)
        guard provider.isAbsoluteAltitudeAvailable else {
            queue.addOperation {
                box.value(nil, CMErrorNotAvailable.error(
                    "absolute altitude is not available on this device: it needs a barometer, and a recording of an iPhone 12 or later, location fixes with altitude, or a reference in COREMOTION_SEA_LEVEL_PRESSURE (kPa) or COREMOTION_ALTITUDE (m)"))
            }
            return
        }
        if let refusal = Authorization.refusal(provider, history: false, code: CMErrorNotAuthorized) {
            queue.addOperation { box.value(nil, refusal) }
            return
        }
        let delivery = QueueDelivery<AltimeterUpdate>(queue: queue, label: "absolute altitude") { update in
            if case .absolute(let data) = update { box.value(data, nil) }
        }
        provider.deliveries.track(delivery)
        let last = LastValue()
        guard let client = provider.subscribeAltitude(absolute: true, receive: { u in
            guard let a = u.absolute, last.changed(a.altitude, by: a.precision) else { return }
            delivery.deliver(.absolute(CMAbsoluteAltitudeData(altitude: a.altitude, accuracy: a.accuracy, precision: a.precision, timestamp: u.time)))
        }) else { return }
        lock.lock()
        absolute = (client, delivery)
        lock.unlock()
    }

    /// Stops absolute-altitude updates.
    open func stopAbsoluteAltitudeUpdates() {
        lock.lock()
        let running = absolute
        absolute = nil
        lock.unlock()
        if let (client, delivery) = running {
            client.cancel()
            delivery.cancel()
            provider.deliveries.untrack(delivery)
        }
    }
}

/// Altitude data for the app's handler.
enum AltimeterUpdate: @unchecked Sendable {  // @unchecked: payloads are CM*AltitudeData, all-`let` NSObjects made once and handed to the app's queue
    case relative(CMAltitudeData)
    case absolute(CMAbsoluteAltitudeData)
}

/// The last delivered value, to deliver absolute altitude only when it changes.
final class LastValue: @unchecked Sendable {  // @unchecked: its one var `value` is read and written only under `lock`
    private let lock = NSLock()
    private var value: Double?

    /// Whether `new` differs from the last delivered value by at least `step` (always for the first).
    func changed(_ new: Double, by step: Double) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if let value, abs(new - value) < max(step, 1e-9) { return false }
        value = new
        return true
    }
}
