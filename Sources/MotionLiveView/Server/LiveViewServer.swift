import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import MotionLiveViewProtocol
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// `coremotion view`'s server: the page at `/`, its script and style, and the stream at `/ws`.
///
/// One ``LiveViewSource`` feeds a ``LiveBroadcaster``; about 30 times a second the server asks the
/// source for its clock and sends what was collected to every page. Each page has its own writer and
/// its own bounded outbox, and its commands are decoded with limits (``PageCommand/decode(_:)``): a
/// page that disconnects, stalls or sends garbage harms only itself.
public final class LiveViewServer: Sendable {
    /// Batches per second sent to each page.
    public static let batchesPerSecond = 30.0
    /// The largest WebSocket frame read from a page, and the size outgoing messages are split at.
    public static let maximumFrameSize = 1 << 16
    /// Refused commands after which a page's connection is closed.
    public static let refusedCommandLimit = 100

    private let access: LiveViewAccess
    private let port: Int
    private let source: any LiveViewSource
    /// The fan-out to the pages.
    public let broadcaster: LiveBroadcaster
    private let logger: Logger
    /// The running server's service group (for ``stop()``), and whether ``stop()`` came first.
    private let running = NIOLockedValueBox<(group: ServiceGroup?, stopped: Bool)>((nil, false))

    /// A server for `source` on `access.host`:`port` (0: any free port) sending at most `rate` samples
    /// per second and channel.
    public init(source: any LiveViewSource, access: LiveViewAccess, port: Int, rate: Double = 60, logger: Logger = Logger(label: "coremotion.view")) {
        self.source = source
        self.access = access
        self.port = port
        self.broadcaster = LiveBroadcaster(rate: rate)
        self.logger = logger
    }

