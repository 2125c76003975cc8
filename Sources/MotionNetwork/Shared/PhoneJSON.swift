import Foundation
import MotionRecordings

/// A JSON value as a phone sent it (phyphox, SensorServer), read by the network decoders' one strict
/// reader (``JSONReader``, RFC 8259).
///
/// Why not Foundation's `JSONSerialization`: its numbers come back as `NSNumber`, which on Linux cannot tell
/// `true` from `1`, and it reads a 19-digit integer (SensorServer's boot-clock nanoseconds) as a `Double`.
/// This keeps an integer exactly (``int64``), refuses anything that is not JSON with the byte offset where
/// it stopped, bounds nesting (``maximumDepth``) so that hostile input cannot exhaust the stack, and never
/// traps (it is fuzzed: `Fuzz/`).
public enum PhoneJSON: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number: its value as a `Double` and, when it is an integer that fits, exactly as an `Int64`.
    case number(Double, exact: Int64?)
    /// A string, escapes decoded.
    case string(String)
    /// An array.
    case array([PhoneJSON])
    /// An object, with its members in the order they came (a repeated key keeps its last value in
    /// ``subscript(_:)``).
    case object([(String, PhoneJSON)])

    /// Deepest nesting of arrays and objects accepted (``JSONLimits/maximumDepth``).
    public static let maximumDepth = JSONLimits.maximumDepth

    /// Whether two values are the same (a NaN number equals a NaN; members compare in order).
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

    /// The value when it is a string.
    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The value when it is a boolean.
    public var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The elements when it is an array.
    public var array: [PhoneJSON]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// Whether it is `null`.
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

    /// Parses one JSON text (whitespace around it allowed, nothing else after it) with the network decoders'
    /// one reader (``JSONReader``).
    public static func parse(_ bytes: some Collection<UInt8>) throws(PhoneJSONError) -> PhoneJSON {
        let parsed: Result<PhoneJSON, PhoneJSONError>? = bytes.withContiguousStorageIfAvailable { parse(buffer: $0) }
        if let parsed { return try parsed.get() }
        return try Array(bytes).withUnsafeBufferPointer { parse(buffer: $0) }.get()
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>) -> Result<PhoneJSON, PhoneJSONError> {
        guard let base = buffer.baseAddress else {
            return .failure(PhoneJSONError(offset: 0, expected: "a value", found: "the end"))
        }
        var reader = JSONReader<PhoneJSONError>(base, count: buffer.count)
        do {
            let value = try reader.value(depth: 0)
            try reader.end()
            return .success(value)
        } catch {
            return .failure(error)
        }
    }
}

extension JSONReader where Failure == PhoneJSONError {
    /// The value at the cursor, as a tree, at nesting `depth`.
    mutating func value(depth: Int) throws(PhoneJSONError) -> PhoneJSON {
        switch peek() {
        case 0x7B:
            var members: [(String, PhoneJSON)] = []
            try object(depth: depth) { (r, name) throws(PhoneJSONError) in
                members.append((try r.decodeString(name.start, name.end, name.escaped), try r.value(depth: depth + 1)))
            }
            return .object(members)
        case 0x5B:
            var elements: [PhoneJSON] = []
            try array(depth: depth) { (r) throws(PhoneJSONError) in elements.append(try r.value(depth: depth + 1)) }
            return .array(elements)
        case 0x22:
            let (start, end, escaped) = try stringToken()
            return .string(try decodeString(start, end, escaped))
        case 0x74:
            try literal("true")
            return .bool(true)
        case 0x66:
            try literal("false")
            return .bool(false)
        case 0x6E:
            try literal("null")
            return .null
        default:
            let (start, end, integer) = try numberToken()
            // The grammar was checked: the parser only rounds; an overflow gives ±inf or nil (NaN), which
            // the decoders refuse as not finite.
            let value = DecimalParser.parseDouble(p, start, end) ?? .nan
            return .number(value, exact: integer ? DecimalParser.parseInt64(p, start, end) : nil)
        }
    }
}

/// Why a text is not JSON: where the reader stopped and what it expected there.
public struct PhoneJSONError: Error, Sendable, Equatable, CustomStringConvertible, JSONReadFailure {
    /// Byte offset from the start of the text.
    public var offset: Int
    /// What the reader expected there.
    public var expected: String
    /// What was there (`'x'`, `byte 0x1`, `the end`).
    public var found: String

    static func syntax(expected: String, found: String, at offset: Int) -> PhoneJSONError {
        PhoneJSONError(offset: offset, expected: expected, found: found)
    }

    static func tooDeep(at offset: Int) -> PhoneJSONError {
        PhoneJSONError(offset: offset, expected: "at most \(JSONLimits.maximumDepth) levels of nesting", found: "a deeper array or object")
    }

    /// The error in words, with its byte offset.
    public var description: String { "not JSON at byte \(offset): expected \(expected), found \(found)" }
}
