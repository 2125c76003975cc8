import ArgumentParser
import Foundation
import MotionEngine
import MotionEvaluation
import MotionRecordings
import MotionSamples

/// `coremotion evaluate`: scores the fusion engine on BROAD (optical truth) and against Apple's own
/// device motion, prints the tables (or JSON) and writes plots.
struct EvaluateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Score the fusion engine on BROAD and against Apple's device motion.",
        discussion: """
            broad: per-group mean RMSE (total / heading / inclination, degrees) of the 9D attitude
            (xMagneticNorthZVertical) and of the 6D attitude (xArbitraryZVertical, one heading offset removed
            per trial), scored like eval/broad_eval.py. With --anchors (the JSON written by
            `broad_eval.py --out`), VQF and the other public filters are printed beside ours.
            apple: our gravity, 10 s attitude change and rotation rate against Apple's, on the iPhone 13
            Sensor Logger walk, mPower and MotionSense.
            --plots DIR writes SVG plots: BROAD 9D error over time per trial, our gravity against Apple's.
            """
    )

    @Option(help: "Folder of the shared data sets (default: $COREMOTION_DATA, else ../shared/data).")
    var data: String?

    @Option(help: "Which evaluations to run: broad, apple (comma-separated).")
    var suites: String = "broad,apple"

    @Option(help: "Only BROAD trials whose names start with these prefixes (comma-separated).")
    var trials: String = ""

    @Option(help: "JSON written by broad_eval.py --out, for side-by-side anchor figures.")
    var anchors: String?

    @Option(name: .customLong("set"), help: "Override a fusion setting, NAME=VALUE (repeatable; see --list-settings).")
    var overrides: [String] = []

    @Option(help: "Sweep one setting: NAME=V1,V2,… (BROAD only; one group table per value).")
    var sweep: String?

    @Option(help: "Apple parity: how the filter starts, cold, warm or both (comma-separated). warm restores the bias and magnetometer calibration a first pass over the recording ended with, as the service restores a saved calibration.")
    var start: String = "cold"

    @Option(help: "Apple parity: seconds at the start of each recording left out of the gravity figures (the target excludes the first 5 s).")
    var excludeStart: Double = 5

    @Option(help: "Apple parity: write every recording's gravity angles (degrees, after --exclude-start) to this JSON file.")
    var dumpAngles: String?

    @Option(help: "Folder for SVG plots (none when omitted).")
    var plots: String?

    @Flag(help: "Print per-trial (per-recording) rows.")
    var perTrial = false

    @Flag(help: "Print results as JSON.")
    var json = false

    @Flag(help: "List the settings --set and --sweep accept.")
    var listSettings = false

    @Flag(help: "Leave-one-trial-out cross-validation on BROAD of every tuned setting with a candidate grid (see docs/fusion.md, Tuning).")
    var crossValidate = false

    @Option(help: "With --cross-validate: the trial score minimised, sum (9D total + 6D total), 9d, 6d or vqf (9D / VQF 9D + 6D / VQF 6D, needs --anchors).")
    var cvObjective: String = "sum"

    @Option(help: "With --cross-validate: how the constants are picked, separate (each scanned alone, then combined) or descent (one pass of coordinate descent per fold).")
    var cvMethod: String = "descent"

    @Option(help: "With --cross-validate: only these settings (comma-separated; default every setting with a grid).")
    var cvSettings: String = ""

    @Option(help: "With --cross-validate: a value replaces the current one only when its mean gain over the training trials exceeds this many standard errors of the per-trial gains (0: any gain; above 1, a gain on one trial alone never passes).")
    var cvMargin: Double = 2

    /// Everything `--json` prints.
    struct Report: Codable {
        var broad: BroadReport?
        var apple: [ParityEvaluation.Summary]?
    }

    struct BroadReport: Codable {
        var trials: [BroadEvaluation.TrialResult]
        var groups9D: [String: BroadEvaluation.Errors]
        var groups6D: [String: BroadEvaluation.Errors]
        var microsecondsPerSample: Double
        var anchors: [String: [String: BroadEvaluation.Errors]]?
    }

    func run() async throws {
        try await reportingAsUsage { try await evaluate() }
    }

    /// What `run` does; an ``EvaluationError`` is a usage error.
    func evaluate() async throws {
        if listSettings {
            print((SettingsOverrides.keys.keys.sorted() + SettingsOverrides.flags.keys.sorted()).joined(separator: "\n"))
            return
        }
        var settings = FusionFilter.Settings()
        try SettingsOverrides.apply(overrides, to: &settings)
        let dataFolder = try Self.dataFolder(data)
        let wanted = Set(suites.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        let unknown = wanted.subtracting(["broad", "apple"])
        guard unknown.isEmpty else { throw ValidationError("unknown suite(s) \(unknown.sorted()); use broad, apple") }
        if let plots { try FileManager.default.createDirectory(atPath: plots, withIntermediateDirectories: true) }
        if crossValidate {
            try await runCrossValidation(folder: dataFolder.appendingPathComponent("broad"), settings: settings)
            return
        }
        var report = Report()
        if wanted.contains("broad") {
            report.broad = try await runBroad(folder: dataFolder.appendingPathComponent("broad"), settings: settings)
        }
        if wanted.contains("apple") {
            report.apple = try await runParity(data: dataFolder, settings: settings)
        }
        if json { try Output.json(report) }
    }

    static func dataFolder(_ option: String?) throws -> URL {
        if let option { return URL(fileURLWithPath: option) }
        if let env = ProcessInfo.processInfo.environment["COREMOTION_DATA"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        let beside = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            .deletingLastPathComponent().appendingPathComponent("shared/data")
        if FileManager.default.fileExists(atPath: beside.path) { return beside }
        throw ValidationError("no data folder: pass --data or set COREMOTION_DATA")
    }

    // MARK: Cross-validation

    func runCrossValidation(folder: URL, settings: FusionFilter.Settings) async throws {
        guard let objective = CrossValidation.Objective(rawValue: cvObjective) else {
            throw ValidationError("bad --cv-objective '\(cvObjective)': sum, 9d, 6d or vqf")
        }
        guard FileManager.default.fileExists(atPath: folder.path) else {
            Output.note("BROAD: \(folder.path) not found, nothing to cross-validate")
            return
        }
        let only = trials.split(separator: ",").map(String.init)
        let loading = ProgressLine("loading BROAD", total: 16)
        let loaded = try BroadEvaluation.load(folder: folder, only: only, progress: loading)
        loading.finish("\(loaded.count) trials")
        guard let method = CrossValidation.Method(rawValue: cvMethod) else {
            throw ValidationError("bad --cv-method '\(cvMethod)': separate or descent")
        }
        guard cvMargin.isFinite, cvMargin >= 0 else {
            throw ValidationError("bad --cv-margin \(cvMargin): a number of standard errors, 0 or more")
        }
        let names = cvSettings.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let report = try await CrossValidation.run(trials: loaded, base: settings, objective: objective, method: method,
                                                   margin: cvMargin, only: names, anchorsPath: anchors, console: TerminalConsole())
        if json { try Output.json(report) } else { print(CrossValidation.render(report)) }
    }

    // MARK: BROAD

    func runBroad(folder: URL, settings: FusionFilter.Settings) async throws -> BroadReport? {
        guard FileManager.default.fileExists(atPath: folder.path) else {
            Output.note("BROAD: \(folder.path) not found, skipped")
            return nil
        }
        let only = trials.split(separator: ",").map(String.init)
        let loading = ProgressLine("loading BROAD", total: 16)
        let loaded = try BroadEvaluation.load(folder: folder, only: only, progress: loading)
        loading.finish("\(loaded.count) trials")
        let anchorGroups = try anchors.map(BroadEvaluation.readAnchors)
        var variants: [(String, FusionFilter.Settings)] = [("", settings)]
        if let sweep {
            let parts = sweep.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ValidationError("bad --sweep '\(sweep)': NAME=V1,V2,…") }
            variants = try parts[1].split(separator: ",").map { v in
                var s = settings
                try SettingsOverrides.apply(["\(parts[0])=\(v)"], to: &s)
                return ("\(parts[0])=\(v)", s)
            }
        }
        var last: BroadReport?
        for (label, s) in variants {
            let progress = ProgressLine("fusing BROAD\(label.isEmpty ? "" : " " + label)", total: Double(loaded.count))
            let results = await BroadEvaluation.evaluateAll(loaded, settings: s, keepSeries: plots != nil, progress: progress)
            progress.finish()
            let g9 = BroadEvaluation.groupMeans(results) { $0.ours9D }
            let g6 = BroadEvaluation.groupMeans(results) { $0.ours6D }
            let samples = results.map(\.samples).reduce(0, +)
            let seconds = results.map(\.fusionSeconds).reduce(0, +)
            var r = BroadReport(
                trials: results, groups9D: Dictionary(uniqueKeysWithValues: g9.map { ($0.group, $0.errors) }),
                groups6D: Dictionary(uniqueKeysWithValues: g6.map { ($0.group, $0.errors) }),
                microsecondsPerSample: seconds * 1e6 / Double(max(1, samples)), anchors: anchorGroups
            )
            if !json {
                if !label.isEmpty { print("\n## \(label)") }
                printBroad(results, g9: g9, g6: g6, anchors: anchorGroups, microseconds: r.microsecondsPerSample)
            }
            if let plots { try Self.plotBroad(results, folder: plots) }
            if json { for i in r.trials.indices { r.trials[i].totalErrorSeries = nil; r.trials[i].times = nil } }
            last = r
        }
        return last
    }

    func printBroad(
        _ results: [BroadEvaluation.TrialResult], g9: [(group: String, count: Int, errors: BroadEvaluation.Errors)],
        g6: [(group: String, count: Int, errors: BroadEvaluation.Errors)],
        anchors: [String: [String: BroadEvaluation.Errors]]?, microseconds: Double
    ) {
        func cell(_ e: BroadEvaluation.Errors?) -> String {
            guard let e else { return "–" }
            return "\(Output.fixed(e.total, 2)) / \(Output.fixed(e.heading, 2)) / \(Output.fixed(e.inclination, 2))"
        }
        if perTrial {
            let rows = results.map { [$0.trial, cell($0.ours9D), Output.fixed($0.ours6D.inclination, 2),
                                      Output.fixed($0.ours6D.heading, 2), $0.fallback6D.map { Output.fixed($0.heading, 2) } ?? "–"] }
            print(Output.table(["trial", "ours 9D tot/head/incl", "ours 6D incl", "6D heading (offset fitted)", "6D heading from the 9D start"], rows))
            print("")
        }
        let groups = g9.map(\.group)
        var header = ["filter (total / heading / inclination, °)"]
        header += zip(g9.map(\.group), g9.map(\.count)).map { "\($0) (n=\($1))" }
        var rows: [[String]] = [["ours 9D"] + g9.map { cell($0.errors) }, ["ours 6D"] + g6.map { cell($0.errors) }]
        let fallback = BroadEvaluation.groupMeans(results.filter { $0.fallback6D != nil }) { $0.fallback6D! }
        rows.append(["ours 6D from the 9D heading at movement start"] + g9.map { g in cell(fallback.first { $0.group == g.group }?.errors) })
        if let anchors {
            for name in anchors.keys.sorted() where !name.hasPrefix("ours") {
                rows.append([name] + groups.map { cell(anchors[name]?[$0]) })
            }
        }
        print(Output.table(header, rows))
        let biasErrors = results.compactMap(\.biasErrorDegreesPerSecond)
        if !biasErrors.isEmpty {
            let mean = biasErrors.reduce(0, +) / Double(biasErrors.count)
            print("gyro bias at the end of motion vs the final rest: \(Output.fixed(mean, 4)) °/s mean, \(Output.fixed(biasErrors.max() ?? 0, 4)) max (\(biasErrors.count) trials)")
        }
        print("fusion time: \(Output.fixed(microseconds, 3)) us per sample (device-motion estimator, BROAD rows)")
    }

    static func plotBroad(_ results: [BroadEvaluation.TrialResult], folder: String) throws {
        for r in results {
            guard let series = r.totalErrorSeries, let times = r.times, !series.isEmpty else { continue }
            var plot = SVGPlot(title: "BROAD \(r.trial): 9D attitude error (ours)", xLabel: "time (s)", yLabel: "total error (°)")
            plot.add("ours 9D", zip(times, series).map { (x: Double($0), y: Double($1)) })
            try plot.write(to: URL(fileURLWithPath: folder).appendingPathComponent("broad-\(r.trial).svg"))
        }
    }

    // MARK: Apple parity

    func runParity(data: URL, settings: FusionFilter.Settings) async throws -> [ParityEvaluation.Summary] {
        var summaries: [ParityEvaluation.Summary] = []
        var starts: [ParityEvaluation.Start] = []
        for word in start.split(separator: ",") {
            guard let s = ParityEvaluation.Start(rawValue: word.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("bad --start '\(start)': cold, warm or cold,warm")
            }
            if !starts.contains(s) { starts.append(s) }
        }
        guard !starts.isEmpty else { throw ValidationError("bad --start '\(start)': cold, warm or cold,warm") }
        var dumped: [String: [Double]] = [:]
        for startMode in starts {
        for (dataset, sources) in try ParityEvaluation.sources(data: data) {
            let progress = ProgressLine("apple parity: \(dataset) (\(startMode.rawValue) start)", total: Double(sources.count))
            var series: [ParityEvaluation.Series] = []
            for (i, source) in sources.enumerated() {
                progress.update(Double(i), detail: source.label)
                let recording = try RecordingReader.read(source.location)
                let s = ParityEvaluation.compare(recording, label: source.label, settings: settings, start: startMode, keepTraces: plots != nil && i == 0, excludingFirst: excludeStart)
                if let plots, i == 0 { try Self.plotGravity(s, dataset: dataset, start: startMode, folder: plots) }
                series.append(s)
            }
            progress.finish()
            summaries.append(ParityEvaluation.summarize(dataset: dataset, start: startMode, excludedStart: excludeStart, series))
            for s in series { dumped["\(startMode.rawValue) \(dataset) \(s.label)"] = s.gravityAngles.map { ($0 * 1000).rounded() / 1000 } }
            if perTrial && !json {
                let rows = series.map { s in
                    [s.label, "\(s.samples)",
                     Output.fixed(ParityEvaluation.percentile(s.gravityAngles, 50), 2) + " / " + Output.fixed(ParityEvaluation.percentile(s.gravityAngles, 95), 2),
                     Output.fixed(ParityEvaluation.percentile(s.attitudeChangeErrors, 50), 2),
                     Output.fixed(ParityEvaluation.percentile(s.rotationRateErrors, 50), 4)]
                }
                print(Output.table(["\(dataset) recording (\(startMode.rawValue) start)", "samples", "gravity ° median / p95", "10 s change ° median", "rate rad/s median"], rows))
            }
        }
        }
        if let dumpAngles {
            try JSONEncoder().encode(dumped).write(to: URL(fileURLWithPath: dumpAngles))
        }
        if !json {
            for s in summaries {
                guard let groups = s.gravityByGroup else { continue }
                let rows = groups.sorted { $0.key < $1.key }.map { k, g in
                    [k, Output.fixed(g.medianDegrees, 3) + " / " + Output.fixed(g.p95Degrees, 3),
                     Output.fixed(g.appleVsAccelerometerMedianDegrees, 3) + " / " + Output.fixed(g.appleVsAccelerometerP95Degrees, 3)]
                }
                print(Output.table(["\(s.dataset) group (\(s.start.rawValue) start)", "gravity vs Apple ° median / p95", "Apple vs its accelerometer (5 s mean) °"], rows))
            }
            let rows = summaries.map { s in
                [s.dataset, s.start.rawValue, "\(s.recordings)", "\(s.samples)",
                 "\(Output.fixed(s.gravityMedianDegrees, 3)) / \(Output.fixed(s.gravityP95Degrees, 3))",
                 "\(Output.fixed(s.attitudeChange10sMedianDegrees, 3)) / \(Output.fixed(s.attitudeChange10sP95Degrees, 3))",
                 "\(Output.fixed(s.rotationRateMedianRadPerSecond, 4)) / \(Output.fixed(s.rotationRateP95RadPerSecond, 4))",
                 "\(Output.fixed(s.appleVsAccelerometerMedianDegrees, 2)) / \(Output.fixed(s.appleVsAccelerometerP95Degrees, 2))",
                 "\(Output.fixed(s.oursVsAccelerometerMedianDegrees, 2)) / \(Output.fixed(s.oursVsAccelerometerP95Degrees, 2))"]
            }
            print("Gravity compared after the first \(Output.fixed(excludeStart, 1)) s of each recording (--exclude-start).")
            print(Output.table(["data set", "start", "recordings", "samples", "gravity angle ° median / p95",
                                "10 s attitude change ° median / p95", "rotation rate rad/s median / p95",
                                "Apple vs its accel. (5 s) °", "ours vs our accel. (5 s) °"], rows))
        }
        return summaries
    }

    static func plotGravity(_ s: ParityEvaluation.Series, dataset: String, start: ParityEvaluation.Start, folder: String) throws {
        guard !s.ours.isEmpty else { return }
        for (axis, name) in [(0, "x"), (1, "y"), (2, "z")] {
            var plot = SVGPlot(title: "\(dataset) \(s.label): gravity \(name), ours vs Apple's", xLabel: "time (s)", yLabel: "gravity \(name) (g)")
            func pick(_ v: Vector3) -> Double { axis == 0 ? v.x : (axis == 1 ? v.y : v.z) }
            plot.add("Apple", s.apple.map { (x: $0.t, y: pick($0.g)) })
            plot.add("ours", s.ours.map { (x: $0.t, y: pick($0.g)) }, dashed: true)
            let safe = s.label.replacingOccurrences(of: "/", with: "-") + (start == .cold ? "" : "-\(start.rawValue)")
            try plot.write(to: URL(fileURLWithPath: folder).appendingPathComponent("gravity-\(dataset)-\(safe)-\(name).svg"))
        }
        var angles = SVGPlot(title: "\(dataset) \(s.label): angle between our gravity and Apple's", xLabel: "time (s)", yLabel: "angle (°)")
        angles.add("angle", zip(s.gravityTimes, s.gravityAngles).map { (x: $0, y: $1) })
        let safe = s.label.replacingOccurrences(of: "/", with: "-") + (start == .cold ? "" : "-\(start.rawValue)")
        try angles.write(to: URL(fileURLWithPath: folder).appendingPathComponent("gravity-angle-\(dataset)-\(safe).svg"))
    }
}
