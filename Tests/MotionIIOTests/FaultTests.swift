import Foundation
import MotionEmulation
import Testing
import TestSupport
@testable import MotionIIO

@Suite("faults: unplug, return, read errors, permissions", .serialized)
struct FaultTests {
    @Test("polled: unplug while running → sensorLost, no samples, gone from sensors; replug → sensorReturned")
    func unplugPolled() throws {
        let t = try TemporaryTree()
        let d = try t.tree.add(.lis3mdl(), index: 0)
        try t.tree.setRaw(d, "in_magn_x", 1000)  // 14.6 µT
        let device = try t.discover(IIODevice.Options(capture: .polled))
        let c = Collector()
        device.run([.magnetometer: 40], sink: c.sink, events: c.eventSink)
        #expect(waitUntil { c.count(.magnetometer) >= 10 })

        let aside = try t.tree.unplug(d)
        #expect(waitUntil { c.allEvents.contains { if case .sensorLost(.magnetometer, _) = $0 { true } else { false } } })
        #expect(device.sensors[.magnetometer] == nil)
        let countAtLoss = c.count(.magnetometer)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(c.count(.magnetometer) == countAtLoss, "samples delivered while unplugged")

        try t.tree.replug(d, from: aside)
        #expect(waitUntil { c.allEvents.contains(.sensorReturned(.magnetometer)) })
        #expect(waitUntil { c.count(.magnetometer) > countAtLoss + 5 })
        #expect(device.sensors[.magnetometer] != nil)
        device.stopAndWait()
        // Every sample is a real reading: 1000 × 0.000146 G × 100 = 14.6 µT on x, never a zero vector.
        #expect(c.of(.magnetometer).allSatisfy { abs($0.vector!.x - 14.6) < 1e-9 })
        #expect(c.allEvents.filter { if case .sensorLost = $0 { true } else { false } }.count == 1)
    }

    @Test("buffered: unplug while the emulator feeds a FIFO; it returns as another iio:deviceN")
    func unplugBuffered() throws {
        let t = try TemporaryTree()
        let d = try t.tree.add(.bmi160(), index: 0)
        let emulator = IIOEmulator(tree: t.tree, devices: [d, "iio:device5"], source: IIOSyntheticMotion(rate: 200))
        emulator.start()
        defer { emulator.stop() }
        let device = try t.discover()
        let c = Collector()
        device.run([.accelerometer: 100, .gyroscope: 100], sink: c.sink, events: c.eventSink)
        #expect(waitUntil(5) { c.count(.accelerometer) >= 50 })
        #expect(device.sensors[.accelerometer]?.name.contains("buffered") == true)

        let aside = try t.tree.unplug(d)
        #expect(waitUntil { c.allEvents.contains { if case .sensorLost(.accelerometer, _) = $0 { true } else { false } } })
        #expect(c.allEvents.contains { if case .sensorLost(.gyroscope, _) = $0 { true } else { false } })
        #expect(device.sensors.isEmpty)
        let countAtLoss = c.count(.accelerometer)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(c.count(.accelerometer) == countAtLoss)

        // The driver binds again as iio:device5 (a new number, like a re-plugged USB board).
        try t.tree.replug(d, from: aside, as: "iio:device5")
        #expect(waitUntil(5) { c.allEvents.contains(.sensorReturned(.accelerometer)) && c.allEvents.contains(.sensorReturned(.gyroscope)) })
        #expect(waitUntil(5) { c.count(.accelerometer) > countAtLoss + 50 })
        #expect(device.sensorInfo[.accelerometer]?.deviceDirectory == "iio:device5")
        #expect(t.tree.get("iio:device5", "buffer/enable") == "1")
        device.stopAndWait()
        #expect(t.tree.get("iio:device5", "buffer/enable") == "0")
        let norms = c.of(.accelerometer).map { $0.vector!.norm }
        #expect(norms.allSatisfy { abs($0 - 1) < 0.05 }, "a sample far from 1 g (a zero sample?)")
    }

