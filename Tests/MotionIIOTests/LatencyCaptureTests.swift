import Foundation
import MotionEmulation
import Testing
import TestSupport
@testable import MotionIIO

@Suite("batch latency: watermark, wake-ups, reconfiguration", .serialized)
struct LatencyCaptureTests {
    @Test("buffer plan: watermark = rate × latency (≥ 5 ms of scans, ≥ 1), length ≥ 2 × watermark, bounded")
    func plan() {
        // Live streams: today's behaviour (rate/200, at least 1; about a second of buffer, at least 128).
        #expect(IIOCaptureSession.bufferPlan(scanRate: 100, latency: 0) == (128, 1))
        #expect(IIOCaptureSession.bufferPlan(scanRate: 1000, latency: 0) == (1000, 5))
        #expect(IIOCaptureSession.bufferPlan(scanRate: 12.5, latency: 0) == (128, 1))
        // Background: a second of scans per wake-up, a buffer twice that.
        #expect(IIOCaptureSession.bufferPlan(scanRate: 100, latency: 1) == (200, 100))
        #expect(IIOCaptureSession.bufferPlan(scanRate: 104, latency: 0.5) == (128, 52))
        #expect(IIOCaptureSession.bufferPlan(scanRate: 1000, latency: 1) == (2000, 1000))
        // Bounded: 8192 scans of buffer at most, the watermark at most half of it; latencies past 10 s are 10 s.
        #expect(IIOCaptureSession.bufferPlan(scanRate: 1600, latency: 60) == (8192, 4096))
        // Nonsense in, the live plan out.
        #expect(IIOCaptureSession.bufferPlan(scanRate: 100, latency: .nan) == (128, 1))
        #expect(IIOCaptureSession.bufferPlan(scanRate: 100, latency: -3) == (128, 1))
        #expect(IIOCaptureSession.bufferPlan(scanRate: .nan, latency: 1) == (128, 1))
    }

    @Test("buffered capture on a fake tree writes the watermark and length the latency asks for; a live latency rewrites them")
    func watermarkWritten() throws {
        let t = try TemporaryTree()
        let dev = try t.tree.add(.bmi160(), index: 0, node: .file)
        let device = try t.discover(IIODevice.Options(capture: .buffered))
        let c = Collector()
        device.run([.accelerometer: 100], maximumLatency: [.accelerometer: 1], sink: c.sink, events: c.eventSink)
        #expect(waitUntil { t.tree.get(dev, "buffer/enable") == "1" })
        #expect(t.tree.get(dev, "buffer/length") == "200")
        #expect(t.tree.get(dev, "buffer/watermark") == "100")
        #expect(waitUntil { device.captureStatistics.first?.watermark == 100 })

        // Same sensors and rates, latency unchanged: the capture is kept (no restart, no second enable).
        device.run([.accelerometer: 100], maximumLatency: [.accelerometer: 1], sink: c.sink, events: c.eventSink)
        #expect(device.captureStatistics.first?.watermark == 100)

        // A live stream of the gyroscope on the same buffer: the whole device goes to the smallest latency.
        device.run([.accelerometer: 100, .gyroscope: 100], maximumLatency: [.accelerometer: 1, .gyroscope: 0], sink: c.sink, events: c.eventSink)
        #expect(waitUntil { device.captureStatistics.first?.watermark == 1 })
        #expect(t.tree.get(dev, "buffer/watermark") == "1")
        #expect(t.tree.get(dev, "buffer/length") == "128")
        #expect(t.tree.get(dev, "buffer/enable") == "1")
        device.stopAndWait()
        #expect(t.tree.get(dev, "buffer/enable") == "0")
    }

