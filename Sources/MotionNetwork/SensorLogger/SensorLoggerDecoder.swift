import Foundation
import MotionRecordings
import MotionSamples

/// Why a push body was refused (HTTP 400): the kind, for counting, and a reason for the reply.
public struct SensorLoggerDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for counting and logging once per kind.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Not JSON at all (bad syntax, bad UTF-8 in a string, trailing bytes).
        case syntax
        /// Valid JSON, but not a message: the top level is not an object or `payload` is not an array.
        case notAMessage
        /// An envelope field of the wrong type (`messageId`, `sessionId`, `deviceId`, `userId`).
        case badEnvelope
        /// A reading that is not an object, or has no usable `name` or `time`.
        case badReading
        /// Nested deeper than the decoder follows (64 levels), or more readings than it takes.
        case tooLarge
    }

    public var kind: Kind
    /// A short reason, sent back to the phone.
    public var reason: String
    /// Byte offset in the body where it was noticed.
    public var offset: Int

    public init(_ kind: Kind, _ reason: String, at offset: Int) {
        self.kind = kind
        self.reason = reason
        self.offset = offset
    }

    public var description: String { "\(reason) (at byte \(offset))" }
}

/// Decodes Sensor Logger push bodies: a hand-written scanner over the bytes for this one schema.
///
/// No Foundation JSON: the body is scanned once, numbers go through ``DecimalParser`` (exact), and a
/// message's values land in two flat arrays (no allocation per reading). Lenient where the app is:
/// `time` and `messageId` as integers, double renderings (`1.7152544487868948e18`) or numeric strings;
/// values as numbers, numeric strings or booleans (also `"True"`/`"False"`); `values` an object, or an
/// array (the test push) or `null` (no values); unknown keys and sensors skipped; reading names
/// lowercased with spaces removed. Strict where a mistake would be silent: a syntax error anywhere, a
/// reading without a name or time, a `payload` that is not an array are refused with a reason.
///
/// Limits: nesting depth 64, 100,000 readings, 256 bytes per identifier; bodies are capped before
/// (1 MiB, ``SensorLoggerServer``).
public enum SensorLoggerDecoder {
    /// Deepest nesting followed.
    public static let maximumDepth = 64
    /// Most readings taken from one message.
    public static let maximumReadings = 100_000
    /// Longest identifier (`sessionId`, `deviceId`, `userId`) kept, bytes.
    public static let maximumIdentifierLength = 256

    /// Decodes one body.
    public static func decode(_ body: some Collection<UInt8>) throws(SensorLoggerDecodingError) -> SensorLoggerMessage {
        let result: Result<SensorLoggerMessage, SensorLoggerDecodingError>? = body.withContiguousStorageIfAvailable { buffer in
            decode(buffer: UnsafeRawBufferPointer(buffer))
        }
        if let result { return try result.get() }
        let copy = Array(body)
        return try copy.withUnsafeBytes { decode(buffer: $0) }.get()
    }

    /// Decodes one body from raw bytes.
    public static func decode(buffer: UnsafeRawBufferPointer) -> Result<SensorLoggerMessage, SensorLoggerDecodingError> {
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            return .failure(SensorLoggerDecodingError(.syntax, "empty body: expected a JSON message", at: 0))
        }
        var scanner = Scanner(p: base.assumingMemoryBound(to: UInt8.self), n: buffer.count)
        do {
            let message = try scanner.message()
            return .success(message)
        } catch {
            return .failure(error)
        }
    }
}

/// The scanner state: a cursor over the body.
struct Scanner {
    let p: UnsafePointer<UInt8>
    let n: Int
    var i = 0

    init(p: UnsafePointer<UInt8>, n: Int) {
        self.p = p
        self.n = n
    }

    typealias Failure = SensorLoggerDecodingError

    /// A failure at the current byte; an escape's backslash at the last byte steps `i` past the end, so the
    /// offset is clamped to the body's length.
    func fail(_ kind: Failure.Kind, _ reason: String) -> Failure { Failure(kind, reason, at: min(i, n)) }

    @inline(__always)
    mutating func skipSpace() {
        while i < n {
            let c = p[i]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { i += 1 } else { return }
        }
    }

    @inline(__always)
    mutating func expect(_ c: UInt8, _ what: String) throws(Failure) {
        skipSpace()
        guard i < n, p[i] == c else { throw fail(.syntax, "expected \(what)") }
        i += 1
    }