    @Test("a read error is skipped and reported, never turned into a zero sample")
    func readError() throws {
        let t = try TemporaryTree()
        let d = try t.tree.add(.bmi160(), index: 0)
        try t.tree.setRaw(d, "in_accel_z", 16393)
        let device = try t.discover(IIODevice.Options(capture: .polled))
        let c = Collector()
        device.run([.accelerometer: 100], sink: c.sink, events: c.eventSink)
        #expect(waitUntil { c.count(.accelerometer) >= 10 })
        // The attribute now holds garbage (as a flaky bus might make a driver print): no sample.
        try t.tree.set(d, "in_accel_y_raw", "\u{7F}ERR")
        Thread.sleep(forTimeInterval: 0.05)
        let before = c.count(.accelerometer)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(c.count(.accelerometer) == before, "samples delivered from an unreadable attribute")
        // After the grace period (1 s without a good read) the sensor is reported lost.
        #expect(waitUntil(3) { c.allEvents.contains { if case .sensorLost(.accelerometer, let reason) = $0 { reason.contains("in_accel_y_raw") } else { false } } })
        try t.tree.setRaw(d, "in_accel_y", 0)
        #expect(waitUntil(3) { c.allEvents.contains(.sensorReturned(.accelerometer)) })
        #expect(waitUntil(3) { c.count(.accelerometer) > before + 5 })
        #expect((device.captureStatistics.first?.readErrors ?? 0) > 10)
        device.stopAndWait()
        #expect(c.of(.accelerometer).allSatisfy { abs($0.vector!.z - (-9.803014 / 9.80665)) < 1e-12 })
    }

    @Test("idle device: sensors reflects unplug and return without a running capture")
    func idle() throws {
        let t = try TemporaryTree()
        let d = try t.tree.add(.lis3mdl(), index: 0)
        let device = try t.discover()
        #expect(device.sensors[.magnetometer] != nil)
        let aside = try t.tree.unplug(d)
        // (Waited for, not slept: the rescan's timing on a loaded machine is not what is tested.)
        #expect(waitUntil(3) { device.sensors[.magnetometer] == nil })
        try t.tree.replug(d, from: aside, as: "iio:device2")
        #expect(waitUntil(3) { device.sensors[.magnetometer] != nil })
        #expect(device.sensorInfo[.magnetometer]?.deviceDirectory == "iio:device2")
    }

    @Test("permission errors name the file and say what to do")
    func permissionMessage() throws {
        let error = IIOError.from(errno: EACCES, path: "/dev/iio:device0", operation: "open")
        let text = "\(error)"
        #expect(text.contains("/dev/iio:device0"))
        #expect(text.contains("udev") && text.contains("usermod -aG iio"))
        #expect(IIOError.from(errno: ENODEV, path: "/x", operation: "read").isDeviceGone)
        #expect(IIOError.from(errno: ENOENT, path: "/x", operation: "open").isDeviceGone)
        #expect(!IIOError.from(errno: EIO, path: "/x", operation: "read").isDeviceGone)
    }

    @Test("an unreadable attribute: sensor lost with the permission advice",
          .enabled(if: !runningAsRoot, "root reads any file; permission checks need an unprivileged user"))
    func permissionDenied() throws {
        let t = try TemporaryTree()
        let d = try t.tree.add(.lis3mdl(), index: 0)
        let device = try t.discover(IIODevice.Options(capture: .polled))
        chmod(t.path + "/" + d + "/in_magn_x_raw", 0)
        let c = Collector()
        device.run([.magnetometer: 10], sink: c.sink, events: c.eventSink)
        #expect(waitUntil(3) { c.allEvents.contains { if case .sensorLost(_, let r) = $0 { r.contains("in_magn_x_raw") && r.contains("udev") } else { false } } })
        device.stopAndWait()
        #expect(c.count(.magnetometer) == 0)
    }
}
