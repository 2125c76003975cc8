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
public enum ParityEvaluation {
    /// One recording to compare: a data-set path (with `#MEMBER`) and a label.
    public struct Source: Sendable {
        /// The recording's name in tables (`walk`, a member's name).
        public var label: String
        /// Where to read it: `PATH` or `PATH#MEMBER`.
        public var location: String
    }

    /// Per-sample figures of one recording.
    public struct Series: Sendable {
        /// The recording's label.
        public var label: String
        /// Angles between our gravity and Apple's, degrees.
        public var gravityAngles: [Double] = []
        /// The times of ``gravityAngles``, seconds.
        public var gravityTimes: [Double] = []
        /// Differences of the 10 s attitude changes, degrees.
        public var attitudeChangeErrors: [Double] = []
        /// Norms of the rotation-rate differences, rad/s.
        public var rotationRateErrors: [Double] = []
        /// How far each filter's vertical is from the physical one, seen through its own attitude:
        /// the angle between its vertical and the 5 s centred mean of the specific force (the raw
        /// accelerometer rotated into its frame; walking or sitting, the mean acceleration over 5 s
        /// is near zero, so the mean specific force is near vertical). Degrees, at the compared stamps.
        public var appleVerticalAngles: [Double] = []
        /// The same for our vertical in our 6D frame.
        public var ourVerticalAngles: [Double] = []
        /// Our gravity at Apple's stamps, when traces are kept.
        public var ours: [(t: Double, g: Vector3)] = []
        /// Apple's gravity, when traces are kept.
        public var apple: [(t: Double, g: Vector3)] = []
        /// Estimates made.
        public var samples = 0
        /// Estimates made while the gait detector reported walking.
        public var walkingEstimates = 0
        /// Wall-clock seconds of the fusion work alone.
        public var fusionSeconds = 0.0
    }

    /// The figures of one data set.
    public struct Summary: Codable, Sendable {
        /// The data set's name.
        public var dataset: String
        /// How the filter started.
        public var start: Start = .cold
        /// Recordings compared.
        public var recordings: Int
        /// Estimates made over all of them.
        public var samples: Int
        /// Median and 95th percentile of ``Series/gravityAngles``, degrees.
        public var gravityMedianDegrees: Double
        /// (See ``gravityMedianDegrees``.)
        public var gravityP95Degrees: Double
        /// Median and 95th percentile of ``Series/attitudeChangeErrors``, degrees.
        public var attitudeChange10sMedianDegrees: Double
        /// (See ``attitudeChange10sMedianDegrees``.)
        public var attitudeChange10sP95Degrees: Double
        /// Median and 95th percentile of ``Series/rotationRateErrors``, rad/s.
        public var rotationRateMedianRadPerSecond: Double
        /// (See ``rotationRateMedianRadPerSecond``.)
        public var rotationRateP95RadPerSecond: Double
        /// Gravity compared only after this many seconds from each recording's first estimate.
        public var excludedStartSeconds: Double = 0
        /// Apple's vertical against the 5 s mean of the specific force in Apple's frame, degrees
        /// (``Series/appleVerticalAngles``): where this is large, Apple's gravity is not the
        /// accelerometer's vertical and no accelerometer-corrected filter can follow it.
        public var appleVsAccelerometerMedianDegrees: Double = .nan
        /// (See ``appleVsAccelerometerMedianDegrees``.)
        public var appleVsAccelerometerP95Degrees: Double = .nan
        /// The same for our vertical in our 6D frame.
        public var oursVsAccelerometerMedianDegrees: Double = .nan
        /// (See ``oursVsAccelerometerMedianDegrees``.)
        public var oursVsAccelerometerP95Degrees: Double = .nan
        /// Per group of recordings (MotionSense: per activity and per subject), when the data set
        /// has groups.
        public var gravityByGroup: [String: GroupGravity]?
    }

    /// One group's gravity figures, degrees.
    public struct GroupGravity: Codable, Equatable, Sendable {
        /// Our gravity against Apple's: median.
        public var medianDegrees: Double
        /// Our gravity against Apple's: 95th percentile.
        public var p95Degrees: Double
        /// Apple's vertical against its accelerometer (``Summary/appleVsAccelerometerMedianDegrees``): median.
        public var appleVsAccelerometerMedianDegrees: Double
        /// The same: 95th percentile.
        public var appleVsAccelerometerP95Degrees: Double
    }

