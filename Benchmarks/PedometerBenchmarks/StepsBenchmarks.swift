import Benchmark
import Foundation
import MotionEngine

/// A walking-like accelerometer signal at `rate` Hz: 1.9 steps/s with a heel-strike harmonic and a
/// stride sway, computed on the fly (no arrays inside the measurement).
@inline(__always)
private func walkingSample(_ i: Int, rate: Double) -> (Double, Vector3) {
    let t = Double(i) / rate
    let w = 2 * Double.pi * 1.9 * t
    let vertical = 1 + 0.25 * sin(w) + 0.1 * sin(2 * w + 0.7) + 0.05 * sin(w / 2)
    return (t, Vector3(0.05 * sin(w / 2), -vertical * 0.8, -vertical * 0.6))
}

/// Registers the step-detection benchmarks (called from `PedometerBenchmarks.swift`).
func registerStepsBenchmarks() {
    for rate in [50.0, 100, 400] {
        Benchmark(
            "StepDetector.add per sample, walking at \(Int(rate)) Hz",
            configuration: .init(metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput], scalingFactor: .kilo)
        ) { benchmark in
            var detector = StepDetector()
            var i = 0
            // Warm up past the first periodicity window so walking is established.
            while i < Int(10 * rate) {
                let (t, a) = walkingSample(i, rate: rate)
                detector.add(time: t, acceleration: a)
                while detector.popStep() != nil {}
                i += 1
            }
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let (t, a) = walkingSample(i, rate: rate)
                detector.add(time: t, acceleration: a)
                while let step = detector.popStep() { blackHole(step) }
                i += 1
            }
            benchmark.stopMeasurement()
        }
    }

    Benchmark(
        "PedometerEngine.add per sample (accelerometer 100 Hz + barometer 1 Hz)",
        configuration: .init(metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput], scalingFactor: .kilo)
    ) { benchmark in
        var engine = PedometerEngine()
        var i = 0
        func feed(_ i: Int) {
            let (t, a) = walkingSample(i, rate: 100)
            engine.add(.accelerometer(TimedVector(time: t, value: a)))
            if i % 100 == 0 { engine.add(.barometer(PressureReading(time: t, kilopascals: 101.3 - 0.0001 * t))) }
            while let e = engine.nextEvent() { blackHole(e) }
        }
        while i < 1000 { feed(i); i += 1 }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { feed(i); i += 1 }
        benchmark.stopMeasurement()
    }

    Benchmark(
        "PedometerEngine.add per sample (accelerometer + gyroscope 100 Hz + barometer 1 Hz)",
        configuration: .init(metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput], scalingFactor: .kilo)
    ) { benchmark in
        var engine = PedometerEngine()
        var i = 0
        // One accelerometer and one gyroscope sample per iteration (the trunk's step-rate pitch and a
        // stride-rate roll), so the cost per iteration covers both.
        func feed(_ i: Int) {
            let (t, a) = walkingSample(i, rate: 100)
            let w = 2 * Double.pi * 1.9 * t
            engine.add(.accelerometer(TimedVector(time: t, value: a)))
            engine.add(.gyroscope(TimedVector(time: t, value: Vector3(0.3 * sin(w), 0.1 * sin(w / 2), 0.4 * sin(w / 2 + 0.3)))))
            if i % 100 == 0 { engine.add(.barometer(PressureReading(time: t, kilopascals: 101.3 - 0.0001 * t))) }
            while let e = engine.nextEvent() { blackHole(e) }
        }
        while i < 1000 { feed(i); i += 1 }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { feed(i); i += 1 }
        benchmark.stopMeasurement()
    }
}
