import ArgumentParser
import Foundation
import MotionEngine
import MotionRecordings
import MotionSamples

/// `coremotion evaluate`: scores the fusion engine on BROAD (optical truth) and against Apple's own
/// device motion, prints the tables and writes plots.
struct EvaluateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Score the fusion engine on BROAD and against Apple's device motion.",
        discussion: """
            BROAD: per-trial and per-group RMSE (total / heading / inclination, degrees) of the 9D attitude
            (xMagneticNorthZVertical) and of the 6D attitude (xArbitraryZVertical, one heading offset removed
            per trial), scored like eval/broad_eval.py. Give --anchors with the JSON written by
            `broad_eval.py --out` to print VQF and the other public filters beside ours.
            """
    )

    @Option(help: "Folder of the shared data sets (default: $COREMOTION_DATA or ../shared/data).")
    var data: String?

    @Option(help: "Which evaluations to run: broad, apple (comma-separated).")
    var suites: String = "broad,apple"

    @Option(help: "Only BROAD trials whose names start with these prefixes (comma-separated).")
    var trials: String = ""

    @Option(help: "JSON written by broad_eval.py --out, for side-by-side anchor figures.")
    var anchors: String?

    @Option(name: .customLong("set"), help: "Override a fusion setting, NAME=VALUE (repeatable).")
    var overrides: [String] = []

    @Option(help: "Sweep one setting: NAME=V1,V2,… (BROAD only; prints one group table per value).")
    var sweep: String?

    @Option(help: "Folder for SVG plots (none when omitted).")
    var plots: String?

    @Flag(help: "Print per-trial rows.")
    var perTrial = false

    @Flag(help: "Print results as JSON.")
    var json = false

    @Flag(help: "List the settings --set and --sweep accept.")
    var listSettings = false

    func run() async throws {
        if listSettings {
            print((SettingsOverrides.keys.keys.sorted() + SettingsOverrides.flags.keys.sorted()).joined(separator: "\n"))
            return
        }
        var settings = FusionFilter.Settings()
        try SettingsOverrides.apply(overrides, to: &settings)
        let dataFolder = try Self.dataFolder(data)
        let wanted = Set(suites.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        if wanted.contains("broad") {
            try await runBroad(folder: dataFolder.appendingPathComponent("broad"), settings: settings)
        }
        if wanted.contains("apple") {
            try await runParity(data: dataFolder, settings: settings)
        }
    }

    func runParity(data: URL, settings: FusionFilter.Settings) async throws {
        var summaries: [ParityEvaluation.Summary] = []
        for (dataset, sources) in try ParityEvaluation.sources(data: data) {
            let progress = ProgressLine("apple parity: \(dataset)", total: Double(sources.count))
            var series: [ParityEvaluation.Series] = []
            for (i, source) in sources.enumerated() {
                progress.update(Double(i), detail: source.label)
                let recording = try RecordingReader.read(source.location)
                series.append(ParityEvaluation.compare(recording, label: source.label, settings: settings, keepTraces: plots != nil && i == 0))
            }
            progress.finish()
            summaries.append(ParityEvaluation.summarize(dataset: dataset, series))
            if perTrial && !json {
                let rows = series.map { s in
                    [s.label, "\(s.samples)",
                     Output.fixed(ParityEvaluation.percentile(s.gravityAngles, 50), 2) + " / " + Output.fixed(ParityEvaluation.percentile(s.gravityAngles, 95), 2),
                     Output.fixed(ParityEvaluation.percentile(s.attitudeChangeErrors, 50), 2),
                     Output.fixed(ParityEvaluation.percentile(s.rotationRateErrors, 50), 4)]
                }
                print(Output.table(["\(dataset) recording", "samples", "gravity ° median / p95", "10 s change ° median", "rate rad/s median"], rows))
            }
        }
        if json {
            try Output.json(summaries)
            return
        }
        let rows = summaries.map { s in
            [s.dataset, "\(s.recordings)", "\(s.samples)",
             "\(Output.fixed(s.gravityMedianDegrees, 3)) / \(Output.fixed(s.gravityP95Degrees, 3))",
             "\(Output.fixed(s.attitudeChange10sMedianDegrees, 3)) / \(Output.fixed(s.attitudeChange10sP95Degrees, 3))",
             "\(Output.fixed(s.rotationRateMedianRadPerSecond, 4)) / \(Output.fixed(s.rotationRateP95RadPerSecond, 4))"]
        }
        print(Output.table(["data set", "recordings", "samples", "gravity angle ° median / p95",
                            "10 s attitude change ° median / p95", "rotation rate rad/s median / p95"], rows))
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

    func runBroad(folder: URL, settings: FusionFilter.Settings) async throws {
        let only = trials.split(separator: ",").map(String.init)
        let loading = ProgressLine("loading BROAD", total: 16)
        let loaded = try BroadEvaluation.load(folder: folder, only: only, progress: loading)
        loading.finish("\(loaded.count) trials")
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
        for (label, s) in variants {
            let results = await Self.evaluateAll(loaded, settings: s, keepSeries: plots != nil)
            if !label.isEmpty { print("\n## \(label)") }
            printBroad(results)
        }
    }

    static func evaluateAll(_ trials: [BroadEvaluation.Trial], settings: FusionFilter.Settings, keepSeries: Bool) async -> [BroadEvaluation.TrialResult] {
        await withTaskGroup(of: (Int, BroadEvaluation.TrialResult).self) { group in
            for (i, t) in trials.enumerated() {
                group.addTask { (i, BroadEvaluation.evaluate(t, settings: settings, keepSeries: keepSeries)) }
            }
            var out = [BroadEvaluation.TrialResult?](repeating: nil, count: trials.count)
            for await (i, r) in group { out[i] = r }
            return out.compactMap { $0 }
        }
    }

    func printBroad(_ results: [BroadEvaluation.TrialResult]) {
        func cell(_ e: BroadEvaluation.Errors) -> String {
            "\(Output.fixed(e.total, 2)) / \(Output.fixed(e.heading, 2)) / \(Output.fixed(e.inclination, 2))"
        }
        if perTrial {
            let rows = results.map { [$0.trial, cell($0.ours9D), Output.fixed($0.ours6D.inclination, 2)] }
            print(Output.table(["trial", "ours 9D tot/head/incl", "ours 6D incl"], rows))
        }
        let g9 = BroadEvaluation.groupMeans(results) { $0.ours9D }
        let g6 = BroadEvaluation.groupMeans(results) { $0.ours6D }
        let rows = zip(g9, g6).map { a, b in ["\(a.group) (n=\(a.count))", cell(a.errors), cell(b.errors)] }
        print(Output.table(["group", "ours 9D tot/head/incl", "ours 6D tot/head/incl"], rows))
        let samples = results.map(\.samples).reduce(0, +)
        let seconds = results.map(\.fusionSeconds).reduce(0, +)
        print("fusion time: \(Output.fixed(seconds * 1e6 / Double(max(1, samples)), 3)) us per sample (\(samples) samples)")
    }
}
