import Foundation
import MotionRecordings
import Testing
import TestSupport

/// Helpers for the reader tests: fixture paths and corrupted copies of real files.
enum Fixture {
    /// A committed fixture under `Tests/Fixtures/recordings`.
    static func url(_ path: String) -> URL { TestData.fixture("recordings/" + path) }
}

/// Makes damaged copies of a text file in a temporary folder, the way files get damaged in the wild.
struct Corruptor {
    let directory: URL
    let original: String
    let name: String

    init(_ url: URL) throws {
        directory = try TestData.temporaryDirectory("corrupt")
        original = try String(contentsOf: url, encoding: .utf8)
        name = url.lastPathComponent
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// Lines split on `\n` only (a `\r` of a CRLF file stays at the end of its line).
    var lines: [String] { splitLines(original) }

    /// Writes `text` as a copy and returns its URL.
    func write(_ text: String, as label: String) throws -> URL {
        let url = directory.appendingPathComponent(label + "-" + name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// The file cut in the middle of its last data line (no final newline).
    func truncatedMidLine() throws -> URL {
        var text = original
        while text.hasSuffix("\n") { text.removeLast() }
        let lastLine = splitLines(text).last!
        text.removeLast(lastLine.count / 2)
        return try write(text, as: "truncated")
    }

    /// The file with line `index` (0-based line of the file) changed by `edit`.
    func editing(line index: Int, as label: String, _ edit: (String) -> String) throws -> URL {
        var all = lines
        all[index] = edit(all[index])
        return try write(all.joined(separator: "\n"), as: label)
    }

    /// The file with the lines `range` (0-based) rewritten by `edit`.
    func editing(lines range: Range<Int>, as label: String, _ edit: ([String]) -> [String]) throws -> URL {
        var all = lines
        all.replaceSubrange(range, with: edit(Array(all[range])))
        return try write(all.joined(separator: "\n"), as: label)
    }

    /// The file with line `index` (0-based) and the next one run together: the line break between
    /// them lost, as when files are concatenated without a final newline.
    func joiningLine(_ index: Int, as label: String = "joined") throws -> URL {
        var all = lines
        all[index] += all.remove(at: index + 1)
        return try write(all.joined(separator: "\n"), as: label)
    }

    /// Replaces field `field` (0-based) of line `index` by `value`.
    func replacingField(line index: Int, field: Int, with value: String, separator: Character = ",", as label: String) throws -> URL {
        try editing(line: index, as: label) { line in
            var fields = line.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
            fields[field] = value
            return fields.joined(separator: String(separator))
        }
    }

    /// Drops column `field` (0-based) from lines `range`.
    func droppingColumn(_ field: Int, lines range: Range<Int>, separator: Character = ",") throws -> URL {
        try editing(lines: range, as: "missing-column") { rows in
            rows.map { line in
                guard !line.isEmpty, !line.hasPrefix("#") else { return line }
                var fields = line.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
                if field < fields.count { fields.remove(at: field) }
                return fields.joined(separator: String(separator))
            }
        }
    }
}

/// Asserts that `body` throws a ``RecordingError`` and returns it.
@discardableResult
func expectRecordingError(
    _ body: () throws -> Recording, sourceLocation: SourceLocation = #_sourceLocation
) -> RecordingError? {
    do {
        let r = try body()
        Issue.record("expected a RecordingError, got a recording with \(r.accelerometer.count) accelerometer samples", sourceLocation: sourceLocation)
        return nil
    } catch let error as RecordingError {
        return error
    } catch {
        Issue.record("expected a RecordingError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

extension Recording {
    /// The notices of `kind`.
    func notices(_ kind: RecordingNotice.Kind) -> [RecordingNotice] { notices.filter { $0.kind == kind } }
}

/// Median of the intervals between successive `times`.
func medianInterval(_ times: [Double]) -> Double {
    guard times.count > 1 else { return 0 }
    var d = (1..<times.count).map { times[$0] - times[$0 - 1] }
    d.sort()
    return d[d.count / 2]
}

/// A copy of a fixture folder in a temporary directory, to damage one of its files.
struct FolderCopy {
    let root: URL
    let folder: URL

    init(_ source: URL) throws {
        root = try TestData.temporaryDirectory("folder")
        folder = root.appendingPathComponent(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: folder)
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

    /// Rewrites file `name` of the copy.
    func rewrite(_ name: String, _ edit: (String) -> String) throws {
        let url = url(name)
        let text = try String(contentsOf: url, encoding: .utf8)
        try edit(text).write(to: url, atomically: true, encoding: .utf8)
    }

    /// Rewrites the lines of file `name`.
    func rewriteLines(_ name: String, _ edit: ([String]) -> [String]) throws {
        try rewrite(name) { text in
            edit(splitLines(text)).joined(separator: "\n")
        }
    }
}

extension Vector3 {
    /// Largest absolute component difference.
    func maxDifference(_ other: Vector3) -> Double { max(abs(x - other.x), abs(y - other.y), abs(z - other.z)) }
}

/// Index of the sample of `series` nearest to `time` (series sorted by time).
func nearest(_ series: [TimedVector], _ time: Double) -> Int {
    var lo = 0
    var hi = series.count - 1
    while lo < hi {
        let mid = (lo + hi) / 2
        if series[mid].time < time { lo = mid + 1 } else { hi = mid }
    }
    if lo > 0 && abs(series[lo - 1].time - time) < abs(series[lo].time - time) { return lo - 1 }
    return lo
}

/// Splits text on `\n` bytes only: a CRLF file keeps its `\r` at the end of each line (Swift's
/// `Character` treats `\r\n` as one character, so `split(separator: "\n")` would not split it).
func splitLines(_ text: String) -> [String] {
    text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String(String.UnicodeScalarView($0)) }
}
