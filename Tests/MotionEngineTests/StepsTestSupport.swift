import Foundation
import MotionEngine
import MotionRecordings

/// Runs the pedometer engine over a recording (accelerometer, gyroscope and barometer merged in time order).
struct PedometerRun {
    var engine: PedometerEngine
    var steps: [Double] = []
    var floorsUp = 0
    var floorsDown = 0
    var pauses: [Double] = []
    var resumes: [Double] = []

    /// `useGyroscope: false` leaves the recording's gyroscope out (the accelerometer-only pedometer).
    init(_ recording: Recording, configuration: PedometerEngine.Configuration = .init(), useGyroscope: Bool = true) {
        engine = PedometerEngine(configuration: configuration)
        let acc = recording.accelerometer, baro = recording.barometer, gyro = useGyroscope ? recording.gyroscope : []
        var i = 0, j = 0, k = 0
        while i < acc.count || j < baro.count || k < gyro.count {
            if k < gyro.count && (i >= acc.count || gyro[k].time <= acc[i].time) && (j >= baro.count || gyro[k].time <= baro[j].time) {
                engine.add(.gyroscope(gyro[k])); k += 1
            } else if j < baro.count && (i >= acc.count || baro[j].time <= acc[i].time) {
                engine.add(.barometer(baro[j])); j += 1
            } else {
                engine.add(.accelerometer(acc[i])); i += 1
            }
            drain()
        }
        engine.finish()
        drain()
    }

    private mutating func drain() {
        while let e = engine.nextEvent() {
            switch e {
            case .step(let t, _): steps.append(t)
            case .floor(_, let up): if up { floorsUp += 1 } else { floorsDown += 1 }
            case .pause(let t): pauses.append(t)
            case .resume(let t): resumes.append(t)
            }
        }
    }
}

enum Stats {
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let s = values.sorted()
        guard !s.isEmpty else { return .nan }
        let r = p / 100 * Double(s.count - 1)
        let lo = Int(r.rounded(.down)), hi = min(lo + 1, s.count - 1)
        return s[lo] + (s[hi] - s[lo]) * (r - Double(lo))
    }
}

extension Recording {
    /// The same recording with the accelerometer resampled to `rate` Hz by averaging (downsampling)
    /// or linear interpolation (upsampling): a phone that delivers another rate.
    func accelerometerResampled(to rate: Double) -> Recording {
        var copy = self
        guard let first = accelerometer.first, let last = accelerometer.last else { return copy }
        var out: [TimedVector] = []
        var t = first.time
        var k = 0
        let half = 0.5 / rate
        while t <= last.time {
            while k + 1 < accelerometer.count && accelerometer[k + 1].time <= t { k += 1 }
            // Box average over [t − half, t + half] when the source is denser, else interpolate.
            var sum = Vector3.zero, n = 0.0, m = k
            while m >= 0 && accelerometer[m].time > t - half { m -= 1 }
            m += 1
            while m < accelerometer.count && accelerometer[m].time <= t + half { sum += accelerometer[m].value; n += 1; m += 1 }
            if n >= 2 {
                out.append(TimedVector(time: t, value: sum / n))
            } else if k + 1 < accelerometer.count {
                let a = accelerometer[k], b = accelerometer[k + 1]
                let u = (t - a.time) / (b.time - a.time)
                out.append(TimedVector(time: t, value: a.value + (b.value - a.value) * u))
            }
            t += 1 / rate
        }
        copy.accelerometer = out
        return copy
    }
}
