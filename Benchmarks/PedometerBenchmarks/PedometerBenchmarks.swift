import Benchmark

let benchmarks: @Sendable () -> Void = {
    registerActivityBenchmarks()
    registerStepsBenchmarks()
}
