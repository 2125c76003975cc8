import Foundation
import Hummingbird
import Logging
import MotionSamples
import NIOCore
import ServiceLifecycle

/// The HTTP server that receives Sensor Logger's pushes (any path, `POST` or `PUT`), for every phone that
/// pushes to it: each `deviceId` is a ``SensorLoggerPhone`` with its own ``LiveDevice``.
///
/// Replies: 200 (accepted, also a duplicate), 400 with the reason (malformed JSON or fields), 401 (token
/// missing or wrong), 403 (without a token: a `Host` or `Origin` that is not this receiver, as a web page's
/// request would have), 413 (body over 1 MiB), 415 (without a token: not `Content-Type: application/json`),
/// 499 with advice for the user (Sensor Logger shows it: the convention cannot be decided, or no raw
/// motion sensor is enabled), 503 (too many phones). Every refusal is counted (``Statistics``) and logged
/// once per kind. Nothing a peer sends reaches another phone's state: it is keyed by the message's own
/// `deviceId`. Connections, phones and reference data are bounded by ``SensorLoggerLimits``.
///
/// ``receive(_:authorization:arrival:)`` is the whole behaviour without HTTP (tests, benchmarks, fuzzers).
public final class SensorLoggerServer: @unchecked Sendable {  // @unchecked: every stored var (phones, stats, task/group/executor, `boundPort`) is guarded by `lock`
    public let configuration: SensorLoggerConfiguration
    public let clock: any MotionClock
    /// The device of the phone this server follows (``SensorLoggerConfiguration/deviceId``, or the first to push).
    public let device: LiveDevice
    /// Most phones kept at once.
    public let maximumPhones: Int
    /// The bounds against hostile peers (connections, idle times, phones, reference data).
    public let limits: SensorLoggerLimits
    let connections: SensorLoggerConnectionGate
    let deviceConfiguration: LiveDevice.Configuration
    let logger: Logger

    private let lock = NSCondition()
    private var phonesById: [String: SensorLoggerPhone] = [:]
    private var order: [String] = []
    /// The last push of each phone, on the device clock (for ``SensorLoggerLimits/phoneExpiry``).
    private var lastPush: [String: TimeInterval] = [:]
    private var lastSweep = -Double.infinity
    private var chosen: String?
    /// Devices made for `&device=ID` before that phone pushed (``device(following:)``).
    private var followers: [String: LiveDevice] = [:]
    private var stats = Statistics()
    private var latency = HandlingLatency()
    private var logged = Set<String>()
    private var task: Task<Void, Never>?
    private var group: ServiceGroup?
    /// The thread the server's tasks run on (the shutdown runs there too).
    private var executor: DedicatedThreadExecutor?
    private var boundPort: Int?
    private var keeper: PushKeeper?

    /// What the server answered so far.
    public struct Statistics: Sendable, Hashable {
        /// Pushes per HTTP status.
        public var replies: [Int: Int] = [:]
        /// 400s per kind of problem.
        public var malformed: [SensorLoggerDecodingError.Kind: Int] = [:]
        /// Readings in accepted messages.
        public var readings = 0
        /// Connections the server closed itself, per reason (over the limit of open connections, idle, a
        /// request too slow).
        public var closedConnections: [SensorLoggerConnectionClosure: Int] = [:]
        /// Phones forgotten after ``SensorLoggerLimits/phoneExpiry`` without a push.
        public var expiredPhones = 0
        /// Pushes whose time was far from their phone's clock, readings left out (``PhoneClock``).
        public var clockRejections = 0
    }

    /// - Parameters:
    ///   - configuration: where to listen and how to treat the phones.
    ///   - clock: the device clock (arrival times and mapped sample times are on it).
    ///   - maximumPhones: how many `deviceId`s are kept at once (more get 503); `nil`: `limits`'.
    ///   - limits: the bounds against hostile peers.
    public init(
        configuration: SensorLoggerConfiguration, clock: any MotionClock = SystemClock.shared, maximumPhones: Int? = nil,
        limits: SensorLoggerLimits = SensorLoggerLimits(), logger: Logger = Logger(label: "coremotion.network.sensorlogger")
    ) {
        self.configuration = configuration
        self.clock = clock
        var limits = limits
        if let maximumPhones { limits.maximumPhones = maximumPhones }
        self.limits = limits
        self.maximumPhones = limits.maximumPhones
        let name = configuration.description
        self.connections = SensorLoggerConnectionGate(limits: limits) { line in
            logger.warning("Sensor Logger receiver \(name): \(line)")
        }
        self.deviceConfiguration = LiveDevice.Configuration(silence: configuration.silence, referenceEntries: limits.referenceEntries)
        self.logger = logger
        self.device = LiveDevice(name: configuration.description + " (no phone yet)", clock: clock, configuration: deviceConfiguration, logger: logger)
    }

