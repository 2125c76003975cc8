import Foundation

/// Reads little-endian values from a payload, checking every bound: running past the end throws
/// ``ProtocolError/truncated(_:)`` naming the field, never reads outside the buffer.
public struct ByteReader {
    private let bytes: UnsafeRawBufferPointer
    /// Offset of the next unread byte.
    public private(set) var offset = 0

    public init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Bytes not read yet.
    public var remaining: Int { bytes.count - offset }

    @inline(__always)
    private mutating func take(_ count: Int, _ field: StaticString) throws(ProtocolError) -> Int {
        guard count >= 0, remaining >= count else { throw .truncated("\(field)") }
        defer { offset += count }
        return offset
    }

    public mutating func u8(_ field: StaticString) throws(ProtocolError) -> UInt8 {
        let at = try take(1, field)
        return bytes[at]
    }

    public mutating func u16(_ field: StaticString) throws(ProtocolError) -> UInt16 {
        let at = try take(2, field)
        return UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self))
    }

    public mutating func u32(_ field: StaticString) throws(ProtocolError) -> UInt32 {
        let at = try take(4, field)
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }

    public mutating func i32(_ field: StaticString) throws(ProtocolError) -> Int32 {
        Int32(bitPattern: try u32(field))
    }

    public mutating func u64(_ field: StaticString) throws(ProtocolError) -> UInt64 {
        let at = try take(8, field)
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }

    public mutating func f64(_ field: StaticString) throws(ProtocolError) -> Double {
        Double(bitPattern: try u64(field))
    }

    /// A finite double (NaN and infinities are refused: they would be silently wrong numbers).
    public mutating func finite(_ field: StaticString) throws(ProtocolError) -> Double {
        let value = try f64(field)
        guard value.isFinite else { throw .invalidValue(field: "\(field)", value: "\(value)") }
        return value
    }

    /// A finite double or NaN (which stands for "none"); infinities are refused.
    public mutating func optionalFinite(_ field: StaticString) throws(ProtocolError) -> Double? {
        let value = try f64(field)
        if value.isNaN { return nil }
        guard value.isFinite else { throw .invalidValue(field: "\(field)", value: "\(value)") }
        return value
    }

    /// A UTF-8 string with a `u16` byte count, at most `limit` bytes.
    public mutating func string(_ field: StaticString, limit: Int) throws(ProtocolError) -> String {
        try utf8(count: Int(try u16(field)), field, limit: limit)
    }

    /// A UTF-8 string with a `u32` byte count, at most `limit` bytes (JSON documents).
    public mutating func longString(_ field: StaticString, limit: Int) throws(ProtocolError) -> String {
        try utf8(count: Int(try u32(field)), field, limit: limit)
    }

    /// `count` bytes of UTF-8.
    private mutating func utf8(count: Int, _ field: StaticString, limit: Int) throws(ProtocolError) -> String {
        guard count <= limit else { throw .invalidValue(field: "\(field)", value: "\(count) bytes (at most \(limit))") }
        let at = try take(count, field)
        let slice = UnsafeRawBufferPointer(rebasing: bytes[at..<(at + count)])
        guard let text = String(validating: slice.bindMemory(to: UInt8.self), as: UTF8.self) else {
            throw .invalidValue(field: "\(field)", value: "bytes that are not UTF-8")
        }
        return text
    }

    /// Skips `count` bytes (padding).
    public mutating func skip(_ count: Int, _ field: StaticString) throws(ProtocolError) {
        _ = try take(count, field)
    }

    /// Throws unless every byte was read: a frame longer than its content is malformed.
    public func expectEnd(_ message: @autoclosure () -> String) throws(ProtocolError) {
        guard remaining == 0 else { throw .trailingBytes(message: message(), count: remaining) }
    }
}
