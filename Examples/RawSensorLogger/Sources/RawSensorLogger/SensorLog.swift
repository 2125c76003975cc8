import CoreMotion

/// One of the three raw sensors, as the CSV's `sensor` column names it.
enum RawSensor: String, CaseIterable, Sendable {
    case accelerometer
    case gyro
    case magnetometer

    /// The unit of its x, y and z columns.
    var unit: String {
        switch self {
        case .accelerometer: "g"
        case .gyro: "rad/s"
        case .magnetometer: "µT"
        }
    }
}

/// Logs the accelerometer, the gyroscope and the magnetometer as CSV lines `time,sensor,x,y,z`.
///
/// The app's motion code, as on iOS: one `CMMotionManager`, each sensor's update interval set, every
/// handler on one serial `OperationQueue`, so that lines never interleave and the counts change on one
/// queue only. `time` is the update's `timestamp` (seconds since the device booted); x, y and z are in g
/// (``RawSensor/accelerometer``, including gravity), rad/s (``RawSensor/gyro``) and µT
/// (``RawSensor/magnetometer``, uncalibrated as on iOS).
final class SensorLog: @unchecked Sendable {  // @unchecked: `counts` changes only on `queue` (serial)
    let motion = CMMotionManager()
    let queue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "RawSensorLogger"
        queue.maxConcurrentOperationCount = 1
        return queue
    }()
    /// Lines written per sensor.
    private(set) var counts: [RawSensor: Int] = [:]

    /// Whether this device has `sensor`.
    func isAvailable(_ sensor: RawSensor) -> Bool {
        switch sensor {
        case .accelerometer: motion.isAccelerometerAvailable
        case .gyro: motion.isGyroAvailable
        case .magnetometer: motion.isMagnetometerAvailable
        }
    }

    /// Starts every available sensor at `hz` updates per second; returns the sensors started.
    ///
    /// `failed` runs on ``queue`` when Core Motion reports an error.
    func start(hz: Double, failed: @escaping @Sendable (RawSensor, any Error) -> Void) -> [RawSensor] {
        let interval = 1 / hz
        var started: [RawSensor] = []
        if motion.isAccelerometerAvailable {
            motion.accelerometerUpdateInterval = interval
            motion.startAccelerometerUpdates(to: queue) { @Sendable [self] data, error in
                if let error { return failed(.accelerometer, error) }
                guard let data else { return }
                let a = data.acceleration
                write(data.timestamp, .accelerometer, a.x, a.y, a.z)
            }
            started.append(.accelerometer)
        }
        if motion.isGyroAvailable {
            motion.gyroUpdateInterval = interval
            motion.startGyroUpdates(to: queue) { @Sendable [self] data, error in
                if let error { return failed(.gyro, error) }
                guard let data else { return }
                let r = data.rotationRate
                write(data.timestamp, .gyro, r.x, r.y, r.z)
            }
            started.append(.gyro)
        }
        if motion.isMagnetometerAvailable {
            motion.magnetometerUpdateInterval = interval
            motion.startMagnetometerUpdates(to: queue) { @Sendable [self] data, error in
                if let error { return failed(.magnetometer, error) }
                guard let data else { return }
                let m = data.magneticField
                write(data.timestamp, .magnetometer, m.x, m.y, m.z)
            }
            started.append(.magnetometer)
        }
        return started
    }

    /// Stops every sensor and waits until the lines already due are written.
    func stop() {
        motion.stopAccelerometerUpdates()
        motion.stopGyroUpdates()
        motion.stopMagnetometerUpdates()
        queue.waitUntilAllOperationsAreFinished()
    }

    /// `1001.234567,gyro,0.012345,-0.000123,0.004567`. Runs on ``queue``.
    private func write(_ time: TimeInterval, _ sensor: RawSensor, _ x: Double, _ y: Double, _ z: Double) {
        counts[sensor, default: 0] += 1
        print(String(format: "%.6f", time) + ",\(sensor.rawValue)," + String(format: "%.6f,%.6f,%.6f", x, y, z))
    }
}
