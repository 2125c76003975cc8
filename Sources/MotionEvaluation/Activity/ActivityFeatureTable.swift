import Foundation
import MotionEngine
import MotionSamples

/// The training table: one row of ``ActivityFeature`` values per labelled window, with where it came from.
///
/// Stored as CSV (`Training/activity/features.csv`): lines starting with `#` are comments, then a header
/// `dataset,subject,recording,variant,label,start,<feature names…>`, then one row per window. Feature values are
/// written with 7 significant digits; training reads them back, so a model trained from the file is
/// reproducible bit for bit from the file alone.
public struct ActivityFeatureTable: Sendable {
    /// One labelled window.
    public struct Row: Sendable, Hashable {
        /// Data set name (`qrowd`, `motionsense`, `oxford`).
        public var dataset: String
        /// Person (or user) within the data set, as the data set numbers them.
        public var subject: String
        /// Recording within the data set (e.g. `walk/user1.txt`, `wlk_7/sub_3.csv`).
        public var recording: String
        /// ``ActivityAugmentation/Variant/name`` of the transformation applied before extraction
        /// (`original` for the recording as it is). Evaluations test on `original` rows only.
        public var variant: String
        /// The activity the data set's label maps to.
        public var label: ActivityClass
        /// Start of the window within the recording, seconds.
        public var start: Double
        /// ``ActivityFeature/count`` values, by `ActivityFeature.rawValue`.
        public var features: [Double]

        /// One window's features and label, from `recording` of `subject` in `dataset`, starting at `start`
        /// seconds.
        public init(
            dataset: String, subject: String, recording: String, variant: String = ActivityAugmentation.Variant.original.name,
            label: ActivityClass, start: Double, features: [Double]
        ) {
            self.dataset = dataset
            self.subject = subject
            self.recording = recording
            self.variant = variant
            self.label = label
            self.start = start
            self.features = features
        }

        /// True for rows of the unmodified recording.
        public var isOriginal: Bool { variant == ActivityAugmentation.Variant.original.name }

        /// The row as a training example.
        public var example: ActivityForestTrainer.Example { .init(features: features, label: label) }
    }

    /// The windows, in file order.
    public var rows: [Row]
    /// Comment lines (without the leading `# `) written at the top of the file.
    public var comments: [String]

    /// A table of these rows and comments.
    public init(rows: [Row] = [], comments: [String] = []) {
        self.rows = rows
        self.comments = comments
    }

    /// The header line's column names.
    public static var columns: [String] {
        ["dataset", "subject", "recording", "variant", "label", "start"] + ActivityFeature.allCases.map(\.description)
    }

    /// The table as CSV text.
    public func csv() -> String {
        var out = ""
        for c in comments { out += "# \(c)\n" }
        out += Self.columns.joined(separator: ",") + "\n"
        for r in rows {
            out += "\(r.dataset),\(r.subject),\(r.recording),\(r.variant),\(r.label),\(String(format: "%.2f", r.start))"
            for v in r.features { out += "," + String(format: "%.7g", v) }
            out += "\n"
        }
        return out
    }

    /// Parses CSV text as written by ``csv()``; `file` names the source in errors.
    public static func parse(_ text: String, file: String) throws -> ActivityFeatureTable {
        var table = ActivityFeatureTable()
        var headerSeen = false
        var lineNumber = 0
        let expected = columns
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                if !headerSeen { table.comments.append(String(line.dropFirst().drop(while: { $0 == " " }))) }
                continue
            }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            if !headerSeen {
                guard fields == expected else {
                    throw RecordingError(file: file, line: lineNumber, expected: "header " + expected.joined(separator: ","), found: String(line))
                }
                headerSeen = true
                continue
            }
            guard fields.count == expected.count else {
                throw RecordingError(file: file, line: lineNumber, expected: "\(expected.count) fields", found: "\(fields.count) fields")
            }
            guard let label = ActivityClass(label: fields[4]) else {
                throw RecordingError(file: file, line: lineNumber, column: "label", expected: "an activity name", found: fields[4])
            }
            guard let start = Double(fields[5]), start.isFinite else {
                throw RecordingError(file: file, line: lineNumber, column: "start", expected: "a finite number", found: fields[5])
            }
            var features = [Double](repeating: 0, count: ActivityFeature.count)
            for f in 0..<ActivityFeature.count {
                guard let v = Double(fields[6 + f]), v.isFinite else {
                    throw RecordingError(
                        file: file, line: lineNumber, column: expected[6 + f], expected: "a finite number", found: fields[6 + f])
                }
                features[f] = v
            }
            table.rows.append(
                Row(dataset: fields[0], subject: fields[1], recording: fields[2], variant: fields[3], label: label, start: start, features: features))
        }
        guard headerSeen else { throw RecordingError(file: file, expected: "a header line", found: "none") }
        return table
    }

    /// Reads a table file.
    public static func read(_ url: URL) throws -> ActivityFeatureTable {
        let data = try Data(contentsOf: url)
        guard let text = String(data: data, encoding: .utf8) else {
            throw RecordingError(file: url.path, expected: "UTF-8 text")
        }
        return try parse(text, file: url.path)
    }
}

extension ActivityFeatureTable {
    /// Grid samples between training windows (2.56 s: windows overlap by half).
    public static let trainingHopSamples = 64

    /// The feature vectors of a stream of accelerometer samples (seconds, g), computed exactly as the
    /// classifier computes them, one every `hopSamples` grid samples. `start` is the time of the
    /// window's first grid sample, seconds.
    public static func windows(
        of accelerometer: [TimedVector], hopSamples: Int = trainingHopSamples
    ) -> [(start: Double, features: [Double])] {
        var stream = ActivityFeatureStream(hopSamples: hopSamples)
        var out: [(start: Double, features: [Double])] = []
        let span = Double(ActivityFeatures.windowLength - 1) / ActivityFeatures.sampleRate
        for s in accelerometer {
            if let end = stream.add(time: s.time, value: s.value) { out.append((end - span, stream.features)) }
        }
        return out
    }

    /// Rows of `dataset` (all subjects when `subjects` is `nil`).
    public func rows(dataset: String, subjects: Set<String>? = nil) -> [Row] {
        rows.filter { $0.dataset == dataset && (subjects?.contains($0.subject) ?? true) }
    }
}
