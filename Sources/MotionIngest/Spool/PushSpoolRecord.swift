import Foundation

/// The payload of one spool record: a ``RawPush`` in a compact binary form. All integers little-endian.
///
/// ```
/// version      u8 (1)
/// device       u16 length, UTF-8     (1…1024 bytes)
/// session      u16 length, UTF-8     (0…256 bytes)
/// messageID    i64
/// receivedAt   i64 microseconds since 1970
/// series       u16 count             (≤ 256)
///   sensor     u8 length, UTF-8      (1…255 bytes)
///   fields     u8 count (1…32), each u8 length + UTF-8 (1…64 bytes)
///   readings   u32 count             (≤ 100 000)
///   times      i64 microseconds each
///   values     f64 each, readings × fields
/// ```
///
/// Decoding treats the bytes as hostile (a damaged disk, a file put there by hand): every length is checked
/// against the bytes left and the limits above, and the payload must end exactly after the last value.
public enum PushSpoolRecord {
    /// Readings per series at most.
    public static let maximumReadings = 100_000
    /// Series per push at most.
    public static let maximumSeries = 256

    /// Encodes a push.
    public static func encode(_ push: RawPush) -> [UInt8] {
        var out: [UInt8] = [1]
        out.reserveCapacity(64 + push.series.reduce(0) { $0 + 32 + $1.count * (8 + 8 * $1.fields.count) })
        string(push.device, lengthBytes: 2, into: &out)
        string(push.session, lengthBytes: 2, into: &out)
        integer(UInt64(bitPattern: push.messageID), bytes: 8, into: &out)
        integer(UInt64(bitPattern: push.receivedMicroseconds), bytes: 8, into: &out)
        integer(UInt64(push.series.count), bytes: 2, into: &out)
        for series in push.series {
            string(series.sensor, lengthBytes: 1, into: &out)
            integer(UInt64(series.fields.count), bytes: 1, into: &out)
            for field in series.fields { string(field, lengthBytes: 1, into: &out) }
            integer(UInt64(series.microseconds.count), bytes: 4, into: &out)
            for t in series.microseconds { integer(UInt64(bitPattern: t), bytes: 8, into: &out) }
            for v in series.values { integer(v.bitPattern, bytes: 8, into: &out) }
        }
        return out
    }

    /// Decodes a payload.
    ///
    /// - Throws: ``PushSpoolRecordError`` naming the field and the byte offset where the payload is wrong.
    public static func decode(_ bytes: [UInt8]) throws(PushSpoolRecordError) -> RawPush {
        var reader = Reader(bytes: bytes)
        guard try reader.integer(1, "version") == 1 else { throw PushSpoolRecordError(field: "version", offset: 0, problem: "unknown version") }
        let device = try reader.string(lengthBytes: 2, "device", allowed: 1...1024)
        let session = try reader.string(lengthBytes: 2, "session", allowed: 0...256)
        let messageID = Int64(bitPattern: try reader.integer(8, "messageID"))
        let received = Int64(bitPattern: try reader.integer(8, "receivedAt"))
        let seriesCount = Int(try reader.integer(2, "series count"))
        guard seriesCount <= maximumSeries else {
            throw PushSpoolRecordError(field: "series count", offset: reader.offset - 2, problem: "\(seriesCount) > \(maximumSeries)")
        }
        var series: [RawSeries] = []
        for _ in 0..<seriesCount {
            let sensor = try reader.string(lengthBytes: 1, "sensor", allowed: 1...255)
            let fieldCount = Int(try reader.integer(1, "field count"))
            guard (1...32).contains(fieldCount) else {
                throw PushSpoolRecordError(field: "field count", offset: reader.offset - 1, problem: "\(fieldCount) outside 1...32")
            }
            var fields: [String] = []
            for _ in 0..<fieldCount { fields.append(try reader.string(lengthBytes: 1, "field", allowed: 1...64)) }
            let readings = Int(try reader.integer(4, "reading count"))
            guard readings <= maximumReadings, readings * (8 + 8 * fieldCount) <= reader.remaining else {
                throw PushSpoolRecordError(field: "reading count", offset: reader.offset - 4, problem: "\(readings) readings do not fit in the \(reader.remaining) bytes left")
            }
            var times: [Int64] = []
            times.reserveCapacity(readings)
            for _ in 0..<readings { times.append(Int64(bitPattern: try reader.integer(8, "time"))) }
            var values: [Double] = []
            values.reserveCapacity(readings * fieldCount)
            for _ in 0..<(readings * fieldCount) { values.append(Double(bitPattern: try reader.integer(8, "value"))) }
            series.append(RawSeries(sensor: sensor, fields: fields, microseconds: times, values: values))
        }
        guard reader.remaining == 0 else {
            throw PushSpoolRecordError(field: "end", offset: reader.offset, problem: "\(reader.remaining) bytes after the last series")
        }
        return RawPush(device: device, session: session, messageID: messageID, receivedMicroseconds: received, series: series)
    }

    private static func integer(_ value: UInt64, bytes: Int, into out: inout [UInt8]) {
        for i in 0..<bytes { out.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * i))) }
    }

    private static func string(_ text: String, lengthBytes: Int, into out: inout [UInt8]) {
        let utf8 = Array(text.utf8)
        let limit = (1 << (8 * lengthBytes)) - 1
        let kept = utf8.count <= limit ? utf8 : Array(String(decoding: utf8.prefix(limit), as: UTF8.self).utf8.prefix(limit))
        integer(UInt64(kept.count), bytes: lengthBytes, into: &out)
        out += kept
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0
        var remaining: Int { bytes.count - offset }

        mutating func integer(_ count: Int, _ field: String) throws(PushSpoolRecordError) -> UInt64 {
            guard remaining >= count else {
                throw PushSpoolRecordError(field: field, offset: offset, problem: "needs \(count) bytes, \(remaining) left")
            }
            var value: UInt64 = 0
            for i in 0..<count { value |= UInt64(bytes[offset + i]) << UInt64(8 * i) }
            offset += count
            return value
        }

        mutating func string(lengthBytes: Int, _ field: String, allowed: ClosedRange<Int>) throws(PushSpoolRecordError) -> String {
            let length = Int(try integer(lengthBytes, field + " length"))
            guard allowed.contains(length) else {
                throw PushSpoolRecordError(field: field, offset: offset - lengthBytes, problem: "length \(length) outside \(allowed)")
            }
            guard remaining >= length else {
                throw PushSpoolRecordError(field: field, offset: offset, problem: "needs \(length) bytes, \(remaining) left")
            }
            let slice = bytes[offset..<offset + length]
            guard let text = String(validating: slice, as: UTF8.self) else {
                throw PushSpoolRecordError(field: field, offset: offset, problem: "not UTF-8")
            }
            offset += length
            return text
        }
    }
}

/// A spool record that does not decode: which field, at which byte of the payload, and why.
public struct PushSpoolRecordError: Error, Sendable, Hashable, CustomStringConvertible {
    public var field: String
    public var offset: Int
    public var problem: String

    public var description: String { "\(field) at byte \(offset): \(problem)" }
}
