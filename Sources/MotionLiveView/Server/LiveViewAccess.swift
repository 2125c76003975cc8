/// Who may open the page: loopback only, unless a host and a token are given.
public struct LiveViewAccess: Sendable, Equatable {
    /// The address to listen on.
    public let host: String
    /// The token a page and its WebSocket must present (`?token=`), if any.
    public let token: String?

    /// Checks the pair: a host other than loopback needs a token of at least 8 characters.
    ///
    /// - Throws: ``LiveViewAccessError``.
    public init(host: String, token: String?) throws(LiveViewAccessError) {
        if let token {
            guard token.count >= 8 else { throw .tokenTooShort }
            guard token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "&") && $0 != UInt8(ascii: "#") }) else {
                throw .tokenCharacters
            }
        }
        if !Self.isLoopback(host) && token == nil { throw .tokenRequired(host: host) }
        self.host = host
        self.token = token
    }

    /// Whether `host` is a loopback address (`127.0.0.0/8`, `::1`, `localhost`).
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else { return false }
        return parts[0] == "127"
    }

    /// Whether a WebSocket upgrade's `Origin` header may open the stream: absent (not a browser), or the
    /// page's own origin (`http://` or `https://` and the request's `Host`). A page of another site open in
    /// the same browser is refused, so that it cannot read the motion stream from loopback (WebSockets are
    /// not bound by the same-origin policy; the server has to check).
    public static func admits(origin: String?, host: String?) -> Bool {
        guard let origin else { return true }
        guard let host, !host.isEmpty else { return false }
        let o = origin.lowercased(), h = host.lowercased()
        return o == "http://" + h || o == "https://" + h
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
            "listening on \(host), which is not loopback, needs --token TOKEN (the page and its WebSocket then ask for ?token=TOKEN)"
        case .tokenTooShort: "the token must have at least 8 characters"
        case .tokenCharacters: "the token may only hold printable ASCII characters other than space, '&' and '#'"
        }
    }
}