    deinit { task?.cancel() }

    /// What an ingest node does with every accepted push before its answer goes out: keeps it durably (a
    /// database, a local spool) and returns `nil`, or returns the reply the phone gets instead of 200 (503
    /// when it cannot be kept, so that the phone keeps the push and sends it again).
    public typealias PushKeeper = @Sendable (_ message: SensorLoggerMessage, _ arrival: TimeInterval) async -> SensorLoggerReply?

    /// Sets the ``PushKeeper`` (before ``start()``): from then on a push is answered 200 only once it is kept.
    public func keepPushes(with keeper: @escaping PushKeeper) {
        lock.lock()
        self.keeper = keeper
        lock.unlock()
    }

    var pushKeeper: PushKeeper? {
        lock.lock()
        defer { lock.unlock() }
        return keeper
    }

    // MARK: Phones

    /// Every phone that pushed, in the order they first did.
    public var phones: [SensorLoggerPhone] {
        lock.lock()
        defer { lock.unlock() }
        return order.compactMap { phonesById[$0] }
    }

    /// The phone with this `deviceId`.
    public func phone(_ deviceId: String) -> SensorLoggerPhone? {
        lock.lock()
        defer { lock.unlock() }
        return phonesById[deviceId]
    }

    /// The phone ``device`` follows, once it pushed.
    public var chosenPhone: SensorLoggerPhone? {
        lock.lock()
        defer { lock.unlock() }
        return chosen.flatMap { phonesById[$0] }
    }

    /// Waits until the followed phone has pushed, at most `timeout` seconds (wall clock); returns it, or `nil`.
    public func waitForPhone(timeout: TimeInterval) -> SensorLoggerPhone? {
        waitForPhone(deviceId: nil, timeout: timeout)
    }

    /// Waits until the phone `deviceId` (`nil`: the phone ``device`` follows) has pushed, at most `timeout`
    /// seconds (wall clock); returns it, or `nil`.
    public func waitForPhone(deviceId: String?, timeout: TimeInterval) -> SensorLoggerPhone? {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        func found() -> SensorLoggerPhone? {
            if let deviceId { return phonesById[deviceId] }
            return chosen.flatMap { phonesById[$0] }
        }
        while found() == nil {
            if !lock.wait(until: deadline) { break }
        }
        return found()
    }

    /// The live device of the phone `deviceId`, made now when that phone has not pushed yet (it is used
    /// from its first push on); `nil` or the followed phone's id: ``device``. Several users of one receiver
    /// (a motion device and a headphone source, two devices following two phones) share it this way.
    public func device(following deviceId: String?) -> LiveDevice {
        lock.lock()
        defer { lock.unlock() }
        guard let deviceId, deviceId != configuration.deviceId else { return device }
        // Kept as followed: that phone is never forgotten for silence, and always gets in.
        if let phone = phonesById[deviceId] {
            followers[deviceId] = phone.device
            return phone.device
        }
        if let waiting = followers[deviceId] { return waiting }
        let name = "sensorlogger:\(configuration.host):\(boundPort ?? configuration.port) (phone \(String(deviceId.prefix(8)).logSafe))"
        let live = LiveDevice(name: name, clock: clock, configuration: deviceConfiguration, logger: logger)
        followers[deviceId] = live
        return live
    }

    /// What the server answered so far.
    public var statistics: Statistics {
        let gate = connections.current
        lock.lock()
        var s = stats
        lock.unlock()
        s.closedConnections = gate.closed
        return s
    }

    /// Connections open now.
    public var openConnections: Int { connections.current.open }

