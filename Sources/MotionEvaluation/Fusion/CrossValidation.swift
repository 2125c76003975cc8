import Foundation
import MotionEngine

/// Leave-one-trial-out cross-validation of the fusion settings on BROAD.
///
/// Every tuned constant with a candidate grid (``fusionGrid``) is scanned alone, the others at their
/// shipped values: each candidate runs on every trial once. For each held-out trial, every constant
/// takes the candidate with the lowest mean objective over the *other* trials (ties keep the shipped
/// value); the held-out trial is then run with all those picks together and scored. The mean of the
/// held-out scores is the cross-validated figure: what tuning this way would give on a trial it never
/// saw. Beside it: the shipped values in-sample, and the picks made on all trials in-sample.
///
/// A candidate replaces the current value only when its mean gain over the training trials is larger
/// than `margin` standard errors of the per-trial gains (``passes(_:over:margin:)``), so that a change
/// must hold across trials, not on one. A change that helps a single trial and leaves the others as they
/// were sits at exactly one standard error whatever its size, so any margin above 1 refuses it. (In the
/// spirit of the one-standard-error rule of Breiman et al. 1984 and Hastie et al. 2009, §7.10: keep the
/// simpler choice unless the other wins by more than its standard error.) The default is 2: each fold
/// makes about 70 such comparisons (every candidate of every constant), and at one standard error
/// about one in six constants that do nothing would move by chance (one-sided, 14 degrees of
/// freedom); at two, about one in thirty. Margin 0 takes any gain, as before 2026-11-28
/// (docs/fusion.md, "Cross-validation", has the figures for 0, 1 and 2).
public enum CrossValidation {
    /// The candidate grids: for each setting the values tried, as `--set` accepts them ("deg" = degrees).
    /// Each grid holds the shipped value and brackets it by about a factor of two either way (after
    /// the values picked in November 2026 were adopted, the grids were re-centred on them).
    public static let fusionGrid: [(name: String, values: [String])] = [
        // Inclination (accelerometer)
        ("accelerometerTimeConstant", ["1.5", "2", "2.5", "3", "4"]),
        // Heading (magnetometer)
        ("headingRotationNoise", ["0.0025", "0.005", "0.01", "0.02"]),
        ("headingRotationRateScale", ["0", "6", "12", "24"]),
        ("headingMeasurementNoise", ["3deg", "4.5deg", "6deg", "9deg", "12deg"]),
        ("headingOffsetNoise", ["0.15deg", "0.3deg", "0.6deg"]),
        ("headingRecalibrationSigma", ["10deg", "20deg", "40deg"]),
        // Gyroscope bias
        ("biasInitialSigma", ["0.25deg", "0.5deg", "1deg"]),
        ("biasDriftSigma", ["0.05deg", "0.1deg", "0.2deg"]),
        // Finer than the others: the 6D total falls from 0.03 to 0.09 °/s and rises steeply after it. On a
        // factor-of-two grid (0.03 / 0.06 / 0.12) two folds jumped past that edge to 0.12 (6D 1.010 × VQF).
        ("biasRestSigma", ["0.015deg", "0.03deg", "0.045deg", "0.06deg", "0.075deg", "0.09deg", "0.12deg"]),
        ("biasMotionSigma", ["0.05deg", "0.1deg", "0.2deg"]),
        ("biasLimit", ["1deg", "2deg", "4deg"]),
        // Rest detection
        ("restTimeConstant", ["0.25", "0.5", "1"]),
        ("restGyroThreshold", ["1deg", "2deg", "3deg"]),
        ("restAccelerometerThreshold", ["0.025", "0.0509858", "0.1"]),
        ("restMinimumTime", ["0.75", "1.5", "3"]),
        // Magnetic disturbance
        ("magneticNormThreshold", ["0.1", "0.2", "0.3"]),
        ("magneticDipThreshold", ["10deg", "20deg", "30deg"]),
        ("magneticSoftNormScale", ["0", "0.01", "0.02", "0.04"]),
        ("magneticSoftDipScale", ["1.5deg", "3deg", "6deg"]),
        ("magneticReferenceTimeConstant", ["20", "40", "80"]),
        ("magneticMinimumUndisturbedTime", ["0.25", "0.5", "1"]),
        ("magneticMaximumRejectionTime", ["30", "60", "120"]),
        ("magneticRejectionFactor", ["1", "2", "4"]),
        ("magneticNewFieldTime", ["10", "20", "40"]),
        ("magneticFirstNewFieldTime", ["2.5", "5", "10"]),
        // Magnetometer trust
        ("magneticVibrationThreshold", ["0", "0.2", "0.3", "0.4"]),
        ("magneticUnsteadyThreshold", ["0", "1.5", "2", "3"]),
        // Magnetometer calibration
        ("magnetometerCalibrationWindow", ["2.5", "5", "10"]),
        ("magnetometerCalibrationSpread", ["0.005", "0.01", "0.02"]),
        ("magnetometerCalibrationImprovement", ["0.125", "0.25", "0.5"]),
        ("magnetometerCalibrationMinimumResidual", ["1", "2", "4"]),
        ("magnetometerRecalibrationTime", ["60", "120", "240"]),
        ("magnetometerCalibrationVibrationThreshold", ["0", "0.15", "0.3", "0.6"]),
    ]

