import CoreMotion

/// The app's motion code, as on iOS: accelerometer updates ten times a second on a serial queue, counted,
/// the latest kept. Nothing in it knows where the data comes from.
final class AccelerometerLog: @unchecked Sendable {  // @unchecked: `count` and `latest` change only on `queue` (serial)
    let motion = CMMotionManager()
    let queue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }()
    private(set) var count = 0
    private(set) var latest: CMAcceleration?

    var isAvailable: Bool { motion.isAccelerometerAvailable }

    /// Starts updates; `each` runs on ``queue`` after every update, `failed` on an error.
    func start(each: @escaping @Sendable (CMAcceleration, Int) -> Void = { _, _ in }, failed: @escaping @Sendable (any Error) -> Void = { _ in }) {
        motion.accelerometerUpdateInterval = 0.1
        motion.startAccelerometerUpdates(to: queue) { [self] data, error in
            if let error { return failed(error) }
            guard let acceleration = data?.acceleration else { return }
            count += 1
            latest = acceleration
            each(acceleration, count)
        }
    }

    func stop() {
        motion.stopAccelerometerUpdates()
        queue.waitUntilAllOperationsAreFinished()
    }
}
