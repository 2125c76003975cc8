import Foundation
import MotionClient

/// The device-motion stream of a ``CMMotionManager``: the frame, the interval, the pull value and the
/// delivery to the app's queue.
final class DeviceMotionChannel: @unchecked Sendable {  // @unchecked: every stored var is guarded by `lock`; `provider` is a `let`
    private let provider: any MotionProvider
    private let lock = NSLock()
    private var requestedInterval: TimeInterval = CMMotionManager.defaultUpdateInterval
    private var currentFrame: CMAttitudeReferenceFrame = .xArbitraryZVertical
    private var latestItem: CMDeviceMotion?
    private var subscription: (any MotionSubscription)?
    private var delivery: QueueDelivery<CMDeviceMotionUpdate>?

    init(provider: any MotionProvider) {
        self.provider = provider
    }

    /// The frames usable on `service`'s device now.
    static func availableFrames(on provider: any MotionProvider) -> CMAttitudeReferenceFrame {
        var frames: CMAttitudeReferenceFrame = []
        for frame in provider.availableReferenceFrames { frames.insert(CMAttitudeReferenceFrame(rawValue: frame.rawValue)) }
        return frames
    }

    /// Whether device motion can run on `service`'s device.
    static func isSupported(on provider: any MotionProvider) -> Bool { provider.isDeviceMotionAvailable }

    var isAvailable: Bool { provider.isDeviceMotionAvailable }

    var isActive: Bool {
        lock.lock()
        defer { lock.unlock() }
        return subscription != nil
    }

    var latest: CMDeviceMotion? {
        lock.lock()
        defer { lock.unlock() }
        return latestItem
    }

    var frame: CMAttitudeReferenceFrame {
        lock.lock()
        defer { lock.unlock() }
        return currentFrame
    }

    var interval: TimeInterval {
        lock.lock()
        let requested = requestedInterval
        lock.unlock()
        return provider.clampInterval(requested, for: .accelerometer)
    }

    func setInterval(_ interval: TimeInterval) {
        lock.lock()
        requestedInterval = interval.isNaN ? CMMotionManager.defaultUpdateInterval : interval
        let running = subscription
        let frame = currentFrame
        lock.unlock()
        if running != nil { subscribe(frame: frame) }
    }

    /// Starts updates in `frame`. Does nothing without device motion. A frame that is not available now
    /// gives the handler one error — `CMErrorTrueNorthNotAvailable` for true north without a location,
    /// `CMErrorNotAvailable` for a north or corrected frame without a magnetometer — and no data.
    func start(frame: CMAttitudeReferenceFrame, queue: OperationQueue?, handler: CMDeviceMotionHandler?, showsMovementDisplay: Bool) {
        stop()
        guard isAvailable else { return }
        let engineFrame = AttitudeReferenceFrame(rawValue: frame.rawValue) ?? .xArbitraryZVertical
        if !provider.availableReferenceFrames.contains(engineFrame) {
            if let queue, let handler {
                let box = UncheckedBox(handler)
                let error = engineFrame == .xTrueNorthZVertical && provider.has(.magnetometer)
                    ? CMErrorTrueNorthNotAvailable.error("true north needs the location for the magnetic declination: set COREMOTION_LOCATION=lat,lon")
                    : CMErrorNotAvailable.error("the \(engineFrame) reference frame needs a magnetometer, which this device lacks")
                queue.addOperation { box.value(nil, error) }
            }
            return
        }
        var newDelivery: QueueDelivery<CMDeviceMotionUpdate>?
        if let queue, let handler {
            let box = UncheckedBox(handler)
            newDelivery = QueueDelivery(queue: queue, label: "device motion") { update in
                switch update {
                case .motion(let motion): box.value(motion, nil)
                case .error(let error): box.value(nil, error)
                }
            }
        }
        lock.lock()
        currentFrame = frame
        delivery = newDelivery
        lock.unlock()
        if let newDelivery { provider.deliveries.track(newDelivery) }
        subscribe(frame: frame)
    }

    /// Starts a stream for the library's own use (batched device motion), without a queue.
    func startInternal(frame: CMAttitudeReferenceFrame, receive: @escaping @Sendable (CMDeviceMotion) -> Void) {
        stop()
        guard isAvailable else { return }
        lock.lock()
        currentFrame = frame
        internalReceiver = receive
        lock.unlock()
        subscribe(frame: frame)
    }

    private var internalReceiver: (@Sendable (CMDeviceMotion) -> Void)?

    private func subscribe(frame: CMAttitudeReferenceFrame) {
        lock.lock()
        let old = subscription
        let requested = requestedInterval
        lock.unlock()
        old?.cancel()
        let engineFrame = AttitudeReferenceFrame(rawValue: frame.rawValue) ?? .xArbitraryZVertical
        let new = provider.subscribeDeviceMotion(frame: engineFrame, interval: requested) { [weak self] update in
            self?.receive(update)
        }
        lock.lock()
        subscription = new
        lock.unlock()
    }

    private func receive(_ update: DeviceMotionUpdate) {
        switch update {
        case .needsMovement:
            lock.lock()
            let delivery = self.delivery
            lock.unlock()
            delivery?.deliver(.error(CMErrorDeviceRequiresMovement.error(
                "the magnetometer needs calibration: move the device in a figure eight")))
        case .motion(let e):
            let motion = CMDeviceMotion(
                timestamp: e.time, attitude: e.attitude, rotationRate: e.rotationRate, gravity: e.gravity,
                userAcceleration: e.userAcceleration, magneticField: e.magneticField,
                accuracy: CMMagneticFieldCalibrationAccuracy(rawValue: e.magneticFieldAccuracy) ?? .uncalibrated,
                heading: e.heading, headingAccuracy: -1
            )
            lock.lock()
            latestItem = motion
            let delivery = self.delivery
            let internalReceiver = self.internalReceiver
            lock.unlock()
            delivery?.deliver(.motion(motion))
            internalReceiver?(motion)
        }
    }

    func stop() {
        lock.lock()
        let subscription = self.subscription
        let delivery = self.delivery
        self.subscription = nil
        self.delivery = nil
        internalReceiver = nil
        lock.unlock()
        delivery?.cancel()
        subscription?.cancel()
        if let delivery { provider.deliveries.untrack(delivery) }
    }
}

/// A device-motion sample or an error for the app's handler.
enum CMDeviceMotionUpdate: @unchecked Sendable {  // @unchecked: payloads are an NSError or a CMDeviceMotion (all `let`; CMAttitude locks its value), handed off once
    case motion(CMDeviceMotion)
    case error(NSError)
}
