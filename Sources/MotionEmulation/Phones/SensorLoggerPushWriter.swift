import Foundation

/// Writes Sensor Logger push bodies in the app's shape: for tests, benchmarks, fuzzing seeds and senders.
///
/// Times are written as the app writes them, the integer digits of a `Double` (`1715254448786894848`:
/// a 19-digit epoch in ns loses its last bits), unless ``exactTimes`` is set; values in Swift's shortest
/// round-trip form.
public struct SensorLoggerPushWriter: Sendable {
    /// A value of a reading.
    public enum Value: Sendable, Hashable {
        case number(Double)
        case string(String)
        case bool(Bool)
    }

    /// One reading to write.
    public struct Reading: Sendable, Hashable {
        public var name: String
        public var time: Int64
        public var values: [(String, Value)]
        public var accuracy: Int?
        /// Write `values` as an empty array (the app's test push).
        public var valuesAsArray: Bool

        public init(name: String, time: Int64, values: [(String, Value)], accuracy: Int? = nil, valuesAsArray: Bool = false) {
            self.name = name
            self.time = time
            self.values = values
            self.accuracy = accuracy
            self.valuesAsArray = valuesAsArray
        }

        /// A three-axis reading (`x`, `y`, `z`).
        public static func vector(_ name: String, time: Int64, _ x: Double, _ y: Double, _ z: Double, accuracy: Int? = nil) -> Reading {
            Reading(name: name, time: time, values: [("x", .number(x)), ("y", .number(y)), ("z", .number(z))], accuracy: accuracy)
        }

        public static func == (a: Reading, b: Reading) -> Bool {
            a.name == b.name && a.time == b.time && a.accuracy == b.accuracy && a.valuesAsArray == b.valuesAsArray
                && a.values.map(\.0) == b.values.map(\.0) && a.values.map(\.1) == b.values.map(\.1)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(time)
        }
    }

    /// Write times as exact integers instead of double renderings.
    public var exactTimes: Bool

    public init(exactTimes: Bool = false) {
        self.exactTimes = exactTimes
    }

    /// The app's test push: `{"name":"test","time":0,"values":[]}`.
    public static func testReading() -> Reading {
        Reading(name: "test", time: 0, values: [], valuesAsArray: true)
    }

    /// One message body.
    public func body(messageId: Int64, sessionId: String, deviceId: String, readings: [Reading]) -> [UInt8] {
        var out = "{\"messageId\":\(messageId),\"sessionId\":\(Self.quoted(sessionId)),\"deviceId\":\(Self.quoted(deviceId)),\"payload\":["
        out.reserveCapacity(64 + readings.count * 120)
        for (k, r) in readings.enumerated() {
            if k > 0 { out += "," }
            out += "{\"name\":\(Self.quoted(r.name)),\"time\":\(time(r.time)),\"values\":"
            if r.valuesAsArray {
                out += "[]"
            } else {
                out += "{"
                for (j, (key, value)) in r.values.enumerated() {
                    if j > 0 { out += "," }
                    out += Self.quoted(key) + ":"
                    switch value {
                    case .number(let v): out += Self.number(v)
                    case .string(let s): out += Self.quoted(s)
                    case .bool(let b): out += b ? "true" : "false"
                    }
                }
                out += "}"
            }
            if let a = r.accuracy { out += ",\"accuracy\":\(a)" }
            out += "}"
        }
        out += "]}"
        return Array(out.utf8)
    }

    /// A time in ns as the app renders it.
    public func time(_ ns: Int64) -> String {
        exactTimes ? String(ns) : String(format: "%.0f", Double(ns))
    }

    /// A number in JSON (non-finite values as `null`, which JSON has no number for).
    public static func number(_ v: Double) -> String {
        v.isFinite ? "\(v)" : "null"
    }

    /// A JSON string literal.
    public static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}
