import Foundation
import Logging
@testable import MotionNetwork
import MotionSamples
import TestSupport
import Testing

/// The device every phone source feeds, driven directly: what a sensor started now is given.
@Suite struct PhoneStreamDeviceTests {
    /// phyphox's first `/get` holds every sample since the measurement began. A sensor started just before
    /// that backlog is released gets the stream from its start on (less the delay), never the backlog:
    /// CI once saw 1597 accelerometer samples in the first 2 s of a 100 Hz run.
    @Test func aStartedSensorIsNotGivenThePhonesBacklog() throws {
        let settings = PhoneStreamSettings(wait: 0, silence: 30, delay: 0.2)
        let device = LiveDevice(name: "test", clock: SystemClock.shared, configuration: .init(settings), logger: Logger(label: "test"))
        defer { device.close() }
        let collector = Collector()
        let start = SystemClock.shared.now
        collector.run(device, [.accelerometer])
        // 10 s of history at 100 Hz up to now, in one reply.
        let backlog = (0..<1000).compactMap { i in
            SensorSample.vector(.accelerometer, TimedVector(time: start - 10 + Double(i) * 0.01, value: Vector3(0, 0, -1)))
        }
        device.ingest(backlog, arrival: start)
        Thread.sleep(forTimeInterval: 0.5)
        let times = collector.of(.accelerometer).map(\.time)
        #expect(times.count <= 21, "\(times.count) samples delivered from the backlog")
        #expect(times.allSatisfy { $0 >= start - settings.delay }, "oldest delivered \(times.min() ?? 0), start \(start)")
        // What comes after the start is delivered.
        let fresh = (1...20).compactMap { i in
            SensorSample.vector(.accelerometer, TimedVector(time: start + Double(i) * 0.01, value: Vector3(0, 0, -1)))
        }
        device.ingest(fresh, arrival: SystemClock.shared.now)
        #expect(eventually { collector.of(.accelerometer).count == times.count + 20 })
    }

    /// A sensor already running keeps its stream when another one starts.
    @Test func startingAnotherSensorKeepsTheRunningOnesStream() throws {
        let settings = PhoneStreamSettings(wait: 0, silence: 30, delay: 0)
        let device = LiveDevice(name: "test", clock: SystemClock.shared, configuration: .init(settings), logger: Logger(label: "test"))
        defer { device.close() }
        let collector = Collector()
        collector.run(device, [.accelerometer])
        Thread.sleep(forTimeInterval: 0.1)
        let first = SystemClock.shared.now
        collector.run(device, [.accelerometer, .gyroscope])
        // Samples taken after the accelerometer started but before the gyroscope did, older than the
        // delay then (at least the jitter buffer's margin, 30 ms).
        let samples = [SensorKind.accelerometer, .gyroscope].compactMap { kind in
            SensorSample.vector(kind, TimedVector(time: first - 0.04, value: Vector3(0, 0, 1)))
        }
        device.ingest(samples, arrival: SystemClock.shared.now)
        #expect(eventually { collector.of(.accelerometer).count == 1 })
        Thread.sleep(forTimeInterval: 0.2)
        #expect(collector.of(.gyroscope).isEmpty)
    }
}
