import Foundation
import MotionEngine
import MotionRecordings
import MotionSamples
import TestSupport

/// Synthetic sensor data with a known truth, for the fusion tests.
struct SyntheticMotion {
    /// Truth attitude (device → magnetic north frame, x north, y west, z up) per step.
    var truth: [Quaternion] = []
    var samples: [SensorSample] = []
    var times: [Double] = []

    /// A device turning smoothly about all axes (rates up to about 1 rad/s), sampled at `rate` Hz
    /// for `duration` s, with a constant gyro `bias` (rad/s) and a 48 µT field dipping 65°.
    /// `still` seconds at the start are at rest.
    static func tumbling(duration: Double, rate: Double = 100, bias: Vector3 = Vector3(0.01, -0.005, 0.008),
                         still: Double = 2, hardIron: Vector3 = .zero, withMagnetometer: Bool = true) -> SyntheticMotion {
        var m = SyntheticMotion()
        let dt = 1 / rate
        var q = Quaternion(appleRoll: 0.3, pitch: -0.2, yaw: 1.0)
        let field = Vector3(48 * cos(65 * Double.pi / 180), 0, -48 * sin(65 * Double.pi / 180))
        let n = Int(duration * rate)
        var rng = SplitMix(seed: 42)
        for k in 0..<n {
            let t = Double(k) * dt
            let moving = t > still ? 1.0 : 0.0
            let w = Vector3(0.9 * sin(0.7 * t), 0.7 * cos(0.45 * t + 1), 0.5 * sin(0.31 * t + 2)) * moving
            if k > 0 { q = (q * Quaternion(rotationVector: w * dt)).normalized }
            m.truth.append(q)
            m.times.append(t)
            let noise = { Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian()) }
            let gyro = w + bias + noise() * 0.002
            let acc = gravity(of: q) + noise() * 0.003
            m.samples.append(.gyroscope(TimedVector(time: t, value: gyro)))
            if withMagnetometer {
                m.samples.append(.magnetometer(TimedVector(time: t, value: q.inverseRotate(field) + hardIron + noise() * 0.2)))
            }
            m.samples.append(.accelerometer(TimedVector(time: t, value: acc)))
        }
        return m
    }
}

/// A small deterministic random number generator (SplitMix64) with Gaussian draws.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func gaussian() -> Double {
        let u1 = max(uniform(), 1e-300), u2 = uniform()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}

/// Runs an estimator over samples, returning every estimate.
func runEstimator(
    _ samples: [SensorSample], settings: FusionFilter.Settings = .init(), calibration: MagnetometerCalibration? = nil,
    restoredFrom earlier: DeviceMotionEstimator? = nil
) -> (DeviceMotionEstimator, [DeviceMotionEstimate]) {
    var estimator = DeviceMotionEstimator(settings: settings)
    if let earlier { estimator.restore(from: earlier) }
    if let calibration { estimator.magnetometerCalibration = calibration }
    var out: [DeviceMotionEstimate] = []
    for s in samples { if let e = estimator.add(s) { out.append(e) } }
    while let e = estimator.flush() { out.append(e) }
    return (estimator, out)
}

/// Raw samples of a recording merged by time (ties: gyroscope, magnetometer, accelerometer).
func mergedSamples(_ r: Recording, magnetometer: Bool = true) -> [SensorSample] {
    var out: [SensorSample] = []
    out.reserveCapacity(r.accelerometer.count + r.gyroscope.count + r.magnetometer.count)
    var i = 0, j = 0, k = 0
    let g = r.gyroscope, a = r.accelerometer, m = magnetometer ? r.magnetometer : []
    while i < g.count || j < a.count || k < m.count {
        let tg = i < g.count ? g[i].time : .infinity
        let tm = k < m.count ? m[k].time : .infinity
        let ta = j < a.count ? a[j].time : .infinity
        if tg <= tm && tg <= ta { out.append(.gyroscope(g[i])); i += 1 }
        else if tm <= ta { out.append(.magnetometer(m[k])); k += 1 }
        else { out.append(.accelerometer(a[j])); j += 1 }
    }
    return out
}