    /// Peeks the next non-space byte (0 at the end).
    @inline(__always)
    mutating func peek() -> UInt8 {
        skipSpace()
        return i < n ? p[i] : 0
    }

    // MARK: Message

    mutating func message() throws(Failure) -> SensorLoggerMessage {
        var message = SensorLoggerMessage()
        guard peek() == 0x7B else {
            throw fail(peek() == 0 ? .syntax : .notAMessage, "expected a JSON object {messageId, sessionId, deviceId, payload}")
        }
        i += 1
        var sawPayload = false
        if peek() == 0x7D {
            i += 1
        } else {
            while true {
                let (start, end, escaped) = try stringToken()
                try expect(0x3A, "':' after a key")
                skipSpace()
                let length = end - start
                if !escaped && length == 7 && memcmp(p + start, "payload", 7) == 0 {
                    let c = peek()
                    if c == 0x5B {
                        try payload(into: &message)
                    } else if c == 0x6E {
                        try literal("null")
                    } else {
                        throw fail(.notAMessage, "payload: expected an array of readings")
                    }
                    sawPayload = true
                } else if !escaped && length == 9 && memcmp(p + start, "messageId", 9) == 0 {
                    message.messageId = try integerValue("messageId", kind: .badEnvelope)
                } else if !escaped && length == 9 && memcmp(p + start, "sessionId", 9) == 0 {
                    message.sessionId = try identifier("sessionId")
                } else if !escaped && length == 8 && memcmp(p + start, "deviceId", 8) == 0 {
                    message.deviceId = try identifier("deviceId")
                } else if !escaped && length == 6 && memcmp(p + start, "userId", 6) == 0 {
                    message.userId = try identifier("userId")
                } else {
                    try skipValue(depth: 1)
                }
                if try afterMember(close: 0x7D) { break }
            }
        }
        skipSpace()
        guard i == n else { throw fail(.syntax, "trailing bytes after the message") }
        guard sawPayload else { throw fail(.notAMessage, "no payload: expected {messageId, sessionId, deviceId, payload: […]}") }
        return message
    }

    /// After a member: `,` (returns false: more follow) or `close` (returns true).
    @inline(__always)
    mutating func afterMember(close: UInt8) throws(Failure) -> Bool {
        skipSpace()
        guard i < n else { throw fail(.syntax, "unexpected end of the body") }
        let c = p[i]
        i += 1
        if c == 0x2C { return false }
        if c == close { return true }
        i -= 1
        throw fail(.syntax, close == 0x7D ? "expected ',' or '}'" : "expected ',' or ']'")
    }

    mutating func payload(into message: inout SensorLoggerMessage) throws(Failure) {
        i += 1  // [
        if peek() == 0x5D { i += 1; return }
        message.readings.reserveCapacity(64)
        message.fields.reserveCapacity(256)
        message.numbers.reserveCapacity(256)
        while true {
            guard message.readings.count < SensorLoggerDecoder.maximumReadings else {
                throw fail(.tooLarge, "more than \(SensorLoggerDecoder.maximumReadings) readings in one message")
            }
            try reading(into: &message)
            if try afterMember(close: 0x5D) { return }
        }
    }

    mutating func reading(into message: inout SensorLoggerMessage) throws(Failure) {
        guard peek() == 0x7B else { throw fail(.badReading, "payload: each reading must be an object {name, time, values}") }
        i += 1
        var sensor: SensorLoggerSensor?
        var time: Int64?
        var accuracy: Int?
        let index = message.readings.count
        let valuesStart = message.numbers.count
        if peek() == 0x7D {
            i += 1
        } else {
            while true {
                let (start, end, escaped) = try stringToken()
                try expect(0x3A, "':' after a key")
                skipSpace()
                let length = end - start
                if !escaped && length == 4 && memcmp(p + start, "name", 4) == 0 {
                    guard peek() == 0x22 else { throw fail(.badReading, "reading name: expected a string") }
                    sensor = try sensorName()
                } else if !escaped && length == 4 && memcmp(p + start, "time", 4) == 0 {
                    time = try integerValue("reading time", kind: .badReading)
                } else if !escaped && length == 6 && memcmp(p + start, "values", 6) == 0 {
                    try values(into: &message, reading: index)
                } else if !escaped && length == 8 && memcmp(p + start, "accuracy", 8) == 0 {
                    if peek() == 0x6E {
                        try literal("null")
                    } else if let a = try integerValue("accuracy", kind: .badReading), a >= -1000, a <= 1000 {
                        accuracy = Int(a)
                    } else {
                        throw fail(.badReading, "accuracy: expected a small integer")
                    }
                } else {
                    try skipValue(depth: 2)
                }
                if try afterMember(close: 0x7D) { break }
            }
        }
        guard let sensor else { throw fail(.badReading, "a reading has no name") }
        guard let time else { throw fail(.badReading, "reading '\(sensor.name)' has no time") }
        message.readings.append(SensorLoggerReading(sensor: sensor, time: time, accuracy: accuracy, values: valuesStart..<message.numbers.count))
    }

