import Foundation
import Logging
import MotionProtocol
import MotionService
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// One connected client: its identity (from `SO_PEERCRED`), its decision, its streams and its outbox.
///
/// Hostile input stays with the client that sent it: a frame that cannot be decoded, too large, a message
/// before the hello, a hello of another version, or no hello within ``DaemonConfiguration/helloTimeout``
/// gets a `failure` frame naming the problem and the connection is closed. Nothing it sends reaches the
/// device or another client.
///
/// **Threads.** The event loop only decodes frames and writes bytes: every request (subscribing, history,
/// status, permissions) runs in order on the session's own serial queue (``work``), so that neither the
/// event loop nor the device's thread ever waits on the service's locks, the history or `/proc` for a
/// client. Teardown (a stall, a disconnect) runs there too.
///
/// **Bounds** (docs/security.md): at most ``maximumRequestsInFlight`` requests are unanswered at once; while
/// that many are, the session stops reading the socket (NIO `read()` is held back), so a client that sends
/// without reading its replies makes the kernel's socket buffer fill instead of the daemon's memory. A request
/// counts until its reply is written to the socket. Frames already decoded from one socket read still wait
/// (at most ``maximumQueuedRequests``; past that the client is disconnected as `overloaded`). Control
/// messages (events, replies) not yet written are bounded by ``maximumPendingControl``; past that the client
/// is disconnected as `tooSlow`.
final class ClientSession: ChannelDuplexHandler, @unchecked Sendable {  // @unchecked: `inFlight`, `readHeldBack`, `handlerContext`, `admitted`, `hello*` on its event loop; rest under `lock`
    typealias InboundIn = ClientMessage
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Requests answered concurrently per client before reading stops.
    static let maximumRequestsInFlight = 16
    /// Requests decoded but not yet answered per client (one 64 KiB socket read of the smallest frames).
    static let maximumQueuedRequests = 8192
    /// Control messages written to NIO but not yet to the socket per client.
    static let maximumPendingControl = 1024

    private let core: DaemonCore
    private var storedLogger: Logger
    /// The session's logger (with the client's app and pid once known).
    private var logger: Logger {
        lock.lock()
        defer { lock.unlock() }
        return storedLogger
    }
    private let lock = NSLock()
    private var channel: (any Channel)?
    private var outbox: ClientOutbox?
    private var credentials: (pid: Int32, uid: UInt32, gid: UInt32)?
    private var storedIdentity: ClientIdentity?
    /// Who the client is, once it said hello.
    var identity: ClientIdentity? {
        lock.lock()
        defer { lock.unlock() }
        return storedIdentity
    }
    private var status = AuthorizationStatus.notDetermined
    private var streams: [UInt32: OpenStream] = [:]
    private var helloDone = false
    private var closing = false
    private var helloTimer: Scheduled<Void>?
    let connectedAt = Date()
    /// Where this client's requests run, one at a time, in the order they arrived.
    private let work: DispatchQueue
    /// Requests received and not yet answered (event loop only).
    private var inFlight = 0
    /// A `read()` held back while ``maximumRequestsInFlight`` requests are unanswered (event loop only).
    private var readHeldBack = false
    /// The handler's context, for resuming reads (event loop only).
    private var handlerContext: ChannelHandlerContext?
    /// Whether the client was admitted (holds a slot).
    private var admitted = false
    /// Whether a hello frame arrived (event loop only; ``helloDone`` is set once it was answered).
    private var helloReceived = false
    /// Control messages handed to NIO and not yet written (guarded by `lock`).
    private var pendingControl = 0

    /// A stream of this client, with what it needs (to end it when the decision changes).
    struct OpenStream {
        var subscription: any MotionSubscription
        var label: String
        var interval: TimeInterval
        var needs: Need
    }

    enum Need { case motion, activity }

    init(core: DaemonCore) {
        self.core = core
        self.storedLogger = core.logger
        self.work = DispatchQueue(label: "coremotiond.session", qos: .utility, target: core.sessionWork)
    }

