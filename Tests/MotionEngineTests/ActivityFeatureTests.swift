import Foundation
import MotionEngine
import Testing

/// A deterministic walking-like acceleration (g): gravity along `down`, a 2 Hz vertical bounce with a
/// harmonic, a 1 Hz sideways sway and seeded noise, evaluated at any time.
private struct SyntheticGait {
    var cadence = 2.0
    var bounce = 0.35
    var sway = 0.12

    func value(at t: Double, noiseSeed: UInt64 = 0) -> Vector3 {
        let vertical = bounce * sin(2 * .pi * cadence * t) + 0.4 * bounce * sin(4 * .pi * cadence * t + 0.7)
        let lateral = sway * sin(2 * .pi * cadence / 2 * t + 0.3)
        let forward = 0.08 * sin(2 * .pi * cadence * t + 1.1)
        // Phone upright in portrait: gravity reads (0, −1, 0) g.
        return Vector3(lateral, -1 - vertical, forward)
    }
}

private func rotate(_ v: Vector3, _ q: Quaternion) -> Vector3 { q.rotate(v) }

private func features(of samples: [TimedVector]) -> [Double] {
    var stream = ActivityFeatureStream(hopSamples: 32)
    var last: [Double] = []
    for s in samples where stream.add(time: s.time, value: s.value) != nil { last = stream.features }
    return last
}

@Suite("Activity features")
struct ActivityFeatureTests {
    @Test("resampler passes a 25 Hz stream through unchanged and averages faster streams")
    func resamplerRates() {
        var r = AccelerationResampler()
        var out: [(Double, Vector3)] = []
        for i in 0..<10 { r.add(time: Double(i) / 25, value: Vector3(Double(i), 0, 0)) { out.append(($0, $1)) } }
        // Bin k is emitted when bin k+1 starts: 9 outputs for 10 inputs.
        #expect(out.count == 9)
        for (k, o) in out.enumerated() {
            #expect(abs(o.0 - Double(k) / 25) < 1e-12)
            #expect(o.1.x == Double(k))
        }
        var fast = AccelerationResampler()
        var averaged: [(Double, Vector3)] = []
        for i in 0..<41 { fast.add(time: Double(i) / 100, value: Vector3(Double(i), 0, 0)) { averaged.append(($0, $1)) } }
        // Output k (k ≥ 1) averages inputs 4k−3 … 4k (times in ((k−1)/25, k/25]).
        #expect(averaged.count == 10)
        for k in 1..<averaged.count { #expect(abs(averaged[k].1.x - (4 * Double(k) - 1.5)) < 1e-9) }
    }

    @Test("resampler holds the last value over a slow stream, restarts after a gap, skips bad samples")
    func resamplerBadInput() {
        var r = AccelerationResampler()
        var out: [(Double, Vector3)] = []
        #expect(r.add(time: 0, value: Vector3(1, 0, 0)) { out.append(($0, $1)) } == .accepted)
        #expect(r.add(time: 0.2, value: Vector3(2, 0, 0)) { out.append(($0, $1)) } == .accepted)
        // Bins 0…4 out: bin 0 holds 1, bins 1…4 hold the last value (1) until the 0.2 s sample's bin.
        #expect(out.count == 5)
        #expect(out.allSatisfy { $0.1.x == 1 })
        #expect(r.add(time: 0.1, value: Vector3(3, 0, 0)) { out.append(($0, $1)) } == .skipped)
        #expect(r.add(time: 0.3, value: Vector3(.nan, 0, 0)) { out.append(($0, $1)) } == .skipped)
        #expect(r.add(time: .infinity, value: Vector3(0, 0, 0)) { out.append(($0, $1)) } == .skipped)
        #expect(r.add(time: 1e300, value: Vector3(0, 0, 0)) { out.append(($0, $1)) } == .skipped)
        let before = out.count
        #expect(r.add(time: 5, value: Vector3(4, 0, 0)) { out.append(($0, $1)) } == .gap)
        #expect(out.count == before)
    }

    @Test("features do not depend on how the phone is held")
    func orientationInvariance() {
        let gait = SyntheticGait()
        let samples = (0..<600).map { TimedVector(time: Double($0) / 100, value: gait.value(at: Double($0) / 100)) }
        let reference = features(of: samples)
        #expect(reference.count == ActivityFeature.count)
        for (axis, angle) in [(Vector3(1, 0, 0), 1.2), (Vector3(0.3, -0.5, 0.8).normalized, 2.5), (Vector3(0, 0, 1), .pi)] {
            let q = Quaternion(axis: axis, angle: angle)
            let rotated = samples.map { TimedVector(time: $0.time, value: rotate($0.value, q)) }
            let f = features(of: rotated)
            for feature in ActivityFeature.allCases {
                // Rounding only: every feature is built from norms, dot products with the gravity estimate and
                // angles, all invariant under a fixed rotation.
                #expect(abs(f[feature.rawValue] - reference[feature.rawValue]) < 1e-6, "\(feature)")
            }
        }
    }

    @Test("features of the same motion agree at 25, 50 and 100 Hz")
    func rateRobustness() {
        let gait = SyntheticGait()
        func sampled(_ rate: Double) -> [TimedVector] {
            (0..<Int(6 * rate)).map { TimedVector(time: Double($0) / rate, value: gait.value(at: Double($0) / rate)) }
        }
        let f25 = features(of: sampled(25)), f50 = features(of: sampled(50)), f100 = features(of: sampled(100))
        for f in [f50, f100] {
            // Amplitudes: the box filter of the faster streams attenuates a 4 Hz harmonic by < 6 %.
            #expect(abs(f[ActivityFeature.logStdMagnitude.rawValue] - f25[ActivityFeature.logStdMagnitude.rawValue]) < 0.1)
            #expect(abs(f[ActivityFeature.logStdVertical.rawValue] - f25[ActivityFeature.logStdVertical.rawValue]) < 0.1)
            #expect(f[ActivityFeature.dominantFrequency.rawValue] == f25[ActivityFeature.dominantFrequency.rawValue])
            #expect(abs(f[ActivityFeature.autocorrelationLag.rawValue] - f25[ActivityFeature.autocorrelationLag.rawValue]) < 0.05)
        }
        // The cadence is found: 2 Hz bounce (FFT bins are 0.195 Hz wide).
        #expect(abs(f25[ActivityFeature.dominantFrequency.rawValue] - 2.0) < 0.1)
    }

    @Test("a perfectly still phone gives finite features")
    func constantInput() {
        let samples = (0..<300).map { TimedVector(time: Double($0) / 50, value: Vector3(0, 0, -1)) }
        let f = features(of: samples)
        #expect(f.count == ActivityFeature.count)
        #expect(f.allSatisfy { $0.isFinite })
        #expect(f[ActivityFeature.logStdMagnitude.rawValue] == log(1e-3))
    }
}