    /// The recordings of each Apple-parity data set found under `data`.
    public static func sources(data: URL) throws -> [(dataset: String, sources: [Source])] {
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
    public enum Start: String, CaseIterable, Codable, Sendable {
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
    /// Gravity is compared from `excludingFirst` seconds after the first estimate on (the target
    /// leaves out the first 5 s, where both filters converge from their own start).
    public static func compare(_ recording: Recording, label: String, settings: FusionFilter.Settings, start startMode: Start = .cold, keepTraces: Bool = false, excludingFirst: Double = 0) -> Series {
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
                        if trace { print("  \(label) t=\(fixed(e.time - samples0, 2)) walking=\(wasWalking) periodicity=\(fixed(estimator.filter.gaitAnalysis.periodicity, 2))") }
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
        for g in ref.gravity where g.time >= start + excludingFirst {
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
                line += " \(fixed(percentile(w, 50), 2))"
                t0 += 10
            }
            print(line)
            let b = estimates.last?.gyroBias ?? .zero
            print("  \(label) final bias \(fixed(b.x, 4)) \(fixed(b.y, 4)) \(fixed(b.z, 4))")
            let c = estimator.magnetometerCalibration
            print("  \(label) final hard iron \(fixed(c.hardIron.x, 1)) \(fixed(c.hardIron.y, 1)) \(fixed(c.hardIron.z, 1)) µT, accuracy \(c.accuracy)")
        }
        // Each filter's vertical against the 5 s mean of the specific force in its own frame.
        var appleWorld: [(t: Double, v: Vector3)] = []
        let accTimes = recording.accelerometer.map(\.time)
        for q in ref.attitude {
            guard let k = nearest(accTimes, q.time, tolerance: 0.006) else { continue }
            appleWorld.append((q.time, q.value.rotate(recording.accelerometer[k].value)))
        }
        let ourWorld = estimates.map { (t: $0.time, v: $0.attitude6D.rotate($0.acceleration)) }
        series.appleVerticalAngles = verticalAngles(appleWorld, from: start + excludingFirst)
        series.ourVerticalAngles = verticalAngles(ourWorld, from: start + excludingFirst)
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

    /// Angle (degrees) between the vertical (0, 0, −1 in Apple's sign) and the centred `window`-second
    /// mean of `world` (specific force in the filter's reference frame), for samples from `from` on
    /// whose window lies inside the recording.
    static func verticalAngles(_ world: [(t: Double, v: Vector3)], from: Double, window: Double = 5) -> [Double] {
        guard let first = world.first?.t, let last = world.last?.t else { return [] }
        var sum = Vector3(0, 0, 0)
        var lo = 0, hi = 0
        var out: [Double] = []
        for (t, _) in world where t >= from && t - window / 2 >= first && t + window / 2 <= last {
            while hi < world.count && world[hi].t < t + window / 2 { sum = sum + world[hi].v; hi += 1 }
            while lo < hi && world[lo].t < t - window / 2 { sum = sum - world[lo].v; lo += 1 }
            let n = sum.norm
            guard hi > lo, n > 0 else { continue }
            out.append(acos(max(-1, min(1, -sum.z / n))) * 180 / Double.pi)
        }
        return out
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

    /// The linear-interpolated `p`th percentile of `values` (nan when empty).
    public static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let x = p / 100 * Double(sorted.count - 1)
        let lo = Int(x.rounded(.down)), hi = min(lo + 1, sorted.count - 1)
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (x - Double(lo))
    }

    /// The figures of a data set's recordings, pooled.
    public static func summarize(dataset: String, start: Start = .cold, excludedStart: Double = 0, _ series: [Series]) -> Summary {
        let g = series.flatMap(\.gravityAngles)
        let a = series.flatMap(\.attitudeChangeErrors)
        let r = series.flatMap(\.rotationRateErrors)
        var summary = Summary(dataset: dataset, start: start, recordings: series.count, samples: series.map(\.samples).reduce(0, +),
                              gravityMedianDegrees: percentile(g, 50), gravityP95Degrees: percentile(g, 95),
                              attitudeChange10sMedianDegrees: percentile(a, 50), attitudeChange10sP95Degrees: percentile(a, 95),
                              rotationRateMedianRadPerSecond: percentile(r, 50), rotationRateP95RadPerSecond: percentile(r, 95),
                              excludedStartSeconds: excludedStart)
        let av = series.flatMap(\.appleVerticalAngles), ov = series.flatMap(\.ourVerticalAngles)
        summary.appleVsAccelerometerMedianDegrees = percentile(av, 50)
        summary.appleVsAccelerometerP95Degrees = percentile(av, 95)
        summary.oursVsAccelerometerMedianDegrees = percentile(ov, 50)
        summary.oursVsAccelerometerP95Degrees = percentile(ov, 95)
        var groups: [String: ([Double], [Double])] = [:]
        for s in series {
            for key in groupKeys(dataset: dataset, label: s.label) {
                groups[key, default: ([], [])].0 += s.gravityAngles
                groups[key, default: ([], [])].1 += s.appleVerticalAngles
            }
        }
        if !groups.isEmpty {
            summary.gravityByGroup = groups.mapValues {
                GroupGravity(medianDegrees: percentile($0.0, 50), p95Degrees: percentile($0.0, 95),
                             appleVsAccelerometerMedianDegrees: percentile($0.1, 50), appleVsAccelerometerP95Degrees: percentile($0.1, 95))
            }
        }
        return summary
    }

    /// The groups a recording's figures are also pooled into: MotionSense `jog_9/sub_1` →
    /// `jog`, `sub_1`. Other data sets have no groups.
    static func groupKeys(dataset: String, label: String) -> [String] {
        switch dataset {
        case "motionsense":
            let parts = label.split(separator: "/").map(String.init)
            guard parts.count == 2 else { return [] }
            return [String(parts[0].prefix(3)), parts[1]]
        default:
            return []
        }
    }
}
