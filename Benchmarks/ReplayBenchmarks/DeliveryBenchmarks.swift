import Benchmark
import CoreMotion
import CoreMotionTesting
import Foundation
import MotionRecordings

/// The bundled 20 s BROAD excerpt in the project's own format (17,145 samples: accelerometer, gyroscope
/// and magnetometer at 285.7 Hz).
let nativeFixture = URL(fileURLWithPath: fixture("native/broad-01-excerpt.cmrec"))

/// Runs `body` once and records its samples per second.
func measuring(_ benchmark: Benchmark, samples: Int, _ body: () throws -> Void) rethrows {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    benchmark.measurement(samplesPerSecond, Int(Double(samples) / seconds))
}

/// Counts handler calls from any thread.
final class CallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() { lock.lock(); value += 1; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return value }
}

/// Replays `recording` through `CMMotionManager` on a virtual clock: every sample of the three sensors
/// to a push handler on its own queue. Returns the number of handler calls.
func replayThroughAPI(_ recording: Recording, push: Bool) -> Int {
    let harness = MotionTestHarness(recording: recording)
    let counter = CallCounter()
    harness.run {
        let motion = CMMotionManager()
        motion.accelerometerUpdateInterval = 0
        motion.gyroUpdateInterval = 0
        motion.magnetometerUpdateInterval = 0
        if push {
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            motion.startAccelerometerUpdates(to: queue) { _, _ in counter.increment() }
            motion.startGyroUpdates(to: queue) { _, _ in counter.increment() }
            motion.startMagnetometerUpdates(to: queue) { _, _ in counter.increment() }
        } else {
            motion.startAccelerometerUpdates()
            motion.startGyroUpdates()
            motion.startMagnetometerUpdates()
        }
        harness.advance(by: recording.duration + 1)
        if !push { counter.increment() }
        motion.stopAccelerometerUpdates()
        motion.stopGyroUpdates()
        motion.stopMagnetometerUpdates()
    }
    return counter.count
}

func registerDeliveryBenchmarks() {
    let samples = 17_145
    // Parse + convert + deliver, pull mode: every sample becomes a CMLogItem in the manager's
    // latest-sample property (no queue hop). One iteration = the whole 20 s file.
    Benchmark(
        "Replay: parse + convert + deliver (pull), 17,145 samples",
        configuration: .init(metrics: [.wallClock, .cpuTotal, .mallocCountTotal, samplesPerSecond], scalingFactor: .one, maxDuration: .seconds(5), maxIterations: 30)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            try measuring(benchmark, samples: samples) {
                let recording = try RecordingReader.read(nativeFixture)
                precondition(rawSamples(recording) == samples)
                blackHole(replayThroughAPI(recording, push: false))
            }
        }
    }

    // Convert + deliver only, pull mode: the recording already in memory (what the API adds to parsing).
    let inMemory = try! RecordingReader.read(nativeFixture)
    Benchmark(
        "Replay: convert + deliver (pull), recording in memory, 17,145 samples",
        configuration: .init(metrics: [.wallClock, .cpuTotal, .mallocCountTotal, samplesPerSecond], scalingFactor: .one, maxDuration: .seconds(5), maxIterations: 30)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            try measuring(benchmark, samples: samples) {
                blackHole(replayThroughAPI(inMemory, push: false))
            }
        }
    }

    // Parse + convert + deliver, push mode: one BlockOperation per sample on an OperationQueue, as Apple's API.
    Benchmark(
        "Replay: parse + convert + deliver (push to a queue), 17,145 samples",
        configuration: .init(metrics: [.wallClock, .cpuTotal, .mallocCountTotal, samplesPerSecond], scalingFactor: .one, maxDuration: .seconds(5), maxIterations: 30)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            try measuring(benchmark, samples: samples) {
                let recording = try RecordingReader.read(nativeFixture)
                let calls = replayThroughAPI(recording, push: true)
                precondition(calls == samples, "lost samples: \(calls) of \(samples)")
            }
        }
    }

    // Push delivery in real time: a 10 kHz accelerometer for 1 s to one serial queue; every sample must
    // arrive (the benchmark stops with an error if one is lost). CPU time shows the cost of 10 kHz.
    Benchmark(
        "Push: 10 kHz accelerometer to one queue for 1 s, real time",
        configuration: .init(metrics: [.wallClock, .cpuTotal, .cpuUser, .cpuSystem], scalingFactor: .one, maxDuration: .seconds(20), maxIterations: 5)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            let device = ScheduledDevice(
                name: "10 kHz", source: TenKilohertz(), clock: SystemClock.shared
            )
            let harnessService = MotionTestHarness(device: device, clock: VirtualClock())  // only for its service
            let counter = CallCounter()
            let first = CallCounter()
            harnessService.run {
                let motion = CMMotionManager()
                motion.accelerometerUpdateInterval = 0
                let queue = OperationQueue()
                queue.maxConcurrentOperationCount = 1
                var last = -1.0
                motion.startAccelerometerUpdates(to: queue) { data, _ in
                    guard let data else { return }
                    if last >= 0, data.acceleration.x != last + 1 { first.increment() }  // a gap in the sequence
                    last = data.acceleration.x
                    counter.increment()
                }
                Thread.sleep(forTimeInterval: 1.0)
                motion.stopAccelerometerUpdates()
                queue.waitUntilAllOperationsAreFinished()
            }
            precondition(first.count == 0, "samples lost at 10 kHz")
            precondition(counter.count >= 9_000, "only \(counter.count) samples in 1 s at 10 kHz")
        }
    }
}

/// An endless 10 kHz accelerometer whose x component counts samples.
struct TenKilohertz: SampleSource {
    var sensors: [SensorKind: SensorDescription] {
        [.accelerometer: SensorDescription(kind: .accelerometer, name: "10 kHz", minimumRate: 10_000, maximumRate: 10_000)]
    }
    private var index = 0
    mutating func next() -> SensorSample? {
        defer { index += 1 }
        return .accelerometer(TimedVector(time: Double(index) / 10_000, value: Vector3(Double(index), 0, -1)))
    }
    mutating func rewind() { index = 0 }
}
