/// The storage format of one scan element, from its `scan_elements/<channel>_type` attribute.
///
/// Format `[be|le]:[s|u]bits/storagebits[Xrepeat][>>shift]` (Documentation/driver-api/iio/buffers.rst;
/// Documentation/ABI/testing/sysfs-bus-iio, `in_accel_type`): endianness, sign (two's complement or
/// unsigned), the number of valid bits, the bits the element occupies in the buffer (which is also
/// its alignment), how many times it repeats, and the right shift to apply "prior to masking out
/// unused bits". Example from the ABI: `s48/64>>2` is "a signed 48 bit integer stored in a 64 bit
/// location aligned to a 64 bit boundary. To obtain the clean value, shift right 2 and apply a mask
/// to zero the top 16 bits of the result". The sign letter `f` (IEEE 754 float, proposed for newer
/// kernels) is accepted for 32- and 64-bit elements.
@frozen
public struct IIOScanType: Sendable, Hashable, CustomStringConvertible {
    /// Byte order of the stored value (`le`, `be`).
    public enum Endianness: String, Sendable, Hashable { case little = "le", big = "be" }
    /// Two's-complement signed, unsigned, or IEEE 754 float (`s`, `u`, `f`).
    public enum Encoding: String, Sendable, Hashable { case signed = "s", unsigned = "u", float = "f" }

    /// Byte order.
    public let endianness: Endianness
    /// Signedness or float.
    public let encoding: Encoding
    /// Valid bits of the value.
    public let realBits: Int
    /// Bits the element occupies (a multiple of 8, at most 64).
    public let storageBits: Int
    /// Right shift applied before masking to `realBits`.
    public let shift: Int
    /// How many values of this format follow one another (1 when the `X` part is absent).
    public let repeatCount: Int

    /// Bytes of one value.
    @inlinable public var storageBytes: Int { storageBits / 8 }
    /// Bytes of the whole element (all repeats): its size and alignment in the scan.
    @inlinable public var elementBytes: Int { storageBytes * repeatCount }

    /// A type from its parts; throws when they are impossible (see ``init(parsing:path:)``).
    public init(endianness: Endianness, encoding: Encoding, realBits: Int, storageBits: Int, shift: Int = 0, repeatCount: Int = 1) throws(IIOError) {
        self.endianness = endianness
        self.encoding = encoding
        self.realBits = realBits
        self.storageBits = storageBits
        self.shift = shift
        self.repeatCount = repeatCount
        if let problem = validationProblem {
            throw IIOError.malformedAttribute(path: "(scan type)", value: description, expected: problem)
        }
    }

    /// Parses a `_type` attribute's text; `path` names the file in the error.
    public init(parsing text: String, path: String = "(scan type)") throws(IIOError) {
        let t = text.trimmingSysfsSpace()
        let expected = "a scan type like le:s16/16>>0 ([be|le]:[s|u|f]bits/storagebits[Xrepeat][>>shift])"
        func fail(_ why: String? = nil) -> IIOError {
            IIOError.malformedAttribute(path: path, value: text, expected: why ?? expected)
        }
        guard let colon = t.firstIndex(of: ":") else { throw fail() }
        guard let e = Endianness(rawValue: String(t[..<colon])) else { throw fail() }
        var rest = t[t.index(after: colon)...]
        guard let signChar = rest.first, let enc = Encoding(rawValue: String(signChar)) else { throw fail() }
        rest = rest.dropFirst()
        guard let slash = rest.firstIndex(of: "/"), let bits = Int(rest[..<slash]) else { throw fail() }
        rest = rest[rest.index(after: slash)...]
        // storagebits, then optional Xrepeat, then optional >>shift.
        var digitsEnd = rest.startIndex
        while digitsEnd < rest.endIndex, rest[digitsEnd].isASCII, rest[digitsEnd].isNumber { digitsEnd = rest.index(after: digitsEnd) }
        guard let storage = Int(rest[rest.startIndex..<digitsEnd]) else { throw fail() }
        rest = rest[digitsEnd...]
        var repeats = 1
        if rest.first == "X" {
            rest = rest.dropFirst()
            var end = rest.startIndex
            while end < rest.endIndex, rest[end].isASCII, rest[end].isNumber { end = rest.index(after: end) }
            guard let r = Int(rest[rest.startIndex..<end]) else { throw fail() }
            repeats = max(r, 1)  // "When the repeat element is 0 or 1, then the repeat value is omitted."
            rest = rest[end...]
        }
        var shiftValue = 0
        if rest.hasPrefix(">>") {
            guard let s = Int(rest.dropFirst(2)) else { throw fail() }
            shiftValue = s
            rest = rest[rest.endIndex...]
        }
        guard rest.isEmpty else { throw fail() }
        endianness = e
        encoding = enc
        realBits = bits
        storageBits = storage
        shift = shiftValue
        repeatCount = repeats
        if let problem = validationProblem { throw fail(problem) }
    }

