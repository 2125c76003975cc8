import Foundation
import MotionEngine
import MotionRecordings

/// Leave-one-subject-out cross-validation of the step detector's tuned constants.
///
/// The recordings of every data set given (IPOL gait, the Oxford step counter…) are pooled; a fold
/// holds out every recording of one subject of one data set. Each constant with a grid is scanned
/// alone (the others shipped) on all recordings once; in a fold, each constant takes the candidate
/// with the lowest objective on the other subjects — the mean over the data sets of the median
/// |error| — and the held-out subject's recordings are run with those picks together. The medians of
/// the held-out errors are the cross-validated figures.
public enum StepsCrossValidation {
    /// The candidate grids, each holding the shipped value.
    public static var grid: [(name: String, key: WritableKeyPath<StepDetector.Configuration, Double>, values: [Double])] { [
        ("minimumCadence", \.minimumCadence, [0.8, 1.0, 1.2]),
        ("maximumCadence", \.maximumCadence, [3.0, 3.6, 4.2]),
        ("minimumCorrelation", \.minimumCorrelation, [0.55, 0.65, 0.75]),
        ("minimumDeviation", \.minimumDeviation, [0.03, 0.05, 0.08]),
        ("relativeAmplitude", \.relativeAmplitude, [0.05, 0.1, 0.2]),
        ("minimumAmplitude", \.minimumAmplitude, [0.005, 0.01, 0.02]),
        ("relativeActivity", \.relativeActivity, [0.15, 0.25, 0.35]),
        ("rhythmicRotation", \.rhythmicRotation, [0.7, 1.0, 1.5]),
        ("rhythmicRotationCorrelation", \.rhythmicRotationCorrelation, [0.4, 0.5, 0.6]),
    ] }

    struct Item: Sendable {
        var dataset: String
        var subject: String
        var name: String
        var recording: Recording
    }

    /// The subject of a member: IPOL names are `SUBJECT-TRIAL`, Oxford's `PHONE_PERSON_FLOOR_POSITION_N`.
    static func subject(of name: String) -> String {
        let base = (name as NSString).lastPathComponent
        if let dash = base.firstIndex(of: "-"), Int(base[..<dash]) != nil { return String(base[..<dash]) }
        let parts = base.split(separator: "_")
        return parts.count >= 2 ? String(parts[1]) : base
    }

    /// |error| % of one recording: the protocol window's where there is one (IPOL), else the total's.
    static func error(_ item: Item, detector: StepDetector.Configuration) -> Double? {
        var config = PedometerEngine.Configuration()
        config.detector = detector
        let (r, _) = StepsEvaluation.evaluate(item.recording, name: item.name, height: nil, configuration: config, keepTrace: false)
        return (r.trialErrorPercent ?? r.errorPercent).map(abs)
    }

    static func errors(_ items: [Item], detector: StepDetector.Configuration) async -> [Double?] {
        await withTaskGroup(of: (Int, Double?).self) { group in
            for (i, item) in items.enumerated() { group.addTask { (i, error(item, detector: detector)) } }
            var out = [Double?](repeating: nil, count: items.count)
            for await (i, e) in group { out[i] = e }
            return out
        }
    }

    static func median(_ values: [Double]) -> Double {
        StepsEvaluation.percentile(values.sorted(), 50)
    }

    /// Everything a cross-validation found.
    public struct Report: Codable, Sendable {
        /// The |error| % of one data set's recordings.
        public struct Figures: Codable, Sendable {
            /// The archive's file name.
            public var dataset: String
            /// Its recordings.
            public var recordings: Int
            /// Median |error| with the shipped constants (in-sample).
            public var shippedMedian: Double
            /// 90th percentile with the shipped constants.
            public var shippedP90: Double
            /// Median with the picks made on all recordings (in-sample).
            public var inSampleMedian: Double
            /// Median of the held-out errors (cross-validated).
            public var crossValidatedMedian: Double
            /// 90th percentile of the held-out errors.
            public var crossValidatedP90: Double
        }
        /// Per data set.
        public var figures: [Figures]
        /// The value each constant takes when picked on all recordings.
        public var inSamplePicks: [String: Double]
        /// Per constant, how often each value (3 decimals) was picked over the folds.
        public var foldPicks: [String: [String: Int]]
        /// Subjects held out, one at a time.
        public var folds: Int
    }