    // MARK: Channel events

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        handlerContext = context
        let stallLimit = core.configuration.clientStallLimit
        let outbox = ClientOutbox(
            channel: channel, capacity: core.configuration.clientBufferCapacity, stallLimit: stallLimit, cleanup: work)
        outbox.onStall = { [weak self] in
            self?.shutDown(.tooSlow, "this client did not read its socket for \(Int(stallLimit)) s while values were dropped")
        }
        lock.lock()
        self.channel = channel
        self.outbox = outbox
        lock.unlock()
        // The peer's credentials (SO_PEERCRED: fixed by the kernel at connect) decide the slot: the option is
        // read on this event loop, so the future is complete before any frame is read.
        var peer: SocketPeerCredentials?
        if let provider = channel as? any SocketOptionProvider {
            let future: EventLoopFuture<SocketPeerCredentials> = provider.unsafeGetSocketOption(
                level: NIOBSDSocket.OptionLevel(rawValue: SOL_SOCKET), name: NIOBSDSocket.Option(rawValue: SO_PEERCRED))
            future.assumeIsolated().whenSuccess { cred in peer = cred }
        }
        let credentials = peer.map { (pid: $0.pid, uid: $0.uid, gid: $0.gid) } ?? (pid: -1, uid: UInt32.max, gid: UInt32.max)
        lock.lock()
        self.credentials = credentials
        lock.unlock()
        if let refusal = core.admit(self, uid: credentials.uid) {
            failAndClose(.overloaded, refusal, context: context)
            return
        }
        admitted = true
        let timeout = core.configuration.helloTimeout
        helloTimer = context.eventLoop.scheduleTask(in: .milliseconds(Int64(timeout * 1000))) { [weak self] in
            guard let self, !self.helloReceived else { return }
            self.shutDown(.helloExpected, "no hello within \(Int(timeout)) s")
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        helloTimer?.cancel()
        handlerContext = nil
        outbox?.close()
        if admitted {
            admitted = false
            core.remove(self)
        }
        // Ending the streams takes the service's locks: on the session's queue, never the event loop.
        work.async { [self] in
            endAllStreams()
            if let identity = self.identity { logger.info("client gone: \(describe(identity))") }
        }
        context.fireChannelInactive()
    }

    /// Holds back reading while ``maximumRequestsInFlight`` requests are unanswered.
    func read(context: ChannelHandlerContext) {
        if inFlight >= Self.maximumRequestsInFlight {
            readHeldBack = true
            return
        }
        context.read()
    }

    /// One request was answered (any thread).
    private func requestDone() {
        guard let channel = currentChannel else { return }
        channel.eventLoop.execute { [self] in
            inFlight -= 1
            if readHeldBack, inFlight < Self.maximumRequestsInFlight, let context = handlerContext {
                readHeldBack = false
                context.read()
            }
        }
    }

    /// The client's uid from `SO_PEERCRED` (`UInt32.max` when unknown).
    var peerUID: UInt32 {
        lock.lock()
        defer { lock.unlock() }
        return credentials?.uid ?? UInt32.max
    }

    private var currentChannel: (any Channel)? {
        lock.lock()
        defer { lock.unlock() }
        return channel
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { outbox?.flush() }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let who = self.identity.map(describe) ?? "a client that has not said hello"
        if let problem = error as? ProtocolError {
            logger.warning("disconnecting \(who): \(problem)")
            if case .frameLength = problem {
                failAndClose(.frameTooLarge, "\(problem)", context: context)
            } else {
                failAndClose(.malformedFrame, "\(problem)", context: context)
            }
        } else {
            logger.info("connection of \(who) failed: \(error)")
            context.close(promise: nil)
        }
    }

