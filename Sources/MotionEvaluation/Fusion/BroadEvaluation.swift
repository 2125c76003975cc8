import Foundation
import MotionEngine
import MotionRecordings
import MotionSamples

/// Scores the engine on BROAD trials the way the BROAD paper (and `eval/broad_eval.py`) does.
///
/// Error quaternion `q_est ⊗ conj(q_truth)` in the ENU earth frame; total = 2·acos|w|,
/// heading = 2·atan|z/w|, inclination = 2·acos√(w² + z²); RMSE in degrees over the samples
/// marked valid (movement phase, finite truth), per trial; a group's figure is the mean over its
/// trials. The 6D attitude is scored after removing one constant heading offset per trial (the
/// circular mean of its signed heading error), as for every 6D filter.
public enum BroadEvaluation {
    /// One BROAD trial: its recording (raw sensors and optical truth) and the groups it belongs to.
    public struct Trial: Sendable {
        /// The file name without `.csv` (`01_undisturbed_slow_rotation_A`).
        public var name: String
        /// The groups of ``groupOrder`` it counts in.
        public var groups: Set<String>
        /// The trial's samples and truth.
        public var recording: Recording
    }

    /// Attitude error RMSE, degrees.
    public struct Errors: Codable, Sendable {
        /// Of the whole rotation error.
        public var total: Double
        /// Of its part about the vertical.
        public var heading: Double
        /// Of its part about a horizontal axis.
        public var inclination: Double
    }

    /// The engine's scores on one trial.
    public struct TrialResult: Codable, Sendable {
        /// The trial's name.
        public var trial: String
        /// Its groups, sorted.
        public var groups: [String]
        /// Estimates scored.
        public var samples: Int
        /// The 9D attitude's errors (magnetic north).
        public var ours9D: Errors
        /// The 6D attitude's errors, one heading offset removed.
        public var ours6D: Errors
        /// The 6D attitude given the 9D heading of the first second of the movement phase (no
        /// hindsight): what the heading would be had the magnetometer been dropped when the movement
        /// began. The magnetometer helps when the 9D heading error is below this one's.
        public var fallback6D: Errors? = nil
        /// Wall-clock seconds of the fusion work alone.
        public var fusionSeconds: Double
        /// Our gyro-bias error at the end of the movement phase against the mean gyro reading of the
        /// final rest (≥ 5 s, first second skipped, every axis within 0.5 °/s), °/s; nil without one
        /// (the check of `broad_eval.py --bias-check`).
        public var biasErrorDegreesPerSecond: Double? = nil
        /// Per-sample 9D error angles (degrees), kept only when plots are asked for.
        public var totalErrorSeries: [Float]? = nil
        /// The times of ``totalErrorSeries``, seconds.
        public var times: [Float]? = nil
    }

    /// Groups in the order the tables list them (BROAD's, with magnetic disturbance = stationary or attached magnet).
    public static let groupOrder = ["all_available", "undisturbed", "disturbed", "magnetic_disturbance",
                             "stationary_magnet", "attached_magnet", "tapping", "vibration"]

    static func groups(of trial: String, manifest: [String: Any]) -> Set<String> {
        var gs: Set<String> = ["all_available"]
        if let trials = manifest["trials"] as? [String: Any], let info = trials[trial] as? [String: Any],
           let list = info["groups"] as? [String] {
            gs.formUnion(list)
        }
        if !gs.isDisjoint(with: ["stationary_magnet", "attached_magnet", "office_environment"]) {
            gs.insert("magnetic_disturbance")
        }
        return gs
    }

