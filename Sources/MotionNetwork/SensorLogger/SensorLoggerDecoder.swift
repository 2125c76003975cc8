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
        /// Nested deeper than the decoder follows (``JSONLimits/maximumDepth``), or more readings than it takes.
        case tooLarge
    }

    /// What went wrong.
    public var kind: Kind
    /// A short reason, sent back to the phone.
    public var reason: String
    /// Byte offset in the body where it was noticed.
    public var offset: Int

    /// An error of `kind` at byte `offset`, saying `reason`.
    public init(_ kind: Kind, _ reason: String, at offset: Int) {
        self.kind = kind
        self.reason = reason
        self.offset = offset
    }

    /// The reason with the byte offset.
    public var description: String { "\(reason) (at byte \(offset))" }
}

/// Decodes Sensor Logger push bodies with the network decoders' one strict reader (``JSONReader``), read
/// straight into this one schema rather than through a ``PhoneJSON`` tree.
///
/// Why not a tree: BENCHMARKS.md §8 ("decode", target ≥ 1 M readings/s) measures this decoder at 2.85–5.08 M
/// readings/s (p50) with 256 allocations per 3,000 readings, and the receiver's 100-phone load run costs
/// 66–71 % of a core with it. Building the ``PhoneJSON`` tree of the same pushes alone reaches 0.51–0.54 M
/// readings/s (p50; this schema walk 2.50–2.57 M in the same run, §8's note of 2026-11-29): below the
/// target before any conversion. So the grammar, positions and depth bound are the shared reader's, and
/// only the walk over the schema is this decoder's: a message's values land in two flat arrays (no
/// allocation per reading), numbers go through ``DecimalParser`` (exact).
///
/// Lenient where the app is: `time` and `messageId` as integers, double renderings
/// (`1.7152544487868948e18`) or numeric strings; values as numbers, numeric strings or booleans (also
/// `"True"`/`"False"`); `values` an object, or an array (the test push) or `null` (no values); unknown keys
/// and sensors skipped; reading names lowercased with spaces removed. Strict where a mistake would be
/// silent: a syntax error anywhere, a reading without a name or time, a `payload` that is not an array are
/// refused with a reason and the byte offset.
///
/// Limits: nesting depth ``JSONLimits/maximumDepth``, 100,000 readings, 256 bytes per identifier; bodies
/// are capped before (1 MiB, ``SensorLoggerServer``).
public enum SensorLoggerDecoder {
    /// Deepest nesting followed (``JSONLimits/maximumDepth``).
    public static let maximumDepth = JSONLimits.maximumDepth
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
        var reader = JSONReader<SensorLoggerDecodingError>(base.assumingMemoryBound(to: UInt8.self), count: buffer.count)
        do {
            return .success(try reader.message())
        } catch {
            return .failure(error)
        }
    }
}

extension SensorLoggerDecodingError: JSONReadFailure {
    static func syntax(expected: String, found: String, at offset: Int) -> SensorLoggerDecodingError {
        SensorLoggerDecodingError(.syntax, "expected \(expected), found \(found)", at: offset)
    }

    static func tooDeep(at offset: Int) -> SensorLoggerDecodingError {
        SensorLoggerDecodingError(.tooLarge, "nested deeper than \(JSONLimits.maximumDepth) levels", at: offset)
    }
}

/// The walk over Sensor Logger's schema.
extension JSONReader where Failure == SensorLoggerDecodingError {
    /// A failure of kind `kind` at the current byte.
    func fail(_ kind: Failure.Kind, _ reason: String) -> Failure { Failure(kind, reason, at: min(i, n)) }

    // MARK: Message

    mutating func message() throws(Failure) -> SensorLoggerMessage {
        var message = SensorLoggerMessage()
        let first = peek()
        guard first == 0x7B else {
            throw fail(first == 0 ? .syntax : .notAMessage, "expected a JSON object {messageId, sessionId, deviceId, payload}")
        }
        var sawPayload = false
        try object(depth: 0) { (r, name) throws(Failure) in
            if r.isName(name, "payload") {
                let c = r.peek()
                if c == 0x5B {
                    try r.payload(into: &message)
                } else if c == 0x6E {
                    try r.literal("null")
                } else {
                    throw r.fail(.notAMessage, "payload: expected an array of readings")
                }
                sawPayload = true
            } else if r.isName(name, "messageId") {
                message.messageId = try r.integerValue("messageId", kind: .badEnvelope)
            } else if r.isName(name, "sessionId") {
                message.sessionId = try r.identifier("sessionId")
            } else if r.isName(name, "deviceId") {
                message.deviceId = try r.identifier("deviceId")
            } else if r.isName(name, "userId") {
                message.userId = try r.identifier("userId")
            } else {
                try r.skipValue(depth: 1)
            }
        }
        try end()
        guard sawPayload else { throw fail(.notAMessage, "no payload: expected {messageId, sessionId, deviceId, payload: […]}") }
        return message
    }