    private var isClosing: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closing
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isClosing, admitted else { return }
        let message = unwrapInboundIn(data)
        guard helloReceived else {
            guard case .hello(let hello) = message else {
                failAndClose(.helloExpected, "the first frame must be a hello, not \(message.type)", context: context)
                return
            }
            helloReceived = true
            helloTimer?.cancel()
            guard hello.version == ProtocolVersion.current else {
                logger.warning("refusing a client of protocol version \(hello.version) (\(hello.appHint.logSafe))")
                failAndClose(
                    .unsupportedVersion,
                    "coremotiond speaks protocol version \(ProtocolVersion.current); this client speaks version \(hello.version): "
                        + "build the app against the same swift-core-motion release as the daemon",
                    context: context)
                return
            }
            inFlight += 1
            work.async { [self] in
                greet(hello)
                requestDone()
            }
            return
        }
        if case .hello = message {
            failAndClose(.malformedFrame, "hello sent twice", context: context)
            return
        }
        guard inFlight < Self.maximumQueuedRequests else {
            failAndClose(.overloaded, "more than \(Self.maximumQueuedRequests) requests unanswered", context: context)
            return
        }
        inFlight += 1
        work.async { [self] in
            guard !isClosing else { return requestDone() }
            handle(message, done: { [self] in requestDone() })
        }
    }

    /// Runs one request on ``work``; `done` is called once its reply (if any) is written.
    private func handle(_ message: ClientMessage, done: @escaping @Sendable () -> Void) {
        switch message {
        case .hello:
            done()
        case .subscribeSensor(let stream, let sensor, let interval):
            defer { done() }
            open(stream, label: sensor.rawValue, interval: interval, needs: .motion) { provider, push in
                provider.subscribe(to: sensor, interval: interval) { push(.sensor($0)) }
            }
        case .subscribeDeviceMotion(let stream, let frame, let interval):
            defer { done() }
            open(stream, label: "device motion (\(frame))", interval: interval, needs: .motion) { provider, push in
                provider.subscribeDeviceMotion(frame: frame, interval: interval) { push(.deviceMotion($0)) }
            }
        case .subscribeAltitude(let stream, let absolute):
            defer { done() }
            open(stream, label: absolute ? "absolute altitude" : "altitude", interval: 0, needs: .activity) { provider, push in
                provider.subscribeAltitude(absolute: absolute) { push(.altitude($0)) }
            }
        case .subscribePedometer(let stream, let start):
            defer { done() }
            // Totals cumulative from a start in the past include history: an app that may not read history
            // counts from now instead (Apple's pedometer gives such an app nothing at all).
            let from = mayReadHistory ? start : max(start, Date())
            open(stream, label: "pedometer", interval: 0, needs: .activity) { provider, push in
                provider.subscribePedometer(from: from) { push(.pedometer($0)) }
            }
        case .subscribePedometerEvents(let stream):
            defer { done() }
            open(stream, label: "pedometer events", interval: 0, needs: .activity) { provider, push in
                provider.subscribePedometerEvents { push(.pedometerEvent($0)) }
            }
        case .subscribeActivity(let stream):
            defer { done() }
            open(stream, label: "activity", interval: 0, needs: .activity) { provider, push in
                provider.subscribeActivity { push(.activity($0)) }
            }
        case .subscribeHeadphoneConnection(let stream):
            defer { done() }
            open(stream, label: "headphone connection", interval: 0, needs: .activity) { provider, push in
                provider.subscribeHeadphoneConnection { push(.headphoneConnection($0)) }
            }
        case .subscribeHeadphoneMotion(let stream):
            defer { done() }
            open(stream, label: "headphone motion", interval: 0, needs: .activity) { provider, push in
                provider.subscribeHeadphoneMotion { push(.headphoneMotion($0)) }
            }
        case .subscribeHeadphoneActivity(let stream):
            defer { done() }
            open(stream, label: "headphone activity", interval: 0, needs: .activity) { provider, push in
                provider.subscribeHeadphoneActivity { push(.activity($0)) }
            }
        case .unsubscribe(let stream):
            defer { done() }
            lock.lock()
            let removed = streams.removeValue(forKey: stream)
            lock.unlock()
            removed?.subscription.cancel()
        case .queryPedometer(let request, let from, let to):
            history(request, done: done) { provider in .pedometer(try provider.pedometerTotals(from: from, to: to)) }
        case .queryActivity(let request, let from, let to):
            history(request, done: done) { provider in .activities(try provider.activityHistory(from: from, to: to)) }
        case .recordAccelerometer(let request, let duration):
            history(request, done: done) { provider in
                try provider.recordAccelerometer(forDuration: min(duration, 43_200))
                return .done
            }
        case .queryRecordedAccelerometer(let request, let from, let to):
            queryRecorded(request, from: from, to: to, done: done)
        case .status(let request):
            // Root sees every client; any other user only their own (docs/security.md).
            let viewer = peerUID
            let document = DaemonStatusReport.make(core: core, viewerUID: viewer).json
            send(.reply(request: request, Self.documentReply(document)), written: done)
        case .permissions(let request, let operation, let uid, let app):
            changePermissions(request, operation: operation, uid: uid, app: app, done: done)
        }
    }

    // MARK: Hello

    /// Identifies the client (from `/proc`: on ``work``, never on the event loop) and answers its hello.
    private func greet(_ hello: ClientHello) {
        lock.lock()
        let credentials = self.credentials ?? (-1, UInt32.max, UInt32.max)
        lock.unlock()
        let identity = core.authorizer.identify(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid, hint: hello.appHint)
        let status = core.authorizer.status(of: identity)
        let history = core.authorizer.mayReadMachineHistory(identity)
        lock.lock()
        storedIdentity = identity
        self.status = status
        self.historyReader = history
        helloDone = true
        storedLogger[metadataKey: "client"] = "\(identity.appID.logSafe)[\(identity.pid)]"
        lock.unlock()
        if status == .restricted {
            // Refused at once, and its slot freed before the failure is even written.
            core.refuseRestricted(self, identity: identity)
            shutDown(.restricted, "the administrator's policy does not allow \(identity.appID) for user \(identity.uid) (docs/authorization.md)")
            return
        }
        logger.info("client connected: \(describe(identity)), \(status)")
        let provider: any MotionProvider = core.service
        let welcome = DaemonWelcome(
            authorization: status, appID: identity.appID, deviceName: provider.deviceName,
            sensors: SensorKind.allCases.compactMap(provider.sensorDescription), referenceFrames: provider.availableReferenceFrames,
            absoluteAltitude: provider.isAbsoluteAltitudeAvailable, recorderAvailable: provider.isAccelerometerRecordingAvailable,
            bufferCapacity: UInt32(core.configuration.clientBufferCapacity),
            headphones: core.service.headphones.map(\.name))
        send(.welcome(welcome))
    }

    /// The client for a log line: every outside string escaped (``LogSafeText``).
    private func describe(_ identity: ClientIdentity) -> String {
        "\(identity.appID.logSafe) (pid \(identity.pid), uid \(identity.uid)\(identity.hint != identity.appID ? ", says \(identity.hint.logSafe)" : ""))"
    }

    /// Whether the policy lets this client's user read the machine's history (set at hello).
    private var historyReader = false

    /// Whether this client may read history: its app is authorized and its user may read machine history.
    private var mayReadHistory: Bool {
        lock.lock()
        let (status, reader) = (self.status, historyReader)
        lock.unlock()
        return reader && core.authorizer.allowsHistory(status)
    }

    // MARK: Streams

    private func open(
        _ stream: UInt32, label: String, interval: TimeInterval, needs: Need,
        subscribe: (MotionService, @escaping @Sendable (StreamValue) -> Void) -> (any MotionSubscription)?
    ) {
        lock.lock()
        let status = self.status
        let count = streams.count
        let previous = streams.removeValue(forKey: stream)
        let outbox = self.outbox
        lock.unlock()
        previous?.subscription.cancel()
        guard allows(needs, status) else {
            send(.event(.streamEnded(stream: stream, reason: "\(label) is not allowed for this app (\(status)); see `coremotion permissions`")))
            return
        }
        guard count < core.configuration.maximumStreamsPerClient else {
            send(.event(.streamEnded(stream: stream, reason: "at most \(core.configuration.maximumStreamsPerClient) streams per client")))
            return
        }
        guard let outbox, let subscription = subscribe(core.service, { value in outbox.push(value, stream: stream) }) else {
            send(.event(.streamEnded(stream: stream, reason: "\(label) is not available on \(core.service.deviceName)")))
            return
        }
        lock.lock()
        if closing {
            lock.unlock()
            subscription.cancel()
            return
        }
        streams[stream] = OpenStream(subscription: subscription, label: label, interval: subscription.interval, needs: needs)
        lock.unlock()
    }

    private func allows(_ need: Need, _ status: AuthorizationStatus) -> Bool {
        switch need {
        case .motion: core.authorizer.allowsLiveMotion(status)
        case .activity: core.authorizer.allowsLiveActivity(status)
        }
    }

    private func endAllStreams() {
        lock.lock()
        let all = streams
        streams = [:]
        lock.unlock()
        for (_, s) in all { s.subscription.cancel() }
    }

    /// The streams open now, for the status report.
    var openStreams: [OpenStream] {
        lock.lock()
        defer { lock.unlock() }
        return Array(streams.values)
    }

    var outboxFigures: (waiting: Int, dropped: UInt64, sent: UInt64) {
        lock.lock()
        let outbox = self.outbox
        lock.unlock()
        return outbox?.figures ?? (0, 0, 0)
    }

    var currentStatus: AuthorizationStatus {
        lock.lock()
        defer { lock.unlock() }
        return status
    }

    /// Re-reads the decision; tells the client when it changed and ends the streams it no longer allows.
    func refreshAuthorization() {
        lock.lock()
        guard let identity = storedIdentity, helloDone else {
            lock.unlock()
            return
        }
        let old = status
        lock.unlock()
        let new = core.authorizer.status(of: identity)
        guard new != old else { return }
        lock.lock()
        status = new
        var ended: [(UInt32, OpenStream)] = []
        for (id, s) in streams where !allows(s.needs, new) { ended.append((id, s)) }
        for (id, _) in ended { streams[id] = nil }
        lock.unlock()
        logger.notice("authorization of \(identity.appID.logSafe) changed: \(old) → \(new)")
        send(.event(.authorizationChanged(new)))
        for (id, s) in ended {
            s.subscription.cancel()
            send(.event(.streamEnded(stream: id, reason: "\(s.label) is no longer allowed (\(new))")))
        }
    }

    // MARK: Requests

    /// Why this client may not read history, or `nil` when it may.
    private func historyRefusal(_ what: String) -> Reply? {
        let status = currentStatus
        guard core.authorizer.allowsHistory(status) else {
            return .error(
                .notAuthorized, authorization: status,
                message: "\(what) needs this app to be authorized (it is \(status)): `coremotion permissions grant \(identity?.appID ?? "APP")`")
        }
        guard mayReadHistory else {
            return .error(
                .notAuthorized, authorization: status,
                message: "\(what) is the machine's history: the administrator's policy does not let user \(peerUID) read it (historyReaders in the policy; docs/authorization.md)")
        }
        return nil
    }

    /// Runs a history request (on ``work``) if this client may read history.
    private func history(_ request: UInt32, done: @escaping @Sendable () -> Void, _ body: (MotionService) throws -> Reply) {
        if let refusal = historyRefusal("motion history") {
            send(.reply(request: request, refusal), written: done)
            return
        }
        let reply: Reply
        do {
            reply = try body(core.service)
        } catch {
            reply = Self.errorReply(error, status: currentStatus)
        }
        send(.reply(request: request, reply), written: done)
    }

    /// Sends the recorded samples page by page, each page once the previous one is written (so that a client
    /// that does not read holds at most one page in the daemon).
    private func queryRecorded(_ request: UInt32, from: Date, to: Date, done: @escaping @Sendable () -> Void) {
        if let refusal = historyRefusal("the sensor recorder") {
            send(.reply(request: request, refusal), written: done)
            return
        }
        let samples: [RecordedAccelerometerSample]
        do {
            samples = try core.service.recordedAccelerometer(from: from, to: to)
        } catch {
            send(.reply(request: request, Self.errorReply(error, status: currentStatus)), written: done)
            return
        }
        sendPages(request, samples, from: 0, done: done)
    }

    private func sendPages(_ request: UInt32, _ samples: [RecordedAccelerometerSample], from start: Int, done: @escaping @Sendable () -> Void) {
        let page = DaemonMessage.recordsPerFrame(.recordedAccelerometer)
        let end = min(samples.count, start + page)
        let more = end < samples.count
        send(.reply(request: request, .recorded(Array(samples[start..<end]), more: more)), written: { [weak self] in
            guard more, let self, !self.isClosing else { return done() }
            self.work.async { self.sendPages(request, samples, from: end, done: done) }
        })
    }

    /// A JSON document as a reply, or an error when it is longer than the protocol carries (the encoder would
    /// cut it into invalid JSON: never send that).
    static func documentReply(_ document: String) -> Reply {
        let size = document.utf8.count
        guard size <= DaemonMessage.maximumDocumentLength else {
            return .error(
                .failed, authorization: .notDetermined,
                message: "the reply is \(size) bytes, more than the protocol's \(DaemonMessage.maximumDocumentLength)")
        }
        return .document(document)
    }

    private static func errorReply(_ error: any Error, status: AuthorizationStatus) -> Reply {
        switch error as? MotionProviderError {
        case .historyUnavailable(let text)?: .error(.historyUnavailable, authorization: status, message: text)
        case .notAvailable(let text)?: .error(.notAvailable, authorization: status, message: text)
        case .invalidParameter(let text)?: .error(.invalidParameter, authorization: status, message: text)
        case .notAuthorized(_, let text)?: .error(.notAuthorized, authorization: status, message: text)
        default: .error(.failed, authorization: status, message: "\(error)")
        }
    }

    private func changePermissions(_ request: UInt32, operation: PermissionOperation, uid: UInt32?, app: String, done: @escaping @Sendable () -> Void) {
        guard let identity = self.identity else { return done() }
        do {
            let document = try core.authorizer.permissions(operation, app: app, targetUID: uid, caller: identity)
            send(.reply(request: request, Self.documentReply(document)), written: done)
            if operation != .list { core.refreshAuthorization() }
        } catch let refusal as PermissionsRefusal {
            send(.reply(request: request, .error(refusal.forbidden ? .forbidden : .invalidParameter, authorization: .notDetermined, message: refusal.message)), written: done)
        } catch {
            send(.reply(request: request, .error(.failed, authorization: .notDetermined, message: "\(error)")), written: done)
        }
    }

    // MARK: Output

    /// Sends a control message (not a sample) from any thread; `written` runs (on the event loop) once it
    /// is written to the socket or the connection is gone. A client with more than ``maximumPendingControl``
    /// control messages unwritten is disconnected (`tooSlow`).
    func send(_ message: DaemonMessage, written: (@Sendable () -> Void)? = nil) {
        lock.lock()
        let channel = self.channel
        let closed = closing
        let overflow = pendingControl >= Self.maximumPendingControl
        if !overflow && !closed { pendingControl += 1 }
        lock.unlock()
        guard let channel, !closed else {
            written?()
            return
        }
        if overflow {
            written?()
            work.async { [self] in
                shutDown(.tooSlow, "this client left more than \(Self.maximumPendingControl) messages unread")
            }
            return
        }
        var writer = ByteWriter()
        message.encode(into: &writer)
        let bytes = writer.bytes
        channel.eventLoop.execute { [self] in
            var buffer = channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            channel.writeAndFlush(buffer).whenComplete { [self] _ in
                lock.lock()
                pendingControl -= 1
                lock.unlock()
                written?()
            }
        }
    }

    /// Says why and closes (any thread).
    func shutDown(_ code: FailureCode, _ text: String) {
        lock.lock()
        let channel = self.channel
        closing = true
        lock.unlock()
        guard let channel else { return }
        var writer = ByteWriter()
        DaemonMessage.failure(code, message: text).encode(into: &writer)
        let bytes = writer.bytes
        channel.eventLoop.execute {
            var buffer = channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            channel.writeAndFlush(buffer).whenComplete { _ in channel.close(promise: nil) }
            // A client that does not read never lets that write complete: close after 1 s regardless.
            channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        }
        outbox?.close()
        // Its slot is free at once, whatever the reason, not when the socket finally closes.
        core.remove(self)
        endAllStreams()
    }

    private func failAndClose(_ code: FailureCode, _ text: String, context: ChannelHandlerContext) {
        lock.lock()
        closing = true
        lock.unlock()
        var writer = ByteWriter()
        DaemonMessage.failure(code, message: text).encode(into: &writer)
        var buffer = context.channel.allocator.buffer(capacity: writer.count)
        buffer.writeBytes(writer.bytes)
        let channel = context.channel
        context.writeAndFlush(NIOAny(buffer)).whenComplete { _ in channel.close(promise: nil) }
        outbox?.close()
        // Streams take the service's locks to end: never on the event loop.
        work.async { [self] in endAllStreams() }
    }
}

/// The layout of Linux's `struct ucred` (`SO_PEERCRED`): pid, uid, gid as fixed when the peer connected.
struct SocketPeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}
