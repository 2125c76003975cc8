import ArgumentParser
import Foundation
import MotionEngine
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

    struct Result: Codable {
        var name: String
        var position: String?
        var steps: Int
        var truth: Int?
        var errorPercent: Double?
        var apple: Int?
        var oursOverAppleSpan: Int?
        var appleErrorPercent: Double?
        var distance: Double
        var floorsAscended: Int
        var floorsDescended: Int
        var averageActivePace: Double?
        var activeTime: Double
        var events: [String]?
        var detectedStepTimes: [Double]?
        var trueStepTimes: [Double]?
        /// IPOL trials: the protocol walk's window (s), our steps and the annotated steps inside it.
        var trialWindow: [Double]?
        var trialSteps: Int?
        var trialTruth: Int?
        var trialErrorPercent: Double?
    }

    struct Summary: Codable {
        var group: String
        var count: Int
        var medianAbsErrorPercent: Double
        var p90AbsErrorPercent: Double
        var maxAbsErrorPercent: Double
    }

    struct Report: Codable {
        var results: [Result]
        var summaries: [Summary]
    }

    mutating func validate() throws {
        if let height, !(height.isFinite && height > 0.5 && height < 2.8) {
            throw ValidationError("--height must be a body height in metres between 0.5 and 2.8, got \(height)")
        }
    }

    mutating func run() async throws {
        if crossValidate {
            let report = try await StepsCrossValidation.run(files: [file] + also)
            if json { try Output.json(report) } else { print(StepsCrossValidation.render(report)) }
            return
        }
        let url = URL(fileURLWithPath: file)
        let hasMember = file.contains("#")
        let members = hasMember ? [] : ((try? RecordingReader.members(of: url)) ?? [])
        var results: [Result] = []
        if members.isEmpty {
            let recording = try RecordingReader.read(url)
            var (result, trace) = Self.evaluate(recording, name: (file as NSString).lastPathComponent, height: height, useGyroscope: !noGyroscope, keepTrace: plot != nil)
            if !stepTimes { result.detectedStepTimes = nil; result.trueStepTimes = nil }
            results.append(result)
            if let plot, let trace { try Self.writePlot(trace, recording: recording, to: plot) }
        } else {
            let progress = ProgressLine("steps", total: Double(members.count))
            for (i, member) in members.enumerated() {
                let recording = try RecordingReader.read(url, member: member.name)
                var (result, _) = Self.evaluate(recording, name: member.name, height: height, useGyroscope: !noGyroscope, keepTrace: false)
                result.position = result.position ?? member.properties["carryPosition"]
                if !stepTimes { result.detectedStepTimes = nil; result.trueStepTimes = nil }
                results.append(result)
                progress.update(Double(i + 1), detail: member.name)
            }
            progress.finish()
        }
        let summaries = Self.summarise(results)
        if json {
            try Output.json(Report(results: results, summaries: summaries))
            return
        }
        print(Self.render(results, summaries))
    }

    // MARK: - Evaluation

    struct Trace {
        var magnitude: [(x: Double, y: Double)] = []
        var steps: [Double] = []
    }

    static func evaluate(_ recording: Recording, name: String, height: Double?, useGyroscope: Bool = true,
                         configuration: PedometerEngine.Configuration? = nil, keepTrace: Bool) -> (Result, Trace?) {
        var engine = PedometerEngine(configuration: configuration ?? .init(userHeight: height))
        var trace = keepTrace ? Trace() : nil
        var stepTimes: [Double] = []
        var events: [String] = []
        // Merge accelerometer, gyroscope (unless --no-gyroscope) and barometer in time order.
        let acc = recording.accelerometer, baro = recording.barometer, gyro = useGyroscope ? recording.gyroscope : []
        var i = 0, j = 0, k = 0
        while i < acc.count || j < baro.count || k < gyro.count {
            if k < gyro.count && (i >= acc.count || gyro[k].time <= acc[i].time) && (j >= baro.count || gyro[k].time <= baro[j].time) {
                engine.add(.gyroscope(gyro[k])); k += 1
            } else if j < baro.count && (i >= acc.count || baro[j].time <= acc[i].time) {
                engine.add(.barometer(baro[j])); j += 1
            } else {
                engine.add(.accelerometer(acc[i]))
                if keepTrace { trace?.magnitude.append((acc[i].time, acc[i].value.norm)) }
                i += 1
            }
            while let e = engine.nextEvent() { record(e, &stepTimes, &events) }
        }
        engine.finish()
        while let e = engine.nextEvent() { record(e, &stepTimes, &events) }
        trace?.steps = stepTimes

        let ref = recording.reference
        let truth = ref.stepTotal ?? (ref.stepTimes.isEmpty ? nil : ref.stepTimes.count)
        var result = Result(
            name: name, position: recording.metadata.properties["carryPosition"], steps: stepTimes.count, truth: truth,
            errorPercent: truth.flatMap { $0 > 0 ? Double(stepTimes.count - $0) / Double($0) * 100 : nil },
            distance: engine.distance, floorsAscended: engine.floorsAscended, floorsDescended: engine.floorsDescended,
            averageActivePace: engine.averageActivePace, activeTime: engine.activeTime,
            events: events.isEmpty ? nil : events,
            detectedStepTimes: stepTimes, trueStepTimes: ref.stepTimes.isEmpty ? nil : ref.stepTimes
        )
        if let window = GaitProtocolWindow(recording) {
            let inTruth = ref.stepTimes.filter { window.truth.contains($0) }.count
            let inOurs = stepTimes.filter { window.detection.contains($0) }.count
            result.trialWindow = [window.detection.lowerBound, window.detection.upperBound]
            result.trialSteps = inOurs
            result.trialTruth = inTruth
            result.trialErrorPercent = inTruth > 0 ? Double(inOurs - inTruth) / Double(inTruth) * 100 : nil
        }
        if let first = ref.cumulativeSteps.first, let last = ref.cumulativeSteps.last, last.time > first.time {
            let apple = Int((last.value - first.value).rounded())
            let ours = stepTimes.filter { $0 > first.time && $0 <= last.time }.count
            result.apple = apple
            result.oursOverAppleSpan = ours
            result.appleErrorPercent = apple > 0 ? Double(ours - apple) / Double(apple) * 100 : nil
        }
        return (result, trace)
    }

    private static func record(_ e: PedometerEvent, _ steps: inout [Double], _ events: inout [String]) {
        switch e {
        case .step(let t, _): steps.append(t)
        case .pause(let t): events.append(String(format: "pause %.2f", t))
        case .resume(let t): events.append(String(format: "resume %.2f", t))
        case .floor(let t, let up): events.append(String(format: "floor %@ %.2f", up ? "up" : "down", t))
        }
    }

    static func summarise(_ results: [Result]) -> [Summary] {
        func summary(_ group: String, _ rs: [Result]) -> Summary? {
            let e = rs.compactMap { $0.errorPercent }.filter(\.isFinite).map(abs).sorted()
            guard !e.isEmpty else { return nil }
            return Summary(group: group, count: e.count, medianAbsErrorPercent: percentile(e, 50),
                           p90AbsErrorPercent: percentile(e, 90), maxAbsErrorPercent: e.last ?? .nan)
        }
        guard results.count > 1 else { return [] }
        var out: [Summary] = []
        let positions = Set(results.compactMap { $0.position?.lowercased() }).sorted()
        for p in positions {
            if let s = summary(p, results.filter { $0.position?.lowercased() == p }) { out.append(s) }
        }
        if let s = summary("all", results) { out.append(s) }
        let trials = results.compactMap { r -> Double? in r.trialErrorPercent.map(abs) }.sorted()
        if !trials.isEmpty {
            out.append(Summary(group: "protocol walk (trial window)", count: trials.count, medianAbsErrorPercent: percentile(trials, 50),
                               p90AbsErrorPercent: percentile(trials, 90), maxAbsErrorPercent: trials.last ?? .nan))
            for (name, keep) in [("protocol walk, subjects 1–9", true), ("protocol walk, subjects 10–19", false)] {
                let e = results.filter { r in
                    guard let subject = Int(r.name.split(separator: "-").first ?? "") else { return false }
                    return (subject <= 9) == keep
                }.compactMap { $0.trialErrorPercent.map(abs) }.sorted()
                if !e.isEmpty {
                    out.append(Summary(group: name, count: e.count, medianAbsErrorPercent: percentile(e, 50),
                                       p90AbsErrorPercent: percentile(e, 90), maxAbsErrorPercent: e.last ?? .nan))
                }
            }
        }
        // Two halves (alternate members): the same figures on disjoint halves show how stable they are.
        if let s = summary("half A (even rows)", results.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)) { out.append(s) }
        if let s = summary("half B (odd rows)", results.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)) { out.append(s) }
        return out
    }

    /// Linear-interpolated percentile of sorted values.
    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let r = p / 100 * Double(sorted.count - 1)
        let lo = Int(r.rounded(.down)), hi = min(lo + 1, sorted.count - 1)
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (r - Double(lo))
    }

    static func render(_ results: [Result], _ summaries: [Summary]) -> String {
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

    static func writePlot(_ trace: Trace, recording: Recording, to path: String) throws {
        var plot = SVGPlot(title: "Acceleration magnitude, detected and true steps", xLabel: "time (s)", yLabel: "|a| (g)")
        plot.add("|a|", trace.magnitude)
        plot.add("detected steps", trace.steps.flatMap { [($0, 0.4), ($0, 0.6), ($0, .nan)] })
        let truth = recording.reference.stepTimes
        if !truth.isEmpty { plot.add("true steps", truth.flatMap { [($0, 0.25), ($0, 0.45), ($0, .nan)] }, dashed: true) }
        try plot.write(to: URL(fileURLWithPath: path))
    }
}
