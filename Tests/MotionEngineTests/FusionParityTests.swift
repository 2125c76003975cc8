import Foundation
import MotionEngine
import MotionRecordings
import MotionSamples
import Testing
import TestSupport

/// Our device motion against Apple's, recorded beside the raw sensors.
@Suite("Fusion: Apple parity")
struct FusionParityTests {
    struct Figures {
        var gravity: [Double] = []  // degrees
        var change10s: [Double] = []  // degrees
        var rate: [Double] = []  // rad/s
    }

    static func compare(_ r: Recording) -> Figures {
        compare(r, runEstimator(mergedSamples(r)).1)
    }

    /// Our `estimates` of recording `r` against Apple's reference in it.
    static func compare(_ r: Recording, _ estimates: [DeviceMotionEstimate]) -> Figures {
        var f = Figures()
        let times = estimates.map(\.time)
        func nearest(_ t: Double, _ tolerance: Double) -> Int? {
            var lo = 0, hi = times.count
            while lo < hi { let mid = (lo + hi) / 2; if times[mid] < t { lo = mid + 1 } else { hi = mid } }
            return [lo - 1, lo].filter { $0 >= 0 && $0 < times.count && abs(times[$0] - t) <= tolerance }
                .min { abs(times[$0] - t) < abs(times[$1] - t) }
        }
        for g in r.reference.gravity {
            if let i = nearest(g.time, 0.006) { f.gravity.append(estimates[i].gravity.angle(to: g.value) * 180 / Double.pi) }
        }
        let att = r.reference.attitude
        let attTimes = att.map(\.time)
        for i in stride(from: 0, to: att.count, by: 5) {
            let t0 = att[i].time
            guard let a = nearest(t0, 0.006), let b = nearest(t0 + 10, 0.02) else { continue }
            var lo = 0, hi = attTimes.count
            while lo < hi { let mid = (lo + hi) / 2; if attTimes[mid] < t0 + 10 { lo = mid + 1 } else { hi = mid } }
            guard lo < att.count, abs(attTimes[lo] - t0 - 10) < 0.02 else { continue }
            let apple = att[i].value.conjugate * att[lo].value
            let ours = estimates[a].attitude9D.conjugate * estimates[b].attitude9D
            f.change10s.append(ours.angle(to: apple) * 180 / Double.pi)
        }
        let start = estimates.first?.time ?? 0
        for w in r.reference.rotationRate where w.time > start + 10 {
            if let i = nearest(w.time, 0.006) { f.rate.append((estimates[i].rotationRate - w.value).norm) }
        }
        return f
    }

    @Test("iPhone 13 walk (raw sensors): gravity, 10 s attitude change, rotation rate",
          .enabled(if: TestData.has("iphone13-walk-sensorlogger"), Comment(rawValue: TestData.skipNotice("iphone13-walk-sensorlogger"))))
    func iphone() throws {
        let f = Self.compare(try RecordingReader.read(TestData.url("iphone13-walk-sensorlogger")))
        #expect(f.gravity.count > 9000)
        let g50 = percentile(f.gravity, 50), g95 = percentile(f.gravity, 95)
        let c50 = percentile(f.change10s, 50), r50 = percentile(f.rate, 50)
        // Measured here: gravity 0.715° median / 1.83° p95, 10 s change 3.60°, rate 0.0120 rad/s
        // (walking found from the heel strikes' impacts as well as the rotation; with the rotation
        // alone 0.972° / 2.24°, 3.43°; before the gait time constant: 1.00° / 3.29°, 3.8°).
        #expect(g50 < 0.75)
        #expect(g95 <= 2)  // the p95 target
        // The 10 s change is 3.96° with the magnetometer defaults picked by cross-validation on BROAD
        // (docs/fusion.md, "Cross-validation"; 3.60° before): the heading follows this outdoor field,
        // which the calibration does not explain, a little more closely. The 1° target is missed either way.
        #expect(c50 < 4.0)
        #expect(r50 < 0.013)
        withKnownIssue("Apple-parity targets not met on this cold-start walk (see docs/fusion.md): gravity median ≤ 0.5°, change ≤ 1°, rate ≤ 0.01 rad/s") {
            #expect(g50 <= 0.5 && c50 <= 1 && r50 <= 0.01)
        }
    }

