import Foundation

/// Numeric columns of a headed CSV, read by name with the bad-input policy applied.
///
/// The values of the kept rows are stored row-major in one flat array (`values[row * width + k]`),
/// so reading a file allocates a handful of arrays, not one per row or per field.
struct ColumnTable {
    /// Time of each kept row, seconds from the recording's origin.
    var times: [Double] = []
    /// `width` values per kept row.
    var values: [Double] = []
    /// Number of value columns.
    let width: Int
    /// 1-based line number of each kept row (for follow-up errors).
    var lines: [Int32] = []

    var count: Int { times.count }

    @inline(__always)
    func value(_ row: Int, _ column: Int) -> Double { values[row &* width &+ column] }

    /// How a time column is written.
    enum TimeColumn {
        /// Integer nanoseconds (since the epoch or since boot); `origin` is subtracted exactly.
        case nanoseconds(String, origin: Int64)
        /// Seconds as a decimal number; `origin` is subtracted.
        case seconds(String, origin: Double)
    }

    /// Reads `columns` of `file` (header on the first non-comment line).
    ///
    /// - Parameters:
    ///   - time: the time column and its origin.
    ///   - columns: the value columns, by header name; a missing one is a ``RecordingError``.
    ///   - allowNonFinite: columns whose NaN/infinite values are data (kept), by index in `columns`.
    ///   - stream: what the rows are, for notices.
    /// - Returns: the table and the notices of skipped rows.
    static func read(
        _ file: TextFile, time: TimeColumn, columns: [String], separator: UInt8 = 0x2C, stream: String,
        allowNonFinite: Set<Int> = [], notices: inout [RecordingNotice]
    ) throws -> ColumnTable {
        var table = ColumnTable(width: columns.count)
        try file.bytes.withUnsafeBufferPointer { buffer in
            var rows = DelimitedRows(buffer, separator: separator)
            var header: [String]?
            while rows.next() {
                if rows.isBlankLine || rows.lineStarts(with: 0x23) { continue }
                header = rows.strings
                break
            }
            guard let header else {
                throw RecordingError(file: file.name, expected: "a header line", found: "an empty file")
            }
            let timeName: String
            switch time {
            case .nanoseconds(let name, _), .seconds(let name, _): timeName = name
            }
            guard let timeIndex = header.firstIndex(of: timeName) else {
                throw RecordingError(file: file.name, line: rows.line, column: timeName, expected: "the column '\(timeName)'", found: header.joined(separator: ","))
            }
            var index: [Int] = []
            for name in columns {
                guard let i = header.firstIndex(of: name) else {
                    throw RecordingError(file: file.name, line: rows.line, column: name, expected: "the column '\(name)'", found: header.joined(separator: ","))
                }
                index.append(i)
            }
            let needed = max(timeIndex, index.max() ?? 0) + 1
            let estimate = buffer.count / max(8, 12 * (columns.count + 1))
            table.times.reserveCapacity(estimate)
            table.values.reserveCapacity(estimate * columns.count)
            table.lines.reserveCapacity(estimate)
            var policy = StreamPolicy(file: file.name, stream: stream, timeColumn: timeName)
            let width = columns.count
            // Values go straight into the table; a row the policy rejects is taken back out.
            // Names are only touched on the error path (no String traffic per field).
            let keepNonFinite = (0..<width).map { allowNonFinite.contains($0) }
            while rows.next() {
                if !rows.startsLikeNumber && rows.isBlankLine { continue }
                let t: Double
                var finite = true
                let mark = table.values.count
                do {
                    try rows.require(fields: needed, atMost: header.count, file.name)
                    switch time {
                    case .nanoseconds(_, let origin):
                        if let ns = rows.int64(timeIndex) {
                            t = Double(ns &- origin) / 1e9
                        } else if let seconds = rows.double(timeIndex), !seconds.isFinite {
                            t = seconds  // NaN/inf time: skipped by the policy
                        } else {
                            throw rows.fail(file.name, field: timeIndex, column: timeName, expected: "an integer time in nanoseconds")
                        }
                    case .seconds(_, let origin):
                        guard let seconds = rows.double(timeIndex) else {
                            throw rows.fail(file.name, field: timeIndex, column: timeName, expected: "a number")
                        }
                        t = seconds - origin
                    }
                    for k in 0..<width {
                        guard let v = rows.double(index[k]) else {
                            table.values.removeSubrange(mark...)
                            throw rows.fail(file.name, field: index[k], column: columns[k], expected: "a number")
                        }
                        if !v.isFinite && !keepNonFinite[k] { finite = false }
                        table.values.append(v)
                    }
                } catch let cut as TruncatedLastLine {
                    notices.append(.truncated(file.name, line: cut.line))
                    break
                }
                if policy.admit(time: t, finite: finite, line: rows.line) {
                    table.times.append(t)
                    table.lines.append(Int32(truncatingIfNeeded: rows.line))
                } else {
                    table.values.removeSubrange(mark...)
                }
            }
            notices += try policy.finish()
        }
        return table
    }

    /// The rows as vectors: `Vector3(v[x] * scale, v[y] * scale, v[z] * scale)` for the columns at
    /// `axes` (indices into the table's columns). A `divisor` is applied by division, so that
    /// "divide by −9.80665" is exactly that.
    func vectors(_ axes: (Int, Int, Int) = (0, 1, 2), divisor: Double = 1) -> [TimedVector] {
        var out: [TimedVector] = []
        out.reserveCapacity(count)
        for r in 0..<count {
            let base = r &* width
            let v = Vector3(values[base + axes.0], values[base + axes.1], values[base + axes.2])
            out.append(TimedVector(time: times[r], value: divisor == 1 ? v : v / divisor))
        }
        return out
    }

    /// Column `k` as timed scalars, divided by `divisor`.
    func scalars(_ k: Int, divisor: Double = 1) -> [TimedScalar] {
        (0..<count).map { TimedScalar(time: times[$0], value: divisor == 1 ? value($0, k) : value($0, k) / divisor) }
    }
}
