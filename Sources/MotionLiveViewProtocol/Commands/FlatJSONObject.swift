/// A value in a flat JSON object: what a command's fields may hold.
enum FlatJSONValue: Hashable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
}

/// A strict parser for one JSON object whose values are strings, numbers, booleans or null (no
/// nesting: a command needs none, and without it no input can recurse). At most 16 fields.
enum FlatJSONObject {
    static let maximumFields = 16

    static func parse(_ bytes: [UInt8]) throws(PageCommandError) -> [String: FlatJSONValue] {
        var parser = Parser(bytes: bytes)
        return try parser.object()
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func object() throws(PageCommandError) -> [String: FlatJSONValue] {
            skipSpace()
            try expect(UInt8(ascii: "{"))
            var fields: [String: FlatJSONValue] = [:]
            skipSpace()
            if peek() == UInt8(ascii: "}") {
                index += 1
            } else {
                while true {
                    skipSpace()
                    let key = try string()
                    skipSpace()
                    try expect(UInt8(ascii: ":"))
                    skipSpace()
                    let value = try value()
                    guard fields.updateValue(value, forKey: key) == nil else { throw .malformed("duplicate key '\(key.prefix(32))'") }
                    guard fields.count <= maximumFields else { throw .malformed("more than \(maximumFields) fields") }
                    skipSpace()
                    guard let next = peek() else { throw .malformed("unexpected end") }
                    index += 1
                    if next == UInt8(ascii: "}") { break }
                    guard next == UInt8(ascii: ",") else { throw .malformed("expected ',' or '}' at byte \(index - 1)") }
                }
            }
            skipSpace()
            guard index == bytes.count else { throw .malformed("trailing bytes after the object") }
            return fields
        }

        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let b = peek(), b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { index += 1 }
        }

        mutating func expect(_ byte: UInt8) throws(PageCommandError) {
            guard peek() == byte else {
                throw .malformed("expected '\(Character(Unicode.Scalar(byte)))' at byte \(index)")
            }
            index += 1
        }

        mutating func value() throws(PageCommandError) -> FlatJSONValue {
            guard let b = peek() else { throw .malformed("unexpected end") }
            switch b {
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            case UInt8(ascii: "{"), UInt8(ascii: "["): throw .malformed("nested values are not accepted")
            default: throw .malformed("unexpected byte 0x\(String(b, radix: 16)) at \(index)")
            }
        }

        mutating func literal(_ word: String) throws(PageCommandError) {
            let expected = Array(word.utf8)
            guard index + expected.count <= bytes.count, Array(bytes[index..<(index + expected.count)]) == expected else {
                throw .malformed("bad literal at byte \(index)")
            }
            index += expected.count
        }

        /// A JSON number (the grammar checked here; the value read by `Double(_:)`).
        mutating func number() throws(PageCommandError) -> Double {
            let start = index
            if peek() == UInt8(ascii: "-") { index += 1 }
            guard let first = peek(), isDigit(first) else { throw .malformed("bad number at byte \(start)") }
            if first == UInt8(ascii: "0") { index += 1 } else { while let d = peek(), isDigit(d) { index += 1 } }
            if peek() == UInt8(ascii: ".") {
                index += 1
                guard let d = peek(), isDigit(d) else { throw .malformed("bad number at byte \(start)") }
                while let d = peek(), isDigit(d) { index += 1 }
            }
            if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
                index += 1
                if let s = peek(), s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { index += 1 }
                guard let d = peek(), isDigit(d) else { throw .malformed("bad number at byte \(start)") }
                while let d = peek(), isDigit(d) { index += 1 }
            }
            guard index - start <= 64 else { throw .malformed("number too long at byte \(start)") }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let value = Double(text) else { throw .malformed("bad number at byte \(start)") }
            return value
        }

        func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

        /// A JSON string; escapes are decoded, control characters and invalid UTF-8 refused.
        mutating func string() throws(PageCommandError) -> String {
            try expect(UInt8(ascii: "\""))
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() throws(PageCommandError) {
                guard !raw.isEmpty else { return }
                guard let text = String(validating: raw, as: UTF8.self) else { throw .malformed("string is not UTF-8") }
                scalars.append(contentsOf: text.unicodeScalars)
                raw.removeAll(keepingCapacity: true)
            }
            while true {
                guard let b = peek() else { throw .malformed("unterminated string") }
                index += 1
                switch b {
                case UInt8(ascii: "\""):
                    try flush()
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    try flush()
                    guard let e = peek() else { throw .malformed("unterminated string") }
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        let code = try hex4()
                        // Surrogates are refused rather than paired: no command needs them.
                        guard let scalar = Unicode.Scalar(code) else { throw .malformed("surrogate escape in string") }
                        scalars.append(scalar)
                    default: throw .malformed("bad escape at byte \(index - 1)")
                    }
                case 0..<0x20:
                    throw .malformed("control character in string at byte \(index - 1)")
                default:
                    raw.append(b)
                }
            }
        }

        mutating func hex4() throws(PageCommandError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw .malformed("unterminated escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let b = bytes[index]
                index += 1
                let digit: UInt32
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
                default: throw .malformed("bad \\u escape")
                }
                value = value * 16 + digit
            }
            return value
        }
    }
}