    /// How long pushes took from their arrival (the request head) to the end of their handling (decoded,
    /// checked and in the phone's jitter buffer), over HTTP.
    public var handlingLatency: HandlingLatency {
        lock.lock()
        defer { lock.unlock() }
        return latency
    }

    /// Counts one push's handling time (the HTTP layer's).
    func noteHandled(seconds: Double) {
        lock.lock()
        latency.add(seconds)
        lock.unlock()
    }

    // MARK: Receiving

    /// Handles one push body (any path): the server's whole behaviour, without HTTP.
    ///
    /// - Parameters:
    ///   - body: the request body (at most ``SensorLoggerConfiguration/maximumBodySize`` bytes: the HTTP
    ///     layer answers 413 before).
    ///   - authorization: the `Authorization` header, if any.
    ///   - arrival: when the body arrived, on the device clock (default: now).
    public func receive(_ body: some Collection<UInt8>, authorization: String?, arrival: TimeInterval? = nil) -> SensorLoggerReply {
        receiveMessage(body, authorization: authorization, arrival: arrival).reply
    }

    /// ``receive(_:authorization:arrival:)``, also returning the decoded push when it was accepted (200) or when
    /// only the live device cannot use it (499).
    func receiveMessage(
        _ body: some Collection<UInt8>, authorization: String?, arrival: TimeInterval? = nil
    ) -> (reply: SensorLoggerReply, accepted: SensorLoggerMessage?) {
        let arrival = arrival ?? clock.now
        if let token = configuration.token {
            guard let authorization, Self.matches(authorization, token: token) else {
                return (refuse(SensorLoggerReply(status: 401, text: "missing or wrong token: set Sensor Logger's auth token to the receiver's token"), kind: "unauthorised"), nil)
            }
        }
        guard body.count <= SensorLoggerConfiguration.maximumBodySize else { return (tooLarge(), nil) }
        let message: SensorLoggerMessage
        do {
            message = try SensorLoggerDecoder.decode(body)
        } catch {
            lock.lock()
            stats.malformed[error.kind, default: 0] += 1
            lock.unlock()
            return (refuse(SensorLoggerReply(status: 400, text: "malformed push: \(error.description)"), kind: "malformed \(error.kind.rawValue)", detail: error.description), nil)
        }
        let deviceId = message.deviceId ?? ""
        lock.lock()
        let expired = forgetSilentPhones(now: arrival, full: phonesById[deviceId] == nil && phonesById.count >= maximumPhones)
        var phone = phonesById[deviceId]
        if phone == nil {
            // A phone this process asked for by id always gets in: a flood of made-up ids cannot lock it out.
            let reserved = followers[deviceId] != nil || configuration.deviceId == deviceId
            guard phonesById.count < maximumPhones || reserved else {
                lock.unlock()
                if expired > 0 { logExpired(expired) }
                return (refuse(SensorLoggerReply(status: 503, text: "too many phones (\(maximumPhones)) push to this receiver; a phone silent for \(Int(limits.phoneExpiry)) s is forgotten"), kind: "too many phones"), nil)
            }
            // A phone some user asked for by id (device(following:)) keeps that device; the default device
            // follows the configured id, or else the first other phone.
            let waiting = followers[deviceId]
            let follows = waiting == nil && (configuration.deviceId.map { $0 == deviceId } ?? (chosen == nil))
            let name = "sensorlogger:\(configuration.host):\(boundPort ?? configuration.port) (phone \(deviceId.isEmpty ? "without deviceId" : String(deviceId.prefix(8)).logSafe))"
            let live: LiveDevice
            if follows {
                live = device
                live.rename(name)
            } else if let waiting {
                live = waiting
            } else {
                live = LiveDevice(name: name, clock: clock, configuration: deviceConfiguration, logger: logger)
            }
            let created = SensorLoggerPhone(deviceId: deviceId, device: live, platform: configuration.platform)
            phonesById[deviceId] = created
            order.append(deviceId)
            phone = created
            if follows { chosen = deviceId }
            lock.broadcast()
            logger.notice("Sensor Logger phone \(deviceId.logSafe) pushes to \(configuration.description.logSafe)\(follows ? " (this device follows it)" : "")")
        }
        lastPush[deviceId] = max(lastPush[deviceId] ?? arrival, arrival)
        lock.unlock()
        if expired > 0 { logExpired(expired) }
        let reply = phone!.ingest(message, arrival: arrival)
        lock.lock()
        stats.replies[reply.status, default: 0] += 1
        if reply == .heldByClock {
            stats.clockRejections += 1
        } else if reply.status == 200 {
            stats.readings += message.readings.count
        }
        let first = reply.status == 499 && logged.insert("499 \(reply.text)").inserted
        let firstHeld = reply == .heldByClock && logged.insert("clock").inserted  // once per receiver: ids are the peer's to vary
        lock.unlock()
        if first { logger.warning("Sensor Logger phone \(deviceId.logSafe): told the user (HTTP 499): \(reply.text)") }
        if firstHeld {
            logger.warning("Sensor Logger phone \(deviceId.logSafe): a push's time is far from this phone's clock: its readings are left out until several pushes in a row agree (a spoofed push, or the phone's clock was set); further ones, of any phone, are counted")
        }
        // Kept by an ingest node also when held by the clock, a duplicate, or when the live device cannot use it (499:
        // advice for live use only): raw readings keep the phone's own times and units, and the store recognises a
        // push it has.
        return (reply, reply.status == 200 || reply.status == 499 ? message : nil)
    }