    /// Loads the trials (CSV files) of a BROAD folder with its `manifest.json`.
    /// - Parameters:
    ///   - only: file-name prefixes of the trials to load (all when empty).
    ///   - progress: told each file as it is read.
    public static func load(folder: URL, only: [String], progress: (any EvaluationProgress)?) throws -> [Trial] {
        let fm = FileManager.default
        let manifestURL = folder.appendingPathComponent("manifest.json")
        let manifest = (try? JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL))) as? [String: Any] ?? [:]
        let files = try fm.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".csv") }.sorted()
            .filter { name in only.isEmpty || only.contains { name.hasPrefix($0) } }
        var trials: [Trial] = []
        for (i, f) in files.enumerated() {
            progress?.update(Double(i), detail: f)
            let name = String(f.dropLast(4))
            let rec = try RecordingReader.read(folder.appendingPathComponent(f))
            trials.append(Trial(name: name, groups: groups(of: name, manifest: manifest), recording: rec))
        }
        return trials
    }

    /// Runs the engine on one trial and scores it.
    /// - Parameter keepSeries: keep the per-sample error series (``TrialResult/totalErrorSeries``) for plots.
    public static func evaluate(_ trial: Trial, settings: FusionFilter.Settings, keepSeries: Bool = false) -> TrialResult {
        let rec = trial.recording
        let samples = FusionRun.mergedSamples(rec, useMagnetometer: true)
        var estimator = DeviceMotionEstimator(settings: settings)
        var q9 = [Quaternion](), q6 = [Quaternion]()
        var biases = [Vector3]()
        biases.reserveCapacity(rec.accelerometer.count)
        q9.reserveCapacity(rec.accelerometer.count)
        q6.reserveCapacity(rec.accelerometer.count)
        let clock = ContinuousClock()
        let traceCalibration = ProcessInfo.processInfo.environment["COREMOTION_TRACE_CALIBRATION"] != nil
        var lastHardIron = Vector3.zero
        var gaitTrace = GaitTrace()
        let elapsed = clock.measure {
            for s in samples {
                if let e = estimator.add(s) {
                    gaitTrace.record(estimator.filter)
                    q9.append(e.attitude9D)
                    q6.append(e.attitude6D)
                    biases.append(e.gyroBias)
                    if traceCalibration {
                        let h = estimator.filter.magnetometerCalibration.hardIron
                        if h != lastHardIron {
                            lastHardIron = h
                            print("\(trial.name) t=\(fixed(e.time, 1)) hardIron=\(fixed(h.x, 2)),\(fixed(h.y, 2)),\(fixed(h.z, 2)) accuracy=\(e.magneticFieldAccuracy)")
                        }
                    }
                }
            }
            while let e = estimator.flush() {
                q9.append(e.attitude9D)
                q6.append(e.attitude6D)
                biases.append(e.gyroBias)
            }
        }
        if GaitTrace.isEnabled { print(gaitTrace.summary(label: trial.name, estimates: q9.count)) }
        let truth = rec.reference.truthAttitude
        let valid = rec.reference.truthScored
        let enuFromNWU = Quaternion.aboutZ(Double.pi / 2)
        let n = min(q9.count, truth.count)
        var sel: [Int] = []
        sel.reserveCapacity(n)
        for i in 0..<n where valid[i] && truth[i].value.isFinite { sel.append(i) }
        func signedHeading(_ est: [Quaternion], _ i: Int) -> Double {
            let e = (enuFromNWU * est[i] * truth[i].value.conjugate).normalized
            return 2 * atan2(e.z, e.w)
        }
        /// Circular mean of the signed heading error over the first second of the movement phase.
        func startHeading(_ est: [Quaternion]) -> Double {
            guard let first = sel.first else { return 0 }
            let t0 = truth[first].time
            var c = 0.0, s = 0.0
            for i in sel where truth[i].time < t0 + 1 {
                let h = signedHeading(est, i)
                c += cos(h)
                s += sin(h)
            }
            return atan2(s, c)
        }
        func errors(_ est: [Quaternion], alignHeading: Bool, fixedOffset: Double? = nil) -> (Errors, [Float]) {
            var offset = fixedOffset ?? 0.0
            if alignHeading && fixedOffset == nil {
                var c = 0.0, s = 0.0
                for i in sel {
                    let e = (enuFromNWU * est[i] * truth[i].value.conjugate).normalized
                    let signed = 2 * atan2(e.z, e.w)
                    c += cos(signed)
                    s += sin(signed)
                }
                offset = atan2(s, c)
            }
            let align = Quaternion.aboutZ(-offset) * enuFromNWU
            var st = 0.0, sh = 0.0, si = 0.0
            var series: [Float] = []
            for i in sel {
                let e = (align * est[i] * truth[i].value.conjugate).normalized
                let w = e.w, z = e.z
                let total = 2 * acos(min(1, abs(w)))
                let heading = 2 * atan(abs(z / w))
                let incl = 2 * acos(min(1, (w * w + z * z).squareRoot()))
                st += total * total
                sh += heading * heading
                si += incl * incl
                if keepSeries { series.append(Float(total * 180 / Double.pi)) }
            }
            let m = Double(max(1, sel.count))
            let deg = 180 / Double.pi
            return (Errors(total: (st / m).squareRoot() * deg, heading: (sh / m).squareRoot() * deg,
                           inclination: (si / m).squareRoot() * deg), series)
        }
        let (e9, series) = errors(q9, alignHeading: false)
        let (e6, _) = errors(q6, alignHeading: true)
        let (fallback, _) = errors(q6, alignHeading: true, fixedOffset: startHeading(q6) - startHeading(q9))
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        var result = TrialResult(trial: trial.name, groups: trial.groups.sorted(), samples: q9.count,
                                 ours9D: e9, ours6D: e6, fusionSeconds: seconds)
        result.fallback6D = sel.isEmpty ? nil : fallback
        result.biasErrorDegreesPerSecond = biasError(rec, biases: biases)
        if keepSeries {
            result.totalErrorSeries = series
            result.times = sel.map { Float(truth[$0].time) }
        }
        return result
    }

    /// The bias check of `broad_eval.py`: our bias at the end of the movement phase against the
    /// mean gyro reading over the final rest.
    static func biasError(_ rec: Recording, biases: [Vector3]) -> Double? {
        let valid = rec.reference.truthScored
        let n = min(valid.count, rec.gyroscope.count, biases.count)
        guard n > 0 else { return nil }
        var restStart = n
        while restStart > 0 && !valid[restStart - 1] { restStart -= 1 }
        guard restStart > 0 else { return nil }
        let gyro = rec.gyroscope
        let duration = gyro[n - 1].time - gyro[restStart].time
        guard duration >= 5 else { return nil }
        let from = gyro[restStart].time + 1
        let rest = gyro[restStart..<n].filter { $0.time >= from }.map(\.value)
        guard !rest.isEmpty else { return nil }
        let mean = rest.reduce(Vector3.zero, +) / Double(rest.count)
        let deg = 180 / Double.pi
        for axis in 0..<3 {
            let values = rest.map { $0[axis] }
            let m = mean[axis]
            let sd = (values.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(values.count)).squareRoot()
            if sd * deg > 0.5 { return nil }
        }
        return (biases[restStart - 1] - mean).norm * deg
    }

    /// Mean of each error over the trials of every group.
    public static func groupMeans(_ results: [TrialResult], _ pick: (TrialResult) -> Errors) -> [(group: String, count: Int, errors: Errors)] {
        groupOrder.compactMap { g in
            let rs = results.filter { $0.groups.contains(g) }
            guard !rs.isEmpty else { return nil }
            let m = Double(rs.count)
            return (g, rs.count, Errors(total: rs.map { pick($0).total }.reduce(0, +) / m,
                                        heading: rs.map { pick($0).heading }.reduce(0, +) / m,
                                        inclination: rs.map { pick($0).inclination }.reduce(0, +) / m))
        }
    }

    /// Runs every trial with the same settings, all at once, in the trials' order.
    public static func evaluateAll(_ trials: [Trial], settings: FusionFilter.Settings, keepSeries: Bool,
                                   progress: any EvaluationProgress) async -> [TrialResult] {
        await withTaskGroup(of: (Int, TrialResult).self) { group in
            for (i, t) in trials.enumerated() {
                group.addTask { (i, evaluate(t, settings: settings, keepSeries: keepSeries)) }
            }
            var out = [TrialResult?](repeating: nil, count: trials.count)
            var done = 0
            for await (i, r) in group {
                out[i] = r
                done += 1
                progress.update(Double(done), detail: r.trial)
            }
            return out.compactMap { $0 }
        }
    }

    /// Group means per filter from broad_eval.py's JSON (`groups` → group → filter → errors).
    public static func readAnchors(_ path: String) throws -> [String: [String: Errors]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let groups = root["groups"] as? [String: Any] else {
            throw EvaluationError("\(path): expected the JSON of broad_eval.py --out (a \"groups\" object)")
        }
        var out: [String: [String: Errors]] = [:]
        for (group, value) in groups {
            guard let filters = value as? [String: Any] else { continue }
            for (filter, e) in filters {
                guard let e = e as? [String: Any], let t = e["total"] as? Double, let h = e["heading"] as? Double,
                      let i = e["inclination"] as? Double else { continue }
                out[filter, default: [:]][group] = Errors(total: t, heading: h, inclination: i)
            }
        }
        return out
    }
}