    /// Cross-validates the step detector's constants on the recordings of the data-set archives `files`.
    /// - Throws: ``EvaluationError`` with fewer than 3 subjects; a reader's error for an unreadable archive.
    public static func run(files: [String], console: any EvaluationConsole) async throws -> Report {
        var items: [Item] = []
        for file in files {
            let url = URL(fileURLWithPath: file)
            let members = try RecordingReader.members(of: url)
            let dataset = (file as NSString).lastPathComponent
            let progress = console.progress("loading \(dataset)", total: Double(members.count), always: false)
            for (i, m) in members.enumerated() {
                let rec = try RecordingReader.read(url, member: m.name)
                items.append(Item(dataset: dataset, subject: subject(of: m.name), name: m.name, recording: rec))
                progress.update(Double(i + 1), detail: m.name)
            }
            progress.finish("\(members.count) recordings")
        }
        let datasets = Array(Set(items.map(\.dataset))).sorted()
        let units = Array(Set(items.map { "\($0.dataset)#\($0.subject)" })).sorted()
        guard units.count >= 3 else { throw EvaluationError("cross-validation needs at least 3 subjects, got \(units.count)") }
        let base = StepDetector.Configuration()
        let candidates = grid.map { $0.values.count - 1 }.reduce(0, +)
        let progress = console.progress("cross-validating \(grid.count) step-detector constants over \(units.count) subjects",
                                    total: Double(candidates + 2 + units.count), always: true)
        var step = 0
        let shipped = await errors(items, detector: base)
        step += 1
        progress.update(Double(step), detail: "shipped")
        var scans = [[Double: [Double?]]](repeating: [:], count: grid.count)
        for (pi, entry) in grid.enumerated() {
            for v in entry.values {
                if abs(v - base[keyPath: entry.key]) < 1e-12 { scans[pi][v] = shipped; continue }
                var c = base
                c[keyPath: entry.key] = v
                scans[pi][v] = await errors(items, detector: c)
                step += 1
                progress.update(Double(step), detail: "\(entry.name)=\(v)")
            }
        }
        /// Mean over the data sets of the median |error| of the recordings kept.
        func objective(_ errs: [Double?], keep: (Int) -> Bool) -> Double {
            var sum = 0.0, count = 0
            for d in datasets {
                let e = items.indices.filter { items[$0].dataset == d && keep($0) }.compactMap { errs[$0] }
                guard !e.isEmpty else { continue }
                sum += median(e)
                count += 1
            }
            return sum / Double(max(1, count))
        }
        func picks(keep: (Int) -> Bool) -> StepDetector.Configuration {
            var c = base
            for (pi, entry) in grid.enumerated() {
                var best = base[keyPath: entry.key]
                var bestScore = objective(scans[pi][best]!, keep: keep)
                for v in entry.values {
                    let s = objective(scans[pi][v]!, keep: keep)
                    if s < bestScore - 1e-9 { best = v; bestScore = s }
                }
                c[keyPath: entry.key] = best
            }
            return c
        }
        let all = picks { _ in true }
        let inSample = await errors(items, detector: all)
        step += 1
        var held = [Double?](repeating: nil, count: items.count)
        var foldPicks: [String: [String: Int]] = [:]
        for unit in units {
            let inUnit = items.indices.filter { "\(items[$0].dataset)#\(items[$0].subject)" == unit }
            let c = picks { !inUnit.contains($0) }
            for entry in grid { foldPicks[entry.name, default: [:]][fixed(c[keyPath: entry.key], 3), default: 0] += 1 }
            let e = await errors(inUnit.map { items[$0] }, detector: c)
            for (j, i) in inUnit.enumerated() { held[i] = e[j] }
            step += 1
            progress.update(Double(step), detail: "\(unit) held out")
        }
        progress.finish()
        var figures: [Report.Figures] = []
        for d in datasets {
            let idx = items.indices.filter { items[$0].dataset == d }
            func sorted(_ e: [Double?]) -> [Double] { idx.compactMap { e[$0] }.sorted() }
            figures.append(.init(dataset: d, recordings: idx.count,
                                 shippedMedian: median(sorted(shipped)), shippedP90: StepsEvaluation.percentile(sorted(shipped), 90),
                                 inSampleMedian: median(sorted(inSample)),
                                 crossValidatedMedian: median(sorted(held)), crossValidatedP90: StepsEvaluation.percentile(sorted(held), 90)))
        }
        var inSamplePicks: [String: Double] = [:]
        for entry in grid { inSamplePicks[entry.name] = all[keyPath: entry.key] }
        return Report(figures: figures, inSamplePicks: inSamplePicks, foldPicks: foldPicks, folds: units.count)
    }
}