    /// The constants that BROAD cannot tune: the gait detector's (no BROAD trial is a walk; they
    /// change no BROAD figure) and the sampling intervals (set by the hardware, not by accuracy).
    public static let notTunedOnBroad = [
        "gaitTimeConstant", "gaitCorrelationTime", "gaitPeriodicityThreshold", "gaitRotationPeriodicityThreshold",
        "gaitImpactThreshold", "gaitMinimumAmplitude", "gaitOnsetTime", "gaitOffsetTime", "gaitRampTime",
        "correctionInterval", "magnetometerCorrectionInterval",
    ]

    /// What a trial's score is.
    public enum Objective: String, CaseIterable, Codable, Sendable {
        /// 9D total RMSE plus 6D total RMSE (heading offset removed): both targets at once.
        case sum
        /// 9D total RMSE only.
        case ninth = "9d"
        /// 6D total RMSE only.
        case sixth = "6d"
        /// 9D total RMSE over VQF's 9D total on the same trial, plus the same for 6D: the targets'
        /// own measure, which weighs a trial by how well a good filter can do on it (needs --anchors).
        case relative = "vqf"
    }

    /// Scores one trial for an ``Objective`` (lower is better).
    public struct Scorer: Sendable {
        /// What a trial's score is.
        public var objective: Objective
        /// VQF's 9D and 6D total RMSE per trial (``Objective/relative`` only).
        public var vqf: [String: (nine: Double, six: Double)] = [:]

        /// A scorer for `objective`; ``Objective/relative`` reads VQF's totals of `trials` from `anchorsPath`.
        /// - Throws: with ``Objective/relative``, when `anchorsPath` is missing or lacks a trial.
        public init(objective: Objective, trials: [String], anchorsPath: String?) throws {
            self.objective = objective
            guard objective == .relative else { return }
            guard let anchorsPath else { throw EvaluationError("--cv-objective vqf needs --anchors (the JSON of broad_eval.py --out)") }
            let anchors = try readAnchorTrials(anchorsPath)
            for name in trials {
                guard let nine = anchors["VQF 9D"]?[name]?.total, let six = anchors["VQF 6D"]?[name]?.total,
                      nine > 0, six > 0, nine.isFinite, six.isFinite else {
                    throw EvaluationError("\(anchorsPath): no positive VQF 9D and 6D totals for \(name)")
                }
                vqf[name] = (nine, six)
            }
        }

