import Hummingbird
import Logging
import MotionSamples
import Synchronization

/// The port the server listens on, known once it is bound (`--port 0` picks one).
final class BoundPort: Sendable {
    private let port: Atomic<Int>
    init(_ port: Int) { self.port = Atomic(port) }
    /// 0 until the server is bound on a port picked by the system.
    var value: Int { port.load(ordering: .acquiring) }
    func set(_ value: Int) { port.store(value, ordering: .releasing) }
}

/// Why a request is not answered.
struct Refusal: Sendable, Equatable {
    let status: HTTPResponse.Status
    let message: String
    /// The request's `Host` and `Origin`, for the log (escaped there).
    let host: String?
    let origin: String?
}

/// Logs refused requests, at most one line a second (a hostile page may send thousands); the line
/// says how many were refused without a line since the last one. Outside strings are escaped.
final class RefusalLog: Sendable {
    /// Shortest time between two lines.
    static let interval = Duration.seconds(1)

    private let logger: Logger
    private let state = Mutex<(last: ContinuousClock.Instant?, unlogged: Int)>((nil, 0))

    init(logger: Logger) { self.logger = logger }

    func log(_ refusal: Refusal, what: String) {
        let now = ContinuousClock.now
        let unlogged = state.withLock { state -> Int? in
            if let last = state.last, now - last < Self.interval {
                state.unlogged += 1
                return nil
            }
            defer { state = (now, 0) }
            return state.unlogged
        }
        guard let unlogged else { return }
        let (message, fields) = Self.line(refusal, what: what, unlogged: unlogged)
        logger.info("\(message)", metadata: fields.mapValues { .string($0) })
    }

    /// The log line of a refusal: the peer's `Host` and `Origin` escaped (`LogSafeText`).
    static func line(_ refusal: Refusal, what: String, unlogged: Int) -> (message: String, metadata: [String: String]) {
        (
            "refused \(what): \(refusal.message)",
            [
                "host": (refusal.host ?? "").logSafe, "origin": (refusal.origin ?? "").logSafe,
                "refusedWithoutLogLine": "\(unlogged)",
            ]
        )
    }
}

/// Checks every HTTP request before the routes (``LiveViewServer/refusal(method:authority:fields:access:port:)``)
/// and gives every response the security headers (``LiveViewServer/securityHeaders(access:port:authority:)``).
struct RequestGuard<Context: RequestContext>: RouterMiddleware {
    let access: LiveViewAccess
    let port: BoundPort
    let refusals: RefusalLog

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let port = port.value
        var response: Response
        if let refusal = LiveViewServer.refusal(
            method: request.method, authority: request.head.authority, fields: request.headers, access: access, port: port
        ) {
            refusals.log(refusal, what: "a request")
            response = LiveViewServer.text(refusal.status, "coremotion view: \(refusal.message)\n")
        } else {
            do {
                response = try await next(request, context)
            } catch let error as HTTPError {
                response = LiveViewServer.text(error.status, error.status == .notFound ? "not found\n" : "\(error.status.reasonPhrase)\n")
            } catch {
                response = LiveViewServer.text(.internalServerError, "internal error\n")
            }
        }
        for field in LiveViewServer.securityHeaders(access: access, port: port, authority: request.head.authority) {
            response.headers[field.name] = field.value
        }
        return response
    }
}

extension LiveViewServer {
    /// Why a request (an HTTP request or a WebSocket upgrade) is refused, or nil when it may go on to the
    /// token check and the routes.
    ///
    /// Only `GET` and `HEAD` are served: the view has no request that changes state besides its
    /// WebSocket's commands. Without a token the `Host` must name the bound address (or `localhost`) and
    /// port, once; an `Origin`, if present, once and one of the view's own
    /// (``LiveViewAccess/admits(origin:host:port:)``).
    static func refusal(
        method: HTTPRequest.Method, authority: String?, fields: HTTPFields, access: LiveViewAccess, port: Int
    ) -> Refusal? {
        let origins = fields[values: .origin]
        let origin = origins.first
        func refuse(_ status: HTTPResponse.Status, _ message: String) -> Refusal {
            Refusal(status: status, message: message, host: authority, origin: origin)
        }
        guard method == .get || method == .head else { return refuse(.methodNotAllowed, "only GET is served") }
        guard port > 0 else { return refuse(.serviceUnavailable, "not listening yet") }
        if access.checksHostAndOrigin {
            // The first Host header is the authority; a second one stays among the fields.
            guard !fields.contains(where: { $0.name.canonicalName == "host" }) else { return refuse(.badRequest, "more than one Host header") }
            guard access.admits(host: authority, port: port) else {
                return refuse(.misdirectedRequest, "the Host header does not name this view's address (use the printed address)")
            }
        }
        guard origins.count <= 1 else { return refuse(.badRequest, "more than one Origin header") }
        guard access.admits(origin: origin, host: authority, port: port) else {
            return refuse(.forbidden, "a page of another origin may not use this view")
        }
        return nil
    }

    /// The headers of every response: a content security policy allowing only the page's own script and
    /// style and a WebSocket to the view itself, no framing, no sniffing, no referrer.
    static func securityHeaders(access: LiveViewAccess, port: Int, authority: String?) -> HTTPFields {
        var sockets: [String]
        if access.checksHostAndOrigin {
            // The view's own origins, from the bound address: never from the request.
            sockets = access.ownOrigins(port: port).map { "ws" + $0.dropFirst("http".count) }
        } else if let authority = authority?.lowercased(), !authority.isEmpty, authority.utf8.count <= 300,
                  authority.utf8.allSatisfy({ b in
                      (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
                          || b == UInt8(ascii: ".") || b == UInt8(ascii: "-") || b == UInt8(ascii: ":")
                          || b == UInt8(ascii: "[") || b == UInt8(ascii: "]")
                  }) {
            // With a token the page may be reached under any name; the name goes into the policy only
            // when it is made of the characters of a host and port.
            sockets = ["ws://\(authority)"]
        } else {
            sockets = []
        }
        let policy = [
            "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src data:",
            (["connect-src 'self'"] + sockets).joined(separator: " "),
            "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
        var fields = HTTPFields()
        fields[.contentSecurityPolicy] = policy
        fields[HTTPFields.Element.Name("X-Frame-Options")!] = "DENY"
        fields[.xContentTypeOptions] = "nosniff"
        fields[HTTPFields.Element.Name("Referrer-Policy")!] = "no-referrer"
        return fields
    }
}
