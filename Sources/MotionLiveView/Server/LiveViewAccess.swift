#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Who may open the page: loopback only, unless a host and a token are given.
///
/// **Without a token** (loopback only) the server trusts nothing a request says about where it is going:
/// a page of another site can make its own name resolve to 127.0.0.1 (DNS rebinding) and then talk to
/// the view as if it were that site. So a request is answered only when its `Host` names the bound address
/// itself (`127.0.0.1:PORT`, `[::1]:PORT`) or `localhost:PORT`, and a WebSocket (or any request carrying
/// an `Origin`) only when its `Origin` is one of the view's own origins, built from the bound address and
/// port (``ownOrigins(port:)``), never from the request's `Host`.
///
/// **With a token** the token is the guard (the page may be reached under any name of the machine); the
/// `Origin` of a WebSocket must then be absent or the page's own (the request's `Host`).
public struct LiveViewAccess: Sendable, Equatable {
    /// The address to listen on: an IP address as given, or its canonical form for loopback
    /// (`localhost` is `127.0.0.1`, `[::1]` is `::1`).
    public let host: String
    /// The token a page and its WebSocket must present (`?token=`), if any.
    public let token: String?

    /// Checks the pair: a host other than a loopback address needs a token of at least 8 characters.
    ///
    /// - Throws: ``LiveViewAccessError``.
    public init(host: String, token: String?) throws(LiveViewAccessError) {
        if let token {
            guard token.count >= 8 else { throw .tokenTooShort }
            guard token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "&") && $0 != UInt8(ascii: "#") }) else {
                throw .tokenCharacters
            }
        }
        let loopback = Self.loopbackAddress(host)
        if loopback == nil && token == nil { throw .tokenRequired(host: host) }
        self.host = loopback?.text ?? host
        self.token = token
    }

    /// Whether `host` is a loopback address: an IPv4 address in `127.0.0.0/8`, the IPv6 address `::1`
    /// (bare or in brackets), or the name `localhost`, which is reserved for loopback (RFC 6761) and
    /// listened on as `127.0.0.1`. Any other name is not loopback, whatever it looks like
    /// (`127.0.0.1.example.com` is a name).
    public static func isLoopback(_ host: String) -> Bool { loopbackAddress(host) != nil }

    /// An IP address parsed from text (no name resolution).
    enum Address: Equatable {
        case v4([UInt8])
        case v6([UInt8])

        /// The canonical text (`127.0.0.1`, `::1`).
        var text: String {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            let bytes: [UInt8]
            let family: Int32
            switch self {
            case .v4(let b): bytes = b; family = AF_INET
            case .v6(let b): bytes = b; family = AF_INET6
            }
            let ok = bytes.withUnsafeBytes { raw in
                inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
            }
            return ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        }

        /// The host part of a URL or `Host` header for this address (IPv6 in brackets).
        var authorityHost: String {
            switch self {
            case .v4: text
            case .v6: "[\(text)]"
            }
        }

        var isLoopback: Bool {
            switch self {
            case .v4(let b): b[0] == 127
            case .v6(let b): b == [UInt8](repeating: 0, count: 15) + [1]
            }
        }

        /// Parses an IPv4 address (four decimal parts) or an IPv6 address, bare or in brackets.
        init?(_ text: String) {
            var text = Substring(text)
            let bracketed = text.hasPrefix("[") && text.hasSuffix("]")
            if bracketed { text = text.dropFirst().dropLast() }
            // No NUL: inet_pton would read a C string only up to it.
            guard !text.isEmpty, text.utf8.count <= 64, !text.utf8.contains(0) else { return nil }
            var v4 = in_addr()
            if !bracketed, inet_pton(AF_INET, String(text), &v4) == 1 {
                self = .v4(withUnsafeBytes(of: &v4) { Array($0) })
                return
            }
            var v6 = in6_addr()
            if inet_pton(AF_INET6, String(text), &v6) == 1 {
                self = .v6(withUnsafeBytes(of: &v6) { Array($0) })
                return
            }
            return nil
        }
    }

    /// The loopback address `host` names, or nil.
    static func loopbackAddress(_ host: String) -> Address? {
        if host.lowercased() == "localhost" { return .v4([127, 0, 0, 1]) }
        guard let address = Address(host), address.isLoopback else { return nil }
        return address
    }

    /// Whether requests are checked against the bound address (loopback without a token).
    public var checksHostAndOrigin: Bool { token == nil }

    /// The view's own origins when listening on `port`: the bound address and `localhost`
    /// (`http://127.0.0.1:8765` and `http://localhost:8765`). Empty with a token (any name may be used).
    public func ownOrigins(port: Int) -> [String] {
        guard token == nil, let address = Address(host) else { return [] }
        let suffix = port == 80 ? "" : ":\(port)"
        return ["http://\(address.authorityHost)\(suffix)", "http://localhost\(suffix)"]
    }

    /// Whether a request's `Host` (its authority) may be answered by a view listening on `port`.
    ///
    /// With a token: any. Without: it must name the bound address itself or `localhost`, with the port
    /// listened on (`127.0.0.1:8765`, `[::1]:8765`, `localhost:8765`). A name that resolves to loopback,
    /// as a DNS-rebinding page's does, is refused.
    public func admits(host authority: String?, port: Int) -> Bool {
        guard token == nil else { return true }
        guard let authority, let (name, requestPort) = Self.splitAuthority(authority), requestPort == port else { return false }
        if name == "localhost" { return true }
        // An IPv6 address only in brackets (a bare one cannot be told from its port), an IPv4 one bare.
        guard let bound = Address(host), let named = Address(name) else { return false }
        if case .v6 = named, !name.hasPrefix("[") { return false }
        return named == bound
    }

    /// Whether a request's `Origin` may open the stream (or, with a method that changes state, be
    /// served) on a view listening on `port`, whose `Host` header was `host`.
    ///
    /// Absent: yes (not a browser: browsers always send it with a WebSocket). Without a token: one of
    /// ``ownOrigins(port:)``, never derived from `host`. With a token: the page's own origin on the
    /// request's `Host` (``admits(origin:host:)``).
    public func admits(origin: String?, host: String?, port: Int) -> Bool {
        guard let origin else { return true }
        guard token == nil else { return Self.admits(origin: origin, host: host) }
        let o = origin.lowercased()
        guard o.hasPrefix("http://") else { return false }
        return admits(host: String(o.dropFirst("http://".count)), port: port)
    }

    /// Whether a WebSocket upgrade's `Origin` header may open the stream on a view with a token: absent
    /// (not a browser), or the page's own origin (`http://` or `https://` and the request's `Host`). A page
    /// of another site open in the same browser is refused, so that it cannot read the motion stream
    /// (WebSockets are not bound by the same-origin policy; the server has to check). Without a token use
    /// ``admits(origin:host:port:)``, which does not trust the `Host`.
    public static func admits(origin: String?, host: String?) -> Bool {
        guard let origin else { return true }
        guard let host, !host.isEmpty else { return false }
        let o = origin.lowercased(), h = host.lowercased()
        return o == "http://" + h || o == "https://" + h
    }

    /// `name` and port of an authority (`host`, `host:port`, `[v6]:port`), lower-cased; the port is 80
    /// when absent. Nil when it is malformed (user info, a path, a bad port).
    static func splitAuthority(_ authority: String) -> (String, Int)? {
        let a = authority.lowercased()
        guard !a.isEmpty, a.utf8.count <= 300,
              a.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "@") })
        else { return nil }
        let name: Substring, portText: Substring?
        if a.hasPrefix("[") {
            guard let close = a.firstIndex(of: "]") else { return nil }
            name = a[...close]
            let rest = a[a.index(after: close)...]
            if rest.isEmpty { portText = nil } else {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else if let colon = a.firstIndex(of: ":") {
            name = a[..<colon]
            portText = a[a.index(after: colon)...]
        } else {
            name = a[...]
            portText = nil
        }
        guard !name.isEmpty else { return nil }
        guard let portText else { return (String(name), 80) }
        guard (1...5).contains(portText.count), portText.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(portText),
              port <= 65_535
        else { return nil }
        return (String(name), port)
    }

    /// Whether a request's `token` query value grants access (compared in constant time).
    public func admits(token presented: String?) -> Bool {
        guard let token else { return true }
        guard let presented else { return false }
        let a = Array(token.utf8), b = Array(presented.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<a.count { difference |= a[i] ^ (i < b.count ? b[i] : 0) }
        return difference == 0
    }
}

/// Why `coremotion view` refuses to start.
public enum LiveViewAccessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A host other than loopback was given without a token.
    case tokenRequired(host: String)
    /// The token has fewer than 8 characters.
    case tokenTooShort
    /// The token has a space, a control character, `&`, `#` or a non-ASCII character.
    case tokenCharacters

    /// The message for the user.
    public var description: String {
        switch self {
        case .tokenRequired(let host):
            "listening on \(host), which is not a loopback address (127.0.0.0/8, ::1, localhost), needs a token "
                + "(--token-file FILE, COREMOTION_VIEW_TOKEN or --token; the page and its WebSocket then ask for ?token=TOKEN)"
        case .tokenTooShort: "the token must have at least 8 characters"
        case .tokenCharacters: "the token may only hold printable ASCII characters other than space, '&' and '#'"
        }
    }
}
