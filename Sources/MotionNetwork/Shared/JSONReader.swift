import Foundation
import MotionRecordings

/// What a ``JSONReader`` throws: each decoder has its own error type and says how a syntax error and
/// too deep a nesting look in it.
protocol JSONReadFailure: Error {
    /// The text is not JSON: `expected` was not at byte `offset`, where `found` is.
    static func syntax(expected: String, found: String, at offset: Int) -> Self
    /// Arrays and objects nested deeper than ``JSONLimits/maximumDepth`` at byte `offset`.
    static func tooDeep(at offset: Int) -> Self
}

/// The bounds of the network decoders' JSON reading.
public enum JSONLimits {
    /// Deepest nesting of arrays and objects accepted (Sensor Logger's pushes nest 4 levels, phyphox's
    /// replies 4): deeper input is refused before it can exhaust the stack.
    public static let maximumDepth = 64
}

/// The one strict JSON reader (RFC 8259) of the network decoders: a cursor over the bytes of one text that
/// every decoder drives, building a tree (``PhoneJSON``: phyphox, SensorServer) or reading one schema
/// straight into flat arrays (``SensorLoggerDecoder``). It refuses what is not JSON — a bad number (`01`,
/// `1.`, `-`), a bad escape, a lone surrogate, a string that is not UTF-8, a control character in a string,
/// trailing bytes — with the byte offset where it stopped and what it expected there, bounds nesting
/// (``JSONLimits/maximumDepth``) and never reads past the end (it is fuzzed: `Fuzz/`). Strings that a
/// decoder skips are checked for JSON's grammar, not decoded.
struct JSONReader<Failure: JSONReadFailure> {
    let p: UnsafePointer<UInt8>
    let n: Int
    /// The byte read next.
    var i = 0

    init(_ p: UnsafePointer<UInt8>, count: Int) {
        self.p = p
        self.n = count
    }

    /// A syntax failure at byte `at` (default: the current one): `expected` was not there.
    func fail(_ expected: String, at: Int? = nil) -> Failure {
        let offset = min(at ?? i, n)
        let found: String
        if offset >= n {
            found = "the end"
        } else {
            let b = p[offset]
            found = (0x20..<0x7F).contains(b) ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x" + String(b, radix: 16)
        }
        return Failure.syntax(expected: expected, found: found, at: offset)
    }

    @inline(__always)
    mutating func skipSpace() {
        while i < n {
            let c = p[i]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { i += 1 } else { return }
        }
    }

    /// The next non-space byte, not consumed (0 at the end).
    @inline(__always)
    mutating func peek() -> UInt8 {
        skipSpace()
        return i < n ? p[i] : 0
    }

    /// Consumes `c` after spaces, or fails expecting `what`.
    @inline(__always)
    mutating func expect(_ c: UInt8, _ what: String) throws(Failure) {
        skipSpace()
        guard i < n, p[i] == c else { throw fail(what) }
        i += 1
    }

    /// After a member or element: `,` (returns false: more follow) or `close` (returns true).
    @inline(__always)
    mutating func afterMember(close: UInt8) throws(Failure) -> Bool {
        skipSpace()
        guard i < n else { throw fail(close == 0x7D ? "',' or '}'" : "',' or ']'") }
        let c = p[i]
        if c == 0x2C { i += 1; return false }
        if c == close { i += 1; return true }
        throw fail(close == 0x7D ? "',' or '}'" : "',' or ']'")
    }

    /// Only spaces are left.
    mutating func end() throws(Failure) {
        skipSpace()
        guard i == n else { throw fail("the end of the text") }
    }

    // MARK: Containers

    /// A member's name: the byte range of its content and whether it has escapes.
    struct Name {
        var start: Int
        var end: Int
        var escaped: Bool
    }

    /// Whether `name` is `word` (a name with escapes never is: no schema key has any).
    @inline(__always)
    func isName(_ name: Name, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        return !name.escaped && name.end - name.start == count && memcmp(p + name.start, word.utf8Start, count) == 0
    }

    /// Reads an object (the next byte is `{`) at nesting `depth` (0 for the top level): for each member,
    /// `member` with its name, which must read the value.
    @inline(__always)
    mutating func object(depth: Int, _ member: (inout JSONReader, _ name: Name) throws(Failure) -> Void) throws(Failure) {
        guard depth < JSONLimits.maximumDepth else { throw Failure.tooDeep(at: i) }
        i += 1
        if peek() == 0x7D { i += 1; return }
        while true {
            skipSpace()
            guard i < n, p[i] == 0x22 else { throw fail("a member name in quotes") }
            let (start, end, escaped) = try stringToken()
            try expect(0x3A, "':'")
            skipSpace()
            try member(&self, Name(start: start, end: end, escaped: escaped))
            if try afterMember(close: 0x7D) { return }
        }
    }

