import Foundation
import Testing
@testable import MotionIIO

/// Decodes one element from `bytes` with the type `text`.
private func decode(_ text: String, _ bytes: [UInt8], index: Int = 0) throws -> Int64 {
    let type = try IIOScanType(parsing: text)
    return bytes.withUnsafeBytes { type.integer(at: $0.baseAddress!, index: index) }
}

@Suite("scan element types")
struct ScanTypeTests {
    @Test("parsing every part of [be|le]:[s|u]bits/storagebits[Xrepeat][>>shift]")
    func parsing() throws {
        let a = try IIOScanType(parsing: "le:s12/16>>4\n")
        #expect(a.endianness == .little && a.encoding == .signed && a.realBits == 12 && a.storageBits == 16 && a.shift == 4 && a.repeatCount == 1)
        let b = try IIOScanType(parsing: "be:u32/32>>0")
        #expect(b.endianness == .big && b.encoding == .unsigned && b.realBits == 32 && b.storageBits == 32 && b.shift == 0)
        let c = try IIOScanType(parsing: "le:s16/16X2>>0")
        #expect(c.repeatCount == 2 && c.elementBytes == 4)
        let d = try IIOScanType(parsing: "le:s16/16")  // older kernels may omit the shift
        #expect(d.shift == 0)
        let e = try IIOScanType(parsing: "le:s32/32X0>>0")  // "When the repeat element is 0 or 1 … omitted"
        #expect(e.repeatCount == 1)
        #expect(a.description == "le:s12/16>>4")
        #expect(c.description == "le:s16/16X2>>0")
    }

    @Test("malformed or impossible types are errors naming the file")
    func badTypes() {
        let bad = ["", "le", "le:s16", "xx:s16/16>>0", "le:q16/16>>0", "le:s17/16>>0", "le:s12/12>>0", "le:s16/16>>4",
                   "le:s0/16>>0", "le:s16/16>>-1", "le:s16/16>>0 junk", "le:s16/128>>0", "le:f16/16>>0", "le:f32/32>>1"]
        for text in bad {
            do {
                _ = try IIOScanType(parsing: text, path: "/sys/x/scan_elements/in_accel_x_type")
                Issue.record("\(text) was accepted")
            } catch {
                #expect("\(error)".contains("/sys/x/scan_elements/in_accel_x_type"), "\(error)")
            }
        }
    }

    @Test("8-bit signed and unsigned")
    func eightBit() throws {
        #expect(try decode("le:s8/8>>0", [0x80]) == -128)  // 0x80 = 1000_0000: sign bit set → −128
        #expect(try decode("le:u8/8>>0", [0x80]) == 128)
        #expect(try decode("le:s8/8>>0", [0x7F]) == 127)
        #expect(try decode("be:s8/8>>0", [0xFF]) == -1)    // endianness is moot for one byte
    }

    @Test("12-bit values stored high in 16 bits (le:s12/16>>4), low bits masked")
    func twelveBitShifted() throws {
        // −1000 in 12-bit two's complement: 4096 − 1000 = 3096 = 0xC18; shifted left 4: 0xC180,
        // little-endian bytes [0x80, 0xC1]. Decoding: 0xC180 >> 4 = 0xC18 = 3096 ≥ 2048 → 3096 − 4096 = −1000.
        #expect(try decode("le:s12/16>>4", [0x80, 0xC1]) == -1000)
        // The low nibble below the shift holds unrelated bits (0xF): still −1000 after the shift.
        #expect(try decode("le:s12/16>>4", [0x8F, 0xC1]) == -1000)
        // Unsigned reading of the same bits: 3096.
        #expect(try decode("le:u12/16>>4", [0x80, 0xC1]) == 3096)
        // +2047 (largest 12-bit): 0x7FF << 4 = 0x7FF0 → [0xF0, 0x7F].
        #expect(try decode("le:s12/16>>4", [0xF0, 0x7F]) == 2047)
        // 10-bit (BMA250E, le:s10/16>>6): −1 = 0x3FF << 6 = 0xFFC0 → [0xC0, 0xFF].
        #expect(try decode("le:s10/16>>6", [0xC0, 0xFF]) == -1)
    }

    @Test("16-bit little and big endian")
    func sixteenBit() throws {
        // 0x1234 = 4660: little-endian [0x34, 0x12], big-endian [0x12, 0x34].
        #expect(try decode("le:s16/16>>0", [0x34, 0x12]) == 4660)
        #expect(try decode("be:s16/16>>0", [0x12, 0x34]) == 4660)
        // 0xFF85 = 65413 − 65536 = −123.
        #expect(try decode("be:s16/16>>0", [0xFF, 0x85]) == -123)
        #expect(try decode("le:s16/16>>0", [0x85, 0xFF]) == -123)
        #expect(try decode("le:u16/16>>0", [0x85, 0xFF]) == 65413)
        #expect(try decode("le:s16/16>>0", [0x00, 0x80]) == -32768)
    }

