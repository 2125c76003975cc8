import Foundation

/// A reader's refusal of malformed input: which file, line and column, what was expected and what
/// was found.
public struct RecordingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// File (or archive member) being read.
    public var file: String
    /// 1-based line number, when the problem is on a line.
    public var line: Int?
    /// Column name or 1-based index, when the problem is in a field.
    public var column: String?
    /// What the reader expected.
    public var expected: String
    /// What it found (shortened).
    public var found: String?

    public init(file: String, line: Int? = nil, column: String? = nil, expected: String, found: String? = nil) {
        self.file = file
        self.line = line
        self.column = column
        self.expected = expected
        self.found = found.map { $0.count > 60 ? String($0.prefix(57)) + "…" : $0 }
    }

    public var description: String {
        var where_ = file
        if let line { where_ += ":\(line)" }
        if let column { where_ += " column \(column)" }
        var text = "\(where_): expected \(expected)"
        if let found { text += ", found \"\(found)\"" }
        return text
    }
}

/// Something a reader skipped or noticed while following the documented bad-input policy.
///
/// Policy (the same for every reader, see `Sources/MotionRecordings/Documentation.docc`):
/// - a row whose value is NaN or infinite is skipped (`.nonFinite`);
/// - a row whose timestamp equals the previous row's of the same sensor is skipped (`.duplicateTime`);
/// - a row older than the previous row of the same sensor is skipped (`.outOfOrder`), unless more
///   than 1 % of the rows are, in which case the file is refused with a ``RecordingError``;
/// - a last line cut short (no newline, too few fields) is skipped (`.truncatedLastLine`);
/// - a gap longer than five nominal periods is reported (`.gap`) and kept as a gap.
public struct RecordingNotice: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Codable {
        case nonFinite
        case duplicateTime
        case outOfOrder
        case truncatedLastLine
        case gap
        case other
    }

    public var kind: Kind
    public var file: String
    /// First line (1-based) where it happened.
    public var line: Int?
    /// How many rows (or gaps) it concerns.
    public var count: Int
    public var message: String

    public init(kind: Kind, file: String, line: Int? = nil, count: Int = 1, message: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.count = count
        self.message = message
    }

    public var description: String {
        "\(file)\(line.map { ":\($0)" } ?? ""): \(message)\(count > 1 ? " (\(count)×)" : "")"
    }
}
