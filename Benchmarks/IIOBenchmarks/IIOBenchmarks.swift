import Benchmark
import Foundation
import MotionEmulation
import MotionIIO

/// Decoding cost of buffered IIO scans: what the capture thread spends per scan once the bytes are
/// read from /dev/iio:deviceN (layout lookup done once; per scan: loads, shift/mask/sign, affine
/// conversion, timestamp mapping, one `SensorSample` per sensor).
///
/// Run: `cd Benchmarks && swift package --disable-sandbox benchmark --target IIOBenchmarks`.
/// Each scaled iteration decodes one scan; 1 000 scans make one iteration.

/// A fake tree with one driver layout, its decoder for every motion channel plus the timestamp,
/// and `count` scans encoded from a synthetic motion.
struct ScanFixture {
    let decoder: IIOScanDecoder
    let scans: UnsafeMutableRawPointer
    let count: Int

    init(_ layout: IIOFakeDevice, count: Int = 1000) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("iio-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let tree = try! IIOFakeTree(root: root)
        let name = try! tree.add(layout, index: 0, node: .file)
        var problems: [String] = []
        let info = try! IIODiscovery(root: tree.iioRoot).describe(name, problems: &problems)!
        let sensors = info.sensors
        var channels: [(name: String, index: Int, type: IIOScanType)] = []
        for s in sensors {
            for c in s.channels { channels.append((c.name, c.scan!.index, c.scan!.type)) }
        }
        if let ts = info.buffer?.timestamp { channels.append((ts.name, ts.index, ts.type)) }
        let scanLayout = IIOScanLayout(channels: channels)
        decoder = try! IIOScanDecoder(layout: scanLayout, sensors: sensors)
        self.count = count
        scans = UnsafeMutableRawPointer.allocate(byteCount: scanLayout.scanBytes * count, alignment: 16)
        scans.initializeMemory(as: UInt8.self, repeating: 0, count: scanLayout.scanBytes * count)
        var motion = IIOSyntheticMotion(rate: 1000)
        var latest: [SensorKind: Vector3] = [:]
        for i in 0..<count {
            // One step of the motion: accelerometer, gyroscope, magnetometer, barometer.
            for _ in 0..<4 { if let s = motion.next(), let v = s.vector { latest[s.sensor] = v } }
            let base = scans + i * scanLayout.scanBytes
            for s in sensors {
                guard let conversion = s.vectorConversion, let v = latest[s.kind], let raw = conversion.rawCounts(for: v) else { continue }
                for (axis, c) in s.channels.enumerated() {
                    let e = scanLayout.element(c.name)!
                    e.type.store(Int64(raw[axis].rounded()), at: base + e.offset)
                }
            }
            if let e = scanLayout.element("in_timestamp") {
                e.type.store(Int64(1_000_000_000) + Int64(i) * 1_000_000, at: base + e.offset)
            }
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    let metrics: [BenchmarkMetric] = [.cpuTotal, .wallClock, .throughput, .mallocCountTotal, .instructions]
    let configuration = Benchmark.Configuration(metrics: metrics, scalingFactor: .kilo, maxDuration: .seconds(2))

    for (label, layout) in [
        ("bmi160 accel+gyro+timestamp (le:s16, 24-byte scans)", IIOFakeDevice.bmi160()),
        ("mpu6050 accel+gyro+timestamp (be:s16)", IIOFakeDevice.mpu6050()),
        ("bmc150 accel+timestamp (le:s12/16>>4)", IIOFakeDevice.bmc150()),
        ("accel_3d HID accel+timestamp (le:s16/32)", IIOFakeDevice.hidAccel3D()),
    ] {
        let fixture = ScanFixture(layout)
        let size = fixture.decoder.layout.scanBytes
        Benchmark("IIO decode scan: \(label)", configuration: configuration) { benchmark in
            var i = 0
            var sum = 0.0
            for _ in benchmark.scaledIterations {
                let scan = fixture.scans + i * size
                let t = fixture.decoder.time(ofScan: scan, clockOffset: 0) ?? 0
                fixture.decoder.decode(scan: scan, time: t) { sample in sum += sample.vector?.x ?? 0 }
                i += 1
                if i == fixture.count { i = 0 }
            }
            blackHole(sum)
        }
    }

    let fixture = ScanFixture(IIOFakeDevice.bmi160())
    Benchmark("IIO decode batch: 1000 bmi160 scans into samples", configuration: .init(metrics: metrics, maxDuration: .seconds(2))) { benchmark in
        var samples: [SensorSample] = []
        samples.reserveCapacity(2 * fixture.count)
        for _ in benchmark.scaledIterations {
            samples.removeAll(keepingCapacity: true)
            fixture.decoder.decode(scans: fixture.scans, count: fixture.count, clockOffset: 0, fallbackEnd: 0, period: 0.001) { samples.append($0) }
            blackHole(samples.count)
        }
    }

    Benchmark("IIO scan type parse: le:s12/16>>4", configuration: .init(metrics: [.cpuTotal, .mallocCountTotal], scalingFactor: .kilo)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? IIOScanType(parsing: "le:s12/16>>4\n"))
        }
    }
}
