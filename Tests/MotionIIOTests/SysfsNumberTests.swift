import Foundation
import Testing
@testable import MotionIIO

@Suite("sysfs numbers")
struct SysfsNumberTests {
    @Test("decimal values as the kernel prints them, with trailing whitespace")
    func decimals() {
        #expect(SysfsNumber.double("0.000598\n") == 0.000598)           // IIO_VAL_INT_PLUS_MICRO
        #expect(SysfsNumber.double("0.001064724\n") == 0.001064724)     // IIO_VAL_INT_PLUS_NANO
        #expect(SysfsNumber.double("  -0.500000 \n") == -0.5)           // "-%d.%06u" for a negative fraction
        #expect(SysfsNumber.double("100\n") == 100)
        #expect(SysfsNumber.double("100.000000\n\0") == 100)            // a NUL after the newline is whitespace too
        #expect(SysfsNumber.double("+2.5") == 2.5)
        #expect(SysfsNumber.double("1.5e-3") == 0.0015)
        #expect(SysfsNumber.double(".5") == 0.5)
    }

    @Test("text that is not a decimal number is rejected, never read as 0")
    func rejects() {
        for text in ["", "\n", "1,5", "nan", "inf", "-inf", "0x10", "12a", "1.2.3", "e5", "1e", "--1", "1 2"] {
            #expect(SysfsNumber.double(text) == nil, "\(text) should not parse")
        }
    }

    @Test("parsing does not depend on the locale (a German locale, where strtod stops at the point)")
    func localeIndependent() throws {
        guard let german = GermanLocale.make() else {
            // No de_DE locale and no localedef: the parsers never call locale-dependent functions,
            // but this run cannot demonstrate it.
            print("note: de_DE.UTF-8 locale unavailable; locale check limited to the C locale")
            #expect(SysfsNumber.double("0.000598") == 0.000598)
            return
        }
        let previous = uselocale(german)
        defer {
            uselocale(previous)
            freelocale(german)
        }
        // The locale is active on this thread: C's strtod reads "0.5" as 0.
        #expect(strtod("0.5", nil) == 0)
        #expect(SysfsNumber.double("0.000598\n") == 0.000598)
        #expect(SysfsNumber.list("12.500 26.000") == [12.5, 26])
        #expect(SysfsNumber.format(12.5) == "12.5")
    }

    @Test("integers of _raw attributes, with range checks")
    func integers() {
        #expect(SysfsNumber.integer("-32768\n") == -32768)
        #expect(SysfsNumber.integer("+5") == 5)
        #expect(SysfsNumber.integer("9223372036854775807") == Int64.max)
        #expect(SysfsNumber.integer("-9223372036854775808") == Int64.min)
        #expect(SysfsNumber.integer("9223372036854775808") == nil)  // overflows Int64
        #expect(SysfsNumber.integer("12.0") == nil)
        #expect(SysfsNumber.integer("") == nil)
        #expect(SysfsNumber.integer("-") == nil)
    }

    @Test("lists and formatting for writing rates")
    func listsAndFormat() {
        #expect(SysfsNumber.list("0.78125 1.5625 3.125\n") == [0.78125, 1.5625, 3.125])
        #expect(SysfsNumber.list("12.500 26.000 abc") == nil)
        #expect(SysfsNumber.list(" \n") == nil)
        // A CRLF line end is one Character in Swift: still a separator.
        #expect(SysfsNumber.list("12.5 26\r\n") == [12.5, 26])
        // Whole rates without a decimal point: drivers parsing IIO_VAL_INT reject "100.0".
        #expect(SysfsNumber.format(100) == "100")
        #expect(SysfsNumber.format(12.5) == "12.5")
        #expect(SysfsNumber.format(0.78125) == "0.78125")
        #expect(SysfsNumber.format(-0.5) == "-0.5")
    }

    @Test("mount matrices as iio_show_mount_matrix prints them")
    func mountMatrix() throws {
        // The ABI's "typical" example.
        let m = try IIOMountMatrix.parse("0, 1, 0; 1, 0, 0; 0, 0, -1\n", path: "in_accel_mount_matrix")
        #expect(m == Matrix3(0, 1, 0, 1, 0, 0, 0, 0, -1))
        // The binding's 30° example (|det| = 0.866² + 0.5² = 1.0).
        let tilted = try IIOMountMatrix.parse("1, 0, 0; 0, 0.866, 0.5; 0, -0.5, 0.866", path: "mount_matrix")
        #expect(abs(tilted.m23 - 0.5) < 1e-12)
        #expect(IIOMountMatrix.format(m) == "0, 1, 0; 1, 0, 0; 0, 0, -1")
    }

    @Test("a malformed or singular mount matrix names its file")
    func badMountMatrix() {
        for text in ["1 0 0; 0 1 0; 0 0 1", "1, 0, 0; 0, 1, 0", "1, 0, 0; 0, 1, 0; 0, 0, x", ""] {
            #expect(throws: IIOError.self) { try IIOMountMatrix.parse(text, path: "/sys/x/mount_matrix") }
        }
        // A typo found in systemd's hwdb (third row repeats the first): singular, rejected.
        do {
            _ = try IIOMountMatrix.parse("1, 0, 0; 0, -1, 0; 1, 0, 0", path: "/run/udev/data/c1:2")
            Issue.record("a singular matrix was accepted")
        } catch {
            #expect("\(error)".contains("/run/udev/data/c1:2"))
            #expect("\(error)".contains("singular"))
        }
    }
}

/// A de_DE.UTF-8 locale for this thread: the system's, or one compiled with localedef into a
/// temporary folder.
enum GermanLocale {
    static let numericMask = Int32(1 << LC_NUMERIC)

    static func make() -> locale_t? {
        if let l = newlocale(numericMask, "de_DE.UTF-8", nil) { return l }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("coremotion-locales").path
        if !FileManager.default.fileExists(atPath: dir + "/de_DE.UTF-8") {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/localedef") else { return nil }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/localedef")
            p.arguments = ["-i", "de_DE", "-f", "UTF-8", dir + "/de_DE.UTF-8"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            guard (try? p.run()) != nil else { return nil }
            p.waitUntilExit()
        }
        setenv("LOCPATH", dir, 1)
        defer { unsetenv("LOCPATH") }
        return newlocale(numericMask, "de_DE.UTF-8", nil)
    }
}