    /// Runs until ``stop()``, cancellation, SIGINT or SIGTERM; calls `onRunning` with the port listened on.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let resources = try PageResources.load()
        let access = self.access
        let logger = self.logger
        let boundPort = BoundPort(port)
        let refusals = RefusalLog(logger: logger)
        let router = Router()
        // First, so that it sees every request (the routes' and the not-found answers) and every response.
        router.add(middleware: RequestGuard(access: access, port: boundPort, refusals: refusals))
        router.get("/") { request, _ -> Response in
            guard access.admits(token: request.uri.queryParameters["token"].map(String.init)) else {
                return Self.text(.forbidden, "coremotion view: wrong or missing ?token=\n")
            }
            return Self.file(resources.files["index.html"])
        }
        router.get("/:name") { _, context -> Response in
            // Only the page's own files; the names are the folder's, nothing is read from disk here.
            guard let name = context.parameters.get("name"), name != "index.html" else { return Self.text(.notFound, "not found\n") }
            return Self.file(resources.files[name])
        }
        let broadcaster = self.broadcaster
        let source = self.source
        let sampleRate = broadcaster.rate
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(configuration: .init(ws: .init(maxFrameSize: Self.maximumFrameSize))) { request, _, _ in
                guard request.path?.split(separator: "?").first == "/ws" else { return .dontUpgrade }
                // A refused upgrade is answered 400 and closed by HummingbirdWebSocket (the router never sees it).
                if let refusal = Self.refusal(
                    method: request.method, authority: request.authority, fields: request.headerFields, access: access, port: boundPort.value
                ) {
                    refusals.log(refusal, what: "a WebSocket")
                    return .dontUpgrade
                }
                guard access.admits(token: Self.query(request.path ?? "", "token")) else { return .dontUpgrade }
                return .upgrade([:]) { inbound, outbound, _ in
                    try await Self.servePage(inbound: inbound, outbound: outbound, source: source, broadcaster: broadcaster, rate: sampleRate, logger: logger)
                }
            },
            configuration: .init(address: .hostname(access.host, port: port), serverName: "coremotion-view"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                boundPort.set(port)
                await onRunning(port)
            },
            logger: logger
        )
        try source.start(into: broadcaster)
        defer {
            source.stop()
            broadcaster.finishAll()
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let period = Duration.milliseconds(Int(1000 / Self.batchesPerSecond))
                while !Task.isCancelled {
                    let clock = source.tick(into: broadcaster)
                    broadcaster.flush(clock: clock)
                    try await Task.sleep(for: period)
                }
            }
            // In a service group, so that ``stop()`` ends it gracefully: the listener closes and the run
            // returns, without cancelling a task (cancelling the server's task from another thread while it
            // ran on a task executor deadlocked the Swift runtime's task-status lock against
            // swift-async-algorithms' merge lock: a test run stopped with both threads waiting).
            let services = ServiceGroup(configuration: ServiceGroupConfiguration(
                services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            let stoppedEarly = running.withLockedValue { running in
                running.group = services
                return running.stopped
            }
            if stoppedEarly { await services.triggerGracefulShutdown() }
            group.addTask { try await services.run() }
            try await group.next()
            group.cancelAll()
        }
        running.withLockedValue { $0.group = nil }
    }

    /// Ends ``run(onRunning:)`` gracefully (the listener closes, the run returns); before the run starts, the
    /// run ends as soon as it does. Idempotent.
    public func stop() async {
        let group = running.withLockedValue { running in
            running.stopped = true
            return running.group
        }
        await group?.triggerGracefulShutdown()
    }

    /// One page's connection: the hello, then its outbox written while its commands are read.
    static func servePage(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, source: any LiveViewSource,
        broadcaster: LiveBroadcaster, rate: Double, logger: Logger
    ) async throws {
        let (id, messages) = broadcaster.addPage()
        defer { broadcaster.remove(page: id) }
        var hello = source.hello
        hello.sampleRate = rate
        try await outbound.write(.text(ServerMessageWriter.hello(hello)))
        source.pageOpened()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in messages { try await outbound.write(.text(message)) }
            }
            group.addTask {
                var refused = 0
                for try await message in inbound.messages(maxSize: LiveViewProtocol.maximumCommandSize) {
                    let reply: String?
                    switch message {
                    case .text(let text):
                        let bytes = Array(text.utf8)
                        // One frame may be up to the frame limit; a command is far shorter. Such a page
                        // is closed rather than read on.
                        if bytes.count > LiveViewProtocol.maximumCommandSize {
                            logger.info("closing a page that sent a message of \(bytes.count) bytes")
                            return
                        }
                        reply = Self.carryOut(bytes, page: id, source: source, broadcaster: broadcaster)
                    case .binary: reply = "binary messages are not commands"
                    }
                    if let reply {
                        refused += 1
                        broadcaster.send(ServerMessageWriter.error(reply), toPage: id)
                        if refused >= refusedCommandLimit {
                            logger.info("closing a page after \(refused) refused commands")
                            return
                        }
                    }
                }
            }
            // Either side ending (the page closed, sent too much, or its outbox closed) ends both.
            try await group.next()
            group.cancelAll()
        }
    }

    /// Decodes and carries out one command; returns the refusal for the page, or nil.
    static func carryOut(_ bytes: [UInt8], page: Int, source: any LiveViewSource, broadcaster: LiveBroadcaster) -> String? {
        let command: PageCommand
        do { command = try PageCommand.decode(bytes) } catch { return error.description }
        if case .ping(let id) = command {
            broadcaster.send(ServerMessageWriter.pong(id: id), toPage: page)
            return nil
        }
        do { try source.handle(command, broadcaster: broadcaster) } catch { return error.description }
        return nil
    }

    /// The value of `name` in a request target's query (`/ws?token=…`), percent-decoded.
    static func query(_ target: String, _ name: String) -> String? {
        guard let q = target.firstIndex(of: "?") else { return nil }
        for pair in target[target.index(after: q)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, parts[0] == name { return String(parts[1]).removingPercentEncoding ?? String(parts[1]) }
        }
        return nil
    }

    private static func file(_ file: PageResources.File?) -> Response {
        guard let file else { return text(.notFound, "not found\n") }
        var headers = HTTPFields()
        headers[.contentType] = file.contentType
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }

    static func text(_ status: HTTPResponse.Status, _ body: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}

/// Why the server cannot start.
public enum LiveViewServerError: Error, CustomStringConvertible {
    /// The page's files are not in the module's resource bundle.
    case resourcesMissing

    /// The message for the user.
    public var description: String {
        switch self {
        case .resourcesMissing: "the web page's files are missing from MotionLiveView's resources"
        }
    }
}
