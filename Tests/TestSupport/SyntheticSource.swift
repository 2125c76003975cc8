import Foundation
import MotionSamples

/// A deterministic sample source for tests of delivery: each sensor ticks at its own rate, and each
/// sample's x component is its index (so order and loss are visible), y and z fixed.
public struct SyntheticSource: SampleSource {
    public let sensors: [SensorKind: SensorDescription]
    private let rates: [(SensorKind, Double)]
    private var counters: [Int]
    private let duration: Double?

    /// - Parameters:
    ///   - rates: sensors and their rates, Hz.
    ///   - duration: seconds of data, or `nil` for endless.
    public init(rates: [SensorKind: Double], duration: Double? = nil) {
        let ordered = rates.sorted { $0.key.rawValue < $1.key.rawValue }
        self.rates = ordered
        self.counters = Array(repeating: 0, count: ordered.count)
        self.duration = duration
        var sensors: [SensorKind: SensorDescription] = [:]
        for (kind, rate) in ordered {
            sensors[kind] = SensorDescription(kind: kind, name: "synthetic", minimumRate: rate, maximumRate: rate)
        }
        self.sensors = sensors
    }

    public mutating func next() -> SensorSample? {
        var best = -1
        var bestTime = Double.infinity
        for (i, (_, rate)) in rates.enumerated() {
            let t = Double(counters[i]) / rate
            if t < bestTime {
                bestTime = t
                best = i
            }
        }
        guard best >= 0 else { return nil }
        if let duration, bestTime > duration { return nil }
        let index = counters[best]
        counters[best] += 1
        let kind = rates[best].0
        switch kind {
        case .barometer:
            return .barometer(PressureReading(time: bestTime, kilopascals: 101.325 - Double(index) * 1e-6))
        case .accelerometer:
            return .accelerometer(TimedVector(time: bestTime, value: Vector3(Double(index), 0, -1)))
        case .gyroscope:
            return .gyroscope(TimedVector(time: bestTime, value: Vector3(Double(index), 0.01, 0)))
        case .magnetometer:
            return .magnetometer(TimedVector(time: bestTime, value: Vector3(Double(index), 20, -40)))
        }
    }

    public mutating func rewind() {
        for i in counters.indices { counters[i] = 0 }
    }
}