    private var validationProblem: String? {
        if storageBits <= 0 || storageBits > 64 || storageBits % 8 != 0 { return "storage bits a multiple of 8 up to 64 (found \(storageBits))" }
        if realBits <= 0 || realBits > storageBits { return "1…\(storageBits) valid bits (found \(realBits))" }
        if shift < 0 || shift + realBits > storageBits { return "a shift that keeps the \(realBits) valid bits inside \(storageBits) storage bits (found >>\(shift))" }
        if repeatCount < 1 || repeatCount > 64 { return "a repeat count of 1…64 (found \(repeatCount))" }
        if encoding == .float && !(realBits == storageBits && (storageBits == 32 || storageBits == 64) && shift == 0) {
            return "a float element of 32 or 64 bits with no shift"
        }
        return nil
    }

    public var description: String {
        "\(endianness.rawValue):\(encoding.rawValue)\(realBits)/\(storageBits)\(repeatCount > 1 ? "X\(repeatCount)" : "")>>\(shift)"
    }

    /// The stored bits of value `index` (of `repeatCount`) at `pointer`, in host order, not yet
    /// shifted or masked. `pointer` needs no alignment.
    @inlinable
    public func storedBits(at pointer: UnsafeRawPointer, index: Int = 0) -> UInt64 {
        let p = pointer + index * storageBytes
        switch storageBytes {
        case 1:
            return UInt64(p.load(as: UInt8.self))
        case 2:
            let v = p.loadUnaligned(as: UInt16.self)
            return UInt64(endianness == .little ? UInt16(littleEndian: v) : UInt16(bigEndian: v))
        case 4:
            let v = p.loadUnaligned(as: UInt32.self)
            return UInt64(endianness == .little ? UInt32(littleEndian: v) : UInt32(bigEndian: v))
        case 8:
            let v = p.loadUnaligned(as: UInt64.self)
            return endianness == .little ? UInt64(littleEndian: v) : UInt64(bigEndian: v)
        default:
            var v: UInt64 = 0
            let n = storageBytes
            for i in 0..<n {
                let byte = UInt64(p.load(fromByteOffset: endianness == .little ? n - 1 - i : i, as: UInt8.self))
                v = (v << 8) | byte
            }
            return v
        }
    }

    /// The integer value of element `index` at `pointer`: shifted right by `shift`, masked to
    /// `realBits`, and sign-extended for a signed format. (Not meaningful for `.float`.)
    @inlinable
    public func integer(at pointer: UnsafeRawPointer, index: Int = 0) -> Int64 {
        let shifted = storedBits(at: pointer, index: index) >> UInt64(shift)
        if realBits == 64 { return Int64(bitPattern: shifted) }
        let masked = shifted & ((1 << UInt64(realBits)) - 1)
        if encoding == .signed, masked & (1 << UInt64(realBits - 1)) != 0 {
            return Int64(bitPattern: masked | ~((1 << UInt64(realBits)) - 1))
        }
        return Int64(bitPattern: masked)
    }

    /// The value of element `index` at `pointer` as a `Double` (integers exactly up to 2⁵³).
    @inlinable
    public func value(at pointer: UnsafeRawPointer, index: Int = 0) -> Double {
        switch encoding {
        case .float:
            let bits = storedBits(at: pointer, index: index)
            return storageBits == 32 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits)
        case .signed, .unsigned:
            return Double(integer(at: pointer, index: index))
        }
    }

    /// The smallest and largest integer the element can hold.
    public var integerRange: ClosedRange<Int64> {
        switch encoding {
        case .signed:
            return realBits == 64 ? Int64.min...Int64.max : -(Int64(1) << (realBits - 1))...((Int64(1) << (realBits - 1)) - 1)
        case .unsigned:
            return realBits >= 63 ? 0...Int64.max : 0...((Int64(1) << realBits) - 1)
        case .float:
            return Int64.min...Int64.max
        }
    }

    /// Writes `value` as element `index` at `pointer` (shifted into place, other bits zero): the
    /// inverse of ``integer(at:index:)``, used by fake trees and the emulator. The value is clamped
    /// to ``integerRange``.
    public func store(_ value: Int64, at pointer: UnsafeMutableRawPointer, index: Int = 0) {
        let clamped = min(max(value, integerRange.lowerBound), integerRange.upperBound)
        let mask: UInt64 = realBits == 64 ? ~0 : (1 << UInt64(realBits)) - 1
        let bits = (UInt64(bitPattern: clamped) & mask) << UInt64(shift)
        storeBits(bits, at: pointer, index: index)
    }

    /// Writes a float element (`.float` encoding).
    public func storeFloat(_ value: Double, at pointer: UnsafeMutableRawPointer, index: Int = 0) {
        let bits = storageBits == 32 ? UInt64(Float(value).bitPattern) : value.bitPattern
        storeBits(bits, at: pointer, index: index)
    }

    private func storeBits(_ bits: UInt64, at pointer: UnsafeMutableRawPointer, index: Int) {
        let p = pointer + index * storageBytes
        let n = storageBytes
        for i in 0..<n {
            let byte = UInt8(truncatingIfNeeded: bits >> UInt64(8 * i))
            p.storeBytes(of: byte, toByteOffset: endianness == .little ? i : n - 1 - i, as: UInt8.self)
        }
    }
}
