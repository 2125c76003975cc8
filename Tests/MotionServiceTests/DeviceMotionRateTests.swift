import Foundation
import MotionHistory
import MotionService
import Testing

/// An IMU with a wide range of rates (a BMI160 offers 25–1600 Hz), recording what the service asks of it.
private final class WideRangeIMU: MotionDevice, @unchecked Sendable {
    let clock: any MotionClock = VirtualClock()
    let sensors: [SensorKind: SensorDescription] = [
        .accelerometer: SensorDescription(kind: .accelerometer, name: "imu", minimumRate: 25, maximumRate: 1600),
        .gyroscope: SensorDescription(kind: .gyroscope, name: "imu", minimumRate: 25, maximumRate: 3200),
    ]
    private let lock = NSLock()
    private var lastRates: [SensorKind: Double] = [:]
    var name: String { "wide-range IMU" }

    func run(_ rates: [SensorKind: Double], sink: @escaping SampleSink, events: @escaping DeviceEventSink) {
        run(rates, maximumLatency: [:], sink: sink, events: events)
    }

    func run(
        _ rates: [SensorKind: Double], maximumLatency: [SensorKind: TimeInterval], sink: @escaping SampleSink,
        events: @escaping DeviceEventSink
    ) {
        lock.lock()
        lastRates = rates
        lock.unlock()
    }

    var rates: [SensorKind: Double] {
        lock.lock()
        defer { lock.unlock() }
        return lastRates
    }
}

/// Device motion samples the device at what its clients need (on Linux IIO every polled sample is a system
/// call), never at the device's maximum for a slow app.
@Suite struct DeviceMotionRateTests {
    @Test("a 50 Hz device-motion client runs the IMU at the fusion's 100 Hz, a 400 Hz one at 400 Hz, and back")
    func ratesFollowTheClients() throws {
        let device = WideRangeIMU()
        let service = MotionService(device: device, history: .inMemory)
        let slow = try #require(service.subscribeDeviceMotion(frame: .xArbitraryZVertical, interval: 1.0 / 50) { _ in })
        #expect(device.rates == [.accelerometer: 100, .gyroscope: 100])
        let fast = try #require(service.subscribeDeviceMotion(frame: .xArbitraryZVertical, interval: 1.0 / 400) { _ in })
        #expect(device.rates == [.accelerometer: 400, .gyroscope: 400])
        fast.cancel()
        #expect(device.rates == [.accelerometer: 100, .gyroscope: 100])
        slow.cancel()
        #expect(device.rates.isEmpty)
    }
}