    /// `values`: an object of numbers and strings; an array (the test push) or `null` give nothing.
    mutating func values(into message: inout SensorLoggerMessage, reading index: Int) throws(Failure) {
        let c = peek()
        if c == 0x6E { try literal("null"); return }
        if c == 0x5B { try skipValue(depth: 2); return }
        guard c == 0x7B else { throw fail(.badReading, "values: expected an object") }
        i += 1
        if peek() == 0x7D { i += 1; return }
        while true {
            let (start, end, escaped) = try stringToken()
            try expect(0x3A, "':' after a key")
            skipSpace()
            let field = escaped ? nil : Scanner.field(p + start, end - start)
            if let field {
                let c = peek()
                if c == 0x22 {
                    let (s, e, esc) = try stringToken()
                    if let number = esc ? nil : DecimalParser.parseDouble(p, s, e) {
                        message.fields.append(field)
                        message.numbers.append(number)
                    } else {
                        let text = try decodeString(s, e, esc, limit: 256)
                        switch text.lowercased() {
                        case "true": message.fields.append(field); message.numbers.append(1)
                        case "false": message.fields.append(field); message.numbers.append(0)
                        default: break
                        }
                        message.strings.append(.init(reading: index, field: field, text: text))
                    }
                } else if c == 0x74 {
                    try literal("true")
                    message.fields.append(field)
                    message.numbers.append(1)
                } else if c == 0x66 {
                    try literal("false")
                    message.fields.append(field)
                    message.numbers.append(0)
                } else if c == 0x6E {
                    try literal("null")
                } else if c == 0x2D || (c >= 0x30 && c <= 0x39) {
                    let (s, e) = numberToken()
                    guard let v = DecimalParser.parseDouble(p, s, e) else { throw fail(.syntax, "bad number") }
                    message.fields.append(field)
                    message.numbers.append(v)
                } else {
                    try skipValue(depth: 3)
                }
            } else {
                try skipValue(depth: 3)
            }
            if try afterMember(close: 0x7D) { return }
        }
    }

