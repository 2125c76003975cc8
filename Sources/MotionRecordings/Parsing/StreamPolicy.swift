import Foundation

/// The bad-input policy applied to one timed stream of one file (see ``RecordingNotice``):
/// non-finite rows, repeated and backward timestamps are skipped and counted; more than 1 % of rows
/// going back in time refuses the file; gaps are reported.
struct StreamPolicy {
    /// File the stream comes from (for messages).
    let file: String
    /// What the stream is, e.g. `accelerometer`, `Apple attitude`.
    let stream: String
    /// Column holding the time, for the error that refuses a file.
    let timeColumn: String

    private(set) var offered = 0
    private(set) var lastTime = -Double.infinity
    private var nonFinite = 0
    private var nonFiniteLine = 0
    private var duplicates = 0
    private var duplicateLine = 0
    private var backwards = 0
    private var backwardsLine = 0

    init(file: String, stream: String, timeColumn: String = "time") {
        self.file = file
        self.stream = stream
        self.timeColumn = timeColumn
    }

    /// Decides whether a row at `time` whose values are all finite (`finite`) is kept.
    @inline(__always)
    mutating func admit(time: Double, finite: Bool, line: Int) -> Bool {
        offered += 1
        guard finite && time.isFinite else {
            if nonFinite == 0 { nonFiniteLine = line }
            nonFinite += 1
            return false
        }
        if time == lastTime {
            if duplicates == 0 { duplicateLine = line }
            duplicates += 1
            return false
        }
        if time < lastTime {
            if backwards == 0 { backwardsLine = line }
            backwards += 1
            return false
        }
        lastTime = time
        return true
    }

    /// The notices for what was skipped; throws when more than 1 % of the rows went back in time.
    func finish() throws -> [RecordingNotice] {
        if backwards > 0 && backwards * 100 > offered {
            throw RecordingError(
                file: file, line: backwardsLine, column: timeColumn,
                expected: "\(stream) timestamps increasing (at most 1 % of rows out of order)",
                found: "\(backwards) of \(offered) rows go back in time"
            )
        }
        var out: [RecordingNotice] = []
        if nonFinite > 0 {
            out.append(RecordingNotice(
                kind: .nonFinite, file: file, line: nonFiniteLine, count: nonFinite,
                message: "\(stream): skipped \(nonFinite) row\(nonFinite == 1 ? "" : "s") with a NaN or infinite value"))
        }
        if duplicates > 0 {
            out.append(RecordingNotice(
                kind: .duplicateTime, file: file, line: duplicateLine, count: duplicates,
                message: "\(stream): skipped \(duplicates) row\(duplicates == 1 ? "" : "s") repeating the previous timestamp"))
        }
        if backwards > 0 {
            out.append(RecordingNotice(
                kind: .outOfOrder, file: file, line: backwardsLine, count: backwards,
                message: "\(stream): skipped \(backwards) row\(backwards == 1 ? "" : "s") older than the row before"))
        }
        return out
    }
}

/// Gap detection shared by all readers.
enum GapReport {
    /// A gap is an interval longer than this many nominal periods.
    static let factor = 5.0

    /// A `.gap` notice when `times` has intervals longer than ``factor`` × the median interval.
    static func notice<T>(_ items: [T], file: String, stream: String, time: (T) -> Double) -> RecordingNotice? {
        guard items.count > 2 else { return nil }
        // Median interval from at most 4,096 evenly spaced intervals.
        let n = items.count - 1
        let stride = max(1, n / 4096)
        var sample: [Double] = []
        sample.reserveCapacity(n / stride + 1)
        var i = 1
        while i <= n {
            sample.append(time(items[i]) - time(items[i - 1]))
            i += stride
        }
        sample.sort()
        let median = sample[sample.count / 2]
        guard median > 0 else { return nil }
        let limit = median * factor
        var count = 0
        var first = 0.0
        var longest = 0.0
        var total = 0.0
        for k in 1..<items.count {
            let d = time(items[k]) - time(items[k - 1])
            if d > limit {
                if count == 0 { first = time(items[k - 1]) }
                count += 1
                longest = max(longest, d)
                total += d
            }
        }
        guard count > 0 else { return nil }
        return RecordingNotice(
            kind: .gap, file: file, count: count,
            message: "\(stream): \(count) gap\(count == 1 ? "" : "s") longer than \(Int(factor)) periods "
                + "(first at t = \(format(first)) s, longest \(format(longest)) s, \(format(total)) s in all)")
    }

    static func format(_ x: Double) -> String {
        let scaled = (x * 1000).rounded() / 1000
        return "\(scaled)"
    }
}

/// Internal signal from a row parser: the last line is cut short and is skipped by the policy.
struct TruncatedLastLine: Error {
    let line: Int
}

extension DelimitedRows {
    /// Throws ``TruncatedLastLine`` for an unterminated last line, else a ``RecordingError`` for
    /// `column` (1-based index `field + 1` when `column` is nil).
    func fail(_ file: String, field: Int, column: String?, expected: String) -> any Error {
        if !terminated { return TruncatedLastLine(line: line) }
        return RecordingError(
            file: file, line: line, column: column ?? "\(field + 1)", expected: expected,
            found: field < fieldCount ? fieldText(field) : "nothing (the row has \(fieldCount) field\(fieldCount == 1 ? "" : "s"))")
    }

    /// Checks the row has at least `count` fields and, when `width` is given (the header's or the
    /// format's number of columns), no more than `width` that are not empty. A longer row is two rows
    /// run together (a lost line break) or a stray separator: its values cannot be trusted, and the
    /// row it swallowed would be lost without a word. Empty trailing fields (a separator at the end
    /// of every line) are allowed.
    func require(fields count: Int, atMost width: Int? = nil, _ file: String) throws {
        guard fieldCount >= count else {
            if !terminated { throw TruncatedLastLine(line: line) }
            throw RecordingError(
                file: file, line: line, expected: "\(count) fields", found: "\(fieldCount) field\(fieldCount == 1 ? "" : "s"): \(lineText)")
        }
        if let width, fieldCount > width {
            for extra in width..<fieldCount where !isEmpty(extra) {
                throw RecordingError(
                    file: file, line: line, column: "\(extra + 1)",
                    expected: "at most \(width) fields, as the header has (two lines run together?)",
                    found: "\(fieldCount) fields: \(lineText)")
            }
        }
    }

    /// Field `field` as a number (NaN and infinities are returned for the policy to skip); throws for
    /// an empty or malformed field.
    @inline(__always)
    func number(_ field: Int, _ file: String, _ column: String) throws -> Double {
        if let v = double(field) { return v }
        throw fail(file, field: field, column: column, expected: "a number")
    }
}

extension RecordingNotice {
    /// The notice for a skipped truncated last line.
    static func truncated(_ file: String, line: Int) -> RecordingNotice {
        RecordingNotice(kind: .truncatedLastLine, file: file, line: line, message: "skipped the last line, which is cut short")
    }
}
