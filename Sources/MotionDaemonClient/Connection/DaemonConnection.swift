import Foundation
import Logging
import MotionProtocol
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A process's connection to `coremotiond`: the client interface served by the system service.
///
/// One connection per process carries every stream, query and control request. Streams are the client's
/// own: each has its interval and frame, decimated in the daemon, and none changes another client's.
///
/// **When the daemon goes away** (stopped, restarted, killed) the connection notices at once, logs it and
/// reconnects on its own (every 0.25 s at first, backing off to every 2 s); when the daemon answers again
/// every stream is subscribed again and delivery resumes. An app sees a gap in its data, as on Apple's
/// devices when `locationd`/`motiond` restart, never a crash or an error in its handlers. Queries made
/// while the daemon is away fail with `MotionProviderError.serviceUnavailable` (the API reports
/// `CMErrorUnknown`).
///
/// **When the app reads too slowly** the daemon keeps at most ``DaemonWelcome/bufferCapacity`` values
/// for it, drops the oldest and says how many; the connection logs it (at most once a second per
/// stream) and counts it in ``droppedCount``.
public final class DaemonConnection: MotionProvider, Sendable {
    /// The socket this connection talks to.
    public let socketPath: String
    public let clock: any MotionClock = SystemClock.shared
    public let logger: Logger
    public let deliveries = DeliveryTracker()
    /// The name this process gives itself in its hello (logs only; the daemon identifies the app itself).
    public let appHint: String

    private let group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    /// What the app's threads, the event loop and the reconnection share.
    private struct State {
        var channel: (any Channel)?
        var currentWelcome: DaemonWelcome
        var generation = 0
        var streams: [UInt32: StreamEntry] = [:]
        var nextStream: UInt32 = 1
        var pending: [UInt32: PendingRequest] = [:]
        var nextRequest: UInt32 = 1
        var isClosed = false
        /// Why the administrator's policy refused this app (the daemon's `restricted` failure), if it did: the
        /// connection then stays closed and the app sees `restricted` and no sensors, as a restricted iOS app does.
        var restriction: String?
        var isReconnecting = false
        var droppedTotal: UInt64 = 0
    }
    private let state: NIOLockedValueBox<State>

    /// How long the handshake may take, seconds.
    public static let handshakeTimeout: TimeInterval = 10
    /// How long a query may take, seconds.
    public static let requestTimeout: TimeInterval = 60

    private init(socketPath: String, appHint: String) {
        self.socketPath = socketPath
        self.appHint = appHint
        var logger = Logger(label: "coremotion.daemon-connection")
        logger[metadataKey: "socket"] = "\(socketPath)"
        self.logger = logger
        state = NIOLockedValueBox(State(currentWelcome: DaemonWelcome(
            authorization: .notDetermined, appID: "", deviceName: "", sensors: [], referenceFrames: [],
            absoluteAltitude: false, recorderAvailable: false, bufferCapacity: 0)))
    }

    /// Connects to the daemon at `socketPath` and completes the handshake.
    ///
    /// - Parameters:
    ///   - appHint: the app's own name for itself, for the daemon's logs (default: `COREMOTION_APP_ID`, else
    ///     the executable's name).
    ///   - quiet: do not log a failure (used by `auto`, which then falls back to in-process sensors).
    /// - Throws: ``MotionProviderError/serviceUnavailable(_:)`` saying why (no socket, refused, another
    ///   protocol version, no answer) and how to start the daemon.
    public static func connect(
        socketPath: String, environment: [String: String] = ProcessInfo.processInfo.environment, appHint: String? = nil,
        quiet: Bool = false
    ) throws -> DaemonConnection {
        let hint = appHint ?? environment["COREMOTION_APP_ID"]
            ?? URL(fileURLWithPath: CommandLine.arguments.first ?? "app").lastPathComponent
        let connection = DaemonConnection(socketPath: socketPath, appHint: hint)
        do {
            try connection.establish()
        } catch {
            if !quiet { connection.logger.debug("cannot connect: \(error)") }
            throw error
        }
        return connection
    }

    /// The welcome of the current connection.
    public var welcome: DaemonWelcome {
        state.withLockedValue { $0.currentWelcome }
    }

    /// Whether a connection to the daemon is up now.
    public var isConnected: Bool {
        state.withLockedValue { $0.channel != nil }
    }