    mutating func payload(into message: inout SensorLoggerMessage) throws(Failure) {
        message.readings.reserveCapacity(64)
        message.fields.reserveCapacity(256)
        message.numbers.reserveCapacity(256)
        try array(depth: 1) { (r) throws(Failure) in
            guard message.readings.count < SensorLoggerDecoder.maximumReadings else {
                throw r.fail(.tooLarge, "more than \(SensorLoggerDecoder.maximumReadings) readings in one message")
            }
            try r.reading(into: &message)
        }
    }

    mutating func reading(into message: inout SensorLoggerMessage) throws(Failure) {
        guard peek() == 0x7B else { throw fail(.badReading, "payload: each reading must be an object {name, time, values}") }
        var sensor: SensorLoggerSensor?
        var time: Int64?
        var accuracy: Int?
        let index = message.readings.count
        let valuesStart = message.numbers.count
        try object(depth: 2) { (r, name) throws(Failure) in
            if r.isName(name, "name") {
                guard r.peek() == 0x22 else { throw r.fail(.badReading, "reading name: expected a string") }
                sensor = try r.sensorName()
            } else if r.isName(name, "time") {
                time = try r.integerValue("reading time", kind: .badReading)
            } else if r.isName(name, "values") {
                try r.values(into: &message, reading: index)
            } else if r.isName(name, "accuracy") {
                if r.peek() == 0x6E {
                    try r.literal("null")
                } else if let a = try r.integerValue("accuracy", kind: .badReading), a >= -1000, a <= 1000 {
                    accuracy = Int(a)
                } else {
                    throw r.fail(.badReading, "accuracy: expected a small integer")
                }
            } else {
                try r.skipValue(depth: 3)
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
        if c == 0x5B { try skipValue(depth: 3); return }
        guard c == 0x7B else { throw fail(.badReading, "values: expected an object") }
        try object(depth: 3) { (r, name) throws(Failure) in
            guard let field = name.escaped ? nil : SensorLoggerNames.field(r.p + name.start, name.end - name.start) else {
                return try r.skipValue(depth: 4)
            }
            try r.value(of: field, into: &message, reading: index)
        }
    }

    /// One value of a reading: a number, a numeric string, a boolean (or its text), `null`; anything else is
    /// skipped.
    mutating func value(of field: SensorLoggerField, into message: inout SensorLoggerMessage, reading index: Int) throws(Failure) {
        switch peek() {
        case 0x22:
            let (s, e, escaped) = try stringToken()
            if let number = escaped ? nil : DecimalParser.parseDouble(p, s, e) {
                message.fields.append(field)
                message.numbers.append(number)
            } else {
                let text = try limitedString(s, e, escaped, limit: 256)
                switch text.lowercased() {
                case "true": message.fields.append(field); message.numbers.append(1)
                case "false": message.fields.append(field); message.numbers.append(0)
                default: break
                }
                message.strings.append(.init(reading: index, field: field, text: text))
            }
        case 0x74:
            try literal("true")
            message.fields.append(field)
            message.numbers.append(1)
        case 0x66:
            try literal("false")
            message.fields.append(field)
            message.numbers.append(0)
        case 0x6E:
            try literal("null")
        case 0x2D, 0x30...0x39:
            let v = try doubleToken()
            message.fields.append(field)
            message.numbers.append(v)
        default:
            try skipValue(depth: 4)
        }
    }

    /// The reading's name (the next byte is `"`), normalised: a known sensor or `.other`.
    mutating func sensorName() throws(Failure) -> SensorLoggerSensor {
        let (start, end, escaped) = try stringToken()
        guard escaped else {
            // Sensor Logger writes its motion sensors' names already normalised: those need no copy.
            if let motion = SensorLoggerNames.motionSensor(p + start, end - start) { return motion }
            return try normalisedSensor(UnsafeBufferPointer(start: p + start, count: end - start))
        }
        let text = try limitedString(start, end, true, limit: 1024)
        return try Array(text.utf8).withUnsafeBufferPointer { (name) throws(Failure) in try normalisedSensor(name) }
    }

    /// `name` lowercased without spaces and cut to 64 bytes on a whole UTF-8 character: a known sensor, or
    /// `.other` with the normalised name.
    func normalisedSensor(_ name: UnsafeBufferPointer<UInt8>) throws(Failure) -> SensorLoggerSensor {
        var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        return try withUnsafeMutableBytes(of: &buffer) { raw throws(Failure) -> SensorLoggerSensor in
            let out = raw.bindMemory(to: UInt8.self)
            var count = 0
            var k = 0
            while k < name.count && count < 64 {
                let b = name[k]
                if b != 0x20 {
                    out[count] = (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b
                    count += 1
                }
                k += 1
            }
            while k < name.count && name[k] == 0x20 { k += 1 }
            if k < name.count {
                // Cut short: end on a whole UTF-8 character.
                while count > 0 && out[count - 1] & 0xC0 == 0x80 { count -= 1 }
                if count > 0 && out[count - 1] >= 0xC0 { count -= 1 }
            }
            let bytes = UnsafeBufferPointer(rebasing: out[0..<count])
            if let known = SensorLoggerNames.sensor(bytes) { return known }
            guard let text = String(validating: bytes, as: UTF8.self) else { throw fail(.syntax, "a reading name that is not UTF-8") }
            return .other(text)
        }
    }

    // MARK: Values

    /// A string's text, at most `limit` bytes (longer: ``SensorLoggerDecodingError/Kind/tooLarge``).
    func limitedString(_ start: Int, _ end: Int, _ escaped: Bool, limit: Int) throws(Failure) -> String {
        guard end - start <= limit * 6 else { throw fail(.tooLarge, "a string longer than \(limit) bytes") }
        let text = try decodeString(start, end, escaped)
        guard text.utf8.count <= limit else { throw fail(.tooLarge, "a string longer than \(limit) bytes") }
        return text
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
            (start, end, _) = try numberToken()
        } else if i >= n {
            throw fail("a value")  // a body cut short is a syntax error, not a bad field
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
            let (s, e, _) = try numberToken()
            guard e - s <= SensorLoggerDecoder.maximumIdentifierLength else { throw fail(.badEnvelope, "\(what) too long") }
            return String(decoding: UnsafeBufferPointer(start: p + s, count: e - s), as: UTF8.self)
        }
        guard c == 0x22 else { throw fail(.badEnvelope, "\(what): expected a string") }
        let (s, e, escaped) = try stringToken()
        do {
            return try limitedString(s, e, escaped, limit: SensorLoggerDecoder.maximumIdentifierLength)
        } catch {
            throw Failure(error.kind == .tooLarge ? .badEnvelope : error.kind, "\(what): \(error.reason)", at: error.offset)
        }
    }
}

/// Sensor Logger's reading names and value keys, matched on bytes without making a String.
enum SensorLoggerNames {
    static let sensorTable: [[UInt8]: SensorLoggerSensor] = {
        var table: [[UInt8]: SensorLoggerSensor] = [:]
        for (name, sensor) in SensorLoggerSensor.known { table[Array(name.utf8)] = sensor }
        return table
    }()

    @inline(__always)
    static func sensor(_ bytes: UnsafeBufferPointer<UInt8>) -> SensorLoggerSensor? {
        guard let b = bytes.baseAddress else { return nil }
        if let motion = motionSensor(b, bytes.count) { return motion }
        return sensorTable[Array(bytes)]
    }

    /// The three raw sensors and their uncalibrated twins (nearly every reading), by their normalised
    /// names. No two names have the same length: the length picks the one candidate, one `memcmp` checks it.
    static let motionSensors: [(name: [UInt8], sensor: SensorLoggerSensor)] = [
        SensorLoggerSensor.accelerometer, .gyroscope, .magnetometer,
        .accelerometerUncalibrated, .gyroscopeUncalibrated, .magnetometerUncalibrated,
    ].map { (Array($0.name.utf8), $0) }

    /// One of ``motionSensors`` without hashing or allocating; `nil` for any other name.
    @inline(__always)
    static func motionSensor(_ b: UnsafePointer<UInt8>, _ count: Int) -> SensorLoggerSensor? {
        for (name, sensor) in motionSensors where name.count == count {
            return name.withUnsafeBufferPointer { memcmp(b, $0.baseAddress!, count) == 0 } ? sensor : nil
        }
        return nil
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
}
