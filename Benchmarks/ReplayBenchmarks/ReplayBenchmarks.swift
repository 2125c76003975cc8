import Benchmark
import Foundation
import MotionRecordings

/// Reading recordings: parse + convert to Apple's units (and, for the replay benchmark, deliver
/// through the replay device), in raw samples per second on one core.
///
/// Run: `cd Benchmarks && swift package --disable-sandbox benchmark --target ReplayBenchmarks`.
/// The bundled fixtures always run; the full data sets run when `COREMOTION_DATA` (or
/// `../../shared/data` beside the package) holds them. The target is ≥ 1 M samples/s.
///
/// `samples/s` counts raw sensor samples (accelerometer, gyroscope, magnetometer, barometer) of the
/// recording per second of wall clock for the whole read (file bytes → `Recording`); reference rows
/// (optical truth, Apple's outputs) are parsed too but not counted.

/// The package root, from this file's path (Benchmarks/ReplayBenchmarks/ReplayBenchmarks.swift).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func fixture(_ path: String) -> String { packageRoot.appendingPathComponent("Tests/Fixtures/recordings/" + path).path }

/// A data set path when present.
func dataSet(_ path: String) -> String? {
    let base = ProcessInfo.processInfo.environment["COREMOTION_DATA"].map { URL(fileURLWithPath: $0) }
        ?? packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data")
    let url = base.appendingPathComponent(path)
    return FileManager.default.fileExists(atPath: url.path) ? url.path : nil
}

func rawSamples(_ r: Recording) -> Int { SensorKind.allCases.reduce(0) { $0 + r.count(of: $1) } }

let samplesPerSecond = BenchmarkMetric.custom("samples/s", polarity: .prefersLarger, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    registerDeliveryBenchmarks()

    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, samplesPerSecond], scalingFactor: .one, maxDuration: .seconds(3), maxIterations: 50)

    /// Reads `location` once per iteration and reports samples/s.
    func readBenchmark(_ name: String, _ location: String, format: RecordingFormat? = nil) {
        Benchmark(name, configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                let start = ContinuousClock.now
                let recording = try RecordingReader.read(location, format: format)
                let elapsed = ContinuousClock.now - start
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
                benchmark.measurement(samplesPerSecond, Int(Double(rawSamples(recording)) / seconds))
                blackHole(recording)
            }
        }
    }

    readBenchmark("read BROAD excerpt, CSV (17,145 samples + truth)", fixture("broad/broad-01-excerpt.csv"), format: .broad)
    readBenchmark("read BROAD excerpt, own format .cmrec", fixture("native/broad-01-excerpt.cmrec"), format: .native)
    readBenchmark("read Sensor Logger export, zip (hand-made, 450 samples: per-file overhead of 14 files)", fixture("sensorlogger/ios-walk.zip"), format: .sensorLogger)
    readBenchmark("read SensorLog wide CSV (hand-made, 300 rows of 80 columns)", fixture("sensorlog/handmade-sensorlog.csv"), format: .sensorLog)

    // Parse + convert + deliver: the whole .cmrec through the replay device on a virtual clock.
    Benchmark("read + replay BROAD excerpt .cmrec to a sink (VirtualClock)", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            let start = ContinuousClock.now
            let recording = try RecordingReader.read(fixture("native/broad-01-excerpt.cmrec"), format: .native)
            let clock = VirtualClock()
            let device = try ReplayDevice.make(recording: recording, clock: clock)
            let counter = Counter()
            device.run([.accelerometer: 300, .gyroscope: 300, .magnetometer: 300], sink: { counter.add($0) }, events: { _ in })
            clock.advance(by: recording.duration + 1)
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            precondition(counter.count == rawSamples(recording), "every sample is delivered")
            benchmark.measurement(samplesPerSecond, Int(Double(counter.count) / seconds))
        }
    }

    // Deliver only: the replay device over a recording already in memory.
    let excerpt = try! RecordingReader.read(fixture("native/broad-01-excerpt.cmrec"), format: .native)
    Benchmark("replay only: BROAD excerpt to a sink (VirtualClock)", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            let start = ContinuousClock.now
            let clock = VirtualClock()
            let device = try ReplayDevice.make(recording: excerpt, clock: clock)
            let counter = Counter()
            device.run([.accelerometer: 300, .gyroscope: 300, .magnetometer: 300], sink: { counter.add($0) }, events: { _ in })
            clock.advance(by: excerpt.duration + 1)
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            precondition(counter.count == rawSamples(excerpt), "every sample is delivered")
            benchmark.measurement(samplesPerSecond, Int(Double(counter.count) / seconds))
        }
    }

    if let trial = dataSet("broad/01_undisturbed_slow_rotation_A.csv") {
        readBenchmark("read BROAD trial 01, CSV (170,820 samples + truth)", trial, format: .broad)
    }
    if let walk = dataSet("iphone13-walk-sensorlogger") {
        readBenchmark("read iPhone 13 Sensor Logger export (91 s, 27,509 raw samples + Apple's outputs)", walk, format: .sensorLogger)
    }
    if let oxford = dataSet("oxford-step-counter/optimisation_data.zip") {
        readBenchmark("read Oxford trial from the zip (Pixel, 400 Hz)", oxford + "#Pixel_Jamie_Hard_InHand_1", format: .oxfordStepCounter)
    }
}

/// Counts delivered samples (the sink runs on the thread that advances the virtual clock).
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    var count: Int { lock.lock(); defer { lock.unlock() }; return n }
    func add(_ sample: SensorSample) {
        lock.lock()
        n += 1
        lock.unlock()
        blackHole(sample)
    }
}