/// BROAD's error metrics for one trial (degrees): 9D as is, 6D after removing one heading offset.
struct BroadScore {
    var total9D: Double, heading9D: Double, inclination9D: Double
    var inclination6D: Double
    /// 6D total RMSE with one heading offset fitted over the trial (as `broad_eval.py` scores 6D filters).
    var total6D: Double
    /// 6D heading RMSE with one offset fitted over the trial (hindsight), and with the offset that
    /// matches the 9D heading over the first second of the movement phase (the heading had the
    /// magnetometer been dropped when the movement began).
    var heading6D: Double, fallbackHeading6D: Double

    init(_ r: Recording, estimates: [DeviceMotionEstimate]) {
        let truth = r.reference.truthAttitude, valid = r.reference.truthScored
        let enu = Quaternion.aboutZ(Double.pi / 2)
        let n = min(estimates.count, truth.count)
        let idx = (0..<n).filter { valid[$0] && truth[$0].value.isFinite }
        func err(_ q: Quaternion, _ t: Quaternion, _ align: Quaternion) -> Quaternion { (align * enu * q * t.conjugate).normalized }
        var st = 0.0, sh = 0.0, si = 0.0
        for i in idx {
            let e = err(estimates[i].attitude9D, truth[i].value, .identity)
            st += pow(2 * acos(min(1, abs(e.w))), 2)
            sh += pow(2 * atan(abs(e.z / e.w)), 2)
            si += pow(2 * acos(min(1, (e.w * e.w + e.z * e.z).squareRoot())), 2)
        }
        var c = 0.0, s = 0.0
        for i in idx {
            let e = err(estimates[i].attitude6D, truth[i].value, .identity)
            c += cos(2 * atan2(e.z, e.w)); s += sin(2 * atan2(e.z, e.w))
        }
        let align = Quaternion.aboutZ(-atan2(s, c))
        var si6 = 0.0, sh6 = 0.0, st6 = 0.0
        for i in idx {
            let e = err(estimates[i].attitude6D, truth[i].value, align)
            st6 += pow(2 * acos(min(1, abs(e.w))), 2)
            si6 += pow(2 * acos(min(1, (e.w * e.w + e.z * e.z).squareRoot())), 2)
            sh6 += pow(2 * atan(abs(e.z / e.w)), 2)
        }
        // Circular mean of the signed heading error over the first second of the movement phase.
        func startHeading(_ pick: (DeviceMotionEstimate) -> Quaternion) -> Double {
            guard let first = idx.first else { return 0 }
            var c = 0.0, s = 0.0
            for i in idx where truth[i].time < truth[first].time + 1 {
                let e = err(pick(estimates[i]), truth[i].value, .identity)
                c += cos(2 * atan2(e.z, e.w)); s += sin(2 * atan2(e.z, e.w))
            }
            return atan2(s, c)
        }
        let fallbackAlign = Quaternion.aboutZ(startHeading { $0.attitude9D } - startHeading { $0.attitude6D })
        var shf = 0.0
        for i in idx {
            let e = err(estimates[i].attitude6D, truth[i].value, fallbackAlign)
            shf += pow(2 * atan(abs(e.z / e.w)), 2)
        }
        let m = Double(max(idx.count, 1)), deg = 180 / Double.pi
        total9D = (st / m).squareRoot() * deg
        heading9D = (sh / m).squareRoot() * deg
        inclination9D = (si / m).squareRoot() * deg
        inclination6D = (si6 / m).squareRoot() * deg
        total6D = (st6 / m).squareRoot() * deg
        heading6D = (sh6 / m).squareRoot() * deg
        fallbackHeading6D = (shf / m).squareRoot() * deg
    }
}

/// `p`-th percentile (0…100) by linear interpolation.
func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let s = values.sorted()
    let x = p / 100 * Double(s.count - 1)
    let lo = Int(x), hi = min(lo + 1, s.count - 1)
    return s[lo] + (s[hi] - s[lo]) * (x - Double(lo))
}