    /// Forgets phones silent for ``SensorLoggerLimits/phoneExpiry`` that nobody follows; returns how many.
    /// Looks at most once a second unless the table is `full`. Caller holds `lock`.
    private func forgetSilentPhones(now: TimeInterval, full: Bool) -> Int {
        guard full || now - lastSweep >= 1 else { return 0 }
        lastSweep = now
        let expiry = limits.phoneExpiry
        var gone: [String] = []
        for (id, last) in lastPush where now - last > expiry {
            if id == chosen || followers[id] != nil || id == configuration.deviceId { continue }
            gone.append(id)
        }
        guard !gone.isEmpty else { return 0 }
        let set = Set(gone)
        for id in gone {
            phonesById.removeValue(forKey: id)
            lastPush.removeValue(forKey: id)
        }
        order.removeAll { set.contains($0) }
        stats.expiredPhones += gone.count
        return gone.count
    }

    private func logExpired(_ count: Int) {
        logger.notice("Sensor Logger receiver \(configuration.description.logSafe): forgot \(count) phone(s) silent for over \(Int(limits.phoneExpiry)) s")
    }

    /// Without a token, refuses what a web page's request would carry (a cross-site or DNS-rebinding
    /// `POST`): a `Host` that is not a loopback address or `localhost` (403), an `Origin` that is not this
    /// receiver (403), a body that is not `application/json` (415; a page cannot send that cross-site
    /// without the CORS preflight this receiver never answers). With a token there is nothing to forge:
    /// a page cannot know it.
    ///
    /// - Parameters:
    ///   - host: the `Host` header (the request's authority).
    ///   - origin: the `Origin` header, if any.
    ///   - contentType: the `Content-Type` header, if any.
    public func checkRequest(host: String?, origin: String?, contentType: String?) -> SensorLoggerReply? {
        guard configuration.token == nil else { return nil }
        guard let host, let name = SensorLoggerAddress.name(ofAuthority: host), SensorLoggerAddress.isLocalName(name) else {
            return refuse(SensorLoggerReply(status: 403, text: "refused: the Host header (\(host ?? "none")) is not this receiver's address; without a token only requests to 127.0.0.1, [::1] or localhost are taken (a web page's request through another name is refused); set a token to push through another name"),
                          kind: "foreign host", detail: "Host \(host ?? "none")")
        }
        if let origin {
            let port = self.port ?? configuration.port
            guard SensorLoggerAddress.isOwnOrigin(origin, port: port) else {
                return refuse(SensorLoggerReply(status: 403, text: "refused: a request from a web page (Origin \(origin)); Sensor Logger sends no Origin"),
                              kind: "foreign origin", detail: "Origin \(origin)")
            }
        }
        let media = contentType?.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard media == "application/json" else {
            return refuse(SensorLoggerReply(status: 415, text: "refused: the body must be sent as Content-Type: application/json (as Sensor Logger does), found \(contentType ?? "none")"),
                          kind: "not JSON", detail: "Content-Type \(contentType ?? "none")")
        }
        return nil
    }

