import Foundation
import MotionSamples
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// What a WebSocket connection to the phone reports.
enum PhoneSocketEvent: Sendable {
    /// A whole text message and the uptime it arrived at.
    case text([UInt8], arrival: Double)
    /// The phone closed the connection with a close frame (its code and reason), or without one (`nil`).
    case closed(code: UInt16?, reason: String)
}

/// The events of one connection, for a reading thread to take one by one.
final class PhoneSocketInbox: @unchecked Sendable {  // @unchecked: `queue` and `finished` are read and written only under `condition`
    private let condition = NSCondition()
    private var queue: [PhoneSocketEvent] = []
    private var finished = false

    func push(_ event: PhoneSocketEvent) {
        condition.lock()
        if !finished { queue.append(event) }
        condition.signal()
        condition.unlock()
    }

    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    /// The next event; `nil` when none came within `timeout` seconds or the inbox is finished and empty.
    func next(timeout: Double) -> PhoneSocketEvent? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !finished {
            if !condition.wait(until: deadline) { break }
        }
        return queue.isEmpty ? nil : queue.removeFirst()
    }

    /// Whether an event is waiting.
    var hasEvents: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !queue.isEmpty
    }

    /// Whether the inbox is finished and empty.
    var isDone: Bool {
        condition.lock()
        defer { condition.unlock() }
        return finished && queue.isEmpty
    }
}

/// A WebSocket client connection on SwiftNIO's `NIOWebSocket` (no other WebSocket package): HTTP/1.1 upgrade,
/// fragmented messages joined (at most 1 MiB), pings answered, close frames read for their code.
final class PhoneWebSocket: Sendable {
    let channel: any Channel
    let events: PhoneSocketInbox

    private init(channel: any Channel, events: PhoneSocketInbox) {
        self.channel = channel
        self.events = events
    }

    /// Largest message accepted, bytes.
    static let maximumMessage = 1 << 20

    /// Connects and upgrades; throws when the connection or the upgrade fails within `timeout` seconds.
    /// Blocks the calling thread (the device's own).
    static func connect(
        host: String, port: Int, path: String, clock: any MotionClock, timeout: Double = 5,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) throws(PhoneRequestError) -> PhoneWebSocket {
        let continuation = PhoneSocketInbox()
        let stream = continuation
        let loop = group.next()
        let upgraded = loop.makePromise(of: Void.self)
        let hostHeader = "\(host.contains(":") ? "[\(host)]" : host):\(port)"
        let requesterName = "coremotion.websocket-request"
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(.nanoseconds(Int64(timeout * 1e9)))
            .channelInitializer { channel in
                let upgrader = NIOWebSocketClientUpgrader(
                    maxFrameSize: maximumMessage, automaticErrorHandling: true,
                    upgradePipelineHandler: { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                NIOWebSocketFrameAggregator(
                                    minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1024, maxAccumulatedFrameSize: maximumMessage))
                            try channel.pipeline.syncOperations.addHandler(FrameReceiver(continuation: continuation, clock: clock))
                        }
                    })
                let configuration: NIOHTTPClientUpgradeSendableConfiguration = (
                    upgraders: [upgrader],
                    completionHandler: { context in
                        context.pipeline.syncOperations.removeHandler(name: requesterName, promise: nil)
                        upgraded.succeed()
                    }
                )
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers(withClientUpgrade: configuration)
                    try channel.pipeline.syncOperations.addHandler(
                        UpgradeRequester(host: hostHeader, path: path, failure: upgraded), name: requesterName)
                }
            }
        let timer = loop.scheduleTask(in: .nanoseconds(Int64(timeout * 1e9))) {
            upgraded.fail(PhoneRequestError("no WebSocket upgrade within \(timeout) s"))
        }
        do {
            let channel = try bootstrap.connect(host: host, port: port).wait()
            do {
                try upgraded.futureResult.wait()
            } catch {
                // The phone may upgrade and close at once (4001 for a missing sensor): the close can reach the
                // requester before the upgrade's completion does. The frames it sent are then in the inbox.
                if !continuation.hasEvents {
                    channel.close(promise: nil)
                    throw error
                }
            }
            timer.cancel()
            channel.closeFuture.whenComplete { _ in
                continuation.push(.closed(code: nil, reason: "the connection ended"))
                continuation.finish()
            }
            return PhoneWebSocket(channel: channel, events: stream)
        } catch let error as PhoneRequestError {
            timer.cancel()
            continuation.finish()
            throw error
        } catch {
            timer.cancel()
            continuation.finish()
            throw PhoneRequestError("cannot connect to ws://\(hostHeader)\(path): \(error)")
        }
    }

    /// Closes the connection (with a normal close frame when still open).
    func close() {
        var data = channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: .normalClosure)
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)
        channel.writeAndFlush(frame).whenComplete { [channel] _ in channel.close(promise: nil) }
    }
}

/// Sends the upgrade request once connected; an HTTP reply reaching it means the server refused to upgrade.
private final class UpgradeRequester: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    let host: String
    let path: String
    let failure: EventLoopPromise<Void>

    init(host: String, path: String, failure: EventLoopPromise<Void>) {
        self.host = host
        self.path = path
        self.failure = failure
    }

    func channelActive(context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: host)
        headers.add(name: "Content-Length", value: "0")
        headers.add(name: "User-Agent", value: "swift-core-motion")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            failure.fail(PhoneRequestError("the phone answered HTTP \(head.status.code) instead of upgrading to a WebSocket"))
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // Not at once: a phone that upgrades and closes straight away (4001) can have its close reach this
        // handler while the upgrade is still completing; the upgrade's success, if it comes, wins.
        let failure = self.failure
        context.eventLoop.scheduleTask(in: .milliseconds(100)) {
            failure.fail(PhoneRequestError("the phone closed the connection during the WebSocket upgrade"))
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failure.fail(PhoneRequestError("WebSocket upgrade failed: \(error)"))
        context.close(promise: nil)
    }
}

/// Turns frames into events: text messages, pings answered, the close frame's code and reason.
private final class FrameReceiver: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let continuation: PhoneSocketInbox
    let clock: any MotionClock
    var closing = false

    init(continuation: PhoneSocketInbox, clock: any MotionClock) {
        self.continuation = continuation
        self.clock = clock
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            var payload = frame.unmaskedData
            continuation.push(.text(payload.readBytes(length: payload.readableBytes) ?? [], arrival: clock.now))
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            var payload = frame.unmaskedData
            var code: UInt16?
            if payload.readableBytes >= 2, let c = payload.readInteger(as: UInt16.self) { code = c }
            let reason = payload.readString(length: min(payload.readableBytes, 123)) ?? ""
            continuation.push(.closed(code: code, reason: reason))
            if !closing {
                closing = true
                var echo = context.channel.allocator.buffer(capacity: 2)
                echo.writeInteger(code ?? 1000)
                let reply = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: echo)
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(reply)).whenComplete { _ in channel.close(promise: nil) }
            }
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.push(.closed(code: nil, reason: "\(error)"))
        context.close(promise: nil)
    }
}
