import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Addresses as a Sensor Logger receiver judges them: by the numbers, never by the look of a name.
public enum SensorLoggerAddress {
    /// Whether `text` is a numeric loopback address: IPv4 `127.0.0.0/8` in dotted-quad form, or IPv6 `::1`
    /// (any spelling). Names (`localhost`, `127.0.0.1.example.com`) are not addresses and give `false`.
    public static func isLoopback(_ text: String) -> Bool {
        // Only the characters of a numeric address reach inet_pton: a C string ends at the first NUL, so
        // "127.0.0.1\0.example.com" would otherwise pass as 127.0.0.1.
        guard !text.isEmpty, text.utf8.count <= 64, text.utf8.allSatisfy(Self.isAddressByte) else { return false }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
        }
        return false
    }

    /// Hex digits, `.` and `:`: every byte a numeric IPv4 or IPv6 address is written with.
    static func isAddressByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"),
             UInt8(ascii: "."), UInt8(ascii: ":"):
            true
        default: false
        }
    }

    /// The name in a `Host` header or a URL's authority: `127.0.0.1:8000` → `127.0.0.1`, `[::1]:8000` →
    /// `::1`, `localhost` → `localhost`; `nil` when it is not of that shape.
    public static func name(ofAuthority authority: String) -> String? {
        let text = authority.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && Int(rest.dropFirst()) != nil) else { return nil }
            let inside = text[text.index(after: text.startIndex)..<close]
            return inside.isEmpty ? nil : String(inside)
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let first = parts.first, !first.isEmpty else { return nil }
        if parts.count == 2 && Int(parts[1]) == nil { return nil }
        return String(first)
    }

    /// The port of an authority, if it names one.
    static func port(ofAuthority authority: String) -> Int? {
        let text = authority.trimmingCharacters(in: .whitespaces)
        let tail: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            tail = text[text.index(after: close)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            tail = text[colon...]
        }
        guard tail.hasPrefix(":") else { return nil }
        return Int(tail.dropFirst())
    }

    /// Whether a request addressed to `name` can only have been meant for this machine: a numeric loopback
    /// address, or `localhost` (which browsers never resolve through DNS, so a web page cannot rebind it).
    public static func isLocalName(_ name: String) -> Bool {
        name.lowercased() == "localhost" || isLoopback(name)
    }

    /// Whether an `Origin` header names a page of this receiver itself (`http://` a local name, `port`).
    public static func isOwnOrigin(_ origin: String, port expected: Int) -> Bool {
        let prefix = "http://"
        guard origin.lowercased().hasPrefix(prefix) else { return false }
        let authority = String(origin.dropFirst(prefix.count))
        guard !authority.contains("/"), let name = name(ofAuthority: authority), isLocalName(name) else { return false }
        return (port(ofAuthority: authority) ?? 80) == expected
    }
}
