import Foundation
import MotionEmulation
import Testing
import TestSupport
@testable import MotionIIO

/// Sensors whose IIO device appears after the device was made (a driver loaded, `new_device` written
/// after `coremotiond` started): bound with the usual preference, announced with `sensorReturned`, in
/// `sensors` from then on, and captured for a `run` that asked for them.
@Suite("sensors that appear after the start", .serialized)
struct IIOSensorAppearsTests {
    /// Whether `events` holds `sensorReturned(kind)`.
    private func returned(_ kind: SensorKind, in events: [DeviceEvent]) -> Bool { events.contains(.sensorReturned(kind)) }

    @Test("barometer-only tree: a bmi160 added while running is bound, announced once and delivers")
    func imuAfterBarometer() throws {
        let t = try TemporaryTree()
        let baro = try t.tree.add(.bmp280(), index: 0)
        try t.tree.set(baro, "in_pressure_input", "101.325")
        let device = try t.discover(IIODevice.Options(capture: .polled))
        #expect(Set(device.sensors.keys) == [.barometer])
        let c = Collector()
        // The accelerometer is asked for before any device provides it: it starts when one appears.
        device.run([.barometer: 10, .accelerometer: 50], sink: c.sink, events: c.eventSink)
        defer { device.stopAndWait() }
        #expect(waitUntil(3) { c.count(.barometer) >= 3 })

        let imu = try t.tree.add(.bmi160(), index: 1)
        try t.tree.setRaw(imu, "in_accel_z", 16393)
        let added = Date()
        #expect(waitUntil(8) { returned(.accelerometer, in: c.allEvents) && returned(.gyroscope, in: c.allEvents) })
        let announced = Date().timeIntervalSince(added)
        // A listing about once a second; a change is scanned at the next check: about 1–2 s (5 s on a
        // loaded machine).
        #expect(announced < 5, "announced after \(announced) s")
        #expect(Set(device.sensors.keys) == [.accelerometer, .gyroscope, .barometer])
        #expect(device.sensorInfo[.accelerometer]?.deviceDirectory == imu)
        #expect(device.sensorInfo[.gyroscope]?.deviceDirectory == imu)
        #expect(device.name.contains("bmi160@\(imu)") && device.name.contains("bmp280@\(baro)"))

        #expect(waitUntil(3) { c.count(.accelerometer) >= 10 })
        #expect(c.count(.gyroscope) == 0, "gyroscope delivered though not asked for")
        #expect(c.of(.accelerometer).allSatisfy { abs(abs($0.vector!.z) - 9.803014 / 9.80665) < 1e-9 })
        let barometerBefore = c.count(.barometer)
        #expect(waitUntil(3) { c.count(.barometer) > barometerBefore }, "the barometer stopped when the IMU appeared")
        let events = c.allEvents
        #expect(events.filter { $0 == .sensorReturned(.accelerometer) }.count == 1)
        #expect(!returned(.barometer, in: events))
        #expect(!events.contains { if case .sensorLost = $0 { true } else { false } })
    }

    @Test("a kind already bound keeps its device; only kinds without a provider are taken")
    func boundKindsStay() throws {
        let t = try TemporaryTree()
        let imu = try t.tree.add(.bmi160(), index: 0)
        let device = try t.discover(IIODevice.Options(capture: .polled))
        let c = Collector()
        device.run([.accelerometer: 50], sink: c.sink, events: c.eventSink)
        defer { device.stopAndWait() }
        #expect(waitUntil(3) { c.count(.accelerometer) >= 3 })

        // A display accelerometer would be preferred at discovery; appearing later it is not taken.
        // The magnetometer added with it proves the scan saw both.
        try t.tree.add(.bmc150(label: "accel-display"), index: 1)
        let magnetometer = try t.tree.add(.lis3mdl(), index: 2)
        #expect(waitUntil(8) { returned(.magnetometer, in: c.allEvents) })
        #expect(device.sensorInfo[.accelerometer]?.deviceDirectory == imu)
        #expect(device.sensorInfo[.magnetometer]?.deviceDirectory == magnetometer)
        #expect(c.allEvents == [.sensorReturned(.magnetometer)])
        #expect(Set(device.sensors.keys) == [.accelerometer, .gyroscope, .magnetometer])
    }