    /// The reading's name, normalised (lowercase, no spaces).
    mutating func sensorName() throws(Failure) -> SensorLoggerSensor {
        let (start, end, escaped) = try stringToken()
        // Normalise into a small buffer; names longer than 64 bytes are kept cut short as `other`.
        var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        return try withUnsafeMutableBytes(of: &buffer) { raw throws(Failure) -> SensorLoggerSensor in
            let out = raw.bindMemory(to: UInt8.self)
            var count = 0
            if escaped {
                let text = try decodeString(start, end, true, limit: 1024)
                var cut = false
                for b in text.utf8 where b != 0x20 {
                    guard count < 64 else { cut = true; break }
                    out[count] = (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b
                    count += 1
                }
                if cut {
                    while count > 0 && out[count - 1] & 0xC0 == 0x80 { count -= 1 }
                    if count > 0 && out[count - 1] >= 0xC0 { count -= 1 }
                }
            } else {
                var k = start
                while k < end && count < 64 {
                    let b = p[k]
                    if b != 0x20 {
                        out[count] = (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b
                        count += 1
                    }
                    k += 1
                }
                while k < end && p[k] == 0x20 { k += 1 }
                if k < end {
                    // Cut short: end on a whole UTF-8 character.
                    while count > 0 && out[count - 1] & 0xC0 == 0x80 { count -= 1 }
                    if count > 0 && out[count - 1] >= 0xC0 { count -= 1 }
                }
            }
            let bytes = UnsafeBufferPointer(rebasing: out[0..<count])
            if let known = Scanner.sensor(bytes) { return known }
            guard let name = String(validating: bytes, as: UTF8.self) else { throw fail(.syntax, "a reading name that is not UTF-8") }
            return .other(name)
        }
    }

    static let sensorTable: [[UInt8]: SensorLoggerSensor] = {
        var table: [[UInt8]: SensorLoggerSensor] = [:]
        for (name, sensor) in SensorLoggerSensor.known { table[Array(name.utf8)] = sensor }
        return table
    }()

    @inline(__always)
    static func sensor(_ bytes: UnsafeBufferPointer<UInt8>) -> SensorLoggerSensor? {
        guard let b = bytes.baseAddress else { return nil }
        // The three raw sensors and their calibrated twins first, without hashing.
        switch bytes.count {
        case 13:
            if memcmp(b, "accelerometer", 13) == 0 { return .accelerometer }
        case 9:
            if memcmp(b, "gyroscope", 9) == 0 { return .gyroscope }
        case 12:
            if memcmp(b, "magnetometer", 12) == 0 { return .magnetometer }
        case 25:
            if memcmp(b, "accelerometeruncalibrated", 25) == 0 { return .accelerometerUncalibrated }
        case 21:
            if memcmp(b, "gyroscopeuncalibrated", 21) == 0 { return .gyroscopeUncalibrated }
        case 24:
            if memcmp(b, "magnetometeruncalibrated", 24) == 0 { return .magnetometerUncalibrated }
        default: break
        }
        return sensorTable[Array(bytes)]
    }

    /// Fields by key length, for matching without making a String.
    static let fieldsByLength: [[(bytes: [UInt8], field: SensorLoggerField)]] = {
        var table = Array(repeating: [(bytes: [UInt8], field: SensorLoggerField)](), count: 32)
        for f in SensorLoggerField.allCases {
            let bytes = Array(f.key.utf8)
            table[bytes.count].append((bytes, f))
        }
        return table
    }()

    @inline(__always)
    static func field(_ b: UnsafePointer<UInt8>, _ length: Int) -> SensorLoggerField? {
        switch length {
        case 1:
            switch b[0] {
            case 0x78: return .x
            case 0x79: return .y
            case 0x7A: return .z
            default: return nil
            }
        case 2 where b[0] == 0x71:
            switch b[1] {
            case 0x78: return .qx
            case 0x79: return .qy
            case 0x7A: return .qz
            case 0x77: return .qw
            default: return nil
            }
        case 0, 32...:
            return nil
        default:
            for entry in fieldsByLength[length] where entry.bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress!, b, length) == 0 }) {
                return entry.field
            }
            return nil
        }
    }

    // MARK: Tokens

    /// A string token: returns the byte range of its content (without quotes) and whether it has escapes.
    @inline(__always)
    mutating func stringToken() throws(Failure) -> (Int, Int, Bool) {
        skipSpace()
        guard i < n, p[i] == 0x22 else { throw fail(.syntax, "expected a string") }
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
                i += 2
                continue
            }
            if c < 0x20 { throw fail(.syntax, "control character in a string") }
            i += 1
        }
        throw fail(.syntax, "unterminated string")
    }

    /// Decodes a string's content (escapes included) to a String of at most `limit` bytes.
    func decodeString(_ start: Int, _ end: Int, _ escaped: Bool, limit: Int) throws(Failure) -> String {
        guard end - start <= limit * 6 else { throw fail(.tooLarge, "a string longer than \(limit) bytes") }
        let raw = UnsafeBufferPointer(start: p + start, count: end - start)
        var text: String
        if !escaped {
            guard let s = String(validating: raw, as: UTF8.self) else { throw fail(.syntax, "a string that is not UTF-8") }
            text = s
        } else {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(raw.count)
            var k = 0
            var pendingHigh: UInt32?
            while k < raw.count {
                let c = raw[k]
                guard c == 0x5C else { bytes.append(c); k += 1; continue }
                guard k + 1 < raw.count else { throw fail(.syntax, "bad escape") }
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
                    guard k + 4 <= raw.count else { throw fail(.syntax, "bad \\u escape") }
                    var v: UInt32 = 0
                    for j in 0..<4 {
                        let h = raw[k + j]
                        let d: UInt32
                        switch h {
                        case 0x30...0x39: d = UInt32(h - 0x30)
                        case 0x41...0x46: d = UInt32(h - 0x41 + 10)
                        case 0x61...0x66: d = UInt32(h - 0x61 + 10)
                        default: throw fail(.syntax, "bad \\u escape")
                        }
                        v = v << 4 | d
                    }
                    k += 4
                    var scalar: Unicode.Scalar?
                    if v >= 0xD800 && v < 0xDC00 {
                        pendingHigh = v
                        continue
                    } else if v >= 0xDC00 && v < 0xE000, let high = pendingHigh {
                        scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (v - 0xDC00))
                    } else {
                        scalar = Unicode.Scalar(v)
                    }
                    pendingHigh = nil
                    // A lone surrogate becomes U+FFFD, as decoders commonly do.
                    bytes.append(contentsOf: String(Character(scalar ?? "\u{FFFD}")).utf8)
                default: throw fail(.syntax, "bad escape")
                }
            }
            guard let s = String(validating: bytes, as: UTF8.self) else { throw fail(.syntax, "a string that is not UTF-8") }
            text = s
        }
        guard text.utf8.count <= limit else { throw fail(.tooLarge, "a string longer than \(limit) bytes") }
        return text
    }

    /// The bytes of a number token (validated later by the parser).
    @inline(__always)
    mutating func numberToken() -> (Int, Int) {
        let start = i
        while i < n {
            let c = p[i]
            if (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x2B || c == 0x2E || c == 0x65 || c == 0x45 { i += 1 } else { break }
        }
        return (start, i)
    }

    mutating func literal(_ word: StaticString) throws(Failure) {
        skipSpace()
        let count = word.utf8CodeUnitCount
        guard i + count <= n, memcmp(p + i, word.utf8Start, count) == 0 else { throw fail(.syntax, "expected a JSON value") }
        i += count
    }

    /// An integer: digits, a double rendering (`1.7e18`, `1715254448786894800.0`) or either as a string;
    /// `nil` for `null`.
    mutating func integerValue(_ what: String, kind: Failure.Kind) throws(Failure) -> Int64? {
        let c = peek()
        var start: Int, end: Int
        if c == 0x22 {
            let (s, e, escaped) = try stringToken()
            guard !escaped else { throw fail(kind, "\(what): expected a number") }
            start = s
            end = e
        } else if c == 0x6E {
            try literal("null")
            return nil
        } else if c == 0x2D || (c >= 0x30 && c <= 0x39) {
            (start, end) = numberToken()
        } else {
            throw fail(kind, "\(what): expected a number")
        }
        if let v = DecimalParser.parseInt64(p, start, end) { return v }
        guard let d = DecimalParser.parseDouble(p, start, end), d.isFinite, d.rounded() == d,
              d >= -9.2e18, d <= 9.2e18 else {
            throw fail(kind, "\(what): expected an integer")
        }
        return Int64(d)
    }

    mutating func identifier(_ what: String) throws(Failure) -> String? {
        let c = peek()
        if c == 0x6E { try literal("null"); return nil }
        if c == 0x2D || (c >= 0x30 && c <= 0x39) {
            let (s, e) = numberToken()
            guard e - s <= SensorLoggerDecoder.maximumIdentifierLength else { throw fail(.badEnvelope, "\(what) too long") }
            return String(decoding: UnsafeBufferPointer(start: p + s, count: e - s), as: UTF8.self)
        }
        guard c == 0x22 else { throw fail(.badEnvelope, "\(what): expected a string") }
        let (s, e, escaped) = try stringToken()
        do {
            return try decodeString(s, e, escaped, limit: SensorLoggerDecoder.maximumIdentifierLength)
        } catch {
            throw Failure(error.kind == .tooLarge ? .badEnvelope : error.kind, "\(what): \(error.reason)", at: error.offset)
        }
    }

    /// Skips any JSON value, validating its syntax, up to ``SensorLoggerDecoder/maximumDepth``.
    mutating func skipValue(depth: Int) throws(Failure) {
        guard depth <= SensorLoggerDecoder.maximumDepth else { throw fail(.tooLarge, "nested deeper than \(SensorLoggerDecoder.maximumDepth) levels") }
        let c = peek()
        switch c {
        case 0x22: _ = try stringToken()
        case 0x7B:
            i += 1
            if peek() == 0x7D { i += 1; return }
            while true {
                _ = try stringToken()
                try expect(0x3A, "':' after a key")
                try skipValue(depth: depth + 1)
                if try afterMember(close: 0x7D) { return }
            }
        case 0x5B:
            i += 1
            if peek() == 0x5D { i += 1; return }
            while true {
                try skipValue(depth: depth + 1)
                if try afterMember(close: 0x5D) { return }
            }
        case 0x74: try literal("true")
        case 0x66: try literal("false")
        case 0x6E: try literal("null")
        default:
            guard c == 0x2D || (c >= 0x30 && c <= 0x39) else { throw fail(.syntax, "expected a JSON value") }
            let (s, e) = numberToken()
            guard DecimalParser.parseDouble(p, s, e) != nil else { throw fail(.syntax, "bad number") }
        }
    }
}
