/// Parsing of the numbers the IIO core prints into sysfs attributes.
///
/// The kernel prints values with `%d`, `%d.%06u`, `%d.%09u` and lists separated by spaces, always
/// with a `.` decimal separator and a trailing newline (`__iio_format_value` in
/// `drivers/iio/industrialio-core.c`). These parsers accept exactly decimal numbers with an optional
/// sign, fraction and exponent, surrounded by any whitespace (spaces, tabs, newlines, NULs), and are
/// independent of the process locale. `nan`, `inf` and hexadecimal are rejected.
public enum SysfsNumber {
    /// Whitespace around sysfs values: space, tab, newline, carriage return, NUL.
    @inlinable
    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x00 || c == 0x0B || c == 0x0C }

    /// Parses one decimal number, e.g. `"0.000598\n"`, `"-0.500000"`, `"100"`, `"1.5e-3"`.
    public static func double(_ text: some StringProtocol) -> Double? {
        let bytes = Array(text.utf8)
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        guard start < end else { return nil }
        // Validate the grammar ourselves: [+-]? digits [. digits]? ([eE] [+-]? digits)?
        var i = start
        if bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
        var digits = 0
        while i < end, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1; digits += 1 }
        if i < end, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < end, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1; digits += 1 }
        }
        guard digits > 0 else { return nil }
        if i < end, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < end, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            var exponentDigits = 0
            while i < end, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1; exponentDigits += 1 }
            guard exponentDigits > 0 else { return nil }
        }
        guard i == end else { return nil }
        // Swift's Double(String) parses with the C locale regardless of the process locale.
        guard let value = Double(String(decoding: bytes[start..<end], as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// Parses one decimal integer, e.g. `"-1234\n"` (a `_raw` attribute).
    public static func integer(_ text: some StringProtocol) -> Int64? {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBufferPointer { integer(UnsafeRawBufferPointer($0)) }
    }

    /// Parses one decimal integer from raw bytes without allocating (the polled hot path).
    @inlinable
    public static func integer(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        guard start < end else { return nil }
        var negative = false
        if bytes[start] == UInt8(ascii: "-") {
            negative = true
            start += 1
        } else if bytes[start] == UInt8(ascii: "+") {
            start += 1
        }
        guard start < end else { return nil }
        var magnitude: UInt64 = 0
        for i in start..<end {
            let c = bytes[i]
            guard c >= 0x30, c <= 0x39 else { return nil }
            let (m1, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (m2, o2) = m1.addingReportingOverflow(UInt64(c - 0x30))
            guard !o1, !o2 else { return nil }
            magnitude = m2
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    /// Parses a space-separated list of numbers, e.g. `"12.500 26.000 52.000\n"`; `nil` if any item is
    /// not a number or the list is empty.
    public static func list(_ text: some StringProtocol) -> [Double]? {
        let items = text.split(whereSeparator: { $0.isWhitespace || $0 == "\0" })  // "\r\n" is one Character
        guard !items.isEmpty else { return nil }
        var values: [Double] = []
        values.reserveCapacity(items.count)
        for item in items {
            guard let v = double(item) else { return nil }
            values.append(v)
        }
        return values
    }

    /// Formats a value the way the kernel's `iio_str_to_fixpoint` parses it: an integer without a
    /// decimal point when the value is whole (drivers reading `IIO_VAL_INT` reject `"100.0"`),
    /// otherwise up to six decimals.
    public static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        let micro = (value * 1_000_000).rounded()
        let negative = micro < 0
        let m = Int64(abs(micro))
        var fraction = String(m % 1_000_000)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return (negative ? "-" : "") + String(m / 1_000_000) + (fraction.isEmpty ? "" : "." + fraction)
    }
}
