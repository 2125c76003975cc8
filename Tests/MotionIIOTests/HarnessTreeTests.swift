import Foundation
import MotionEmulation
import Testing
import TestSupport
@testable import MotionIIO

/// The tree `tools/iio/compat-harness.sh` builds (mpu6050 limited to 100 Hz, lis3mdl, bmp280, fed
/// by the emulator), checked at the device level against what the raw-sensor compatibility
/// clients expect of the device behind `CMMotionManager` (compat/Sources/CompatClients/RawSensors.swift).
@Suite("harness tree meets the raw-sensor clients' expectations", .serialized)
struct HarnessTreeTests {
    @Test("100 Hz accelerometer, 50 Hz gyroscope and magnetometer, rate range", arguments: [IIODevice.CaptureMode.polled, .buffered])
    func rawSensors(mode: IIODevice.CaptureMode) throws {
        let t = try TemporaryTree()
        let names = [
            try t.tree.add(.mpu6050(rates: "10 20 50 100"), index: 0),
            try t.tree.add(.lis3mdl(), index: 1),
            try t.tree.add(.bmp280(), index: 2),
        ]
        let emulator = IIOEmulator(tree: t.tree, devices: names, source: IIOSyntheticMotion(rate: 200))
        emulator.start()
        defer { emulator.stop() }
        let device = try t.discover(IIODevice.Options(capture: mode))

        // interval-clamp: the fastest interval maps to the device's 100 Hz.
        #expect(device.sensors[.accelerometer]?.maximumRate == 100)
        #expect(device.sensors[.accelerometer]?.minimumRate == 10)

        // push-accelerometer: every sample at 100 Hz for 2 s.
        let c = Collector()
        device.run([.accelerometer: 100], sink: c.sink, events: c.eventSink)
        // Start-up (waited for: its length on a loaded machine is not what is counted).
        #expect(waitUntil(5) { c.count(.accelerometer) > 0 }, "\(mode): no sample within 5 s")
        c.clear()
        Thread.sleep(forTimeInterval: 2)
        let accel = c.of(.accelerometer)
        #expect(accel.count >= 150 && accel.count <= 230, "\(mode): \(accel.count) samples in 2 s at 100 Hz")
        let times = accel.map(\.time)
        #expect(zip(times.dropFirst(), times).allSatisfy { $0 > $1 }, "\(mode): timestamps not strictly increasing")
        let step = median(steps(times))
        #expect(abs(step - 0.01) < 0.003, "\(mode): median step \(step)")
        #expect((times.last ?? 0) <= ProcessInfo.processInfo.systemUptime + 1)
        let g = median(accel.compactMap { $0.vector?.norm })
        #expect(g > 0.5 && g < 2, "\(mode): median |a| \(g) g")

        // push-gyro-magnetometer: 50 Hz each for 1.5 s, ≥ 50 samples, |B| within 10–300 µT.
        device.run([.gyroscope: 50, .magnetometer: 50], sink: c.sink, events: c.eventSink)
        #expect(waitUntil(5) { c.count(.gyroscope) > 0 && c.count(.magnetometer) > 0 }, "\(mode): no gyro or magnetometer sample within 5 s")
        c.clear()
        Thread.sleep(forTimeInterval: 1.5)
        device.stopAndWait()
        #expect(c.count(.gyroscope) >= 50, "\(mode): \(c.count(.gyroscope)) gyro samples")
        #expect(c.count(.magnetometer) >= 50, "\(mode): \(c.count(.magnetometer)) magnetometer samples")
        #expect(c.of(.gyroscope).allSatisfy { $0.vector!.isFinite })
        let field = median(c.of(.magnetometer).compactMap { $0.vector?.norm })
        #expect(field > 10 && field < 300, "\(mode): median |B| \(field) µT")
        #expect(c.allEvents.isEmpty)
    }
}

@Suite("rate changes while capturing", .serialized)
struct RateChangeTests {
    @Test("interval-clamp pattern: 100 Hz, stop, then 10 Hz keeps delivering, cycle after cycle",
          arguments: [IIODevice.CaptureMode.polled, .buffered])
    func downAndUp(mode: IIODevice.CaptureMode) throws {
        let t = try TemporaryTree()
        let names = [try t.tree.add(.mpu6050(rates: "10 20 50 100"), index: 0)]
        let emulator = IIOEmulator(tree: t.tree, devices: names, source: IIOSyntheticMotion(rate: 200))
        emulator.start()
        defer { emulator.stop() }
        let device = try t.discover(IIODevice.Options(capture: mode))
        let c = Collector()
        // A stopped capture may still be tearing down when the next starts; the next must wait for
        // it, or the old teardown disables the buffer the new one enabled (seen as 0 samples). The
        // rate is counted over a window that opens at the first sample, so start-up latency on a
        // loaded machine (the sanitizer, parallel suites) is checked apart from the rate.
        for cycle in 0..<4 {
            c.clear()
            device.run([.accelerometer: 100], sink: c.sink, events: c.eventSink)
            #expect(waitUntil(5) { c.count(.accelerometer) > 0 }, "\(mode) cycle \(cycle): no sample within 5 s at 100 Hz")
            c.clear()
            Thread.sleep(forTimeInterval: 0.6)
            let fast = c.count(.accelerometer)
            #expect(fast > 30 && fast <= 90, "\(mode) cycle \(cycle): \(fast) samples in 0.6 s at 100 Hz")
            device.run([:], sink: c.sink, events: c.eventSink)
            c.clear()
            device.run([.accelerometer: 10], sink: c.sink, events: c.eventSink)
            #expect(waitUntil(5) { c.count(.accelerometer) > 0 }, "\(mode) cycle \(cycle): no sample within 5 s at 10 Hz")
            c.clear()
            Thread.sleep(forTimeInterval: 1.2)
            let slow = c.count(.accelerometer)
            #expect(slow >= 8 && slow <= 16, "\(mode) cycle \(cycle): \(slow) samples in 1.2 s at 10 Hz")
            device.run([:], sink: c.sink, events: c.eventSink)
        }
        device.stopAndWait()
        #expect(c.allEvents.isEmpty, "\(mode): unexpected events \(c.allEvents)")
    }
}
