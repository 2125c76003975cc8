import Foundation
import MotionSamples
@testable import MotionSimulator

/// Shared helpers of the simulator tests.
enum SimTest {
    /// All samples of `sensor` with times in `range`, with their ideal values and biases.
    static func samples(
        _ simulation: Simulation, _ sensor: SensorKind, in range: ClosedRange<Double>
    ) -> [SimulatedSample] {
        var source = simulation.makeSource()
        var out: [SimulatedSample] = []
        while let s = source.nextDetailed() {
            if s.sample.time > range.upperBound { break }
            if s.sample.sensor == sensor && s.sample.time >= range.lowerBound { out.append(s) }
        }
        return out
    }

    /// A scene with every error of the default phone except the bias random walks, which the
    /// "mean equals the bias" tests want switched off.
    static func withoutRandomWalk(_ scene: Scene) -> Scene {
        var s = scene
        for kind in SensorKind.allCases { s.sensors[kind]?.errors.biasRandomWalk = 0 }
        return s
    }

    static func mean(_ values: [Vector3]) -> Vector3 {
        values.reduce(Vector3.zero, +) / Double(values.count)
    }

    static func standardDeviation(_ values: [Double]) -> Double {
        let m = values.reduce(0, +) / Double(values.count)
        return (values.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(values.count)).squareRoot()
    }

    /// Amplitude spectrum of `x` (uniformly sampled at `rate` Hz, mean removed, Hann window) at
    /// the frequencies `from` to `to` in steps of `step` Hz; returns the frequency of the peak.
    static func peakFrequency(_ x: [Double], rate: Double, from: Double, to: Double, step: Double = 0.01) -> Double {
        let n = x.count
        let m = x.reduce(0, +) / Double(n)
        let w = (0..<n).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n - 1)) }
        var best = (f: from, power: -1.0)
        var f = from
        while f <= to {
            var re = 0.0, im = 0.0
            let omega = 2 * Double.pi * f / rate
            for i in 0..<n {
                let v = (x[i] - m) * w[i]
                re += v * cos(omega * Double(i))
                im += v * sin(omega * Double(i))
            }
            let p = re * re + im * im
            if p > best.power { best = (f, p) }
            f += step
        }
        return best.f
    }

    /// Gravity in device axes from an attitude, by the formula measured on iPhone data in
    /// `docs/conventions.md#gravity-from-the-attitude`: −(third row of R).
    static func appleGravity(_ q: Quaternion) -> Vector3 {
        let (w, x, y, z) = (q.w, q.x, q.y, q.z)
        return Vector3(-2 * (x * z - w * y), -2 * (y * z + w * x), -(1 - 2 * (x * x + y * y)))
    }

    /// Integrates rotation-rate samples exactly for a rate that varies linearly between samples
    /// to second order (the midpoint rate over each interval, applied as one exact rotation).
    static func integrate(_ rates: [(time: Double, rate: Vector3)], from start: Quaternion) -> [Quaternion] {
        var q = start
        var out = [q]
        for i in 1..<rates.count {
            let dt = rates[i].time - rates[i - 1].time
            let omega = (rates[i].rate + rates[i - 1].rate) * 0.5
            q = (q * Quaternion(rotationVector: omega * dt)).normalized
            out.append(q)
        }
        return out
    }
}
