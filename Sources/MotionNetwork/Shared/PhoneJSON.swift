// Shared helper of the phone network sources (phyphox, SensorServer; branch net-phyphox). At the merge with
// the Sensor Logger push server, fold with its JSON reading if it has one.
import Foundation

/// A JSON value as a phone sent it: a small strict reader (RFC 8259) for the network decoders.
///
/// Why not Foundation's `JSONSerialization`: its numbers come back as `NSNumber`, which on Linux cannot tell
/// `true` from `1`, and it reads a 19-digit integer (SensorServer's boot-clock nanoseconds) as a `Double`.
/// This reader keeps an integer exactly (``int64``), refuses anything that is not JSON with the byte
/// offset where it stopped, bounds nesting (``maximumDepth``) so that hostile input cannot exhaust the
/// stack, and never traps (it is fuzzed: `Fuzz/`).
public enum PhoneJSON: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number: its value as a `Double` and, when it is an integer that fits, exactly as an `Int64`.
    case number(Double, exact: Int64?)
    case string(String)
    case array([PhoneJSON])
    /// An object, with its members in the order they came (a repeated key keeps its last value in
    /// ``subscript(_:)``).
    case object([(String, PhoneJSON)])

    /// Deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 32

    public static func == (a: PhoneJSON, b: PhoneJSON) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x, let i), .number(let y, let j)): (x == y || (x.isNaN && y.isNaN)) && i == j
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// The member `key` of an object (its last occurrence); `nil` for a missing key or a non-object.
    public subscript(_ key: String) -> PhoneJSON? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.0 == key }?.1
    }

    /// The value as a `Double` when it is a number.
    public var double: Double? {
        if case .number(let v, _) = self { return v }
        return nil
    }

    /// The value as an exact `Int64` when it is an integer number that fits.
    public var int64: Int64? {
        if case .number(_, let exact) = self { return exact }
        return nil
    }

    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var array: [PhoneJSON]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Parses one JSON text (whitespace around it allowed, nothing else after it).
    public static func parse(_ bytes: some Collection<UInt8>) throws(PhoneJSONError) -> PhoneJSON {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { buffer throws(PhoneJSONError) -> PhoneJSON in
            var reader = Reader(bytes: buffer)
            reader.skipSpace()
            let value = try reader.value(depth: 0)
            reader.skipSpace()
            guard reader.position == buffer.count else { throw reader.error("end of the text") }
            return value
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        func error(_ expected: String) -> PhoneJSONError {
            let found: String
            if position >= bytes.count {
                found = "the end"
            } else {
                let b = bytes[position]
                found = (0x20..<0x7F).contains(b) ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x" + String(b, radix: 16)
            }
            return PhoneJSONError(offset: position, expected: expected, found: found)
        }

        mutating func skipSpace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        mutating func literal(_ word: StaticString, _ value: PhoneJSON) throws(PhoneJSONError) -> PhoneJSON {
            let count = word.utf8CodeUnitCount
            guard bytes.count - position >= count else { throw error("'\(word)'") }
            for k in 0..<count where bytes[position + k] != word.utf8Start[k] {
                position += k
                throw error("'\(word)'")
            }
            position += count
            return value
        }

        mutating func value(depth: Int) throws(PhoneJSONError) -> PhoneJSON {
            guard position < bytes.count else { throw error("a value") }
            switch bytes[position] {
            case UInt8(ascii: "{"):
                guard depth < PhoneJSON.maximumDepth else { throw error("at most \(PhoneJSON.maximumDepth) levels of nesting") }
                position += 1
                var members: [(String, PhoneJSON)] = []
                skipSpace()
                if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("a member name in quotes") }
                    let key = try string()
                    skipSpace()
                    guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("':'") }
                    position += 1
                    skipSpace()
                    members.append((key, try value(depth: depth + 1)))
                    skipSpace()
                    guard position < bytes.count else { throw error("',' or '}'") }
                    if bytes[position] == UInt8(ascii: ",") {
                        position += 1
                        continue
                    }
                    guard bytes[position] == UInt8(ascii: "}") else { throw error("',' or '}'") }
                    position += 1
                    return .object(members)
                }
            case UInt8(ascii: "["):
                guard depth < PhoneJSON.maximumDepth else { throw error("at most \(PhoneJSON.maximumDepth) levels of nesting") }
                position += 1
                var elements: [PhoneJSON] = []
                skipSpace()
                if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    return .array(elements)
                }
                while true {
                    skipSpace()
                    elements.append(try value(depth: depth + 1))
                    skipSpace()
                    guard position < bytes.count else { throw error("',' or ']'") }
                    if bytes[position] == UInt8(ascii: ",") {
                        position += 1
                        continue
                    }
                    guard bytes[position] == UInt8(ascii: "]") else { throw error("',' or ']'") }
                    position += 1
                    return .array(elements)
                }
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"):
                return try literal("true", .bool(true))
            case UInt8(ascii: "f"):
                return try literal("false", .bool(false))
            case UInt8(ascii: "n"):
                return try literal("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return try number()
            default:
                throw error("a value")
            }
        }

        mutating func digits() -> Int {
            let start = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            return position - start
        }

        mutating func number() throws(PhoneJSONError) -> PhoneJSON {
            let start = position
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            let intStart = position
            let intDigits = digits()
            guard intDigits > 0 else { throw error("a digit") }
            if intDigits > 1, bytes[intStart] == UInt8(ascii: "0") {
                position = intStart + 1
                throw error("no leading zero")
            }
            var integer = true
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                integer = false
                position += 1
                guard digits() > 0 else { throw error("a digit after '.'") }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                integer = false
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
                guard digits() > 0 else { throw error("a digit in the exponent") }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            // The grammar was checked above, so Double's parser (strtod) only rounds; an overflow gives ±inf,
            // which the decoders refuse as not finite.
            let value = Double(text) ?? .nan
            return .number(value, exact: integer ? Int64(text) : nil)
        }

        mutating func hex4() throws(PhoneJSONError) -> UInt32 {
            guard bytes.count - position >= 4 else { throw error("4 hex digits") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[position]
                let d: UInt32
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
                default: throw error("a hex digit")
                }
                v = v << 4 | d
                position += 1
            }
            return v
        }

        mutating func string() throws(PhoneJSONError) -> String {
            position += 1  // the opening quote
            var runStart = position
            var out = ""
            func flush(_ end: Int) {
                if end > runStart {
                    out += String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<end]), as: UTF8.self)
                }
            }
            while true {
                guard position < bytes.count else { throw error("'\"' closing the string") }
                let c = bytes[position]
                if c == UInt8(ascii: "\"") {
                    flush(position)
                    position += 1
                    return out
                }
                if c < 0x20 { throw error("no control character inside a string") }
                if c != UInt8(ascii: "\\") {
                    position += 1
                    continue
                }
                flush(position)
                position += 1
                guard position < bytes.count else { throw error("an escape") }
                let e = bytes[position]
                position += 1
                var scalar: Unicode.Scalar
                switch e {
                case UInt8(ascii: "\""): scalar = "\""
                case UInt8(ascii: "\\"): scalar = "\\"
                case UInt8(ascii: "/"): scalar = "/"
                case UInt8(ascii: "b"): scalar = "\u{08}"
                case UInt8(ascii: "f"): scalar = "\u{0C}"
                case UInt8(ascii: "n"): scalar = "\n"
                case UInt8(ascii: "r"): scalar = "\r"
                case UInt8(ascii: "t"): scalar = "\t"
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code) {
                        // A high surrogate must be followed by an escaped low one.
                        guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                            throw error("a low surrogate after a high one")
                        }
                        position += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("a low surrogate after a high one") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let s = Unicode.Scalar(code) else { throw error("a Unicode scalar, not a lone surrogate") }
                    scalar = s
                default:
                    position -= 1
                    throw error("a valid escape")
                }
                out.unicodeScalars.append(scalar)
                runStart = position
            }
        }
    }
}

/// Why a text is not JSON: where the reader stopped and what it expected there.
public struct PhoneJSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset from the start of the text.
    public var offset: Int
    public var expected: String
    public var found: String

    public var description: String { "not JSON at byte \(offset): expected \(expected), found \(found)" }
}
