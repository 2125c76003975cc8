import Benchmark

let benchmarks: @Sendable () -> Void = {
    registerActivityBenchmarks()
    Benchmark("placeholder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(1 + 1) }
    }
    registerStepsBenchmarks()
}