    /// Values the daemon dropped for this process so far (all streams).
    public var droppedCount: UInt64 {
        state.withLockedValue { $0.droppedTotal }
    }

    /// Closes the connection for good (no reconnection).
    public func close() {
        let (channel, waiting) = state.withLockedValue { state in
            state.isClosed = true
            let channel = state.channel
            state.channel = nil
            let waiting = state.pending
            state.pending = [:]
            return (channel, waiting)
        }
        for (_, p) in waiting { p.complete(.failure(.serviceUnavailable("the connection was closed"))) }
        channel?.close(promise: nil)
    }

    deinit {
        state.withLockedValue { $0.channel }?.close(promise: nil)
    }

    // MARK: Handshake and reconnection

    private func establish() throws {
        let loop = group.next()
        let promise = loop.makePromise(of: DaemonWelcome.self)
        let generation = state.withLockedValue { state in
            state.generation += 1
            return state.generation
        }
        let handler = ConnectionHandler(connection: self, generation: generation, welcome: promise)
        let channel: any Channel
        do {
            channel = try ClientBootstrap(group: loop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(
                            MessageFrameDecoder(limit: FrameHeader.maximumDaemonFrame, decode: DaemonMessage.decode)))
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                }
                .connect(unixDomainSocketPath: socketPath)
                .wait()
        } catch {
            // NIO requires every promise to be completed.
            promise.fail(error)
            throw MotionProviderError.serviceUnavailable(
                "cannot connect to coremotiond at \(socketPath): \(error). Start it with `systemctl start coremotiond.socket` "
                    + "(after `coremotion service install`) or in the foreground with `coremotiond --socket \(socketPath)`")
        }
        let hello = ClientMessage.hello(ClientHello(appHint: appHint))
        channel.writeAndFlush(ByteBuffer(bytes: hello.encoded), promise: nil)
        let path = socketPath
        let timeout = loop.scheduleTask(in: .milliseconds(Int64(Self.handshakeTimeout * 1000))) {
            promise.fail(MotionProviderError.serviceUnavailable(
                "coremotiond at \(path) did not answer the hello within \(Self.handshakeTimeout) s"))
        }
        let welcome: DaemonWelcome
        do {
            welcome = try promise.futureResult.wait()
            timeout.cancel()
        } catch let refusal as RestrictedByPolicy {
            timeout.cancel()
            channel.close(promise: nil)
            logger.notice("coremotiond: this app is restricted by the administrator's policy: \(refusal.reason)")
            let appHint = self.appHint
            state.withLockedValue { state in
                state.isClosed = true
                state.restriction = refusal.reason
                state.currentWelcome = DaemonWelcome(
                    authorization: .restricted, appID: appHint, deviceName: "coremotiond (restricted)", sensors: [], referenceFrames: [],
                    absoluteAltitude: false, recorderAvailable: false, bufferCapacity: 0)
            }
            return
        } catch {
            channel.close(promise: nil)
            if let error = error as? MotionProviderError { throw error }
            throw MotionProviderError.serviceUnavailable("coremotiond at \(socketPath): \(error)")
        }
        let toResubscribe = state.withLockedValue { state in
            state.channel = channel
            state.currentWelcome = welcome
            return Array(state.streams.values)
        }
        for entry in toResubscribe.sorted(by: { $0.id < $1.id }) { send(entry.subscribe(entry.id)) }
    }

    /// The channel of `generation` closed.
    fileprivate func connectionLost(generation: Int, reason: String) {
        let taken = state.withLockedValue { state -> (waiting: [UInt32: PendingRequest], startReconnecting: Bool, open: [StreamEntry])? in
            guard generation == state.generation, state.channel != nil || !state.isReconnecting else { return nil }
            state.channel = nil
            let waiting = state.pending
            state.pending = [:]
            let closed = state.isClosed
            let startReconnecting = !closed && !state.isReconnecting
            if startReconnecting { state.isReconnecting = true }
            return (waiting, startReconnecting, Array(state.streams.values))
        }
        guard case let (waiting, startReconnecting, open)? = taken else { return }
        for (_, p) in waiting { p.complete(.failure(.serviceUnavailable("coremotiond went away: \(reason)"))) }
        for entry in open { entry.lost?() }
        guard startReconnecting else { return }
        logger.warning("coremotiond went away (\(reason)); reconnecting: streams resume when it is back")
        Thread.detachNewThread { [weak self] in self?.reconnectLoop() }
    }

    private func reconnectLoop() {
        var delay = 0.25
        while true {
            Thread.sleep(forTimeInterval: delay)
            let closed = state.withLockedValue { $0.isClosed }
            if closed { return }
            do {
                try establish()
                let count = state.withLockedValue { state in
                    state.isReconnecting = false
                    return state.streams.count
                }
                logger.notice("reconnected to coremotiond; \(count) stream(s) resumed")
                return
            } catch {
                delay = min(2, delay * 2)
            }
        }
    }

    // MARK: Inbound (on the connection's event loop)

    fileprivate func handle(_ message: DaemonMessage) {
        switch message {
        case .welcome:
            break  // only during the handshake (handled by the handler)
        case .samples(let stream, let values):
            let entry = state.withLockedValue { $0.streams[stream] }
            guard let entry else { return }  // a stream just cancelled
            for value in values { entry.deliver(value) }
        case .dropped(let stream, let count):
            let entry = state.withLockedValue { state in
                state.droppedTotal += count
                return state.streams[stream]
            }
            entry?.reportDropped(count, logger: logger)
        case .reply(let request, let reply):
            let final: Bool
            if case .recorded(_, let more) = reply { final = !more } else { final = true }
            let waiting = state.withLockedValue { state in
                let waiting = state.pending[request]
                if final { state.pending[request] = nil }
                return waiting
            }
            waiting?.take(reply, final: final)
        case .event(let event):
            handle(event)
        case .failure(let code, let text):
            logger.error("coremotiond closes the connection (\(code)): \(text)")
        }
    }

    private func handle(_ event: DaemonEvent) {
        switch event {
        case .sensorLost(let sensor, let reason):
            logger.warning("\(sensor) lost: \(reason)")
            state.withLockedValue { $0.currentWelcome.sensors.removeAll { $0.kind == sensor } }
        case .sensorReturned(let description):
            logger.notice("\(description.kind) is back")
            state.withLockedValue { state in
                state.currentWelcome.sensors.removeAll { $0.kind == description.kind }
                state.currentWelcome.sensors.append(description)
            }
        case .endOfData:
            logger.debug("the daemon's device reached the end of its data")
        case .authorizationChanged(let status):
            logger.notice("authorization for \(appHint) is now \(status)")
            state.withLockedValue { $0.currentWelcome.authorization = status }
        case .streamEnded(let stream, let reason):
            let entry = state.withLockedValue { $0.streams.removeValue(forKey: stream) }
            if let entry { logger.warning("coremotiond ended the \(entry.label) stream: \(reason)") }
        }
    }

    // MARK: Outbound

    private func send(_ message: ClientMessage) {
        let channel = state.withLockedValue { $0.channel }
        channel?.writeAndFlush(ByteBuffer(bytes: message.encoded), promise: nil)
    }

    private func openStream(
        label: String, interval: TimeInterval, subscribe: @escaping @Sendable (UInt32) -> ClientMessage,
        deliver: @escaping @Sendable (StreamValue) -> Void, lost: (@Sendable () -> Void)? = nil
    ) -> any MotionSubscription {
        let id = state.withLockedValue { state in
            let id = state.nextStream
            state.nextStream = state.nextStream == UInt32.max ? 1 : state.nextStream + 1
            let entry = StreamEntry(id: id, label: label, subscribe: subscribe, deliver: deliver, lost: lost)
            state.streams[id] = entry
            return id
        }
        send(subscribe(id))
        return CancellableStream(interval: interval) { [weak self] in self?.closeStream(id) }
    }

    private func closeStream(_ id: UInt32) {
        let existed = state.withLockedValue { $0.streams.removeValue(forKey: id) != nil }
        if existed { send(.unsubscribe(stream: id)) }
    }

    /// Sends a request and waits for its reply (pages of recorded samples are gathered).
    private func request(_ make: (UInt32) -> ClientMessage) throws -> Reply {
        if MultiThreadedEventLoopGroup.currentEventLoop != nil {
            throw MotionProviderError.serviceUnavailable("a query cannot wait on the connection's own thread")
        }
        let waiting = PendingRequest()
        let (id, channel, restriction) = state.withLockedValue { state in
            let id = state.nextRequest
            state.nextRequest = state.nextRequest == UInt32.max ? 1 : state.nextRequest + 1
            let channel = state.channel
            if channel != nil { state.pending[id] = waiting }
            return (id, channel, state.restriction)
        }
        if let restriction { throw MotionProviderError.notAuthorized(.restricted, restriction) }
        guard let channel else {
            throw MotionProviderError.serviceUnavailable("coremotiond at \(socketPath) is not connected (reconnecting)")
        }
        channel.writeAndFlush(ByteBuffer(bytes: make(id).encoded), promise: nil)
        guard let result = waiting.wait(timeout: Self.requestTimeout) else {
            state.withLockedValue { $0.pending[id] = nil }
            throw MotionProviderError.serviceUnavailable("coremotiond did not answer within \(Int(Self.requestTimeout)) s")
        }
        let reply = try result.get()
        if case .error(let code, let status, let text) = reply {
            switch code {
            case .notAuthorized: throw MotionProviderError.notAuthorized(status, text)
            case .notAvailable: throw MotionProviderError.notAvailable(text)
            case .invalidParameter: throw MotionProviderError.invalidParameter(text)
            case .historyUnavailable: throw MotionProviderError.historyUnavailable(text)
            case .failed, .forbidden: throw DaemonRequestError(code: code, message: text)
            }
        }
        return reply
    }

    // MARK: MotionProvider

    public var deviceName: String { welcome.deviceName }

    public func sensorDescription(_ sensor: SensorKind) -> SensorDescription? {
        welcome.sensors.first { $0.kind == sensor }
    }

    public func subscribe(
        to sensor: SensorKind, interval: TimeInterval, receive: @escaping @Sendable (SensorSample) -> Void
    ) -> (any MotionSubscription)? {
        guard has(sensor) else { return nil }
        let clamped = clampInterval(interval, for: sensor)
        return openStream(
            label: sensor.rawValue, interval: clamped,
            subscribe: { .subscribeSensor(stream: $0, sensor: sensor, interval: clamped) },
            deliver: { if case .sensor(let s) = $0 { receive(s) } })
    }

    public var availableReferenceFrames: Set<AttitudeReferenceFrame> { welcome.referenceFrames }

    public func subscribeDeviceMotion(
        frame: AttitudeReferenceFrame, interval: TimeInterval, receive: @escaping @Sendable (DeviceMotionUpdate) -> Void
    ) -> (any MotionSubscription)? {
        guard availableReferenceFrames.contains(frame) else { return nil }
        let clamped = clampInterval(interval, for: .accelerometer)
        return openStream(
            label: "device motion", interval: clamped,
            subscribe: { .subscribeDeviceMotion(stream: $0, frame: frame, interval: clamped) },
            deliver: { if case .deviceMotion(let u) = $0 { receive(u) } })
    }

    public var isAbsoluteAltitudeAvailable: Bool { welcome.absoluteAltitude }

    public func subscribeAltitude(absolute: Bool, receive: @escaping @Sendable (AltitudeValue) -> Void) -> (any MotionSubscription)? {
        guard has(.barometer) else { return nil }
        return openStream(
            label: "altitude", interval: 0, subscribe: { .subscribeAltitude(stream: $0, absolute: absolute) },
            deliver: { if case .altitude(let a) = $0 { receive(a) } })
    }

    /// The daemon counts steps all the time: nothing to start.
    public func startPedometerRecording() {}

    public func subscribePedometer(from start: Date, receive: @escaping @Sendable (PedometerTotals) -> Void) -> (any MotionSubscription)? {
        guard has(.accelerometer) else { return nil }
        return openStream(
            label: "pedometer", interval: 0, subscribe: { .subscribePedometer(stream: $0, start: start) },
            deliver: { if case .pedometer(let t) = $0 { receive(t) } })
    }

    public func subscribePedometerEvents(receive: @escaping @Sendable (PedometerPauseEvent) -> Void) -> (any MotionSubscription)? {
        guard has(.accelerometer) else { return nil }
        return openStream(
            label: "pedometer events", interval: 0, subscribe: { .subscribePedometerEvents(stream: $0) },
            deliver: { if case .pedometerEvent(let e) = $0 { receive(e) } })
    }

    public func pedometerTotals(from start: Date, to end: Date) throws -> PedometerTotals {
        let reply = try request { .queryPedometer(request: $0, from: start, to: end) }
        guard case .pedometer(let totals) = reply else { throw unexpected(reply) }
        return totals
    }

    /// The daemon classifies activity all the time: nothing to start.
    public func startActivityRecording() {}

    public func subscribeActivity(receive: @escaping @Sendable (ActivityReport) -> Void) -> (any MotionSubscription)? {
        guard has(.accelerometer) else { return nil }
        return openStream(
            label: "activity", interval: 0, subscribe: { .subscribeActivity(stream: $0) },
            deliver: { if case .activity(let a) = $0 { receive(a) } })
    }

    public func activityHistory(from start: Date, to end: Date) throws -> [ActivityReport] {
        let reply = try request { .queryActivity(request: $0, from: start, to: end) }
        guard case .activities(let list) = reply else { throw unexpected(reply) }
        return list
    }

    public var isAccelerometerRecordingAvailable: Bool { welcome.recorderAvailable }

    public func recordAccelerometer(forDuration duration: TimeInterval) throws {
        let reply = try request { .recordAccelerometer(request: $0, duration: duration) }
        guard case .done = reply else { throw unexpected(reply) }
    }

    /// The daemon records whether or not an app runs: nothing to resume.
    public func resumeAccelerometerRecording() {}

    public func recordedAccelerometer(from start: Date, to end: Date) throws -> [RecordedAccelerometerSample] {
        let reply = try request { .queryRecordedAccelerometer(request: $0, from: start, to: end) }
        guard case .recorded(let list, _) = reply else { throw unexpected(reply) }
        return list
    }

    public func authorizationStatus() -> AuthorizationStatus { welcome.authorization }

    // MARK: Headphones

    public var isHeadphoneMotionAvailable: Bool { welcome.headphones != nil }

    /// The daemon's headphone connection. While the daemon is away the headphones are unreachable: the stream
    /// reports them disconnected, and the daemon's state again when it is back.
    public func subscribeHeadphoneConnection(
        receive: @escaping @Sendable (HeadphoneConnectionState) -> Void
    ) -> (any MotionSubscription)? {
        guard isHeadphoneMotionAvailable else { return nil }
        let clock = self.clock
        return openStream(
            label: "headphone connection", interval: 0, subscribe: { .subscribeHeadphoneConnection(stream: $0) },
            deliver: { if case .headphoneConnection(let c) = $0 { receive(c) } },
            lost: { receive(HeadphoneConnectionState(time: clock.now, isConnected: false)) })
    }

    public func subscribeHeadphoneMotion(receive: @escaping @Sendable (HeadphoneMotionSample) -> Void) -> (any MotionSubscription)? {
        guard isHeadphoneMotionAvailable else { return nil }
        return openStream(
            label: "headphone motion", interval: 0, subscribe: { .subscribeHeadphoneMotion(stream: $0) },
            deliver: { if case .headphoneMotion(let m) = $0 { receive(m) } })
    }

    public func subscribeHeadphoneActivity(receive: @escaping @Sendable (ActivityReport) -> Void) -> (any MotionSubscription)? {
        guard isHeadphoneMotionAvailable else { return nil }
        return openStream(
            label: "headphone activity", interval: 0, subscribe: { .subscribeHeadphoneActivity(stream: $0) },
            deliver: { if case .activity(let a) = $0 { receive(a) } })
    }

    // MARK: Tools

    /// The daemon's state as JSON (`coremotion service status`).
    public func statusDocument() throws -> String {
        let reply = try request { .status(request: $0) }
        guard case .document(let text) = reply else { throw unexpected(reply) }
        return text
    }

    /// Lists or changes authorization decisions; returns the daemon's JSON answer.
    public func permissions(_ operation: PermissionOperation, app: String, uid: UInt32? = nil) throws -> String {
        let reply = try request { .permissions(request: $0, operation: operation, uid: uid, app: app) }
        guard case .document(let text) = reply else { throw unexpected(reply) }
        return text
    }

    private func unexpected(_ reply: Reply) -> MotionProviderError {
        .serviceUnavailable("coremotiond answered with an unexpected reply: \(reply)")
    }
}

