import Foundation

/// Appends little-endian values to a growing byte array, and frames them (see ``FrameHeader``).
public struct ByteWriter: Sendable {
    /// Everything written so far.
    public private(set) var bytes: [UInt8]
    private var frameStart: Int?

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Forgets everything written, keeping the capacity.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        frameStart = nil
    }

    public var count: Int { bytes.count }

    @inline(__always)
    public mutating func u8(_ v: UInt8) { bytes.append(v) }

    @inline(__always)
    public mutating func u16(_ v: UInt16) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }

    @inline(__always)
    public mutating func u32(_ v: UInt32) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }

    @inline(__always)
    public mutating func i32(_ v: Int32) { u32(UInt32(bitPattern: v)) }

    @inline(__always)
    public mutating func u64(_ v: UInt64) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }

    @inline(__always)
    public mutating func f64(_ v: Double) { u64(v.bitPattern) }

    /// `nil` is written as NaN.
    @inline(__always)
    public mutating func optional(_ v: Double?) { f64(v ?? .nan) }

    @inline(__always)
    public mutating func vector(_ v: Vector3) {
        f64(v.x)
        f64(v.y)
        f64(v.z)
    }

    public mutating func zeros(_ count: Int) {
        bytes.append(contentsOf: repeatElement(0, count: count))
    }

    /// A UTF-8 string with a `u16` byte count, cut to `limit` bytes at a character boundary.
    public mutating func string(_ s: String, limit: Int) {
        let utf8 = Array(Self.prefix(s, bytes: min(limit, Int(UInt16.max))).utf8)
        u16(UInt16(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// A UTF-8 string with a `u32` byte count, cut to `limit` bytes at a character boundary.
    public mutating func longString(_ s: String, limit: Int) {
        let utf8 = Array(Self.prefix(s, bytes: limit).utf8)
        u32(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// The longest prefix of `s` of at most `bytes` UTF-8 bytes that ends at a character boundary.
    static func prefix(_ s: String, bytes limit: Int) -> String {
        if s.utf8.count <= limit { return s }
        var result = ""
        var used = 0
        for ch in s {
            let n = String(ch).utf8.count
            if used + n > limit { break }
            result.append(ch)
            used += n
        }
        return result
    }

    /// Starts a frame of `type`: its length is filled in by ``endFrame()``.
    public mutating func beginFrame(_ type: MessageType) {
        precondition(frameStart == nil, "a frame is already open")
        frameStart = bytes.count
        u32(0)
        u8(type.rawValue)
    }

    /// Ends the open frame, writing its length.
    public mutating func endFrame() {
        guard let start = frameStart else { preconditionFailure("no open frame") }
        frameStart = nil
        let length = UInt32(bytes.count - start - FrameHeader.lengthFieldSize)
        withUnsafeBytes(of: length.littleEndian) { raw in
            for i in 0..<4 { bytes[start + i] = raw[i] }
        }
    }

    /// Bytes in the frame being written (type byte and payload so far), or 0 when none is open.
    public var openFrameLength: Int {
        guard let start = frameStart else { return 0 }
        return bytes.count - start - FrameHeader.lengthFieldSize
    }
}

extension ByteWriter {
    /// Overwrites the `u16` at `offset` (a count known only after the records were written).
    public mutating func patchU16(at offset: Int, _ value: UInt16) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            bytes[offset] = raw[0]
            bytes[offset + 1] = raw[1]
        }
    }
}