    @Test("the emulator writes scans in groups of the buffer's watermark, as the kernel wakes a reader")
    func emulatorGroups() throws {
        let t = try TemporaryTree()
        let dev = try t.tree.add(.mpu6050(rates: "10 20 50 100"), index: 0)
        // Set up the buffer by hand, as a reader would: accelerometer and timestamp (16-byte scans), 100 Hz,
        // watermark 8.
        for ch in ["in_accel_x", "in_accel_y", "in_accel_z", "in_timestamp"] { try t.tree.set(dev, "scan_elements/\(ch)_en", "1") }
        try t.tree.set(dev, "sampling_frequency", "100")
        try t.tree.set(dev, "buffer/length", "64")
        try t.tree.set(dev, "buffer/watermark", "8")
        let fd = open(t.path + "/dev/" + dev, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        try t.tree.set(dev, "buffer/enable", "1")
        let emulator = IIOEmulator(tree: t.tree, devices: [dev], source: IIOSyntheticMotion(rate: 100))
        emulator.start()
        defer { emulator.stop() }

        let scanBytes = 16
        var reads: [Int] = []
        var buffer = [UInt8](repeating: 0, count: 64 * scanBytes)
        let end = Date().addingTimeInterval(10)
        while reads.count < 6 && Date() < end {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 200) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 { reads.append(n) } else { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(reads.count >= 6, "reads: \(reads)")
        // Every wake-up finds whole groups of 8 scans (two groups if the reader was late), never fewer.
        #expect(reads.allSatisfy { $0 % (8 * scanBytes) == 0 }, "bytes per read: \(reads)")
        let s = emulator.statistics
        #expect(s.writes > 0 && s.scansWritten == 8 * s.writes, "\(s.scansWritten) scans in \(s.writes) writes")
    }

    @Test("with a 0.5 s latency the capture wakes about twice a second and still delivers every scan")
    func batchedCapture() throws {
        let t = try TemporaryTree()
        let dev = try t.tree.add(.mpu6050(rates: "10 20 50 100"), index: 0)
        let emulator = IIOEmulator(tree: t.tree, devices: [dev], source: IIOSyntheticMotion(rate: 200))
        emulator.start()
        defer { emulator.stop() }
        let device = try t.discover(IIODevice.Options(capture: .buffered))
        let c = Collector()
        device.run([.accelerometer: 100], maximumLatency: [.accelerometer: 0.5], sink: c.sink, events: c.eventSink)
        #expect(waitUntil(10) { c.count(.accelerometer) >= 50 })
        #expect(t.tree.get(dev, "buffer/watermark") == "50")
        let before = try #require(device.captureStatistics.first)
        Thread.sleep(forTimeInterval: 3)
        let after = try #require(device.captureStatistics.first)
        let wakeups = after.wakeups - before.wakeups
        let scans = after.reads - before.reads
        // 3 s at 100 Hz in batches of 50: 6 batches (5–7 by the window's edges), 300 scans.
        #expect(wakeups >= 4 && wakeups <= 8, "\(wakeups) wake-ups in 3 s")
        #expect(scans >= 250 && scans <= 350, "\(scans) scans in 3 s")
        device.stopAndWait()
        let times = c.of(.accelerometer).map(\.time)
        #expect(zip(times.dropFirst(), times).allSatisfy { $0 > $1 }, "timestamps not strictly increasing")
        // No scan lost between batches: steps stay at the period (10 ms).
        let gaps = steps(times).filter { $0 > 0.015 }
        #expect(gaps.isEmpty, "gaps: \(gaps.prefix(5))")
        #expect(emulator.statistics.scansDropped == 0)
    }

    @Test("a latency drop replaces a capture waiting on a long batch at once (the wake pipe)")
    func latencyDrop() throws {
        let t = try TemporaryTree()
        let dev = try t.tree.add(.mpu6050(rates: "10 20 50 100"), index: 0)
        let emulator = IIOEmulator(tree: t.tree, devices: [dev], source: IIOSyntheticMotion(rate: 200))
        emulator.start()
        defer { emulator.stop() }
        let device = try t.discover(IIODevice.Options(capture: .buffered))
        let c = Collector()
        // 3 s batches: the thread sleeps in poll for up to 3.25 s between them.
        device.run([.accelerometer: 100], maximumLatency: [.accelerometer: 3], sink: c.sink, events: c.eventSink)
        #expect(waitUntil(10) { t.tree.get(dev, "buffer/watermark") == "300" && t.tree.get(dev, "buffer/enable") == "1" })
        Thread.sleep(forTimeInterval: 0.5)
        let asked = Date()
        device.run([.accelerometer: 100], maximumLatency: [:], sink: c.sink, events: c.eventSink)
        #expect(waitUntil(5) { device.captureStatistics.first?.watermark == 1 })
        let reconfigured = Date().timeIntervalSince(asked)
        #expect(reconfigured < 1, "the capture took \(reconfigured) s to reconfigure")
        // Samples now come one by one.
        c.clear()
        Thread.sleep(forTimeInterval: 0.3)
        #expect(c.count(.accelerometer) >= 10)
        device.stopAndWait()
    }

    @Test("a silent device that vanishes is noticed by the poll timeout, within a batch period and a quarter second")
    func unplugWhileBatching() throws {
        let t = try TemporaryTree()
        let dev = try t.tree.add(.bmi160(), index: 0)
        let device = try t.discover(IIODevice.Options(capture: .buffered))
        let c = Collector()
        device.run([.accelerometer: 100], maximumLatency: [.accelerometer: 1], sink: c.sink, events: c.eventSink)
        #expect(waitUntil { t.tree.get(dev, "buffer/enable") == "1" })
        // A writer that never writes (hardware gone quiet): the node never says POLLHUP, only the timeout helps.
        let writer = open(t.path + "/dev/" + dev, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        #expect(writer >= 0)
        defer { close(writer) }
        Thread.sleep(forTimeInterval: 0.2)
        let unplugged = Date()
        try t.tree.unplug(dev)
        #expect(waitUntil(5) { c.allEvents.contains { if case .sensorLost(.accelerometer, _) = $0 { true } else { false } } })
        let noticed = Date().timeIntervalSince(unplugged)
        // Batch period 1 s + 0.25 s at most (measured 1.0–1.3 s); 2.5 s leaves room for a loaded machine.
        #expect(noticed < 2.5, "noticed after \(noticed) s")
        device.stopAndWait()
    }
}

@Suite("capture sessions are released", .serialized)
struct SessionLifetimeTests {
    /// Open descriptors of this process.
    private func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    @Test("reconfiguring many times leaks no descriptor (each capture's wake pipe is closed when its thread ends)")
    func noDescriptorLeak() throws {
        let t = try TemporaryTree()
        let dev = try t.tree.add(.bmi160(), index: 0, node: .file)
        let device = try t.discover(IIODevice.Options(capture: .buffered))
        let c = Collector()
        device.run([.accelerometer: 100], sink: c.sink, events: c.eventSink)
        #expect(waitUntil { t.tree.get(dev, "buffer/enable") == "1" })
        let before = openDescriptors()
        for i in 0..<60 {
            device.run([.accelerometer: 100], maximumLatency: [.accelerometer: i % 2 == 0 ? 1 : 0], sink: c.sink, events: c.eventSink)
        }
        device.stopAndWait()
        // 60 captures holding a pipe each would be 120 descriptors; other suites running meanwhile may
        // hold a few.
        let after = openDescriptors()
        #expect(after - before < 30, "\(after - before) more descriptors open after 60 reconfigurations")
    }
}
