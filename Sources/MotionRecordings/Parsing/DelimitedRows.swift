import Foundation

/// The bytes of one text file (or archive member) being read, with its name for messages.
///
/// Readers parse straight from these bytes: no `String` is made per line or per field.
final class TextFile: Sendable {
    /// File name or `archive#member` path, used in errors and notices.
    let name: String
    /// The file's bytes, without a leading UTF-8 byte-order mark.
    let bytes: [UInt8]

    init(name: String, bytes: [UInt8]) {
        self.name = name
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
            self.bytes = Array(bytes[3...])
        } else {
            self.bytes = bytes
        }
    }

    convenience init(name: String, data: Data) {
        self.init(name: name, bytes: [UInt8](data))
    }

    /// The whole file as text (for small files: metadata, JSON headers).
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// True when the file holds nothing but white space.
    var isBlank: Bool { bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D } }
}

/// A cursor over the rows of a delimited text (CSV, TSV, semicolon-separated), field by field.
///
/// Lines end with `\n` or `\r\n`. A field may be quoted with `"` (the quotes are not part of the
/// field; a separator inside quotes does not split). Field boundaries of the current row are kept in
/// reusable arrays, so iterating allocates nothing after the first rows.
struct DelimitedRows {
    let base: UnsafePointer<UInt8>
    let count: Int
    let separator: UInt8
    /// Byte offset where the next row starts.
    private(set) var position: Int
    /// 1-based line number of the current row.
    private(set) var line: Int
    /// Start offsets of the current row's fields.
    private(set) var starts: [Int] = []
    /// End offsets (exclusive) of the current row's fields.
    private(set) var ends: [Int] = []
    /// Number of fields in the current row.
    private(set) var fieldCount = 0
    /// Whether the current row was terminated by a newline (false only for a last line without one).
    private(set) var terminated = true
    /// Start and end offsets of the current row's text (without the line ending).
    private(set) var rowStart = 0
    private(set) var rowEnd = 0

    /// - Parameters:
    ///   - bytes: the text; must outlive the cursor.
    ///   - separator: field separator byte (`,` `\t` `;`).
    ///   - startLine: line number of the first row at `offset` (1-based).
    init(_ bytes: UnsafeBufferPointer<UInt8>, separator: UInt8, offset: Int = 0, startLine: Int = 1) {
        // An empty buffer may have no base address; point at a static byte instead.
        self.base = bytes.baseAddress ?? DelimitedRows.emptyByte
        self.count = bytes.count
        self.separator = separator
        self.position = offset
        self.line = startLine - 1
        starts.reserveCapacity(32)
        ends.reserveCapacity(32)
    }

