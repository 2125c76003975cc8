import Foundation
import MotionHistory
import MotionService
import Testing

/// A device that records what the service asks of it.
private final class RecordingDevice: MotionDevice, @unchecked Sendable {
    struct Request: Equatable {
        var rates: [SensorKind: Double]
        var latency: [SensorKind: TimeInterval]
    }

    let clock: any MotionClock = VirtualClock()
    let sensors: [SensorKind: SensorDescription]
    private let lock = NSLock()
    private var log: [Request] = []

    init(_ kinds: [SensorKind] = [.accelerometer, .gyroscope, .magnetometer, .barometer]) {
        var sensors: [SensorKind: SensorDescription] = [:]
        for kind in kinds {
            sensors[kind] = SensorDescription(kind: kind, name: "fake", minimumRate: 1, maximumRate: kind == .barometer ? 10 : 100)
        }
        self.sensors = sensors
    }

    var name: String { "recording" }

    func run(_ rates: [SensorKind: Double], sink: @escaping SampleSink, events: @escaping DeviceEventSink) {
        Issue.record("the service must pass the latencies")
    }

    func run(
        _ rates: [SensorKind: Double], maximumLatency: [SensorKind: TimeInterval],
        sink: @escaping SampleSink, events: @escaping DeviceEventSink
    ) {
        lock.lock()
        log.append(Request(rates: rates, latency: maximumLatency))
        lock.unlock()
    }

    var last: Request? {
        lock.lock()
        defer { lock.unlock() }
        return log.last
    }
}

/// A device written before latencies existed: only `run(_:sink:events:)`.
private final class LegacyDevice: MotionDevice, @unchecked Sendable {
    let clock: any MotionClock = VirtualClock()
    let sensors: [SensorKind: SensorDescription] = [
        .accelerometer: SensorDescription(kind: .accelerometer, name: "legacy", minimumRate: 1, maximumRate: 100),
    ]
    private let lock = NSLock()
    private var calls: [[SensorKind: Double]] = []
    var name: String { "legacy" }

    func run(_ rates: [SensorKind: Double], sink: @escaping SampleSink, events: @escaping DeviceEventSink) {
        lock.lock()
        calls.append(rates)
        lock.unlock()
    }

    var lastRates: [SensorKind: Double]? {
        lock.lock()
        defer { lock.unlock() }
        return calls.last
    }
}

@Suite("batch latency: subscribers to the device")
struct LatencyTests {
    @Test("a live subscriber asks for latency 0, a background one for its own; the smallest wins at once")
    func smallestWins() throws {
        let device = RecordingDevice()
        let service = MotionService(device: device, history: .inMemory)
        let background = try #require(service.subscribe(to: .accelerometer, interval: 0.02, maximumLatency: 1) { _ in })
        #expect(device.last == .init(rates: [.accelerometer: 50], latency: [.accelerometer: 1]))
        #expect(service.activeMaximumLatency(.accelerometer) == 1)
        #expect(background.maximumLatency == 1)

        // A live stream (the client interface's call: latency 0) brings the latency down at once.
        let live = try #require(service.subscribe(to: .accelerometer, interval: 0.01) { _ in })
        #expect(service.activeMaximumLatency(.accelerometer) == 0)
        #expect(device.last == .init(rates: [.accelerometer: 100], latency: [.accelerometer: 0]))

        // Another background subscriber of another sensor: each sensor has its own latency.
        let gyro = try #require(service.subscribe(to: .gyroscope, interval: 0.02, maximumLatency: 0.5) { _ in })
        #expect(device.last?.latency == [.accelerometer: 0, .gyroscope: 0.5])

        // The live stream ends: back to the background latency.
        live.cancel()
        #expect(device.last == .init(rates: [.accelerometer: 50, .gyroscope: 50], latency: [.accelerometer: 1, .gyroscope: 0.5]))
        service.cancel(gyro)
        service.cancel(background)
        #expect(device.last == .init(rates: [:], latency: [:]))
        #expect(service.activeMaximumLatency(.accelerometer) == nil)
    }

    @Test("negative and NaN latencies count as 0")
    func sanitised() throws {
        let device = RecordingDevice()
        let service = MotionService(device: device, history: .inMemory)
        let a = try #require(service.subscribe(to: .accelerometer, interval: 0, maximumLatency: -1) { _ in })
        let b = try #require(service.subscribe(to: .gyroscope, interval: 0, maximumLatency: .nan) { _ in })
        #expect(a.maximumLatency == 0 && b.maximumLatency == 0)
        #expect(device.last?.latency == [.accelerometer: 0, .gyroscope: 0])
    }

    @Test("the always-on recorders accept the background latency; a live app stream overrides it")
    func recorders() throws {
        let device = RecordingDevice()
        let service = MotionService(device: device, history: .inMemory)
        service.startPedometerRecording()
        service.startActivityRecording()
        try service.recordAccelerometer(forDuration: 60)
        let background = MotionService.backgroundLatency
        #expect(background >= 0.5 && background <= 1)
        let request = try #require(device.last)
        #expect(request.latency == [.accelerometer: background, .gyroscope: background, .barometer: background])
        // Pedometer 100 Hz, activity and recorder 50 Hz; the pedometer's rhythm test 50 Hz; floors 1 Hz.
        #expect(request.rates == [.accelerometer: 100, .gyroscope: 50, .barometer: 1])

        let altitude = try #require(service.subscribeAltitude(absolute: false) { _ in })
        #expect(device.last?.latency[.barometer] == 0)
        #expect(device.last?.rates[.barometer] == 10)
        altitude.cancel()
        #expect(device.last?.latency[.barometer] == background)
    }

    @Test("a device that only implements run(_:sink:events:) still runs (latencies ignored)")
    func legacyDevice() throws {
        let device = LegacyDevice()
        let service = MotionService(device: device, history: .inMemory)
        let s = try #require(service.subscribe(to: .accelerometer, interval: 0.02, maximumLatency: 1) { _ in })
        #expect(device.lastRates == [.accelerometer: 50])
        service.cancel(s)
        #expect(device.lastRates == [:])
    }
}