    /// The reply to a body over the limit (the HTTP layer's, before reading it).
    func tooLarge() -> SensorLoggerReply {
        refuse(SensorLoggerReply(status: 413, text: "push larger than \(SensorLoggerConfiguration.maximumBodySize) bytes: shorten Sensor Logger's batch period"), kind: "too large")
    }

    /// Counts and logs (once per kind) a refusal.
    private func refuse(_ reply: SensorLoggerReply, kind: String, detail: String? = nil) -> SensorLoggerReply {
        lock.lock()
        stats.replies[reply.status, default: 0] += 1
        let first = logged.insert(kind).inserted
        lock.unlock()
        if first { logger.warning("Sensor Logger receiver \(configuration.description.logSafe): refused a push (\(reply.status), \(kind)): \(LogSafeText.logSafe(detail ?? reply.text, limit: 400)); further ones of this kind are counted, not logged") }
        return reply
    }

    /// Constant-time comparison of `Bearer <token>`.
    static func matches(_ authorization: String, token: String) -> Bool {
        let expected = Array(("Bearer " + token).utf8)
        let given = Array(authorization.trimmingCharacters(in: .whitespaces).utf8)
        guard given.count == expected.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(given, expected) { difference |= a ^ b }
        return difference == 0
    }

    // MARK: HTTP

    /// The port listened on, once started.
    public var port: Int? {
        lock.lock()
        defer { lock.unlock() }
        return boundPort
    }

    /// Starts listening; returns once the socket is bound (the port, useful with port 0).
    ///
    /// - Throws: ``SensorLoggerConfigurationError`` for a non-loopback address without a token, or when
    ///   the address cannot be bound.
    @discardableResult
    public func start() throws(SensorLoggerConfigurationError) -> Int {
        try configuration.checkSecurity()
        let outcome = StartOutcome()
        var quiet = logger
        quiet.logLevel = .warning
        let gate = connections
        let app = Application(
            responder: PushResponder(server: self),
            server: .http1(configuration: .init(additionalChannelHandlers: [SensorLoggerConnectionGuard(gate: gate)])),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: nil, reuseAddress: true),
            onServerRunning: { channel in outcome.finish(.success(channel.localAddress?.port ?? 0)) },
            logger: quiet
        )
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [app], logger: quiet))
        // On a thread of its own (not the cooperative pool): this function waits for it below, and so may a
        // caller that is itself on the pool.
        let executor = DedicatedThreadExecutor(name: "sensorlogger \(configuration.host):\(configuration.port)")
        let task = Task(executorPreference: executor) {
            do {
                try await group.run()
                outcome.finish(.failure(SensorLoggerConfigurationError(reason: "the server stopped")))
            } catch {
                outcome.finish(.failure(SensorLoggerConfigurationError(reason: "cannot listen on \(self.configuration.host):\(self.configuration.port): \(error)")))
            }
        }
        lock.lock()
        self.task = task
        self.group = group
        self.executor = executor
        lock.unlock()
        guard let result = outcome.wait(timeout: 15) else {
            task.cancel()
            executor.shutdown()
            throw SensorLoggerConfigurationError(reason: "the server on \(configuration.host):\(configuration.port) did not start within 15 s")
        }
        switch result {
        case .success(let port):
            lock.lock()
            boundPort = port
            lock.unlock()
            logger.info("Sensor Logger receiver listening on \(configuration.host.logSafe):\(port)")
            return port
        case .failure(let error):
            task.cancel()
            executor.shutdown()
            throw error
        }
    }

    /// Stops listening (the phones' state stays).
    public func stop() {
        lock.lock()
        let task = self.task
        let group = self.group
        let executor = self.executor
        self.task = nil
        self.group = nil
        self.executor = nil
        lock.unlock()
        guard let task, let group else { return }
        // A graceful shutdown: the listener closes, requests in flight finish.
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: executor) {
            await group.triggerGracefulShutdown()
            _ = await task.value
            done.signal()
        }
        if done.wait(timeout: .now() + 5) == .timedOut { task.cancel() }
        // The server's thread ends (a receiver started and stopped again and again kept one each).
        executor?.shutdown()
    }
}

