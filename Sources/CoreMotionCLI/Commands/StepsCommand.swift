import ArgumentParser
import Foundation
import MotionEngine
import MotionEvaluation
import MotionRecordings

/// `coremotion steps FILE`: runs the pedometer engine on a recording and compares it with the
/// recording's ground truth (Oxford, IPOL…) or Apple's own pedometer (Sensor Logger).
struct StepsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steps",
        abstract: "Count steps, distance and floors in a recording; compare with ground truth or Apple's pedometer.",
        discussion: """
            FILE is any recording the readers understand. A data-set archive with several recordings
            (e.g. the Oxford step counter zip) is evaluated member by member, with a table per carry
            position; select one member with FILE#MEMBER.
            """
    )

    @Argument(help: "Recording file, folder or archive (PATH or PATH#MEMBER).")
    var file: String

    @Option(help: "User's body height in metres (for the stride model).")
    var height: Double?

    @Option(help: "Write an SVG plot of acceleration magnitude with detected and true steps (single recording).")
    var plot: String?

    @Flag(help: "Ignore the recording's gyroscope (the accelerometer-only pedometer).")
    var noGyroscope = false

    @Flag(help: "Print results as JSON.")
    var json = false

    @Flag(help: "Leave-one-subject-out cross-validation of the step detector's tuned constants over FILE and the --also archives (docs/pedometer.md, Tuning).")
    var crossValidate = false

    @Option(help: "With --cross-validate: a further data-set archive pooled with FILE (repeatable).")
    var also: [String] = []

    @Flag(help: "With --json: include the detected and the true step times (s) of every recording.")
    var stepTimes = false

    struct Report: Codable {
        var results: [StepsEvaluation.Result]
        var summaries: [StepsEvaluation.Summary]
    }

    mutating func validate() throws {
        if let height, !(height.isFinite && height > 0.5 && height < 2.8) {
            throw ValidationError("--height must be a body height in metres between 0.5 and 2.8, got \(height)")
        }
    }

    mutating func run() async throws {
        if crossValidate {
            let report = try await reportingAsUsage { try await StepsCrossValidation.run(files: [file] + also, console: TerminalConsole()) }
            if json { try Output.json(report) } else { print(StepsCrossValidation.render(report)) }
            return
        }
        let url = URL(fileURLWithPath: file)
        let hasMember = file.contains("#")
        let members = hasMember ? [] : ((try? RecordingReader.members(of: url)) ?? [])
        var results: [StepsEvaluation.Result] = []
        if members.isEmpty {
            let recording = try RecordingReader.read(url)
            var (result, trace) = StepsEvaluation.evaluate(recording, name: (file as NSString).lastPathComponent, height: height, useGyroscope: !noGyroscope, keepTrace: plot != nil)
            if !stepTimes { result.detectedStepTimes = nil; result.trueStepTimes = nil }
            results.append(result)
            if let plot, let trace { try Self.writePlot(trace, recording: recording, to: plot) }
        } else {
            let progress = ProgressLine("steps", total: Double(members.count))
            for (i, member) in members.enumerated() {
                let recording = try RecordingReader.read(url, member: member.name)
                var (result, _) = StepsEvaluation.evaluate(recording, name: member.name, height: height, useGyroscope: !noGyroscope, keepTrace: false)
                result.position = result.position ?? member.properties["carryPosition"]
                if !stepTimes { result.detectedStepTimes = nil; result.trueStepTimes = nil }
                results.append(result)
                progress.update(Double(i + 1), detail: member.name)
            }
            progress.finish()
        }
        let summaries = StepsEvaluation.summarise(results)
        if json {
            try Output.json(Report(results: results, summaries: summaries))
            return
        }
        print(Self.render(results, summaries))
    }

    static func render(_ results: [StepsEvaluation.Result], _ summaries: [StepsEvaluation.Summary]) -> String {
        var rows: [[String]] = []
        let hasTrials = results.contains { $0.trialTruth != nil }
        for r in results {
            let trial = hasTrials ? [r.trialSteps.map(String.init) ?? "", r.trialTruth.map(String.init) ?? "", r.trialErrorPercent.map { Output.fixed($0, 1) } ?? ""] : []
            rows.append([
                r.name, r.position ?? "", "\(r.steps)", r.truth.map(String.init) ?? "",
                r.errorPercent.map { Output.fixed($0, 1) } ?? "",
            ] + trial + [
                r.apple.map(String.init) ?? "", r.oursOverAppleSpan.map(String.init) ?? "",
                r.appleErrorPercent.map { Output.fixed($0, 1) } ?? "",
                Output.fixed(r.distance, 1), "\(r.floorsAscended)/\(r.floorsDescended)",
            ])
        }
        let trialHeader = hasTrials ? ["trial steps", "trial truth", "trial err %"] : []
        var text = Output.table(["recording", "position", "steps", "truth", "err %"] + trialHeader + ["Apple", "ours (Apple span)", "vs Apple %", "distance m", "floors up/down"], rows)
        if !summaries.isEmpty {
            text += "\n\n" + Output.table(
                ["group", "n", "median |err| %", "p90 |err| %", "max |err| %"],
                summaries.map { [$0.group, "\($0.count)", Output.fixed($0.medianAbsErrorPercent, 2), Output.fixed($0.p90AbsErrorPercent, 2), Output.fixed($0.maxAbsErrorPercent, 2)] }
            )
        }
        if results.count == 1, let events = results[0].events, !events.isEmpty {
            text += "\n\nevents: " + events.joined(separator: ", ")
        }
        return text
    }

    static func writePlot(_ trace: StepsEvaluation.Trace, recording: Recording, to path: String) throws {
        var plot = SVGPlot(title: "Acceleration magnitude, detected and true steps", xLabel: "time (s)", yLabel: "|a| (g)")
        plot.add("|a|", trace.magnitude)
        plot.add("detected steps", trace.steps.flatMap { [($0, 0.4), ($0, 0.6), ($0, .nan)] })
        let truth = recording.reference.stepTimes
        if !truth.isEmpty { plot.add("true steps", truth.flatMap { [($0, 0.25), ($0, 0.45), ($0, .nan)] }, dashed: true) }
        try plot.write(to: URL(fileURLWithPath: path))
    }
}