/// A request the daemon refused for a reason the client interface has no case for.
public struct DaemonRequestError: Error, Sendable, CustomStringConvertible {
    public var code: ReplyErrorCode
    public var message: String
    public var description: String { message }
}

/// One stream of the connection: how to subscribe it again after a reconnection, and where its values go.
private final class StreamEntry: Sendable {
    let id: UInt32
    let label: String
    let subscribe: @Sendable (UInt32) -> ClientMessage
    let deliver: @Sendable (StreamValue) -> Void
    /// What the stream's receiver hears when the daemon goes away, if anything.
    let lost: (@Sendable () -> Void)?
    /// Drops not logged yet, and when drops were last logged.
    private let drops = NIOLockedValueBox((unreported: UInt64(0), lastReport: -Double.infinity))

    init(
        id: UInt32, label: String, subscribe: @escaping @Sendable (UInt32) -> ClientMessage,
        deliver: @escaping @Sendable (StreamValue) -> Void, lost: (@Sendable () -> Void)? = nil
    ) {
        self.id = id
        self.label = label
        self.subscribe = subscribe
        self.deliver = deliver
        self.lost = lost
    }

    /// Logs drops at most once a second.
    func reportDropped(_ count: UInt64, logger: Logger) {
        let now = ProcessInfo.processInfo.systemUptime
        let report = drops.withLockedValue { drops -> UInt64? in
            drops.unreported += count
            guard now - drops.lastReport >= 1 else { return nil }
            drops.lastReport = now
            let total = drops.unreported
            drops.unreported = 0
            return total
        }
        guard let total = report else { return }
        logger.warning(
            "coremotiond dropped \(total) \(label) value(s) for this process: it did not read its socket fast enough (the oldest are dropped first)")
    }
}

