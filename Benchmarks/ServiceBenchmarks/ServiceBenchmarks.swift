import Benchmark
import Foundation

// coremotiond against in-process delivery, side by side in one run (BENCHMARKS.md §6):
// - throughput: one client that keeps up, raw samples over the socket;
// - fan-out: 10 device-motion clients at 100 Hz and one raw accelerometer client at 1 kHz from a
//   1 kHz device: latency from the sample's timestamp to the app's handler, losses, the daemon's CPU.
//
// The fan-out runs the real `coremotiond` (build it first: `swift build -c release --product coremotiond`
// in the repository root, or set COREMOTIOND=path).

let samplesPerSecond = BenchmarkMetric.custom("samples/s", polarity: .prefersLarger, useScalingFactor: false)
let droppedSamples = BenchmarkMetric.custom("dropped", polarity: .prefersSmaller, useScalingFactor: false)
/// From the sample's timestamp to the app's handler, raw accelerometer (1 kHz client).
let rawLatency = BenchmarkMetric.custom("raw latency (µs)", polarity: .prefersSmaller, useScalingFactor: false)
/// From the device-motion timestamp to the handler: includes the fusion's own wait for the next gyroscope
/// sample (its rotation rate is interpolated across it: 1 ms at 1 kHz, docs/fusion.md).
let motionLatency = BenchmarkMetric.custom("device-motion latency (µs)", polarity: .prefersSmaller, useScalingFactor: false)
let lostSamples = BenchmarkMetric.custom("lost", polarity: .prefersSmaller, useScalingFactor: false)
let daemonCPU = BenchmarkMetric.custom("daemon CPU (‰ of a core)", polarity: .prefersSmaller, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    registerThroughputBenchmarks()
    registerFanOutBenchmarks()
}
