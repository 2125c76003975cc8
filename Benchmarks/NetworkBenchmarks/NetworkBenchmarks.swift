import Benchmark
import Foundation
import MotionEmulation
import MotionNetwork

// The figures; the payloads, the sending phones and the load run are in NetworkLoad.swift.

let readingsPerSecond = BenchmarkMetric.custom("readings/s", polarity: .prefersLarger, useScalingFactor: false)
let lostReadings = BenchmarkMetric.custom("lost readings", polarity: .prefersSmaller, useScalingFactor: false)
let handlingP99 = BenchmarkMetric.custom("arrival→handled p99 (µs)", polarity: .prefersSmaller, useScalingFactor: false)
let handlingMax = BenchmarkMetric.custom("arrival→handled max (µs)", polarity: .prefersSmaller, useScalingFactor: false)
let roundTripP99 = BenchmarkMetric.custom("sender round trip p99 (µs)", polarity: .prefersSmaller, useScalingFactor: false)
let receiverCPU = BenchmarkMetric.custom("receiver CPU (‰ of a core)", polarity: .prefersSmaller, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    let writer = SensorLoggerPushWriter()
    let bodies = (0..<40).map { push(phone: 1, k: $0, writer: writer, start: 1_745_877_875_760_478_500) }
    let readingsPerPass = bodies.reduce(0) { $0 + $1.readings }

    Benchmark(
        "decode Sensor Logger pushes (250 ms of acc + gyro + mag at 100 Hz, 75 readings each)",
        configuration: .init(metrics: [.wallClock, .cpuTotal, .mallocCountTotal, readingsPerSecond], scalingFactor: .one, maxDuration: .seconds(3), maxIterations: 200)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            let start = ContinuousClock.now
            var decoded = 0
            for body in bodies {
                decoded += (try? SensorLoggerDecoder.decode(body.body))?.readings.count ?? 0
            }
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            precondition(decoded == readingsPerPass)
            benchmark.measurement(readingsPerSecond, Int(Double(decoded) / seconds))
        }
    }

    let seconds = ProcessInfo.processInfo.environment["NETWORK_LOAD_SECONDS"].flatMap(Double.init) ?? 30
    Benchmark(
        "load: 100 phones push acc + gyro + mag at 100 Hz in 250 ms batches to one receiver over loopback HTTP (\(Int(seconds)) s)",
        configuration: .init(
            metrics: [lostReadings, handlingP99, handlingMax, roundTripP99, receiverCPU, readingsPerSecond],
            warmupIterations: 0, scalingFactor: .one, maxDuration: .seconds(Int(seconds) + 30), maxIterations: 1)
    ) { benchmark in
        let outcome = try runLoad(seconds: seconds)
        let lost = outcome.sent - outcome.accepted + outcome.droppedByPhones
        benchmark.measurement(lostReadings, lost)
        benchmark.measurement(handlingP99, Int(outcome.handling.quantile(0.99) * 1e6))
        benchmark.measurement(handlingMax, Int(outcome.handling.maximum * 1e6))
        benchmark.measurement(roundTripP99, Int(quantile(outcome.roundTrips, 0.99) * 1e6))
        benchmark.measurement(receiverCPU, Int(outcome.receiverCPU * 1000))
        benchmark.measurement(readingsPerSecond, Int(Double(outcome.accepted) / outcome.seconds))
        print("load: sent \(outcome.sent) readings, accepted \(outcome.accepted), dropped by the phones' buffers \(outcome.droppedByPhones), failed pushes \(outcome.failedPushes), pushes handled \(outcome.handling.count), handling p50 \(Int(outcome.handling.quantile(0.5) * 1e6)) µs p99 \(Int(outcome.handling.quantile(0.99) * 1e6)) µs max \(Int(outcome.handling.maximum * 1e6)) µs, round trip p99 \(Int(quantile(outcome.roundTrips, 0.99) * 1e6)) µs, receiver CPU \(String(format: "%.1f", outcome.receiverCPU * 100)) % of a core over \(String(format: "%.1f", outcome.seconds)) s")
    }
}
