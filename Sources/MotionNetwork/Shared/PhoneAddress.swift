import Foundation

/// Where a polled or streamed phone is: a host and a port, read from and written as `SCHEME://HOST:PORT`.
public struct PhoneAddress: Sendable, Hashable {
    /// The phone's name, IPv4 or IPv6 address.
    public var host: String
    /// The port of the app's server on the phone.
    public var port: Int

    /// The phone at `host`:`port`.
    public init(host: String, port: Int) { (self.host, self.port) = (host, port) }

    /// `SCHEME://HOST:PORT`, an IPv6 host in brackets.
    public func url(scheme: String) -> String {
        "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// Reads `SCHEME://HOST[:PORT][/]` or `HOST[:PORT]` (an IPv6 host in brackets): the port is
    /// `schemeDefaultPort` after an explicit scheme, else `defaultPort`. `kind` names the device in errors.
    init(parsing text: String, scheme: String, defaultPort: Int, schemeDefaultPort: Int, kind: String) throws(PhoneOptionError) {
        var rest = Substring(text)
        var port = defaultPort
        if let r = rest.range(of: "://") {
            let given = rest[..<r.lowerBound].lowercased()
            guard given == scheme else {
                throw PhoneOptionError("\(kind): takes a \(scheme):// address, found '\(given)://' in '\(text)'")
            }
            rest = rest[r.upperBound...]
            port = schemeDefaultPort
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("/") else {
            throw PhoneOptionError("\(kind): takes an address without a path (\(scheme)://HOST:PORT), found '\(text)'")
        }
        var host = rest
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw PhoneOptionError("\(kind): unclosed '[' in '\(text)'") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let p = Int(after.dropFirst()) else { throw PhoneOptionError("\(kind): bad port in '\(text)'") }
                port = p
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let p = Int(rest[rest.index(after: colon)...]) else { throw PhoneOptionError("\(kind): bad port in '\(text)'") }
            port = p
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "?" || $0 == "#" || $0 == "@" }) else {
            throw PhoneOptionError("\(kind): needs the phone's address, e.g. \(kind):\(scheme)://192.168.1.5:8080, found '\(text)'")
        }
        guard (1...65535).contains(port) else { throw PhoneOptionError("\(kind): port \(port) is not 1 to 65535") }
        self.init(host: String(host), port: port)
    }
}
