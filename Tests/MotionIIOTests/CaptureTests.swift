import Foundation
import MotionEmulation
import Testing
import TestSupport
@testable import MotionIIO

/// Encodes one bmi160 scan (gyro x,y,z, accel x,y,z as le:s16, 4 bytes padding, le:s64 timestamp).
private func bmi160Scan(gyro: (Int16, Int16, Int16), accel: (Int16, Int16, Int16), ns: Int64) -> [UInt8] {
    var bytes: [UInt8] = []
    for v in [gyro.0, gyro.1, gyro.2, accel.0, accel.1, accel.2] { bytes += withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    bytes += [0, 0, 0, 0]  // the timestamp is aligned to 8: offset 16
    bytes += withUnsafeBytes(of: ns.littleEndian) { Array($0) }
    return bytes  // 24 bytes
}

@Suite("capture from fake trees", .serialized)
struct CaptureTests {
    @Test("polled: hand-written raw values come out in g, rad/s; rate written; timestamps on systemUptime's clock")
    func polled() throws {
        let t = try TemporaryTree()
        let dev = try t.tree.add(.bmi160(), index: 0)
        // accel raw (−100, 0, 16393): (0.0598, 0, −9.803014) m/s² in chip = device axes →
        // Apple g = (−(−0.0598), 0, −9.803014) / 9.80665 = (0.006097903, 0, −0.999629231).
        try t.tree.setRaw(dev, "in_accel_x", -100)
        try t.tree.setRaw(dev, "in_accel_y", 0)
        try t.tree.setRaw(dev, "in_accel_z", 16393)
        // gyro raw (1000, −2000, 0) × 0.001065 = (1.065, −2.13, 0) rad/s.
        try t.tree.setRaw(dev, "in_anglvel_x", 1000)
        try t.tree.setRaw(dev, "in_anglvel_y", -2000)
        try t.tree.setRaw(dev, "in_anglvel_z", 0)
        let device = try t.discover(IIODevice.Options(capture: .polled))
        let c = Collector()
        let before = ProcessInfo.processInfo.systemUptime
        device.run([.accelerometer: 50, .gyroscope: 25], sink: c.sink, events: c.eventSink)
        #expect(waitUntil { c.count(.accelerometer) >= 20 && c.count(.gyroscope) >= 8 })
        device.stopAndWait()
        let after = ProcessInfo.processInfo.systemUptime
        let a = try #require(c.of(.accelerometer).last?.vector)
        #expect(approximately(a, Vector3(0.0598 / 9.80665, 0, -9.803014 / 9.80665), 1e-12))
        let g = try #require(c.of(.gyroscope).last?.vector)
        #expect(approximately(g, Vector3(1.065, -2.13, 0), 1e-12))
        // Rates: 50 Hz is offered by the accelerometer; the gyroscope's slowest is 25.
        #expect(t.tree.get(dev, "in_accel_sampling_frequency") == "50")
        #expect(t.tree.get(dev, "in_anglvel_sampling_frequency") == "25")
        let times = c.of(.accelerometer).map(\.time)
        #expect(times.allSatisfy { $0 >= before && $0 <= after })
        #expect(zip(times.dropFirst(), times).allSatisfy { $0 > $1 })
        let step = median(steps(times))
        #expect(abs(step - 0.02) < 0.005, "median step \(step) s at 50 Hz")
        #expect(c.allEvents.isEmpty)
    }

    @Test("buffered from a regular file: hand-encoded bmi160 scans, setup of the sysfs controls")
    func bufferedFile() throws {
        let t = try TemporaryTree()
        let dev = try t.tree.add(.bmi160(), index: 0, node: .file)
        let device = try t.discover(IIODevice.Options(capture: .buffered))
        let c = Collector()
        device.run([.accelerometer: 200, .gyroscope: 100], sink: c.sink, events: c.eventSink)
        #expect(waitUntil { t.tree.get(dev, "buffer/enable") == "1" })
        // The capture selected exactly the channels it needs, the data-ready trigger, the monotonic clock, and 200 Hz for both.
        for ch in ["in_accel_x", "in_accel_y", "in_accel_z", "in_anglvel_x", "in_anglvel_y", "in_anglvel_z", "in_timestamp"] {
            #expect(t.tree.get(dev, "scan_elements/\(ch)_en") == "1", "\(ch)")
        }
        #expect(t.tree.get(dev, "trigger/current_trigger") == "bmi160-dev0")
        #expect(t.tree.get(dev, "current_timestamp_clock") == "monotonic")
        #expect(t.tree.get(dev, "in_accel_sampling_frequency") == "200")
        #expect(t.tree.get(dev, "in_anglvel_sampling_frequency") == "200")
        // Two scans, 5 ms apart, written in one go plus a third split across two writes.
        let base = Int64(ProcessInfo.processInfo.systemUptime * 1e9)
        let s1 = bmi160Scan(gyro: (1000, -2000, 0), accel: (-100, 0, 16393), ns: base)
        let s2 = bmi160Scan(gyro: (0, 0, 100), accel: (0, -16393, 0), ns: base + 5_000_000)
        let s3 = bmi160Scan(gyro: (-1, -1, -1), accel: (1, 2, 3), ns: base + 10_000_000)
        try append(s1 + s2 + Array(s3[0..<10]), to: t.path + "/dev/" + dev)
        #expect(waitUntil { c.count(.accelerometer) >= 2 })
        Thread.sleep(forTimeInterval: 0.05)
        #expect(c.count(.accelerometer) == 2)  // the partial third scan is held back
        try append(Array(s3[10...]), to: t.path + "/dev/" + dev)
        #expect(waitUntil { c.count(.accelerometer) >= 3 })
        device.stopAndWait()
        #expect(t.tree.get(dev, "buffer/enable") == "0")

        let accel = c.of(.accelerometer)
        let gyro = c.of(.gyroscope)
        #expect(accel.count == 3 && gyro.count == 3)
        // Scan 1: as in the polled test. Scan 2: accel y = −16393 × 0.000598 = −9.803014 m/s² → +0.999629231 g.
        #expect(approximately(accel[0].vector!, Vector3(0.0598 / 9.80665, 0, -9.803014 / 9.80665), 1e-12))
        #expect(approximately(accel[1].vector!, Vector3(0, 9.803014 / 9.80665, 0), 1e-12))
        // Scan 3: (1, 2, 3) × 0.000598 / −9.80665.
        #expect(approximately(accel[2].vector!, Vector3(1, 2, 3) * (0.000598 / -9.80665), 1e-15))
        #expect(approximately(gyro[0].vector!, Vector3(1.065, -2.13, 0), 1e-12))
        #expect(approximately(gyro[1].vector!, Vector3(0, 0, 0.1065), 1e-12))
        // Timestamps are the scans' own (CLOCK_MONOTONIC ns → s).
        #expect(abs(accel[0].time - Double(base) * 1e-9) < 1e-9)
        #expect(abs(accel[1].time - accel[0].time - 0.005) < 1e-9)
        #expect(abs(gyro[2].time - accel[2].time) == 0)
    }

    @Test("timestamps on CLOCK_REALTIME are mapped onto CLOCK_MONOTONIC")
    func realtimeClock() throws {
        let s16 = try IIOScanType(parsing: "le:s16/16>>0")
        let layout = IIOScanLayout(channels: [("in_accel_x", 0, s16), ("in_accel_y", 1, s16), ("in_accel_z", 2, s16), ("in_timestamp", 3, IIOFakeDevice.timestampType)])
        let t = try TemporaryTree()
        try t.tree.add(.lsm6dsxAccel(), index: 0)
        let sensor = try #require(try t.discover().sensorInfo[.accelerometer])
        let decoder = try IIOScanDecoder(layout: layout, sensors: [sensor])
        // A scan stamped "now" on the realtime clock.
        var tp = timespec()
        clock_gettime(CLOCK_REALTIME, &tp)
        let realtimeNs = Int64(tp.tv_sec) * 1_000_000_000 + Int64(tp.tv_nsec)
        var scan = [UInt8](repeating: 0, count: layout.scanBytes)
        scan.withUnsafeMutableBytes { IIOFakeDevice.timestampType.store(realtimeNs, at: $0.baseAddress! + 8) }
        let offset = IIOTimestampClock.realtime.offsetToMonotonic()
        let time = try #require(scan.withUnsafeBytes { decoder.time(ofScan: $0.baseAddress!, clockOffset: offset) })
        #expect(abs(time - ProcessInfo.processInfo.systemUptime) < 0.01)
        #expect(IIOTimestampClock.monotonic.offsetToMonotonic() == 0)
        #expect(IIOTimestampClock(attribute: "boottime\n") == .boottime)
        #expect(IIOTimestampClock(attribute: "sundial") == nil)
    }

    @Test("buffered through a FIFO, fed by the emulator: lsm6dsx at 104 Hz, |a| ≈ 1 g")
    func bufferedFIFO() throws {
        let t = try TemporaryTree()
        let a = try t.tree.add(.lsm6dsxAccel(), index: 0)
        let g = try t.tree.add(.lsm6dsxGyro(), index: 1)
        let emulator = IIOEmulator(tree: t.tree, devices: [a, g], source: IIOSyntheticMotion(rate: 200))
        emulator.start()
        defer { emulator.stop() }
        let device = try t.discover(IIODevice.Options(capture: .buffered))
        let c = Collector()
        device.run([.accelerometer: 100, .gyroscope: 100], sink: c.sink, events: c.eventSink)
        #expect(waitUntil(10) { c.count(.accelerometer) >= 150 && c.count(.gyroscope) >= 150 })
        let statistics = device.captureStatistics
        #expect(statistics.count == 2 && statistics.allSatisfy { $0.mode == "buffered" && $0.readErrors == 0 })
        device.stopAndWait()
        // 100 Hz asked: the lsm6dsx offers 104.
        #expect(t.tree.get(a, "sampling_frequency") == "104")
        let accel = c.of(.accelerometer)
        let norms = accel.compactMap { $0.vector?.norm }
        #expect(abs(median(norms) - 1) < 0.02, "median |a| \(median(norms))")
        let step = median(steps(accel.map(\.time)))
        #expect(abs(step - 1 / 104.0) < 0.0005, "median step \(step)")
        #expect(c.of(.gyroscope).allSatisfy { $0.vector!.isFinite && $0.vector!.norm < 3 })
        #expect(emulator.statistics.scansWritten >= 300)
    }

    @Test("mpu6050 big-endian scans and bmc150 12-bit shifted scans decode to the emulated motion")
    func endiannessAndShift() throws {
        for (layout, name) in [(IIOFakeDevice.mpu6050(), "mpu6050"), (IIOFakeDevice.bmc150(), "bmc150")] {
            let t = try TemporaryTree()
            let d = try t.tree.add(layout, index: 0)
            let emulator = IIOEmulator(tree: t.tree, devices: [d], source: IIOSyntheticMotion(rate: 100))
            emulator.start()
            defer { emulator.stop() }
            let device = try t.discover(IIODevice.Options(capture: .buffered))
            let c = Collector()
            device.run([.accelerometer: 100], sink: c.sink, events: c.eventSink)
            #expect(waitUntil(10) { c.count(.accelerometer) >= 60 }, "\(name)")
            device.stopAndWait()
            let samples = c.of(.accelerometer).suffix(40)
            // |a| = 1 g within the emulator's quantisation (bmc150: 0.00961 m/s² ≈ 0.001 g) and the noise.
            let worst = samples.map { abs($0.vector!.norm - 1) }.max() ?? 1
            #expect(worst < 0.03, "\(name): |a| deviates by \(worst) g")
            // The synthetic motion is tilted towards the user by pitch 0.5 ± 0.15 rad, roll ±0.2 rad:
            // gravity in device axes ≈ (±0.2, −sin(pitch), −cos(pitch)), so y ∈ (−0.65, −0.30) and
            // z ∈ (−0.96, −0.74). A wrong byte order or shift would not land there.
            for s in samples {
                let v = s.vector!
                #expect(v.y > -0.65 && v.y < -0.30 && v.z > -0.96 && v.z < -0.74, "\(name): \(v)")
            }
            // The temperature channel of the mpu6050 is not captured.
            if name == "mpu6050" { #expect(t.tree.get(d, "scan_elements/in_temp_en") == "0") }
        }
    }

    @Test("stopping disables the buffer; a new rate restarts the capture")
    func restart() throws {
        let t = try TemporaryTree()
        let a = try t.tree.add(.lsm6dsxAccel(), index: 0)
        let emulator = IIOEmulator(tree: t.tree, devices: [a], source: IIOSyntheticMotion(rate: 200))
        emulator.start()
        defer { emulator.stop() }
        let device = try t.discover()
        let c = Collector()
        device.run([.accelerometer: 20], sink: c.sink, events: c.eventSink)
        #expect(waitUntil(5) { c.count(.accelerometer) >= 10 })
        #expect(t.tree.get(a, "sampling_frequency") == "26")
        device.run([.accelerometer: 200], sink: c.sink, events: c.eventSink)
        #expect(waitUntil(5) { t.tree.get(a, "sampling_frequency") == "208" })
        c.clear()
        #expect(waitUntil(5) { c.count(.accelerometer) >= 100 })
        let step = median(steps(c.of(.accelerometer).map(\.time)))
        #expect(abs(step - 1 / 208.0) < 0.0005, "median step \(step)")
        device.run([:], sink: c.sink, events: c.eventSink)
        #expect(waitUntil(2) { t.tree.get(a, "buffer/enable") == "0" })
        let stopped = c.count(.accelerometer)
        Thread.sleep(forTimeInterval: 0.2)
        #expect(c.count(.accelerometer) == stopped)
        device.stopAndWait()
    }

    @Test("barometer polled: kPa and °C from bmp280's processed attributes")
    func barometer() throws {
        let t = try TemporaryTree()
        let d = try t.tree.add(.bmp280(), index: 0)
        // 24674867 / 256000 = 96.386199218 kPa (the driver's own example: 963.862 hPa); 23450 m°C.
        try t.tree.set(d, "in_pressure_input", "96.386199218")
        try t.tree.set(d, "in_temp_input", "23450")
        let device = try t.discover()
        let c = Collector()
        device.run([.barometer: 5], sink: c.sink, events: c.eventSink)
        #expect(waitUntil(5) { c.count(.barometer) >= 3 })
        device.stopAndWait()
        guard case .barometer(let p) = try #require(c.of(.barometer).last) else { return }
        #expect(p.kilopascals == 96.386199218)
        #expect(abs((p.celsius ?? 0) - 23.45) < 1e-12)
        let step = median(steps(c.of(.barometer).map(\.time)))
        #expect(abs(step - 0.2) < 0.02)
    }
}