    @Test("empty tree: discover gives nil, watching a device with no sensors that `sensors` fills on demand")
    func emptyTreeOnDemand() throws {
        let t = try TemporaryTree()
        #expect(try IIODevice.discover(root: t.url) == nil)
        let device = try IIODevice.watching(root: t.url, options: IIODevice.Options(capture: .polled))
        #expect(device.sensors.isEmpty)
        #expect(device.name.contains("no sensors yet"))

        let baro = try t.tree.add(.bmp280(), index: 0)
        try t.tree.set(baro, "in_pressure_input", "101.325")
        // Nobody runs the device: reading `sensors` looks (at most about once a second).
        let added = Date()
        #expect(waitUntil(8) { device.sensors[.barometer] != nil })
        let seen = Date().timeIntervalSince(added)
        #expect(seen < 5, "seen after \(seen) s")
        #expect(device.sensorInfo[.barometer]?.deviceDirectory == baro)

        let c = Collector()
        device.run([.barometer: 10], sink: c.sink, events: c.eventSink)
        defer { device.stopAndWait() }
        #expect(waitUntil(3) { c.count(.barometer) >= 3 })
        #expect(c.of(.barometer).allSatisfy { if case .barometer(let p) = $0 { p.kilopascals == 101.325 } else { false } })
    }

    @Test("empty tree, subscriber attached: an IMU that appears is announced and delivers buffered")
    func emptyTreeBuffered() throws {
        let t = try TemporaryTree()
        let device = try IIODevice.watching(root: t.url, options: IIODevice.Options(capture: .automatic))
        #expect(device.sensors.isEmpty)
        let emulator = IIOEmulator(tree: t.tree, devices: ["iio:device3"], source: IIOSyntheticMotion(rate: 200))
        emulator.start()
        defer { emulator.stop() }
        let c = Collector()
        device.run([.accelerometer: 100, .gyroscope: 100], sink: c.sink, events: c.eventSink)
        defer { device.stopAndWait() }

        let imu = try t.tree.add(.bmi160(), index: 3)
        #expect(waitUntil(8) { returned(.accelerometer, in: c.allEvents) && returned(.gyroscope, in: c.allEvents) })
        #expect(Set(device.sensors.keys) == [.accelerometer, .gyroscope])
        #expect(waitUntil(5) { c.count(.accelerometer) >= 50 && c.count(.gyroscope) >= 50 })
        #expect(device.captureStatistics.map(\.mode) == ["buffered"])
        #expect(t.tree.get(imu, "buffer/enable") == "1")
        let norms = c.of(.accelerometer).map { $0.vector!.norm }
        #expect(norms.allSatisfy { abs($0 - 1) < 0.05 }, "a sample far from 1 g")
    }

    @Test("a kind that appears after stopAndWait waits for the next run")
    func appearsAfterStop() throws {
        let t = try TemporaryTree()
        try t.tree.add(.bmp280(), index: 0)
        let device = try t.discover(IIODevice.Options(capture: .polled))
        let c = Collector()
        device.run([.barometer: 10, .accelerometer: 50], sink: c.sink, events: c.eventSink)
        #expect(waitUntil(3) { c.count(.barometer) >= 1 })
        device.stopAndWait()
        try t.tree.add(.bmi160(), index: 1)
        #expect(waitUntil(8) { returned(.accelerometer, in: c.allEvents) })
        #expect(device.captureStatistics.isEmpty, "a capture started after stopAndWait")
        #expect(c.count(.accelerometer) == 0)
    }
}
