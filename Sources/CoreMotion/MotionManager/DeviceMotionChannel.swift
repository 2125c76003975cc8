import Foundation
import MotionService

/// The device-motion stream of a ``CMMotionManager``.
final class DeviceMotionChannel: @unchecked Sendable {
    private let service: MotionService
    private let lock = NSLock()
    private var requestedInterval: TimeInterval = CMMotionManager.defaultUpdateInterval
    private var currentFrame: CMAttitudeReferenceFrame = .xArbitraryZVertical
    private var latestItem: CMDeviceMotion?
    private var active = false

    init(service: MotionService) {
        self.service = service
    }

    static func availableFrames(on service: MotionService) -> CMAttitudeReferenceFrame { [] }

    /// Whether device motion can run on `service`'s device.
    static func isSupported(on service: MotionService) -> Bool { false }

    /// Starts a stream for the library's own use (batched device motion), without a queue.
    func startInternal(frame: CMAttitudeReferenceFrame, receive: @escaping @Sendable (CMDeviceMotion) -> Void) {}

    var isAvailable: Bool { false }

    var isActive: Bool {
        lock.lock()
        defer { lock.unlock() }
        return active
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
        return service.clampInterval(requested, for: .accelerometer)
    }

    func setInterval(_ interval: TimeInterval) {
        lock.lock()
        requestedInterval = interval
        lock.unlock()
    }

    func start(frame: CMAttitudeReferenceFrame, queue: OperationQueue?, handler: CMDeviceMotionHandler?, showsMovementDisplay: Bool) {
        guard isAvailable else { return }
    }

    func stop() {
        lock.lock()
        active = false
        lock.unlock()
    }
}
