import Foundation

/// Writes command results as text or JSON.
enum Output {
    /// Prints `value` as pretty, key-sorted JSON on standard output.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan"
        )
        let data = try encoder.encode(value)
        write(data + Data("\n".utf8))
    }

    /// Writes to standard output; when the reader has gone (`coremotion replay FILE | head`: a closed pipe),
    /// the tool ends quietly instead of trapping in `FileHandle.write(_:)`.
    static func write(_ data: Data) {
        do {
            try FileHandle.standardOutput.write(contentsOf: data)
        } catch {
            exit(0)
        }
    }

    /// Prints a message on standard error (progress, notices), never mixed into results.
    static func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Formats `value` with `digits` decimals.
    static func fixed(_ value: Double, _ digits: Int = 3) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value > 0 ? "inf" : "-inf") }
        return String(format: "%.\(digits)f", value)
    }

    /// Renders rows as an aligned text table with a header line.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        var widths = header.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in
                let pad = String(repeating: " ", count: max(0, widths[min(i, widths.count - 1)] - c.count))
                return i == 0 ? c + pad : pad + c
            }.joined(separator: "  ")
        }
        var out = [line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
        out += rows.map(line)
        return out.joined(separator: "\n")
    }
}