    @Test("iPhone 13 walk, warm start (bias and calibration of a first pass restored): gravity within 0.5° / 2° of Apple's",
          .enabled(if: TestData.has("iphone13-walk-sensorlogger"), Comment(rawValue: TestData.skipNotice("iphone13-walk-sensorlogger"))))
    func iphoneWarm() throws {
        let r = try RecordingReader.read(TestData.url("iphone13-walk-sensorlogger"))
        let samples = mergedSamples(r)
        // As the service restores a saved calibration right after the run that saved it (and
        // `coremotion evaluate --start warm`): the bias with at least 0.05 °/s of uncertainty, the
        // magnetometer calibration if `.low` or better.
        let (first, _) = runEstimator(samples)
        let gravity = Self.compare(r, runEstimator(samples, restoredFrom: first).1).gravity
        #expect(gravity.count > 9000)
        // Measured: 0.473° median, 1.68° p95 (0.822° / 2.16° when walking was found from the rotation
        // alone, from 45.8 s). This is the state an iPhone's filter is in when an app starts; it is
        // optimistic by what the first pass learned in-sample.
        let g50 = percentile(gravity, 50), g95 = percentile(gravity, 95)
        #expect(g50 <= 0.5 && g95 <= 2, "gravity \(g50)° median, \(g95)° p95")
    }

    @Test("iPhone 13 walk: a poorly calibrated magnetometer in a disturbed field does not steer the gyro bias",
          .enabled(if: TestData.has("iphone13-walk-sensorlogger"), Comment(rawValue: TestData.skipNotice("iphone13-walk-sensorlogger"))))
    func biasNotSteeredByDisturbedField() throws {
        let r = try RecordingReader.read(TestData.url("iphone13-walk-sensorlogger"))
        let (estimator, _) = runEstimator(mergedSamples(r))
        // Apple's bias on this walk (raw gyroscope minus Apple's rotation rate, median):
        // (+0.0008, +0.0062, +0.0014) rad/s. The outdoor field is poor (Apple's calibrated norm
        // 25–48 µT against 52 µT from the WMM) and our calibration stays at `.low`; while it also
        // corrected the bias, the heading drift it saw drove y, the axis held vertical in the pocket, to
        // −0.0056 (the wrong sign). Measured now: (+0.0005, 0.0000, +0.0010).
        let accuracy = estimator.magnetometerCalibration.accuracy
        #expect(accuracy <= .low)
        let bias = estimator.filter.gyroBias
        #expect(bias.y > -0.001 && bias.y < 0.0072)
        #expect(abs(bias.x - 0.0008) < 0.001 && abs(bias.z - 0.0014) < 0.001)
    }

    @Test("mPower (Apple's device motion only): gravity and rotation rate",
          .enabled(if: TestData.has("mpower"), Comment(rawValue: TestData.skipNotice("mpower"))))
    func mpower() throws {
        var all = Figures()
        let folder = TestData.url("mpower")
        for member in try RecordingReader.members(of: folder) {
            let f = Self.compare(try RecordingReader.read(folder, member: member.name))
            all.gravity += f.gravity; all.change10s += f.change10s; all.rate += f.rate
        }
        let g50 = percentile(all.gravity, 50), r50 = percentile(all.rate, 50)
        // Measured: gravity 0.59° median, rotation rate 0.004 rad/s median.
        #expect(g50 < 0.7 && r50 < 0.01, "gravity \(g50), rate \(r50)")
        withKnownIssue("gravity median ≤ 0.5° and p95 ≤ 2°, 10 s change ≤ 1° not met on mPower (see docs/fusion.md)") {
            #expect(g50 <= 0.5 && percentile(all.gravity, 95) <= 2 && percentile(all.change10s, 50) <= 1)
        }
    }

    @Test("MotionSense (Apple's device motion only): still recordings agree, rotation rate",
          .enabled(if: TestData.has("motionsense"), Comment(rawValue: TestData.skipNotice("motionsense"))))
    func motionsense() throws {
        let archive = TestData.url("motionsense/A_DeviceMotion_data_subjects_1_2_3_5.zip")
        var still = Figures(), all = Figures()
        for member in try RecordingReader.members(of: archive) {
            let f = Self.compare(try RecordingReader.read(archive, member: member.name))
            all.gravity += f.gravity; all.change10s += f.change10s; all.rate += f.rate
            if member.name.hasPrefix("sit") || member.name.hasPrefix("std") { still.gravity += f.gravity }
        }
        let r50 = percentile(all.rate, 50), still50 = percentile(still.gravity, 50)
        // Measured: rotation rate 0.0021 rad/s median; sitting/standing gravity 0.6° median.
        #expect(r50 < 0.01 && still50 < 1.0, "rate \(r50), still gravity \(still50)")
        withKnownIssue("gravity ≤ 0.5°/2° and 10 s change ≤ 1° not met on MotionSense walking and jogging (see docs/fusion.md)") {
            #expect(percentile(all.gravity, 50) <= 0.5 && percentile(all.gravity, 95) <= 2 && percentile(all.change10s, 50) <= 1)
        }
    }
}
