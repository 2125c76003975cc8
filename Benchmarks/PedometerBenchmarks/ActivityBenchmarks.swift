import Benchmark
import Foundation
import MotionEngine

/// Synthetic 100 Hz walking (an iPhone's accelerometer rate): gravity plus a 2 Hz bounce and a sway.
private func walkingSamples(count: Int, rate: Double = 100) -> [TimedVector] {
    (0..<count).map { i in
        let t = Double(i) / rate
        let bounce = 0.35 * sin(2 * .pi * 2 * t) + 0.14 * sin(4 * .pi * 2 * t + 0.7)
        return TimedVector(time: t, value: Vector3(0.12 * sin(2 * .pi * t + 0.3), -1 - bounce, 0.08 * sin(4 * .pi * t + 1.1)))
    }
}

/// The activity benchmarks, registered from `PedometerBenchmarks.swift`.
func registerActivityBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput], scalingFactor: .kilo, maxDuration: .seconds(5))

    // One iteration = one 100 Hz accelerometer sample through resampling, windowing, and (every 128th
    // sample, a 1.28 s hop) the 21 features and the 60-tree forest: the amortised per-sample cost.
    Benchmark("Activity: classifier, per 100 Hz sample", configuration: configuration) { benchmark in
        let samples = walkingSamples(count: 6_000)
        var classifier = try ActivityClassifier()
        let period = Double(samples.count) / 100
        var lap = 0.0
        var i = 0
        // Fill the window first so that every measured iteration is in the steady state.
        for s in samples.prefix(1_000) { blackHole(classifier.addAcceleration(time: s.time, value: s.value)) }
        i = 1_000
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            if i == samples.count {
                i = 0
                lap += period
            }
            let s = samples[i]
            blackHole(classifier.addAcceleration(time: s.time + lap, value: s.value))
            i += 1
        }
    }

    // One iteration = the features of one full window and the forest's probabilities (what each hop costs).
    Benchmark("Activity: features + forest, per window", configuration: configuration) { benchmark in
        var features = ActivityFeatures()
        for s in walkingSamples(count: ActivityFeatures.windowLength, rate: ActivityFeatures.sampleRate) { features.push(s.value) }
        let forest = try ActivityForest.bundled()
        var buffer = [Double](repeating: 0, count: ActivityFeature.count)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            features.compute(into: &buffer)
            blackHole(buffer.withUnsafeBufferPointer { forest.probabilities($0) })
        }
    }
}