    @Test("32-bit little and big endian, and 16 valid bits in 32 (HID sensors)")
    func thirtyTwoBit() throws {
        // 100000 = 0x000186A0.
        #expect(try decode("be:u32/32>>0", [0x00, 0x01, 0x86, 0xA0]) == 100_000)
        #expect(try decode("le:u32/32>>0", [0xA0, 0x86, 0x01, 0x00]) == 100_000)
        // −100000: 2³² − 100000 = 4294867296 = 0xFFFE7960.
        #expect(try decode("le:s32/32>>0", [0x60, 0x79, 0xFE, 0xFF]) == -100_000)
        #expect(try decode("be:s32/32>>0", [0xFF, 0xFE, 0x79, 0x60]) == -100_000)
        // le:s16/32>>0: only the low 16 bits are the value. 0xABCD0005 → 0x0005 = 5;
        // 0x0000FFFE → 0xFFFE = −2.
        #expect(try decode("le:s16/32>>0", [0x05, 0x00, 0xCD, 0xAB]) == 5)
        #expect(try decode("le:s16/32>>0", [0xFE, 0xFF, 0x00, 0x00]) == -2)
        // 24 valid bits shifted by 8 (le:s24/32>>8): 0x12345678 >> 8 = 0x123456 = 1193046;
        // 0xFFFFFE00 >> 8 = 0xFFFFFE → 24-bit −2.
        #expect(try decode("le:s24/32>>8", [0x78, 0x56, 0x34, 0x12]) == 1_193_046)
        #expect(try decode("le:s24/32>>8", [0x00, 0xFE, 0xFF, 0xFF]) == -2)
    }

    @Test("the ABI's own example: s48/64>>2 (shift right 2, zero the top 16 bits)")
    func fortyEightBit() throws {
        // −5 in 48 bits = 0xFFFF_FFFF_FFFB; << 2 = 0x3_FFFF_FFFF_FFEC; with garbage in the top 14 bits
        // (0xA000…) and in the two bits below the shift (0b11): 0xA003_FFFF_FFFF_FFEF.
        let stored: UInt64 = 0xA003_FFFF_FFFF_FFEF
        let le = withUnsafeBytes(of: stored.littleEndian) { Array($0) }
        let be = withUnsafeBytes(of: stored.bigEndian) { Array($0) }
        #expect(try decode("le:s48/64>>2", le) == -5)
        #expect(try decode("be:s48/64>>2", be) == -5)
    }

    @Test("64-bit timestamps")
    func sixtyFourBit() throws {
        let ns: Int64 = 1_700_000_000_123_456_789
        let bytes = withUnsafeBytes(of: ns.littleEndian) { Array($0) }
        #expect(try decode("le:s64/64>>0", bytes) == ns)
        let negative = withUnsafeBytes(of: Int64(-42).bigEndian) { Array($0) }
        #expect(try decode("be:s64/64>>0", negative) == -42)
    }

    @Test("repeated elements (le:s16/16X2, be:u32/32X4)")
    func repeats() throws {
        // Two 16-bit values: 0x0001 = 1 and 0xFFFF = −1.
        #expect(try decode("le:s16/16X2>>0", [0x01, 0x00, 0xFF, 0xFF], index: 0) == 1)
        #expect(try decode("le:s16/16X2>>0", [0x01, 0x00, 0xFF, 0xFF], index: 1) == -1)
        // Four big-endian 32-bit values 1, 2, 3, 0xFFFFFFFF (unsigned 4294967295).
        let bytes: [UInt8] = [0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xFF, 0xFF, 0xFF, 0xFF]
        #expect(try decode("be:u32/32X4>>0", bytes, index: 2) == 3)
        #expect(try decode("be:u32/32X4>>0", bytes, index: 3) == 4_294_967_295)
    }

    @Test("float elements (le:f32/32)")
    func floats() throws {
        let type = try IIOScanType(parsing: "le:f32/32>>0")
        // 1.5 = 0x3FC00000.
        let bytes: [UInt8] = [0x00, 0x00, 0xC0, 0x3F]
        #expect(bytes.withUnsafeBytes { type.value(at: $0.baseAddress!) } == 1.5)
    }

    @Test("store is the inverse of decode, and clamps to the valid range")
    func storeRoundTrip() throws {
        for (text, values) in [("le:s12/16>>4", [-2048, -1000, 0, 2047]), ("be:s16/16>>0", [-32768, -123, 32767]),
                               ("le:u8/8>>0", [0, 255]), ("be:s48/64>>2", [-5, 1 << 40]), ("le:s16/32>>0", [-2, 5])] {
            let type = try IIOScanType(parsing: text)
            var buffer = [UInt8](repeating: 0, count: type.elementBytes)
            for v in values {
                buffer.withUnsafeMutableBytes { type.store(Int64(v), at: $0.baseAddress!) }
                #expect(buffer.withUnsafeBytes { type.integer(at: $0.baseAddress!) } == Int64(v), "\(text) \(v)")
            }
        }
        let twelve = try IIOScanType(parsing: "le:s12/16>>4")
        var buffer = [UInt8](repeating: 0, count: 2)
        buffer.withUnsafeMutableBytes { twelve.store(5000, at: $0.baseAddress!) }
        #expect(buffer.withUnsafeBytes { twelve.integer(at: $0.baseAddress!) } == 2047)  // clamped to +2047
        // The stored bits are exactly 0x7FF0 (little endian [0xF0, 0x7F]).
        #expect(buffer == [0xF0, 0x7F])
    }
}