/// The first outcome of starting the server.
private final class StartOutcome: @unchecked Sendable {  // @unchecked: its one var `result` is read and written only under `condition`
    private let condition = NSCondition()
    private var result: Result<Int, SensorLoggerConfigurationError>?

    func finish(_ r: Result<Int, SensorLoggerConfigurationError>) {
        condition.lock()
        if result == nil { result = r }
        condition.broadcast()
        condition.unlock()
    }

    func wait(timeout: TimeInterval) -> Result<Int, SensorLoggerConfigurationError>? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while result == nil {
            if !condition.wait(until: deadline) { break }
        }
        return result
    }
}

/// Hummingbird's side: every path, `POST`/`PUT` pushes; `GET` says what this is.
struct PushResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let server: SensorLoggerServer

    func respond(to request: Request, context: Context) async throws -> Response {
        let limit = SensorLoggerConfiguration.maximumBodySize
        switch request.method {
        case .post, .put:
            break
        case .get, .head:
            return Self.text(200, "coremotion's Sensor Logger receiver: set Sensor Logger's push URL to this address (any path)")
        default:
            return Self.text(405, "use POST")
        }
        if let refusal = server.checkRequest(host: request.head.authority, origin: request.headers[.origin], contentType: request.headers[.contentType]) {
            return Self.text(refusal.status, refusal.text, close: true)
        }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            let reply = server.tooLarge()
            return Self.text(reply.status, reply.text, close: true)
        }
        let entered = server.clock.now
        defer { server.noteHandled(seconds: server.clock.now - entered) }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: limit)
        } catch is NIOTooManyBytesError {
            let reply = server.tooLarge()
            return Self.text(reply.status, reply.text, close: true)
        }
        let arrival = server.clock.now
        let (reply, accepted) = body.withUnsafeReadableBytes { bytes in
            server.receiveMessage(UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count),
                                  authorization: request.headers[.authorization], arrival: arrival)
        }
        // An ingest node answers 200 only once the push is kept (no lock is held here).
        if let accepted, let keeper = server.pushKeeper {
            if let refusal = await keeper(accepted, arrival) { return Self.text(refusal.status, refusal.text) }
            // Kept: an ingest node stores raw readings whatever the live device could make of them.
            if reply.status != 200 { return Self.text(200, "ok") }
        }
        return Self.text(reply.status, reply.text)
    }

    static func text(_ status: Int, _ text: String, close: Bool = false) -> Response {
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8"]
        if close { headers[.connection] = "close" }
        let phrase: String
        switch status {
        case 200: phrase = "OK"
        case 400: phrase = "Bad Request"
        case 401: phrase = "Unauthorized"
        case 403: phrase = "Forbidden"
        case 405: phrase = "Method Not Allowed"
        case 413: phrase = "Content Too Large"
        case 415: phrase = "Unsupported Media Type"
        case 499: phrase = "Action Needed"
        case 503: phrase = "Service Unavailable"
        default: phrase = "Status"
        }
        return Response(status: HTTPResponse.Status(code: status, reasonPhrase: phrase), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

/// A histogram of handling times: 50 µs buckets up to 50 ms, and the rest counted above.
public struct HandlingLatency: Sendable, Hashable {
    /// Width of a bucket, seconds.
    public static let bucketWidth = 50e-6
    /// Counts per bucket; the last one holds everything from 50 ms on.
    public private(set) var buckets = [Int](repeating: 0, count: 1001)
    /// Pushes counted.
    public private(set) var count = 0
    /// The longest, seconds.
    public private(set) var maximum = 0.0

    public init() {}

    mutating func add(_ seconds: Double) {
        let index = seconds.isFinite ? min(max(Int(seconds / Self.bucketWidth), 0), buckets.count - 1) : buckets.count - 1
        buckets[index] += 1
        count += 1
        maximum = max(maximum, seconds)
    }

    /// The `fraction` quantile (0.99: p99), seconds: the upper edge of its bucket (at most ``maximum``); 0 when empty.
    public func quantile(_ fraction: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = Int((Double(count) * fraction).rounded(.up))
        var seen = 0
        for (i, n) in buckets.enumerated() {
            seen += n
            if seen >= rank { return min(Double(i + 1) * Self.bucketWidth, maximum) }
        }
        return maximum
    }
}