/// A query waiting for its reply.
private final class PendingRequest: @unchecked Sendable {  // @unchecked: `result` and `pages` are read and written only under `condition`
    // An NSCondition, not Mutex: Mutex has no condition variable.
    private let condition = NSCondition()
    private var result: Result<Reply, MotionProviderError>?
    private var pages: [RecordedAccelerometerSample] = []

    func take(_ reply: Reply, final: Bool) {
        condition.lock()
        defer { condition.unlock() }
        if case .recorded(let list, _) = reply {
            pages.append(contentsOf: list)
            if final { result = .success(.recorded(pages, more: false)) }
        } else {
            result = .success(reply)
        }
        if final { condition.broadcast() }
    }

    func complete(_ outcome: Result<Reply, MotionProviderError>) {
        condition.lock()
        if result == nil { result = outcome }
        condition.broadcast()
        condition.unlock()
    }

    func wait(timeout: TimeInterval) -> Result<Reply, MotionProviderError>? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while result == nil {
            if !condition.wait(until: deadline) { break }
        }
        return result
    }
}

/// The connection's end of the channel pipeline.
private final class ConnectionHandler: ChannelInboundHandler, @unchecked Sendable {  // @unchecked: `handshakeDone` is touched only on its channel's event loop; `connection` is weak, the rest `let`
    typealias InboundIn = DaemonMessage

