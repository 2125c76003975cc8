import Foundation
import MotionEngine
import MotionRecordings
import MotionSamples

/// Compares the engine's device motion with Apple's own, recorded beside the raw sensors.
///
/// Frame-independent figures, so that Apple's reference frame (and its start heading) does not matter:
/// - the angle between our gravity and Apple's at the same stamps;
/// - the difference between our and Apple's attitude change over 10 s windows (the rotation from
///   the attitude at t to the attitude at t + 10 s, compared as an angle);
/// - the norm of the difference between our bias-corrected rotation rate and Apple's, after the
///   first 10 s.
enum ParityEvaluation {
    /// One recording to compare: a data-set path (with `#MEMBER`) and a label.
    struct Source: Sendable {
        var label: String
        var location: String
    }

    /// Per-sample figures of one recording.
    struct Series: Sendable {
        var label: String
        var gravityAngles: [Double] = []  // degrees
        var gravityTimes: [Double] = []
        var attitudeChangeErrors: [Double] = []  // degrees
        var rotationRateErrors: [Double] = []  // rad/s
        var ours: [(t: Double, g: Vector3)] = []
        var apple: [(t: Double, g: Vector3)] = []
        var samples = 0
        /// Estimates made while the gait detector reported walking.
        var walkingEstimates = 0
        var fusionSeconds = 0.0
    }

    struct Summary: Codable, Sendable {
        var dataset: String
        var start: Start = .cold
        var recordings: Int
        var samples: Int
        var gravityMedianDegrees: Double
        var gravityP95Degrees: Double
        var attitudeChange10sMedianDegrees: Double
        var attitudeChange10sP95Degrees: Double
        var rotationRateMedianRadPerSecond: Double
        var rotationRateP95RadPerSecond: Double
    }

    /// The recordings of each Apple-parity data set found under `data`.
    static func sources(data: URL) throws -> [(dataset: String, sources: [Source])] {
        var out: [(String, [Source])] = []
        let fm = FileManager.default
        let iphone = data.appendingPathComponent("iphone13-walk-sensorlogger")
        if fm.fileExists(atPath: iphone.path) {
            out.append(("iphone13-walk-sensorlogger", [Source(label: "walk", location: iphone.path)]))
        }
        let mpower = data.appendingPathComponent("mpower")
        if fm.fileExists(atPath: mpower.path) {
            let members = try RecordingReader.members(of: mpower).map(\.name)
            out.append(("mpower", members.map { Source(label: $0, location: mpower.path + "#" + $0) }))
        }
        let motionsense = data.appendingPathComponent("motionsense/A_DeviceMotion_data_subjects_1_2_3_5.zip")
        if fm.fileExists(atPath: motionsense.path) {
            let members = try RecordingReader.members(of: motionsense).map(\.name)
            out.append(("motionsense", members.map { Source(label: $0, location: motionsense.path + "#" + $0) }))
        }
        return out
    }

    /// How the filter starts.
    enum Start: String, CaseIterable, Codable, Sendable {
        /// Nothing known about the sensors (a first session).
        case cold
        /// With the gyroscope bias and magnetometer calibration that a first pass over the same
        /// recording ended with, restored as the service restores a saved ``SensorCalibrationState``
        /// right after the previous session (bias sigma at least 0.05 °/s). This is the state an
        /// iPhone's filter is in when an app starts device motion: iOS calibrates all day. It is
        /// optimistic by what the first pass learned in-sample.
        case warm
    }