    /// Reads an array (the next byte is `[`) at nesting `depth`: `element` reads each element.
    @inline(__always)
    mutating func array(depth: Int, _ element: (inout JSONReader) throws(Failure) -> Void) throws(Failure) {
        guard depth < JSONLimits.maximumDepth else { throw Failure.tooDeep(at: i) }
        i += 1
        if peek() == 0x5D { i += 1; return }
        while true {
            skipSpace()
            try element(&self)
            if try afterMember(close: 0x5D) { return }
        }
    }

    /// Skips any value at nesting `depth`, checking its grammar.
    mutating func skipValue(depth: Int) throws(Failure) {
        switch peek() {
        case 0x22: _ = try stringToken()
        case 0x7B: try object(depth: depth) { (r, _) throws(Failure) in try r.skipValue(depth: depth + 1) }
        case 0x5B: try array(depth: depth) { (r) throws(Failure) in try r.skipValue(depth: depth + 1) }
        case 0x74: try literal("true")
        case 0x66: try literal("false")
        case 0x6E: try literal("null")
        default: _ = try numberToken()
        }
    }

    // MARK: Tokens

    /// A string (the next byte is `"`): the byte range of its content, without the quotes, and whether it
    /// has escapes. Control characters are refused; escapes are checked by ``decodeString(_:_:_:)``.
    @inline(__always)
    mutating func stringToken() throws(Failure) -> (Int, Int, Bool) {
        i += 1
        let start = i
        var escaped = false
        while i < n {
            let c = p[i]
            if c == 0x22 {
                i += 1
                return (start, i - 1, escaped)
            }
            if c == 0x5C {
                escaped = true
                i += 1
                guard i < n else { break }
            } else if c < 0x20 {
                throw fail("no control character inside a string")
            }
            i += 1
        }
        throw fail("'\"' closing the string")
    }

    /// The text of a string's content `p[start..<end]` (from ``stringToken()``), escapes decoded.
    func decodeString(_ start: Int, _ end: Int, _ escaped: Bool) throws(Failure) -> String {
        let raw = UnsafeBufferPointer(start: p + start, count: end - start)
        guard escaped else {
            guard let s = String(validating: raw, as: UTF8.self) else { throw fail("a string in UTF-8", at: start) }
            return s
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.count)
        var k = 0
        func hex4(_ at: Int) throws(Failure) -> UInt32 {
            guard at + 4 <= raw.count else { throw fail("4 hex digits", at: start + at) }
            var v: UInt32 = 0
            for j in 0..<4 {
                let h = raw[at + j]
                let d: UInt32
                switch h {
                case 0x30...0x39: d = UInt32(h - 0x30)
                case 0x41...0x46: d = UInt32(h - 0x41 + 10)
                case 0x61...0x66: d = UInt32(h - 0x61 + 10)
                default: throw fail("a hex digit", at: start + at + j)
                }
                v = v << 4 | d
            }
            return v
        }
        while k < raw.count {
            let c = raw[k]
            guard c == 0x5C else { bytes.append(c); k += 1; continue }
            guard k + 1 < raw.count else { throw fail("an escape", at: start + k + 1) }
            let e = raw[k + 1]
            k += 2
            switch e {
            case 0x22, 0x5C, 0x2F: bytes.append(e)
            case 0x62: bytes.append(0x08)
            case 0x66: bytes.append(0x0C)
            case 0x6E: bytes.append(0x0A)
            case 0x72: bytes.append(0x0D)
            case 0x74: bytes.append(0x09)
            case 0x75:
                var code = try hex4(k)
                k += 4
                if code >= 0xD800 && code < 0xDC00 {
                    // A high surrogate must be followed by an escaped low one.
                    guard k + 6 <= raw.count, raw[k] == 0x5C, raw[k + 1] == 0x75 else {
                        throw fail("a low surrogate after a high one", at: start + k)
                    }
                    let low = try hex4(k + 2)
                    guard low >= 0xDC00 && low < 0xE000 else { throw fail("a low surrogate after a high one", at: start + k) }
                    k += 6
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw fail("a Unicode scalar, not a lone surrogate", at: start + k - 6) }
                bytes.append(contentsOf: String(Character(scalar)).utf8)
            default:
                throw fail("a valid escape", at: start + k - 1)
            }
        }
        guard let s = String(validating: bytes, as: UTF8.self) else { throw fail("a string in UTF-8", at: start) }
        return s
    }

