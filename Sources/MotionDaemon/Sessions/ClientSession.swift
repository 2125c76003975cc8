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
final class ClientSession: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ClientMessage

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
    }

    // MARK: Channel events

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        self.channel = channel
        let outbox = ClientOutbox(channel: channel, capacity: core.configuration.clientBufferCapacity)
        outbox.onStall = { [weak self] in
            self?.shutDown(.tooSlow, "this client did not read its socket for \(Int(ClientOutbox.stallLimit)) s while values were dropped")
        }
        lock.lock()
        self.outbox = outbox
        lock.unlock()
        if !core.admit(self) {
            failAndClose(.overloaded, "coremotiond serves at most \(core.configuration.maximumClients) clients", context: context)
            return
        }
        if let provider = channel as? any SocketOptionProvider {
            let future: EventLoopFuture<SocketPeerCredentials> = provider.unsafeGetSocketOption(
                level: NIOBSDSocket.OptionLevel(rawValue: SOL_SOCKET), name: NIOBSDSocket.Option(rawValue: SO_PEERCRED))
            future.whenSuccess { [weak self] cred in self?.credentials = (cred.pid, cred.uid, cred.gid) }
        }
        let timeout = core.configuration.helloTimeout
        helloTimer = context.eventLoop.scheduleTask(in: .milliseconds(Int64(timeout * 1000))) { [weak self] in
            guard let self, !self.helloDone else { return }
            self.shutDown(.helloExpected, "no hello within \(Int(timeout)) s")
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        helloTimer?.cancel()
        endAllStreams()
        outbox?.close()
        core.remove(self)
        if let identity = self.identity { logger.info("client gone: \(describe(identity))") }
        context.fireChannelInactive()
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
        guard !isClosing else { return }
        let message = unwrapInboundIn(data)
        guard helloDone else {
            guard case .hello(let hello) = message else {
                failAndClose(.helloExpected, "the first frame must be a hello, not \(message.type)", context: context)
                return
            }
            greet(hello, context: context)
            return
        }
        switch message {
        case .hello:
            failAndClose(.malformedFrame, "hello sent twice", context: context)
        case .subscribeSensor(let stream, let sensor, let interval):
            open(stream, label: sensor.rawValue, interval: interval, needs: .motion) { provider, push in
                provider.subscribe(to: sensor, interval: interval) { push(.sensor($0)) }
            }
        case .subscribeDeviceMotion(let stream, let frame, let interval):
            open(stream, label: "device motion (\(frame))", interval: interval, needs: .motion) { provider, push in
                provider.subscribeDeviceMotion(frame: frame, interval: interval) { push(.deviceMotion($0)) }
            }
        case .subscribeAltitude(let stream, let absolute):
            open(stream, label: absolute ? "absolute altitude" : "altitude", interval: 0, needs: .activity) { provider, push in
                provider.subscribeAltitude(absolute: absolute) { push(.altitude($0)) }
            }
        case .subscribePedometer(let stream, let start):
            // Totals cumulative from a start in the past include history: an app that may not read history
            // counts from now instead (Apple's pedometer gives such an app nothing at all).
            let from = core.authorizer.allowsHistory(currentStatus) ? start : max(start, Date())
            open(stream, label: "pedometer", interval: 0, needs: .activity) { provider, push in
                provider.subscribePedometer(from: from) { push(.pedometer($0)) }
            }
        case .subscribePedometerEvents(let stream):
            open(stream, label: "pedometer events", interval: 0, needs: .activity) { provider, push in
                provider.subscribePedometerEvents { push(.pedometerEvent($0)) }
            }
        case .subscribeActivity(let stream):
            open(stream, label: "activity", interval: 0, needs: .activity) { provider, push in
                provider.subscribeActivity { push(.activity($0)) }
            }
        case .subscribeHeadphoneConnection(let stream):
            open(stream, label: "headphone connection", interval: 0, needs: .activity) { provider, push in
                provider.subscribeHeadphoneConnection { push(.headphoneConnection($0)) }
            }
        case .subscribeHeadphoneMotion(let stream):
            open(stream, label: "headphone motion", interval: 0, needs: .activity) { provider, push in
                provider.subscribeHeadphoneMotion { push(.headphoneMotion($0)) }
            }
        case .subscribeHeadphoneActivity(let stream):
            open(stream, label: "headphone activity", interval: 0, needs: .activity) { provider, push in
                provider.subscribeHeadphoneActivity { push(.activity($0)) }
            }
        case .unsubscribe(let stream):
            lock.lock()
            let removed = streams.removeValue(forKey: stream)
            lock.unlock()
            removed?.subscription.cancel()
        case .queryPedometer(let request, let from, let to):
            history(request) { provider in .pedometer(try provider.pedometerTotals(from: from, to: to)) }
        case .queryActivity(let request, let from, let to):
            history(request) { provider in .activities(try provider.activityHistory(from: from, to: to)) }
        case .recordAccelerometer(let request, let duration):
            history(request) { provider in
                try provider.recordAccelerometer(forDuration: min(duration, 43_200))
                return .done
            }
        case .queryRecordedAccelerometer(let request, let from, let to):
            queryRecorded(request, from: from, to: to)
        case .status(let request):
            let core = self.core
            core.queries.async { [weak self] in
                let document = DaemonStatusReport.make(core: core).json
                self?.send(.reply(request: request, .document(document)))
            }
        case .permissions(let request, let operation, let uid, let app):
            changePermissions(request, operation: operation, uid: uid, app: app)
        }
    }

    // MARK: Hello

    private func greet(_ hello: ClientHello, context: ChannelHandlerContext) {
        guard hello.version == ProtocolVersion.current else {
            logger.warning("refusing a client of protocol version \(hello.version) (\(hello.appHint))")
            failAndClose(
                .unsupportedVersion,
                "coremotiond speaks protocol version \(ProtocolVersion.current); this client speaks version \(hello.version): "
                    + "build the app against the same swift-core-motion release as the daemon",
                context: context)
            return
        }
        helloTimer?.cancel()
        let credentials = self.credentials ?? (-1, UInt32.max, UInt32.max)
        let identity = core.authorizer.identify(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid, hint: hello.appHint)
        let status = core.authorizer.status(of: identity)
        lock.lock()
        storedIdentity = identity
        self.status = status
        helloDone = true
        lock.unlock()
        lock.lock()
        storedLogger[metadataKey: "client"] = "\(identity.appID)[\(identity.pid)]"
        lock.unlock()
        logger.info("client connected: \(describe(identity)), \(status)")
        let provider = core.provider
        let welcome = DaemonWelcome(
            authorization: status, appID: identity.appID, deviceName: provider.deviceName,
            sensors: SensorKind.allCases.compactMap(provider.sensorDescription), referenceFrames: provider.availableReferenceFrames,
            absoluteAltitude: provider.isAbsoluteAltitudeAvailable, recorderAvailable: provider.isAccelerometerRecordingAvailable,
            bufferCapacity: UInt32(core.configuration.clientBufferCapacity),
            headphones: core.service.headphones.map(\.name))
        send(.welcome(welcome))
    }

    private func describe(_ identity: ClientIdentity) -> String {
        "\(identity.appID) (pid \(identity.pid), uid \(identity.uid)\(identity.hint != identity.appID ? ", says \(identity.hint)" : ""))"
    }

    // MARK: Streams

    private func open(
        _ stream: UInt32, label: String, interval: TimeInterval, needs: Need,
        subscribe: (LocalMotionProvider, @escaping @Sendable (StreamValue) -> Void) -> (any MotionSubscription)?
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
        guard let outbox, let subscription = subscribe(core.provider, { value in outbox.push(value, stream: stream) }) else {
            send(.event(.streamEnded(stream: stream, reason: "\(label) is not available on \(core.provider.deviceName)")))
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
        logger.notice("authorization of \(identity.appID) changed: \(old) → \(new)")
        send(.event(.authorizationChanged(new)))
        for (id, s) in ended {
            s.subscription.cancel()
            send(.event(.streamEnded(stream: id, reason: "\(s.label) is no longer allowed (\(new))")))
        }
    }

    // MARK: Requests

    /// Runs a history request off the event loop if the app may read history.
    private func history(_ request: UInt32, _ body: @escaping @Sendable (LocalMotionProvider) throws -> Reply) {
        let status = currentStatus
        guard core.authorizer.allowsHistory(status) else {
            send(.reply(request: request, .error(
                .notAuthorized, authorization: status,
                message: "motion history needs this app to be authorized (it is \(status)): `coremotion permissions grant \(identity?.appID ?? "APP")`")))
            return
        }
        let provider = core.provider
        core.queries.async { [weak self] in
            let reply: Reply
            do {
                reply = try body(provider)
            } catch {
                reply = Self.errorReply(error, status: status)
            }
            self?.send(.reply(request: request, reply))
        }
    }

    private func queryRecorded(_ request: UInt32, from: Date, to: Date) {
        let status = currentStatus
        guard core.authorizer.allowsHistory(status) else {
            send(.reply(request: request, .error(.notAuthorized, authorization: status, message: "the sensor recorder needs this app to be authorized (it is \(status))")))
            return
        }
        let provider = core.provider
        core.queries.async { [weak self] in
            do {
                let samples = try provider.recordedAccelerometer(from: from, to: to)
                let page = DaemonMessage.recordsPerFrame(.recordedAccelerometer)
                var start = 0
                repeat {
                    let end = min(samples.count, start + page)
                    self?.send(.reply(request: request, .recorded(Array(samples[start..<end]), more: end < samples.count)))
                    start = end
                } while start < samples.count
            } catch {
                self?.send(.reply(request: request, Self.errorReply(error, status: status)))
            }
        }
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

    private func changePermissions(_ request: UInt32, operation: PermissionOperation, uid: UInt32?, app: String) {
        guard let identity = self.identity else { return }
        let core = self.core
        core.queries.async { [weak self] in
            do {
                let document = try core.authorizer.permissions(operation, app: app, targetUID: uid, caller: identity)
                self?.send(.reply(request: request, .document(document)))
                if operation != .list { core.refreshAuthorization() }
            } catch let refusal as PermissionsRefusal {
                self?.send(.reply(request: request, .error(refusal.forbidden ? .forbidden : .invalidParameter, authorization: .notDetermined, message: refusal.message)))
            } catch {
                self?.send(.reply(request: request, .error(.failed, authorization: .notDetermined, message: "\(error)")))
            }
        }
    }

    // MARK: Output

    /// Sends a control message (not a sample) at once, from any thread.
    func send(_ message: DaemonMessage) {
        lock.lock()
        let channel = self.channel
        lock.unlock()
        guard let channel else { return }
        var writer = ByteWriter()
        message.encode(into: &writer)
        let bytes = writer.bytes
        channel.eventLoop.execute {
            var buffer = channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            channel.writeAndFlush(buffer, promise: nil)
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
        }
        endAllStreams()
        outbox?.close()
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
        endAllStreams()
        outbox?.close()
    }
}

/// The layout of Linux's `struct ucred` (`SO_PEERCRED`): pid, uid, gid as fixed when the peer connected.
struct SocketPeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}
