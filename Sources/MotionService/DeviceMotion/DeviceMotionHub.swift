import Foundation
import MotionEngine

/// One client of the fused device motion: its reference frame (with its own start yaw), its interval.
public final class DeviceMotionSubscription: @unchecked Sendable {
    weak var hub: DeviceMotionHub?
    public let id: Int
    /// The clamped interval, seconds.
    public let interval: TimeInterval
    var frame: AttitudeFrame
    var decimator: Decimator
    let receive: @Sendable (DeviceMotionUpdate) -> Void
    var reportedMovementNeed = false

    init(id: Int, interval: TimeInterval, devicePeriod: Double, frame: AttitudeFrame, receive: @escaping @Sendable (DeviceMotionUpdate) -> Void) {
        self.id = id
        self.interval = interval
        self.frame = frame
        self.decimator = Decimator(interval: interval, devicePeriod: devicePeriod)
        self.receive = receive
    }
}

/// Runs the fusion once for all device-motion clients of a service, at the device's full rate, and
/// hands each client its estimates decimated to its interval in its reference frame.
final class DeviceMotionHub: @unchecked Sendable {
    private weak var service: MotionService?
    private var estimator = DeviceMotionEstimator()
    private var clients: [DeviceMotionSubscription] = []
    private var inputs: [SensorSubscription] = []
    // The estimator is used under the service's lock (samples arrive under it); `clients` and `inputs`
    // change under `clientsLock`; adding and removing clients is serialised by `configurationLock`.
    private let clientsLock = NSLock()
    private let configurationLock = NSLock()

    init(service: MotionService) {
        self.service = service
    }

    var isEmpty: Bool {
        clientsLock.lock()
        defer { clientsLock.unlock() }
        return clients.isEmpty
    }

    /// Adds a client; starts the inputs for the first one.
    func add(_ client: DeviceMotionSubscription) {
        configurationLock.lock()
        defer { configurationLock.unlock() }
        clientsLock.lock()
        clients.append(client)
        let first = clients.count == 1
        clientsLock.unlock()
        if first { startInputs() }
    }

    /// Removes a client; stops the inputs after the last one.
    func remove(_ client: DeviceMotionSubscription) {
        configurationLock.lock()
        defer { configurationLock.unlock() }
        clientsLock.lock()
        let before = clients.count
        clients.removeAll { $0 === client }
        let last = clients.isEmpty && before > 0
        clientsLock.unlock()
        if last { stopInputs() }
    }

    private func startInputs() {
        guard let service else { return }
        // A fresh filter for each run, warm-started with what the last run learned about the sensors
        // (iOS keeps calibrating between apps; see SensorCalibrationState).
        estimator = DeviceMotionEstimator()
        estimatesThisRun = 0
        if let saved = service.calibrationMemory.load() {
            let elapsed = service.clock.date(at: service.clock.now).timeIntervalSince(saved.savedAt)
            estimator.restore(
                gyroBias: saved.gyroBias, sigma: saved.gyroBiasSigma,
                magnetometer: service.has(.magnetometer) ? saved.magnetometer : nil, elapsed: elapsed)
        }
        var list: [SensorSubscription] = []
        for sensor in [SensorKind.gyroscope, .accelerometer, .magnetometer] where service.has(sensor) {
            if let s = service.subscribe(to: sensor, interval: 0, receive: { [weak self] sample in self?.fuse(sample) }) {
                list.append(s)
            }
        }
        clientsLock.lock()
        inputs = list
        clientsLock.unlock()
    }

    private func stopInputs() {
        clientsLock.lock()
        let list = inputs
        inputs = []
        clientsLock.unlock()
        for s in list { service?.cancel(s) }
        // No sample reaches the estimator any more: keep what it learned for the next run.
        guard let service, estimatesThisRun >= Self.estimatesBeforeSaving else { return }
        let filter = estimator.filter
        let state = SensorCalibrationState(
            device: service.device.name, savedAt: service.clock.date(at: service.clock.now),
            gyroBias: filter.gyroBias, gyroBiasSigma: filter.gyroBiasSigma,
            magnetometer: filter.hasMagnetometer ? filter.magnetometerCalibration : nil
        )
        if let error = service.calibrationMemory.save(state) {
            service.logger.warning("sensor calibration not saved to \(service.calibrationMemory.file?.path ?? "?"): \(error)")
        }
    }

    /// Estimates made since the inputs started (under the service's lock).
    private var estimatesThisRun = 0
    /// A run shorter than this (about 2 s at 100 Hz) has learned too little to replace a saved state.
    static let estimatesBeforeSaving = 200

    /// Called under the service's lock, in sample order.
    private func fuse(_ sample: SensorSample) {
        guard let estimate = estimator.add(sample) else { return }
        estimatesThisRun += 1
        clientsLock.lock()
        let list = clients
        clientsLock.unlock()
        for client in list {
            if estimate.needsCalibrationMovement && client.frame.referenceFrame.usesMagnetometer && !client.reportedMovementNeed {
                client.reportedMovementNeed = true
                client.receive(.needsMovement)
            }
            guard client.decimator.admit(estimate.time) else { continue }
            let attitude = client.frame.attitude(for: estimate)
            client.receive(.motion(DeviceMotionValue(
                time: estimate.time, attitude: attitude, rotationRate: estimate.rotationRate, gravity: estimate.gravity,
                userAcceleration: estimate.userAcceleration, magneticField: estimate.magneticField,
                magneticFieldAccuracy: Int32(estimate.magneticFieldAccuracy.rawValue),
                heading: client.frame.heading(of: attitude))))
        }
    }
}
