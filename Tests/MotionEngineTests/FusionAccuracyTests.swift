import Foundation
import MotionEngine
import MotionRecordings
import MotionSamples
import Testing
import TestSupport

/// Attitude accuracy against optical truth (BROAD) and on synthetic motion with a known truth.
@Suite("Fusion: accuracy")
struct FusionAccuracyTests {
    @Test("synthetic tumbling: attitude, gravity and gyro bias converge")
    func synthetic() {
        let bias = Vector3(0.01, -0.005, 0.008)
        let motion = SyntheticMotion.tumbling(duration: 120, bias: bias)
        let (_, estimates) = runEstimator(motion.samples)
        var gravityErrors: [Double] = [], attitudeErrors: [Double] = []
        for e in estimates where e.accelerometerTime > 60 {
            guard let i = motion.times.firstIndex(where: { abs($0 - e.accelerometerTime) < 1e-9 }) else { continue }
            gravityErrors.append(e.gravity.angle(to: gravity(of: motion.truth[i])) * 180 / Double.pi)
            attitudeErrors.append(e.attitude9D.angle(to: motion.truth[i]) * 180 / Double.pi)
        }
        // Measured: gravity 0.05° median, 9D attitude 0.3° median, bias error 0.0004 rad/s.
        #expect(percentile(gravityErrors, 50) < 0.3)
        #expect(percentile(attitudeErrors, 50) < 1.0)
        #expect((estimates.last!.gyroBias - bias).norm < 0.002)
    }

    /// Per-group means of our 9D total RMSE and 6D inclination RMSE on the BROAD trials here, and
    /// VQF 2.1.2's (online, default parameters) from `eval/broad_eval.py` on the same trials.
    @Test("BROAD: 9D total RMSE below VQF in every group and on the vibration trial, 6D total at most 0.95 × VQF 6D, 6D inclination at or below VQF, 9D heading no worse than 6D from the movement start",
          .enabled(if: TestData.has("broad"), Comment(rawValue: TestData.skipNotice("broad"))))
    func broad() throws {
        let folder = TestData.url("broad")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".csv") }.sorted()
        #expect(files.count >= 16)
        var byGroup: [String: [BroadScore]] = [:]
        var byTrial: [String: BroadScore] = [:]
        for f in files {
            let r = try RecordingReader.read(folder.appendingPathComponent(f))
            let (_, estimates) = runEstimator(mergedSamples(r))
            let score = BroadScore(r, estimates: estimates)
            byTrial[String(f.dropLast(4))] = score
            var groups = ["all"]
            groups.append(f.contains("undisturbed") ? "undisturbed" : "disturbed")
            if f.contains("magnet") { groups.append("magnetic") }
            for g in groups { byGroup[g, default: []].append(score) }
        }
        func mean(_ g: String, _ k: KeyPath<BroadScore, Double>) -> Double {
            let s = byGroup[g] ?? []
            return s.map { $0[keyPath: k] }.reduce(0, +) / Double(max(s.count, 1))
        }
        // VQF 9D total / VQF 6D inclination per group on these 16 trials (broad_eval.py, same run as docs/fusion.md).
        let vqf9D = ["all": 2.62, "undisturbed": 2.07, "disturbed": 3.33, "magnetic": 4.01]
        let vqf6DInclination = ["all": 0.73, "undisturbed": 0.67, "disturbed": 0.82, "magnetic": 0.91]
        for g in ["all", "undisturbed", "disturbed", "magnetic"] {
            let ours9D = mean(g, \.total9D), ours6D = mean(g, \.inclination6D)
            #expect(ours9D <= vqf9D[g]!, "\(g): 9D total \(ours9D)° vs VQF \(vqf9D[g]!)°")
            #expect(ours6D <= vqf6DInclination[g]!, "\(g): 6D inclination \(ours6D)° vs VQF \(vqf6DInclination[g]!)°")
        }
        // Issue 17's BROAD targets, on the shipped filter (in-sample here; the cross-validated figures of
        // the whole procedure, 9D 0.697 × and 6D 0.920 × VQF, come from `coremotion evaluate
        // --cross-validate --cv-objective vqf`, BENCHMARKS.md §2, "The change margin"): 6D total at most
        // 0.95 × VQF 6D's 2.77° (measured 2.46°), and the vibration trial's 9D total at most VQF's 1.75°
        // (measured 1.64°).
        let ours6DTotal = mean("all", \.total6D)
        #expect(ours6DTotal <= 0.95 * 2.77, "6D total \(ours6DTotal)° vs 0.95 × VQF 6D 2.77°")
        if let vibration = byTrial["26_disturbed_phone_vibration_A"] {
            #expect(vibration.total9D <= 1.75, "vibration trial: 9D total \(vibration.total9D)° vs VQF 1.75°")
        }
        // Magnetometer trust: in every group the 9D heading is no worse than the 6D heading started
        // from the 9D heading of the movement's first second (the magnetometer dropped when the
        // movement began). Measured with `coremotion evaluate --suites broad` (heading RMSE, 9D / 6D
        // from the 9D start): all 1.64 / 5.00, undisturbed 1.77 / 5.30, disturbed 1.48 / 4.60, magnetic 1.54 / 5.69.
        for g in ["all", "undisturbed", "disturbed", "magnetic"] {
            let h9 = mean(g, \.heading9D), fallback = mean(g, \.fallbackHeading6D)
            #expect(h9 <= fallback, "\(g): 9D heading \(h9)° vs 6D from the 9D start \(fallback)°")
        }
        // The vibration and tapping trials (the heading's magnetometer-trust rules, cross-validated, stay
        // off; the calibration's vibration rule is on): measured (9D / 6D from the 9D start): tapping
        // 1.11 / 1.30, vibration 1.54 / 2.48 (1.70 with `biasRestSigma` 0.03 °/s, 2.02 also without the
        // calibration's vibration rule).
        for (name, bound) in [("24_disturbed_tapping_A", 1.2), ("26_disturbed_phone_vibration_A", 1.75)] {
            guard let s = byTrial[name] else { continue }
            #expect(s.heading9D <= bound, "\(name): 9D heading \(s.heading9D)°")
            #expect(s.heading9D <= s.fallbackHeading6D, "\(name): 9D heading \(s.heading9D)° vs 6D from the 9D start \(s.fallbackHeading6D)°")
        }
    }
}