    private weak var connection: DaemonConnection?
    private let generation: Int
    private let welcome: EventLoopPromise<DaemonWelcome>
    private var handshakeDone = false

    init(connection: DaemonConnection, generation: Int, welcome: EventLoopPromise<DaemonWelcome>) {
        self.connection = connection
        self.generation = generation
        self.welcome = welcome
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = unwrapInboundIn(data)
        if !handshakeDone {
            switch message {
            case .welcome(let w):
                guard w.version == ProtocolVersion.current else {
                    welcome.fail(MotionProviderError.serviceUnavailable(
                        "coremotiond speaks protocol version \(w.version), this library \(ProtocolVersion.current): update one of them"))
                    context.close(promise: nil)
                    return
                }
                handshakeDone = true
                welcome.succeed(w)
            case .failure(.restricted, let text):
                welcome.fail(RestrictedByPolicy(reason: text))
                context.close(promise: nil)
            case .failure(let code, let text):
                welcome.fail(MotionProviderError.serviceUnavailable("coremotiond refused the connection (\(code)): \(text)"))
                context.close(promise: nil)
            default:
                welcome.fail(MotionProviderError.serviceUnavailable("coremotiond sent \(message.type) before its welcome"))
                context.close(promise: nil)
            }
            return
        }
        connection?.handle(message)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        connection?.logger.error("connection to coremotiond broken: \(error)")
        welcome.fail(MotionProviderError.serviceUnavailable("bad frame from coremotiond: \(error)"))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        welcome.fail(MotionProviderError.serviceUnavailable("coremotiond closed the connection during the handshake"))
        if handshakeDone { connection?.connectionLost(generation: generation, reason: "the socket closed") }
        context.fireChannelInactive()
    }
}

/// The daemon refused the app with `restricted` (the administrator's policy).
struct RestrictedByPolicy: Error {
    var reason: String
}