    /// Runs the engine on `recording` and compares it with the recording's Apple reference.
    static func compare(_ recording: Recording, label: String, settings: FusionFilter.Settings, start startMode: Start = .cold, keepTraces: Bool = false) -> Series {
        var series = Series(label: label)
        let samples = FusionRun.mergedSamples(recording, useMagnetometer: true)
        var estimator = DeviceMotionEstimator(settings: settings)
        if startMode == .warm {
            var previous = DeviceMotionEstimator(settings: settings)
            for s in samples { _ = previous.add(s) }
            while previous.flush() != nil {}
            estimator.restore(from: previous)
        }
        var estimates: [DeviceMotionEstimate] = []
        estimates.reserveCapacity(recording.accelerometer.count)
        let clock = ContinuousClock()
        var gaitTrace = GaitTrace()
        var wasWalking = false
        let trace = ProcessInfo.processInfo.environment["COREMOTION_TRACE_GAIT"] == "2"
        let samples0 = samples.first?.time ?? 0
        let elapsed = clock.measure {
            for s in samples {
                if let e = estimator.add(s) {
                    estimates.append(e)
                    if estimator.filter.isWalking != wasWalking {
                        wasWalking.toggle()
                        if trace { print("  \(label) t=\(Output.fixed(e.time - samples0, 2)) walking=\(wasWalking) periodicity=\(Output.fixed(estimator.filter.gaitAnalysis.periodicity, 2))") }
                    }
                    gaitTrace.record(estimator.filter)
                }
            }
            while let e = estimator.flush() { estimates.append(e) }
        }
        series.samples = estimates.count
        series.walkingEstimates = gaitTrace.walkingEstimates
        if GaitTrace.isEnabled { print(gaitTrace.summary(label: label, estimates: estimates.count)) }
        series.fusionSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        guard !estimates.isEmpty else { return series }
        let ourTimes = estimates.map(\.time)
        let ref = recording.reference
        let start = estimates[0].time

        // Gravity at Apple's stamps.
        for g in ref.gravity {
            guard let i = nearest(ourTimes, g.time, tolerance: 0.006) else { continue }
            let ours = estimates[i].gravity
            series.gravityAngles.append(ours.angle(to: g.value) * 180 / Double.pi)
            series.gravityTimes.append(g.time)
            if keepTraces {
                series.ours.append((g.time, ours))
                series.apple.append((g.time, g.value))
            }
        }
        if trace {
            var line = "  \(label) gravity by 10 s:"
            var t0 = start
            while t0 < (ourTimes.last ?? start) {
                let w = zip(series.gravityTimes, series.gravityAngles).filter { $0.0 >= t0 && $0.0 < t0 + 10 }.map(\.1)
                line += " \(Output.fixed(percentile(w, 50), 2))"
                t0 += 10
            }
            print(line)
            let b = estimates.last?.gyroBias ?? .zero
            print("  \(label) final bias \(Output.fixed(b.x, 4)) \(Output.fixed(b.y, 4)) \(Output.fixed(b.z, 4))")
            let c = estimator.magnetometerCalibration
            print("  \(label) final hard iron \(Output.fixed(c.hardIron.x, 1)) \(Output.fixed(c.hardIron.y, 1)) \(Output.fixed(c.hardIron.z, 1)) µT, accuracy \(c.accuracy)")
        }
        // Attitude change over 10 s.
        let att = ref.attitude
        if att.count > 1 {
            let appleTimes = att.map(\.time)
            var i = 0
            while i < att.count {
                let t0 = att[i].time
                if let j = nearest(appleTimes, t0 + 10, tolerance: 0.02),
                   let a = nearest(ourTimes, t0, tolerance: 0.006), let b = nearest(ourTimes, t0 + 10, tolerance: 0.02) {
                    let appleChange = att[i].value.conjugate * att[j].value
                    let ourChange = estimates[a].attitude9D.conjugate * estimates[b].attitude9D
                    series.attitudeChangeErrors.append(ourChange.angle(to: appleChange) * 180 / Double.pi)
                }
                i += 5
            }
        }
        // Rotation rate after 10 s.
        for r in ref.rotationRate where r.time >= start + 10 {
            guard let i = nearest(ourTimes, r.time, tolerance: 0.006) else { continue }
            series.rotationRateErrors.append((estimates[i].rotationRate - r.value).norm)
        }
        return series
    }

    /// Index of the element of sorted `times` nearest to `t`, if within `tolerance` seconds.
    static func nearest(_ times: [Double], _ t: Double, tolerance: Double) -> Int? {
        var lo = 0, hi = times.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if times[mid] < t { lo = mid + 1 } else { hi = mid }
        }
        var best: Int?
        var bestDistance = tolerance
        for k in [lo - 1, lo] where k >= 0 && k < times.count {
            let d = abs(times[k] - t)
            if d <= bestDistance { best = k; bestDistance = d }
        }
        return best
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let x = p / 100 * Double(sorted.count - 1)
        let lo = Int(x.rounded(.down)), hi = min(lo + 1, sorted.count - 1)
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (x - Double(lo))
    }

    static func summarize(dataset: String, start: Start = .cold, _ series: [Series]) -> Summary {
        let g = series.flatMap(\.gravityAngles)
        let a = series.flatMap(\.attitudeChangeErrors)
        let r = series.flatMap(\.rotationRateErrors)
        return Summary(dataset: dataset, start: start, recordings: series.count, samples: series.map(\.samples).reduce(0, +),
                       gravityMedianDegrees: percentile(g, 50), gravityP95Degrees: percentile(g, 95),
                       attitudeChange10sMedianDegrees: percentile(a, 50), attitudeChange10sP95Degrees: percentile(a, 95),
                       rotationRateMedianRadPerSecond: percentile(r, 50), rotationRateP95RadPerSecond: percentile(r, 95))
    }
}