    /// A number, its grammar checked (`-`? digits without a leading zero, `.` digits?, exponent?): its byte
    /// range and whether it is written as an integer.
    @inline(__always)
    mutating func numberToken() throws(Failure) -> (start: Int, end: Int, integer: Bool) {
        let start = i
        if i < n && p[i] == 0x2D { i += 1 }
        let intStart = i
        let intDigits = digits()
        guard intDigits > 0 else { throw fail(i == start ? "a value" : "a digit") }
        if intDigits > 1 && p[intStart] == 0x30 { throw fail("no leading zero", at: intStart + 1) }
        var integer = true
        if i < n && p[i] == 0x2E {
            integer = false
            i += 1
            guard digits() > 0 else { throw fail("a digit after '.'") }
        }
        if i < n && (p[i] | 0x20) == 0x65 {
            integer = false
            i += 1
            if i < n && (p[i] == 0x2B || p[i] == 0x2D) { i += 1 }
            guard digits() > 0 else { throw fail("a digit in the exponent") }
        }
        return (start, i, integer)
    }

    /// A number, its grammar checked as ``numberToken()`` checks it, and its value, correctly rounded (the
    /// value ``DecimalParser`` gives its text). Numbers without an exponent and with at most 19 significant
    /// digits, a sensor's usual, are read in one pass; others are handed to the parser whole.
    @inline(__always)
    mutating func doubleToken() throws(Failure) -> Double {
        let start = i
        var negative = false
        if i < n && p[i] == 0x2D { negative = true; i += 1 }
        let intStart = i
        var number = GatheredDigits()
        let intDigits = gatherDigits(into: &number, inFraction: false)
        guard intDigits > 0 else { throw fail(i == start ? "a value" : "a digit") }
        if intDigits > 1 && p[intStart] == 0x30 { throw fail("no leading zero", at: intStart + 1) }
        if i < n && p[i] == 0x2E {
            i += 1
            guard gatherDigits(into: &number, inFraction: true) > 0 else { throw fail("a digit after '.'") }
        }
        if i < n && (p[i] | 0x20) == 0x65 {
            i += 1
            if i < n && (p[i] == 0x2B || p[i] == 0x2D) { i += 1 }
            guard digits() > 0 else { throw fail("a digit in the exponent") }
        } else if !number.dropped,
                  let value = DecimalParser.value(significand: number.significand, decimalExponent: number.exponent) {
            return negative ? -value : value
        }
        guard let value = DecimalParser.parseDouble(p, start, i) else { throw fail("a number", at: start) }
        return value
    }

    /// A decimal significand gathered digit by digit: at most 19 significant digits kept, the exponent of
    /// its last digit, and whether a non-zero digit was dropped beyond the 19th.
    struct GatheredDigits {
        var significand: UInt64 = 0
        var kept = 0
        var exponent = 0
        var dropped = false
    }

    /// Reads a run of digits into `number` (a fraction's kept digits lower its exponent, an integer part's
    /// dropped digits raise it); returns the run's length.
    @inline(__always)
    private mutating func gatherDigits(into number: inout GatheredDigits, inFraction: Bool) -> Int {
        let runStart = i
        while i < n {
            let d = p[i] &- 0x30
            if d > 9 { break }
            if number.kept < 19 {
                if number.significand != 0 || d != 0 {
                    number.significand = number.significand &* 10 &+ UInt64(d)
                    number.kept += 1
                }
                if inFraction { number.exponent -= 1 }
            } else {
                if !inFraction { number.exponent += 1 }
                if d != 0 { number.dropped = true }
            }
            i += 1
        }
        return i - runStart
    }

    @inline(__always)
    private mutating func digits() -> Int {
        let start = i
        while i < n && p[i] &- 0x30 <= 9 { i += 1 }
        return i - start
    }

    /// The literal `word` (`true`, `false`, `null`).
    mutating func literal(_ word: StaticString) throws(Failure) {
        skipSpace()
        let count = word.utf8CodeUnitCount
        guard n - i >= count, memcmp(p + i, word.utf8Start, count) == 0 else { throw fail("'\(word)'") }
        i += count
    }
}
