import Foundation
import MotionSamples

/// What an emulated phone measures: per sensor, readings in Apple's units at times from 0, played in a loop
/// (the fake phyphox and SensorServer servers of tests and `coremotion phone-emulate`).
public struct PhoneEmulationSource: Sendable {
    /// One stream: times (seconds from 0, increasing) and Apple-unit values (3 per vector; 1 for pressure in
    /// kPa; attitude as w, x, y, z).
    public struct Stream: Sendable {
        public var times: [Double]
        public var values: [[Double]]
        public init(times: [Double], values: [[Double]]) {
            self.times = times
            self.values = values
        }
    }

    /// Raw sensors.
    public var sensors: [SensorKind: Stream]
    /// Apple's attitude (w, x, y, z; device → x-north), gravity and user acceleration (g), when known.
    public var attitude: Stream?
    public var gravity: Stream?
    public var userAcceleration: Stream?
    /// Length of one pass, seconds: the stream starts over after it.
    public var period: Double

    public init(sensors: [SensorKind: Stream], attitude: Stream? = nil, gravity: Stream? = nil, userAcceleration: Stream? = nil, period: Double) {
        self.sensors = sensors
        self.attitude = attitude
        self.gravity = gravity
        self.userAcceleration = userAcceleration
        self.period = period
    }

    /// A recording's raw sensors and reference data, from its first motion sample.
    public init(recording: Recording) {
        let start = [recording.accelerometer.first?.time, recording.gyroscope.first?.time, recording.magnetometer.first?.time]
            .compactMap { $0 }.min() ?? recording.timeRange?.lowerBound ?? 0
        func stream(_ v: [TimedVector]) -> Stream? {
            let kept = v.filter { $0.time >= start }
            guard !kept.isEmpty else { return nil }
            return Stream(times: kept.map { $0.time - start }, values: kept.map { [$0.value.x, $0.value.y, $0.value.z] })
        }
        var sensors: [SensorKind: Stream] = [:]
        sensors[.accelerometer] = stream(recording.accelerometer)
        sensors[.gyroscope] = stream(recording.gyroscope)
        sensors[.magnetometer] = stream(recording.magnetometer)
        let pressure = recording.barometer.filter { $0.time >= start }
        if !pressure.isEmpty {
            sensors[.barometer] = Stream(times: pressure.map { $0.time - start }, values: pressure.map { [$0.kilopascals] })
        }
        let attitude = recording.reference.attitude.filter { $0.time >= start && $0.value.isFinite }
        let end = sensors.values.compactMap { $0.times.last }.max() ?? 1
        self.init(
            sensors: sensors,
            attitude: attitude.isEmpty ? nil : Stream(times: attitude.map { $0.time - start }, values: attitude.map { [$0.value.w, $0.value.x, $0.value.y, $0.value.z] }),
            gravity: stream(recording.reference.gravity), userAcceleration: stream(recording.reference.userAcceleration),
            period: end + 0.01)
    }

    /// A synthetic phone with known values, for tests: sample i of a sensor at rate r is at i / r s and
    /// encodes i, so that a repeat or a loss shows:
    ///
    /// | sensor | rate | Apple value |
    /// |---|---|---|
    /// | accelerometer | `rate` | (0.001·(i mod 1000), 0.25, −0.97) g |
    /// | gyroscope | `rate` | (0.01, −0.02, 0.001·(i mod 1000)) rad/s |
    /// | magnetometer | `rate` / 2 | (20, −5, −40 + 0.01·(i mod 1000)) µT |
    /// | barometer | 10 Hz | 101.3 + 0.0001·(i mod 1000) kPa |
    /// | attitude | `rate` | a turn of 0.001·(i mod 1000) rad about z |
    /// | gravity, user acceleration | `rate` | (0, 0, −1) g and the accelerometer's value minus it |
    public static func synthetic(rate: Double = 100, period: Double = 600) -> PhoneEmulationSource {
        func make(_ r: Double, _ f: (Int) -> [Double]) -> Stream {
            let n = Int(period * r)
            return Stream(times: (0..<n).map { Double($0) / r }, values: (0..<n).map(f))
        }
        func k(_ i: Int) -> Double { Double(i % 1000) }
        let acc = make(rate) { [0.001 * k($0), 0.25, -0.97] }
        return PhoneEmulationSource(
            sensors: [
                .accelerometer: acc,
                .gyroscope: make(rate) { [0.01, -0.02, 0.001 * k($0)] },
                .magnetometer: make(rate / 2) { [20, -5, -40 + 0.01 * k($0)] },
                .barometer: make(10) { [101.3 + 0.0001 * k($0)] },
            ],
            attitude: make(rate) { i in
                let q = Quaternion.aboutZ(0.001 * k(i))
                return [q.w, q.x, q.y, q.z]
            },
            gravity: make(rate) { _ in [0, 0, -1] },
            userAcceleration: make(rate) { [0.001 * k($0), 0.25, 0.03] },
            period: period)
    }

    /// The readings of `stream` with times in (`from`, `through`], the loop unrolled: (time, values).
    public func readings(_ stream: Stream, from: Double, through: Double) -> [(Double, [Double])] {
        guard !stream.times.isEmpty, through > from, period > 0 else { return [] }
        var out: [(Double, [Double])] = []
        var pass = max(0, Int((from / period).rounded(.down)))
        while Double(pass) * period <= through {
            let base = Double(pass) * period
            // First index with base + t > from.
            var lo = 0
            var hi = stream.times.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if base + stream.times[mid] > from { hi = mid } else { lo = mid + 1 }
            }
            var i = lo
            while i < stream.times.count, base + stream.times[i] <= through {
                out.append((base + stream.times[i], stream.values[i]))
                i += 1
            }
            pass += 1
            if out.count > 1_000_000 { break }
        }
        return out
    }
}