    // Read-only after initialisation; never written through.
    nonisolated(unsafe) private static let emptyByte: UnsafePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        p.initialize(to: 0)
        return UnsafePointer(p)
    }()

    /// True when no rows remain.
    var atEnd: Bool { position >= count }

    /// Advances to the next line, splitting it into fields. Blank lines are returned with one empty
    /// field (callers skip them). Returns false at the end of the text.
    @inline(__always)
    mutating func next() -> Bool {
        guard position < count else { return false }
        line += 1
        fieldCount = 0
        var i = position
        rowStart = i
        var fieldStart = i
        var inQuotes = false
        var quoted = false
        // Bytes above both the separator and the quote (digits, letters, `.`, `-` for `,`-separated
        // text) can neither end a field nor a line: they are skipped with one comparison.
        let ordinaryAbove = max(separator, 0x22)
        while i < count {
            let c = base[i]
            if c > ordinaryAbove {
                i += 1
                continue
            }
            if c == 0x22 {  // "
                if i == fieldStart && !inQuotes {
                    inQuotes = true
                    quoted = true
                } else if inQuotes {
                    inQuotes = false
                }
            } else if !inQuotes {
                if c == separator {
                    appendField(fieldStart, i, quoted)
                    quoted = false
                    fieldStart = i + 1
                } else if c == 0x0A {
                    break
                }
            } else if c == 0x0A {
                // A newline inside an unclosed quote ends the row anyway: rows never span lines here.
                break
            }
            i += 1
        }
        terminated = i < count
        var lineEnd = i
        if lineEnd > fieldStart && base[lineEnd - 1] == 0x0D { lineEnd -= 1 }
        appendField(fieldStart, lineEnd, quoted)
        rowEnd = lineEnd
        position = i + 1
        return true
    }

    @inline(__always)
    private mutating func appendField(_ start: Int, _ end: Int, _ quoted: Bool) {
        var s = start
        var e = end
        if quoted && e > s && base[s] == 0x22 {
            s += 1
            if e > s && base[e - 1] == 0x22 { e -= 1 }
        }
        if fieldCount < starts.count {
            starts[fieldCount] = s
            ends[fieldCount] = e
        } else {
            starts.append(s)
            ends.append(e)
        }
        fieldCount += 1
    }

    /// True when the current line starts with a digit, a sign or a point: then it is neither blank
    /// nor a comment (a cheap test before ``isBlankLine`` on hot paths).
    @inline(__always)
    var startsLikeNumber: Bool {
        guard rowStart < rowEnd else { return false }
        let c = base[rowStart]
        return (c &- 0x30) <= 9 || c == 0x2D || c == 0x2B || c == 0x2E
    }

    /// True when the current line holds only white space.
    var isBlankLine: Bool {
        var i = rowStart
        while i < rowEnd {
            let c = base[i]
            if c != 0x20 && c != 0x09 && c != 0x0D { return false }
            i += 1
        }
        return true
    }

    /// True when the current line's first non-blank byte is `byte` (e.g. `#` for a comment).
    func lineStarts(with byte: UInt8) -> Bool {
        var i = rowStart
        while i < rowEnd && (base[i] == 0x20 || base[i] == 0x09) { i += 1 }
        return i < rowEnd && base[i] == byte
    }

    /// Field `index` as a number: `nil` when malformed or empty (see ``isEmpty(_:)``).
    @inline(__always)
    func double(_ index: Int) -> Double? {
        DecimalParser.parseDouble(base, starts[index], ends[index])
    }

    /// Field `index` as an integer.
    @inline(__always)
    func int64(_ index: Int) -> Int64? {
        DecimalParser.parseInt64(base, starts[index], ends[index])
    }

    /// True when field `index` is empty or blank.
    func isEmpty(_ index: Int) -> Bool {
        var i = starts[index]
        let e = ends[index]
        while i < e {
            if base[i] != 0x20 && base[i] != 0x09 { return false }
            i += 1
        }
        return true
    }

    /// True when field `index` is empty or spells `null` / `NA` / `nil` (how some apps write a missing value).
    func isMissing(_ index: Int) -> Bool {
        if isEmpty(index) { return true }
        let s = string(index).trimmingCharacters(in: .whitespaces).lowercased()
        return s == "null" || s == "na" || s == "nil" || s == "none"
    }

    /// Field `index` as a string (allocates; for headers, labels and metadata only).
    func string(_ index: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: base + starts[index], count: ends[index] - starts[index]), as: UTF8.self)
    }

    /// All fields of the current row as strings (allocates; for headers).
    var strings: [String] { (0..<fieldCount).map { string($0).trimmingCharacters(in: .whitespaces) } }

    /// The current line's text, shortened for messages.
    var lineText: String {
        let n = min(rowEnd - rowStart, 80)
        return String(decoding: UnsafeBufferPointer(start: base + rowStart, count: max(0, n)), as: UTF8.self)
    }

    /// The text of field `index`, shortened for messages.
    func fieldText(_ index: Int) -> String {
        guard index < fieldCount else { return "" }
        let n = min(ends[index] - starts[index], 60)
        return String(decoding: UnsafeBufferPointer(start: base + starts[index], count: max(0, n)), as: UTF8.self)
    }
}
