import Foundation
import MotionEngine

/// Headphones made of a raw head-worn IMU (an accelerometer and a gyroscope, e.g. on Linux IIO): its samples
/// are fused here (6D: ``MotionEngine/DeviceMotionEstimator``'s attitude without the magnetometer, Z vertical,
/// X arbitrary), and delivered like a headset's own output (``HeadphoneMotionSample``: attitude, bias-corrected
/// rotation rate, gravity and user acceleration in the IMU's axes; location unknown). The service anchors
/// each client's attitude at its first sample, as for any headphones.
///
/// The IMU runs at 100 Hz (or the nearest rate it offers) while the headphones have a listener; a fresh
/// filter starts each time. Connection follows its samples (``LiveHeadphoneDevice``'s rule); a lost
/// accelerometer or gyroscope disconnects at once, the end of a recording too.
public final class FusedHeadphoneDevice: HeadphoneDevice, @unchecked Sendable {  // @unchecked: `estimator` and `running` are guarded by `lock`; the rest are `let`s of Sendable types
    /// The raw IMU.
    public let imu: any MotionDevice
    private let live: LiveHeadphoneDevice
    private let lock = NSLock()
    private var estimator = DeviceMotionEstimator()
    private var running = false
    /// The rate the IMU runs at, Hz.
    public let rate: Double

    /// Headphones from `imu`, which needs an accelerometer and a gyroscope.
    ///
    /// - Throws: ``DeviceSpecificationError`` when it lacks one.
    public init(imu: any MotionDevice, name: String? = nil) throws {
        guard let accelerometer = imu.sensors[.accelerometer], let gyroscope = imu.sensors[.gyroscope] else {
            throw DeviceSpecificationError(
                value: imu.name, reason: "a head-worn IMU needs an accelerometer and a gyroscope; \(imu.name) has \(imu.sensors.keys.map(\.rawValue).sorted().joined(separator: ", "))",
                variable: HeadphoneDeviceSpecification.environmentVariable, acceptedForms: HeadphoneDeviceSpecification.acceptedForms)
        }
        self.imu = imu
        let wanted = 100.0
        rate = min(max(wanted, accelerometer.minimumRate, gyroscope.minimumRate), max(accelerometer.maximumRate, gyroscope.maximumRate))
        live = LiveHeadphoneDevice(name: name ?? "head IMU \(imu.name) (fused here, 6D)", clock: imu.clock, rate: rate)
    }

    public var name: String { live.name }
    public var clock: any MotionClock { imu.clock }
    public var isConnected: Bool { live.isConnected }

    public func run(_ sink: HeadphoneEventSink?) {
        live.run(sink)
        lock.lock()
        let start = sink != nil && !running
        let stop = sink == nil && running
        running = sink != nil
        if start { estimator = DeviceMotionEstimator() }
        lock.unlock()
        if start {
            imu.run(
                [.accelerometer: rate, .gyroscope: rate],
                sink: { [weak self] sample in self?.fuse(sample) },
                events: { [weak self] event in self?.handle(event) })
        } else if stop {
            imu.run([:], sink: { _ in }, events: { _ in })
            live.finish(reason: "nobody listens")
        }
    }

    private func fuse(_ sample: SensorSample) {
        lock.lock()
        let estimate = estimator.add(sample)
        lock.unlock()
        guard let e = estimate else { return }
        live.receive(HeadphoneMotionSample(
            time: e.time, attitude: e.attitude6D, rotationRate: e.rotationRate, userAcceleration: e.userAcceleration,
            gravity: e.gravity, location: .unknown))
    }

    private func handle(_ event: DeviceEvent) {
        switch event {
        case .sensorLost(let sensor, let reason) where sensor == .accelerometer || sensor == .gyroscope:
            live.disconnect(reason: "\(sensor) lost: \(reason)")
        case .endOfData:
            live.finish(reason: "end of the IMU's data")
        default:
            break
        }
    }
}
