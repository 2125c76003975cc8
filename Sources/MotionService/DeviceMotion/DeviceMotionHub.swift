import Foundation
import MotionEngine

/// One client of the fused device motion: its reference frame (with its own start yaw), its interval.
final class DeviceMotionSubscription: @unchecked Sendable {  // @unchecked: `frame`, `decimator`, `reportedMovementNeed` change only in `fuse`, under the service's `lock`
    weak var hub: DeviceMotionHub?
    let id: Int
    /// The clamped interval, seconds.
    let interval: TimeInterval
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

/// Runs the fusion once for all device-motion clients of a service and hands each client its estimates
/// decimated to its interval in its reference frame.
///
/// The fusion's inputs (gyroscope, accelerometer, magnetometer) run at the rate the fastest client needs,
/// but never slower than ``fusionMinimumRate`` (the filter's accuracy was measured at 100 Hz and above) and
/// never faster than the device offers: a 50 Hz app on a 1.6 kHz IMU makes the device sample at 100 Hz, not
/// 1.6 kHz (on Linux IIO every polled sample is a system call).
final class DeviceMotionHub: @unchecked Sendable {  // @unchecked: estimator state under the service's `lock` (or with no inputs); `clients`, `inputs` in `clientsLock`
    /// The slowest rate the fusion runs at, Hz.
    static let fusionMinimumRate = 100.0
    /// The interval the inputs are subscribed at now (`.infinity` while stopped); guarded by `configurationLock`.
    private var inputInterval = TimeInterval.infinity

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
        let needed = neededInputInterval()
        clientsLock.unlock()
        if first {
            startInputs(interval: needed)
        } else if needed < inputInterval {
            subscribeInputs(interval: needed)
        }
    }

    /// The input interval the clients need: the fastest client's, at most 1 / ``fusionMinimumRate``. Caller
    /// holds `clientsLock`.
    private func neededInputInterval() -> TimeInterval {
        min(1 / Self.fusionMinimumRate, clients.map(\.interval).min() ?? .infinity)
    }

    /// Removes a client; stops the inputs after the last one.
    func remove(_ client: DeviceMotionSubscription) {
        configurationLock.lock()
        defer { configurationLock.unlock() }
        clientsLock.lock()
        let before = clients.count
        clients.removeAll { $0 === client }
        let last = clients.isEmpty && before > 0
        let needed = neededInputInterval()
        clientsLock.unlock()
        if last {
            stopInputs()
        } else if !clients.isEmpty && needed > inputInterval {
            // The fastest client left: the device may slow down (the estimator carries on).
            subscribeInputs(interval: needed)
        }
    }

    private func startInputs(interval: TimeInterval) {
        guard let service else { return }
        // A fresh filter for each run, warm-started with what the last run learned about the sensors
        // (iOS keeps calibrating between apps; see SensorCalibrationState).
        estimator = DeviceMotionEstimator()
        estimatesThisRun = 0
        service.withDeliveryLock { lastFused = Array(repeating: -.infinity, count: SensorKind.allCases.count) }
        if let saved = service.calibrationMemory.load() {
            let elapsed = service.clock.date(at: service.clock.now).timeIntervalSince(saved.savedAt)
            estimator.restore(
                gyroBias: saved.gyroBias, sigma: saved.gyroBiasSigma,
                magnetometer: service.has(.magnetometer) ? saved.magnetometer : nil, elapsed: elapsed)
        }
        subscribeInputs(interval: interval)
    }

    /// (Re)subscribes the fusion's inputs at `interval` (clamped by the service to what the device offers);
    /// the estimator carries on. Caller holds `configurationLock`.
    private func subscribeInputs(interval: TimeInterval) {
        guard let service else { return }
        clientsLock.lock()
        let old = inputs
        inputs = []
        clientsLock.unlock()
        var list: [SensorSubscription] = []
        for sensor in [SensorKind.gyroscope, .accelerometer, .magnetometer] where service.has(sensor) {
            if let s = service.subscribe(to: sensor, interval: interval, maximumLatency: 0, receive: { [weak self] sample in self?.fuse(sample) }) {
                list.append(s)
            }
        }
        // The new inputs first, then the old ones off: the device never stops between the two.
        for s in old { service.cancel(s) }
        clientsLock.lock()
        inputs = list
        clientsLock.unlock()
        inputInterval = interval
    }

    private func stopInputs() {
        inputInterval = .infinity
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
            service.logger.warning("sensor calibration not saved to \(service.calibrationMemory.destination): \(error)")
        }
    }

    /// Estimates made since the inputs started (under the service's lock).
    private var estimatesThisRun = 0
    /// A run shorter than this (about 2 s at 100 Hz) has learned too little to replace a saved state.
    static let estimatesBeforeSaving = 200

    /// Called under the service's lock, in sample order.
    /// The time of the last sample fused per sensor (under the service's lock): while the inputs are
    /// resubscribed at another rate, old and new subscriptions both deliver for a moment, and a sample must
    /// reach the estimator once.
    private var lastFused: [Double] = Array(repeating: -.infinity, count: SensorKind.allCases.count)

    private func fuse(_ sample: SensorSample) {
        let index = sample.sensor.index
        guard sample.time > lastFused[index] else { return }
        lastFused[index] = sample.time
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