        /// The score of one trial's result (lower is better).
        public func callAsFunction(_ r: BroadEvaluation.TrialResult) -> Double {
            switch objective {
            case .sum: r.ours9D.total + r.ours6D.total
            case .ninth: r.ours9D.total
            case .sixth: r.ours6D.total
            case .relative:
                // (Every trial was checked at init.)
                vqf[r.trial].map { r.ours9D.total / $0.nine + r.ours6D.total / $0.six } ?? .nan
            }
        }
    }

    /// How the constants are picked on the training trials.
    public enum Method: String, CaseIterable, Codable, Sendable {
        /// Each constant scanned alone (the others shipped), the best values then combined: cheap, but
        /// blind to interactions.
        case separate
        /// Coordinate descent: the constants in grid order, each set to its best value given the ones
        /// already picked, one pass (every candidate runs on the training trials of every fold).
        case descent
    }

    /// The mean improvement of `candidate` over `current` (per-trial objectives, same trials, lower is
    /// better) when it is larger than `margin` standard errors of the per-trial differences, else nil.
    public static func passes(_ candidate: [Double], over current: [Double], margin: Double) -> Double? {
        let n = min(candidate.count, current.count)
        guard n > 0 else { return nil }
        let gains = zip(current, candidate).map { $0 - $1 }
        let mean = gains.reduce(0, +) / Double(n)
        guard mean > 1e-9 else { return nil }
        guard margin > 0 else { return mean }
        guard n > 1 else { return nil }
        let variance = gains.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(n - 1)
        let standardError = (variance / Double(n)).squareRoot()
        // (Relative slack: a single-trial change sits at exactly one standard error, up to rounding.)
        return mean > margin * standardError * (1 + 1e-9) + 1e-12 ? mean : nil
    }

    /// What the scan found for one constant.
    public struct ParameterResult: Codable, Sendable {
        /// The setting's name (as `--set` takes it).
        public var name: String
        /// The grid value equal to the shipped one ("?" when the grid does not hold it; empty with ``Method/descent``).
        public var shipped: String
        /// Mean objective per candidate value over all trials (in-sample scan).
        public var candidates: [String: Double]
        /// The value the all-trials scan picks.
        public var inSamplePick: String
        /// Mean objective with the shipped value.
        public var shippedScore: Double
        /// Mean objective with the in-sample pick.
        public var inSampleScore: Double
        /// Mean objective cross-validated, with only this constant tuned.
        public var crossValidatedScore: Double
        /// How often each value was picked over the folds.
        public var foldPicks: [String: Int]
    }

    /// One line of the group table: a way of choosing the settings (or an anchor filter) and its group means.
    public struct Row: Codable, Sendable {
        /// What the line shows.
        public var label: String
        /// Group means of the 9D attitude, by group.
        public var groups9D: [String: BroadEvaluation.Errors]
        /// Group means of the 6D attitude, by group.
        public var groups6D: [String: BroadEvaluation.Errors]
    }

    /// Everything a cross-validation found.
    public struct Report: Codable, Sendable {
        /// The ``Objective``'s raw value.
        public var objective: String
        /// The ``Method``'s raw value.
        public var method: String
        /// Standard errors a change must gain by (``passes(_:over:margin:)``).
        public var margin: Double
        /// The trials' names.
        public var trials: [String]
        /// Per constant.
        public var parameters: [ParameterResult]
        /// The group table: shipped, in-sample picks, cross-validated, then the anchors.
        public var rows: [Row]
        /// For each held-out trial, the values picked on the other trials that differ from the shipped ones.
        public var foldSettings: [String: [String: String]]
        /// Per trial, the errors of the shipped and cross-validated settings (and the anchors), by label.
        public var perTrial: [String: [String: BroadEvaluation.Errors]]
    }