@Suite("scan layout")
struct ScanLayoutTests {
    static let s16 = try! IIOScanType(parsing: "le:s16/16>>0")
    static let ts = try! IIOScanType(parsing: "le:s64/64>>0")

    @Test("bmi160 accelerometer + gyroscope + timestamp: 24-byte scans")
    func bmi160() {
        // Indices: gyro 4,5,6, accel 7,8,9, timestamp 10 (enum bmi160_scan_axis).
        // Six 2-byte elements at 0,2,4,6,8,10 (12 bytes); the 8-byte timestamp aligns to 16; 16 + 8 = 24.
        let layout = IIOScanLayout(channels: [
            ("in_accel_x", 7, Self.s16), ("in_accel_y", 8, Self.s16), ("in_accel_z", 9, Self.s16),
            ("in_timestamp", 10, Self.ts),
            ("in_anglvel_x", 4, Self.s16), ("in_anglvel_y", 5, Self.s16), ("in_anglvel_z", 6, Self.s16),
        ])
        #expect(layout.elements.map(\.name) == ["in_anglvel_x", "in_anglvel_y", "in_anglvel_z", "in_accel_x", "in_accel_y", "in_accel_z", "in_timestamp"])
        #expect(layout.elements.map(\.offset) == [0, 2, 4, 6, 8, 10, 16])
        #expect(layout.scanBytes == 24)
    }

    @Test("only accelerometer and timestamp enabled (mpu6050 with temperature and gyro off): 16 bytes")
    func accelOnly() {
        // 3 × 2 bytes = 6; timestamp aligned to 8; 8 + 8 = 16.
        let layout = IIOScanLayout(channels: [("in_accel_x", 0, Self.s16), ("in_accel_y", 1, Self.s16), ("in_accel_z", 2, Self.s16), ("in_timestamp", 7, Self.ts)])
        #expect(layout.elements.map(\.offset) == [0, 2, 4, 8])
        #expect(layout.scanBytes == 16)
        // Without the timestamp: 6 bytes (largest element 2, 6 is a multiple).
        let bare = IIOScanLayout(channels: [("in_accel_x", 0, Self.s16), ("in_accel_y", 1, Self.s16), ("in_accel_z", 2, Self.s16)])
        #expect(bare.scanBytes == 6)
    }

    @Test("mixed sizes are naturally aligned and the scan padded to its largest element")
    func mixed() throws {
        let u8 = try IIOScanType(parsing: "le:u8/8>>0")
        let s32 = try IIOScanType(parsing: "le:s32/32>>0")
        // u8 at 0 (1 byte); s32 aligned to 4 → 4..8; s16 at 8..10; total rounded up to 4 → 12.
        let layout = IIOScanLayout(channels: [("a", 0, u8), ("b", 1, s32), ("c", 2, Self.s16)])
        #expect(layout.elements.map(\.offset) == [0, 4, 8])
        #expect(layout.scanBytes == 12)
        // A repeated element is aligned to its whole size: u8 at 0, s16X2 (4 bytes) at 4, total 8.
        let pair = try IIOScanType(parsing: "le:s16/16X2>>0")
        let repeated = IIOScanLayout(channels: [("a", 0, u8), ("q", 1, pair)])
        #expect(repeated.elements.map(\.offset) == [0, 4])
        #expect(repeated.scanBytes == 8)
    }

    @Test("HID sensors: three 16-in-32-bit values and a timestamp: 24 bytes")
    func hid() throws {
        let s16in32 = try IIOScanType(parsing: "le:s16/32>>0")
        // 0, 4, 8 (12 bytes), timestamp at 16, total 24.
        let layout = IIOScanLayout(channels: [("in_accel_x", 0, s16in32), ("in_accel_y", 1, s16in32), ("in_accel_z", 2, s16in32), ("in_timestamp", 3, Self.ts)])
        #expect(layout.elements.map(\.offset) == [0, 4, 8, 16])
        #expect(layout.scanBytes == 24)
    }

    @Test("indices need not be contiguous; order is by index, not by input order")
    func gaps() {
        let layout = IIOScanLayout(channels: [("z", 9, Self.s16), ("x", 2, Self.s16), ("y", 5, Self.s16)])
        #expect(layout.elements.map(\.name) == ["x", "y", "z"])
        #expect(layout.elements.map(\.offset) == [0, 2, 4])
    }
}
