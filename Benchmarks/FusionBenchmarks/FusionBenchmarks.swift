import Benchmark
import Foundation
import MotionEngine
import MotionRecordings
import MotionSamples

/// Per-sample cost of the fusion engine.
///
/// Input: BROAD trial 01 (285.7 Hz, every row a gyroscope, accelerometer and magnetometer sample)
/// when the shared data set is present (`COREMOTION_DATA` or `../../shared/data`), otherwise a
/// synthetic rotation at the same rate. Each benchmark iteration processes one sample set, so the
/// reported time and allocation counts are per sample.
let benchmarks: @Sendable () -> Void = {
    let input = FusionBenchmarkInput.load()
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        timeUnits: .nanoseconds,
        warmupIterations: 1000,
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )

    /// One `FusionFilter` update per iteration over the input, every `stride`-th row (the interval
    /// scaled to match), with or without the magnetometer.
    func filterBenchmark(_ name: String, settings: FusionFilter.Settings = FusionFilter.Settings(), stride: Int = 1, magnetometer: Bool = true) {
        Benchmark(name, configuration: configuration) { benchmark in
            var filter = FusionFilter(settings: settings)
            var i = 0
            let n = input.count
            let interval = Double(stride) * input.interval
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                filter.update(gyroscope: input.gyro[i], accelerometer: input.acc[i], magnetometer: magnetometer ? input.mag[i] : nil, interval: interval)
                blackHole(magnetometer ? filter.attitude9D : filter.attitude6D)
                i += stride
                if i >= n { i = 0 }
            }
        }
    }

    // The core filter: one gyroscope + accelerometer + magnetometer update (9D) and its attitude.
    filterBenchmark("FusionFilter 9D update per sample")
    // The same without the gait time constant (the gait detector still runs): the cost of the gait
    // low-passes, measured side by side.
    var gaitOff = FusionFilter.Settings()
    gaitOff.gaitTimeConstant = 0
    filterBenchmark("FusionFilter 9D update per sample, gait time constant off", settings: gaitOff)
    // The same at about 95 Hz (every third BROAD row): every sample carries a correction.
    filterBenchmark("FusionFilter 9D update per sample at 95 Hz", stride: 3)
    // The 6D filter alone (no magnetometer).
    filterBenchmark("FusionFilter 6D update per sample", magnetometer: false)

    // The service path: three SensorSamples in, one complete DeviceMotionEstimate out.
    Benchmark("DeviceMotionEstimator 9D per sample set", configuration: configuration) { benchmark in
        var estimator = DeviceMotionEstimator()
        var i = 0
        var t = 0.0
        let n = input.count
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            _ = estimator.add(.gyroscope(TimedVector(time: t, value: input.gyro[i])))
            _ = estimator.add(.magnetometer(TimedVector(time: t, value: input.mag[i])))
            blackHole(estimator.add(.accelerometer(TimedVector(time: t, value: input.acc[i]))))
            t += input.interval
            i += 1
            if i == n { i = 0 }
        }
    }
}

/// Sensor data for the benchmarks, in Apple's units.
struct FusionBenchmarkInput: Sendable {
    var gyro: [Vector3] = []
    var acc: [Vector3] = []
    var mag: [Vector3] = []
    var interval = 0.0035
    var count: Int { gyro.count }

    static func load() -> FusionBenchmarkInput {
        let env = ProcessInfo.processInfo.environment["COREMOTION_DATA"]
        let candidates = [env.map { $0 + "/broad/01_undisturbed_slow_rotation_A.csv" },
                          "../../shared/data/broad/01_undisturbed_slow_rotation_A.csv",
                          "../shared/data/broad/01_undisturbed_slow_rotation_A.csv"].compactMap { $0 }
        for path in candidates where FileManager.default.fileExists(atPath: path) {
            if let rec = try? RecordingReader.read(path), rec.accelerometer.count == rec.gyroscope.count,
               rec.magnetometer.count == rec.gyroscope.count, rec.gyroscope.count > 2 {
                var input = FusionBenchmarkInput()
                input.gyro = rec.gyroscope.map(\.value)
                input.acc = rec.accelerometer.map(\.value)
                input.mag = rec.magnetometer.map(\.value)
                input.interval = (rec.gyroscope.last!.time - rec.gyroscope.first!.time) / Double(rec.gyroscope.count - 1)
                return input
            }
        }
        // Synthetic: a slow tumble at 285.7 Hz in a 48 µT field with a 65° dip.
        var input = FusionBenchmarkInput()
        input.interval = 1 / 285.7
        var q = Quaternion.identity
        let field = Vector3(20, 0, -43.5)
        for k in 0..<20000 {
            let t = Double(k) * input.interval
            let rate = Vector3(0.8 * sin(0.7 * t), 0.6 * cos(0.5 * t), 0.4 * sin(0.3 * t))
            q = (q * Quaternion(rotationVector: rate * input.interval)).normalized
            input.gyro.append(rate + Vector3(0.004, -0.002, 0.003))
            input.acc.append(-q.inverseRotate(Vector3(0, 0, 1)))
            input.mag.append(q.inverseRotate(field))
        }
        return input
    }
}