    /// Per-trial errors of each anchor filter, from the JSON of `broad_eval.py --out` (`per_trial`).
    static func readAnchorTrials(_ path: String) throws -> [String: [String: BroadEvaluation.Errors]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let trials = root["per_trial"] as? [[String: Any]] else {
            throw EvaluationError("\(path): expected the JSON of broad_eval.py --out (a \"per_trial\" list)")
        }
        var out: [String: [String: BroadEvaluation.Errors]] = [:]
        for t in trials {
            guard let name = t["trial"] as? String, let results = t["results"] as? [String: Any] else { continue }
            for (filter, e) in results {
                guard let e = e as? [String: Any], let total = e["total"] as? Double, let h = e["heading"] as? Double,
                      let i = e["inclination"] as? Double else { continue }
                out[filter, default: [:]][name] = BroadEvaluation.Errors(total: total, heading: h, inclination: i)
            }
        }
        return out
    }

    /// Runs each trial with its own settings, in parallel.
    static func evaluate(_ jobs: [(trial: BroadEvaluation.Trial, settings: FusionFilter.Settings)],
                         progress: (any EvaluationProgress)?, offset: Int = 0, total: Int? = nil) async -> [BroadEvaluation.TrialResult] {
        await withTaskGroup(of: (Int, BroadEvaluation.TrialResult).self) { group in
            var next = 0
            var out = [BroadEvaluation.TrialResult?](repeating: nil, count: jobs.count)
            var done = 0
            // Two jobs at a time: the machine has two cores, and a trial holds its estimates in memory.
            let width = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4))
            func add(_ g: inout TaskGroup<(Int, BroadEvaluation.TrialResult)>) {
                guard next < jobs.count else { return }
                let i = next, job = jobs[i]
                next += 1
                g.addTask { (i, BroadEvaluation.evaluate(job.trial, settings: job.settings)) }
            }
            for _ in 0..<width { add(&group) }
            while let (i, r) = await group.next() {
                out[i] = r
                done += 1
                progress?.update(Double(offset + done), detail: r.trial)
                add(&group)
            }
            return out.compactMap { $0 }
        }
    }

    /// One pass of coordinate descent on `training` (indices into `trials`): returns the settings and
    /// the values that differ from `base`.
    static func descend(trials: [BroadEvaluation.Trial], training: [Int], base: FusionFilter.Settings,
                        grid: [(name: String, values: [String])], scorer: Scorer, margin: Double,
                        progress: any EvaluationProgress, done: inout Int) async throws -> (FusionFilter.Settings, [String: String]) {
        func scores(_ s: FusionFilter.Settings) async -> [Double] {
            let rs = await evaluate(training.map { (trials[$0], s) }, progress: nil)
            done += training.count
            progress.update(Double(done))
            return rs.map { scorer($0) }
        }
        var current = base
        var currentScores = await scores(base)
        var changed: [String: String] = [:]
        for entry in grid {
            guard let key = SettingsOverrides.keys[entry.name] else { continue }
            let start = current[keyPath: key]
            // Every candidate against the value the constant has now; the best one that passes the margin.
            var best: (value: String, settings: FusionFilter.Settings, scores: [Double], gain: Double)? = nil
            for v in entry.values {
                var s = current
                try SettingsOverrides.apply(["\(entry.name)=\(v)"], to: &s)
                if abs(s[keyPath: key] - start) <= 1e-6 * max(1e-3, abs(start)) { continue }
                let sc = await scores(s)
                guard let gain = passes(sc, over: currentScores, margin: margin) else { continue }
                if gain > (best?.gain ?? 0) { best = (v, s, sc, gain) }
            }
            if let best {
                current = best.settings
                currentScores = best.scores
                changed[entry.name] = best.value
            }
        }
        return (current, changed)
    }

    /// Leave-one-trial-out with coordinate descent in every fold.
    static func runDescent(trials: [BroadEvaluation.Trial], base: FusionFilter.Settings, objective: Objective, margin: Double,
                           grid: [(name: String, values: [String])], anchorsPath: String?,
                           console: any EvaluationConsole) async throws -> Report {
        let scorer = try Scorer(objective: objective, trials: trials.map(\.name), anchorsPath: anchorsPath)
        let n = trials.count
        let candidates = grid.map { $0.values.count - 1 }.reduce(0, +) + 1
        let total = (n + 1) * candidates * n + 3 * n
        let progress = console.progress("cross-validating \(grid.count) settings by coordinate descent, \(n + 1) × \(candidates) runs", total: Double(total), always: true)
        var done = 0
        let shipped = await evaluate(trials.map { ($0, base) }, progress: nil)
        done += n
        let (tunedAll, changedAll) = try await descend(trials: trials, training: Array(0..<n), base: base, grid: grid,
                                                       scorer: scorer, margin: margin, progress: progress, done: &done)
        let inSampleTuned = await evaluate(trials.map { ($0, tunedAll) }, progress: nil)
        done += n
        var foldJobs: [(trial: BroadEvaluation.Trial, settings: FusionFilter.Settings)] = []
        var foldSettings: [String: [String: String]] = [:]
        for k in 0..<n {
            progress.update(Double(done), detail: "fold \(k + 1)/\(n): \(trials[k].name) held out")
            let (s, changed) = try await descend(trials: trials, training: (0..<n).filter { $0 != k }, base: base, grid: grid,
                                                 scorer: scorer, margin: margin, progress: progress, done: &done)
            foldJobs.append((trials[k], s))
            foldSettings[trials[k].name] = changed
        }
        let crossValidated = await evaluate(foldJobs, progress: nil)
        progress.finish()
        var parameters: [ParameterResult] = []
        for entry in grid {
            var picks: [String: Int] = [:]
            for k in 0..<n { picks[foldSettings[trials[k].name]?[entry.name] ?? "shipped", default: 0] += 1 }
            parameters.append(ParameterResult(name: entry.name, shipped: "", candidates: [:], inSamplePick: changedAll[entry.name] ?? "shipped",
                                              shippedScore: .nan, inSampleScore: .nan, crossValidatedScore: .nan, foldPicks: picks))
        }
        return try report(trials: trials, objective: objective, method: .descent, parameters: parameters, shipped: shipped,
                          inSampleTuned: inSampleTuned, crossValidated: crossValidated, foldSettings: foldSettings, margin: margin, anchorsPath: anchorsPath)
    }

    /// Cross-validates the constants of ``fusionGrid`` (those named in `only`, or all) on `trials`.
    /// - Parameters:
    ///   - base: the shipped settings (with any `--set` overrides).
    ///   - margin: standard errors a change must gain by (``passes(_:over:margin:)``).
    ///   - anchorsPath: the JSON of `broad_eval.py --out`: VQF's rows beside ours, and ``Objective/relative``'s totals.
    ///   - console: where the progress and notices go.
    /// - Throws: ``EvaluationError`` when no constant of the grid is named, with fewer than 3 trials, or
    ///   when the anchors are missing or incomplete.
    public static func run(trials: [BroadEvaluation.Trial], base: FusionFilter.Settings, objective: Objective, method: Method,
                           margin: Double = 2, only: [String], anchorsPath: String?, console: any EvaluationConsole) async throws -> Report {
        let grid = only.isEmpty ? fusionGrid : fusionGrid.filter { only.contains($0.name) }
        guard !grid.isEmpty else {
            throw EvaluationError("no tuned setting among \(only); the grid has \(fusionGrid.map(\.name).joined(separator: ", "))")
        }
        let n = trials.count
        guard n >= 3 else { throw EvaluationError("cross-validation needs at least 3 trials, got \(n)") }
        if method == .descent {
            return try await runDescent(trials: trials, base: base, objective: objective, margin: margin, grid: grid, anchorsPath: anchorsPath,
                                        console: console)
        }
        let scorer = try Scorer(objective: objective, trials: trials.map(\.name), anchorsPath: anchorsPath)
        // Candidate settings: (parameter index, value) → settings; the shipped settings once.
        var jobs: [(p: Int, v: String, s: FusionFilter.Settings)] = []
        var shippedValue: [String] = []
        for (pi, entry) in grid.enumerated() {
            var shippedLabel = "?"
            for v in entry.values {
                var s = base
                try SettingsOverrides.apply(["\(entry.name)=\(v)"], to: &s)
                if let key = SettingsOverrides.keys[entry.name],
                   abs(s[keyPath: key] - base[keyPath: key]) <= 1e-6 * max(1e-3, abs(base[keyPath: key])) {
                    shippedLabel = v
                    continue
                }
                jobs.append((pi, v, s))
            }
            if shippedLabel == "?" {
                console.note("cross-validate: the grid of \(entry.name) does not hold its current value; it is scored but not a candidate")
            }
            shippedValue.append(shippedLabel)
        }
        let totalRuns = (jobs.count + 1) * n + 2 * n
        let progress = console.progress("cross-validating \(grid.count) settings, \(jobs.count + 1) candidate runs of \(n) trials", total: Double(totalRuns), always: true)
        var finished = 0
        let shipped = await evaluate(trials.map { ($0, base) }, progress: progress, offset: finished)
        finished += n
        // scores[p][value] = per-trial results
        var results = [[String: [BroadEvaluation.TrialResult]]](repeating: [:], count: grid.count)
        for pi in grid.indices where shippedValue[pi] != "?" { results[pi][shippedValue[pi]] = shipped }
        for job in jobs {
            let r = await evaluate(trials.map { ($0, job.s) }, progress: progress, offset: finished)
            finished += n
            results[job.p][job.v] = r
        }
        func mean(_ rs: [BroadEvaluation.TrialResult], excluding k: Int?) -> Double {
            var sum = 0.0, count = 0
            for (i, r) in rs.enumerated() where i != k { sum += scorer(r); count += 1 }
            return sum / Double(max(1, count))
        }
        func scores(_ rs: [BroadEvaluation.TrialResult], excluding k: Int?) -> [Double] {
            rs.enumerated().filter { $0.offset != k }.map { scorer($0.element) }
        }
        /// The value of parameter `pi` with the largest mean gain over the shipped one on all trials but
        /// `k`, among those that pass the margin.
        func pick(_ pi: Int, excluding k: Int?) -> String {
            let values = grid[pi].values.filter { results[pi][$0] != nil }
            let reference = shippedValue[pi] != "?" ? shippedValue[pi] : values[0]
            let referenceScores = scores(results[pi][reference]!, excluding: k)
            var best = reference, bestGain = 0.0
            for v in values where v != reference {
                guard let gain = passes(scores(results[pi][v]!, excluding: k), over: referenceScores, margin: margin) else { continue }
                if gain > bestGain { best = v; bestGain = gain }
            }
            return best
        }
        var parameters: [ParameterResult] = []
        for pi in grid.indices {
            var candidates: [String: Double] = [:]
            for (v, rs) in results[pi] { candidates[v] = mean(rs, excluding: nil) }
            let inSample = pick(pi, excluding: nil)
            var cv = 0.0
            var picks: [String: Int] = [:]
            for k in 0..<n {
                let v = pick(pi, excluding: k)
                picks[v, default: 0] += 1
                cv += scorer(results[pi][v]![k])
            }
            parameters.append(ParameterResult(
                name: grid[pi].name, shipped: shippedValue[pi], candidates: candidates, inSamplePick: inSample,
                shippedScore: mean(shipped, excluding: nil), inSampleScore: candidates[inSample] ?? .nan,
                crossValidatedScore: cv / Double(n), foldPicks: picks))
        }
        // All constants together: the picks on all trials (in-sample), and per fold (cross-validated).
        func settings(excluding k: Int?) throws -> (FusionFilter.Settings, [String: String]) {
            var s = base
            var changed: [String: String] = [:]
            for pi in grid.indices {
                let v = pick(pi, excluding: k)
                if v != shippedValue[pi] { changed[grid[pi].name] = v }
                try SettingsOverrides.apply(["\(grid[pi].name)=\(v)"], to: &s)
            }
            return (s, changed)
        }
        let (tunedAll, _) = try settings(excluding: nil)
        let inSampleTuned = await evaluate(trials.map { ($0, tunedAll) }, progress: progress, offset: finished)
        finished += n
        var foldJobs: [(trial: BroadEvaluation.Trial, settings: FusionFilter.Settings)] = []
        var foldSettings: [String: [String: String]] = [:]
        for k in 0..<n {
            let (s, changed) = try settings(excluding: k)
            foldJobs.append((trials[k], s))
            foldSettings[trials[k].name] = changed
        }
        let crossValidated = await evaluate(foldJobs, progress: progress, offset: finished)
        progress.finish()
        return try report(trials: trials, objective: objective, method: .separate, parameters: parameters, shipped: shipped,
                          inSampleTuned: inSampleTuned, crossValidated: crossValidated, foldSettings: foldSettings, margin: margin, anchorsPath: anchorsPath)
    }

    static func report(trials: [BroadEvaluation.Trial], objective: Objective, method: Method, parameters: [ParameterResult],
                       shipped: [BroadEvaluation.TrialResult], inSampleTuned: [BroadEvaluation.TrialResult],
                       crossValidated: [BroadEvaluation.TrialResult], foldSettings: [String: [String: String]],
                       margin: Double, anchorsPath: String?) throws -> Report {

        func row(_ label: String, _ rs: [BroadEvaluation.TrialResult]) -> Row {
            Row(label: label,
                groups9D: Dictionary(uniqueKeysWithValues: BroadEvaluation.groupMeans(rs) { $0.ours9D }.map { ($0.group, $0.errors) }),
                groups6D: Dictionary(uniqueKeysWithValues: BroadEvaluation.groupMeans(rs) { $0.ours6D }.map { ($0.group, $0.errors) }))
        }
        var rows = [row("ours, shipped values (in-sample)", shipped),
                    row("ours, picks on all trials (in-sample)", inSampleTuned),
                    row("ours, leave-one-trial-out (cross-validated)", crossValidated)]
        var perTrial: [String: [String: BroadEvaluation.Errors]] = [:]
        for (i, t) in trials.enumerated() {
            perTrial[t.name] = ["shipped 9D": shipped[i].ours9D, "shipped 6D": shipped[i].ours6D,
                                "cross-validated 9D": crossValidated[i].ours9D, "cross-validated 6D": crossValidated[i].ours6D]
        }
        if let anchorsPath {
            let anchors = try readAnchorTrials(anchorsPath)
            for filter in ["VQF 9D", "VQF 6D"] {
                guard let byTrial = anchors[filter] else { continue }
                var r9: [String: BroadEvaluation.Errors] = [:]
                for g in BroadEvaluation.groupOrder {
                    let es = trials.filter { $0.groups.contains(g) }.compactMap { byTrial[$0.name] }
                    guard !es.isEmpty, es.count == trials.filter({ $0.groups.contains(g) }).count else { continue }
                    let m = Double(es.count)
                    r9[g] = BroadEvaluation.Errors(total: es.map(\.total).reduce(0, +) / m,
                                                   heading: es.map(\.heading).reduce(0, +) / m,
                                                   inclination: es.map(\.inclination).reduce(0, +) / m)
                }
                rows.append(filter == "VQF 9D" ? Row(label: filter, groups9D: r9, groups6D: [:]) : Row(label: filter, groups9D: [:], groups6D: r9))
                for t in trials { if let e = byTrial[t.name] { perTrial[t.name, default: [:]][filter] = e } }
            }
        }
        return Report(objective: objective.rawValue, method: method.rawValue, margin: margin, trials: trials.map(\.name), parameters: parameters, rows: rows,
                      foldSettings: foldSettings, perTrial: perTrial)
    }
}
