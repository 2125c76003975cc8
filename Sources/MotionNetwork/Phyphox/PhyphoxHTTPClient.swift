import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Why a request to the phone failed.
public struct PhoneRequestError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The smallest HTTP/1.1 client phyphox needs, on SwiftNIO (no other HTTP stack): one `GET` per connection
/// with `Connection: close` (phyphox's server is single-threaded and slow), a deadline, and a bound on the
/// reply's size.
public struct PhyphoxHTTPClient: Sendable {
    public var host: String
    public var port: Int
    /// Deadline of one request, connection included, seconds.
    public var timeout: Double
    /// Largest reply body accepted, bytes (a `full` buffer of a long measurement can be large).
    public var maximumBody: Int
    let group: any EventLoopGroup

    public init(host: String, port: Int, timeout: Double = 5, maximumBody: Int = 64 << 20,
                group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.host = host
        self.port = port
        self.timeout = timeout
        self.maximumBody = maximumBody
        self.group = group
    }

    /// `GET path` (with its query); returns the status code and the body. Blocks the calling thread (never
    /// call it on an event loop or in Swift concurrency's pool: the devices poll from a thread of their own).
    public func get(_ path: String) throws(PhoneRequestError) -> (status: Int, body: [UInt8]) {
        let deadline = TimeAmount.nanoseconds(Int64(timeout * 1e9))
        let loop = group.next()
        let promise = loop.makePromise(of: (Int, [UInt8]).self)
        let limit = maximumBody
        let hostHeader = port == 80 ? host : "\(host):\(port)"
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(deadline)
            .channelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(ReplyCollector(promise: promise, limit: limit))
                }
            }
        let timer = loop.scheduleTask(in: deadline) {
            promise.fail(PhoneRequestError("no complete reply within \(timeout) s"))
        }
        let connect = bootstrap.connect(host: host, port: port)
        connect.whenComplete { result in
            switch result {
            case .success(let channel):
                var headers = HTTPHeaders()
                headers.add(name: "Host", value: hostHeader)
                headers.add(name: "Connection", value: "close")
                headers.add(name: "User-Agent", value: "swift-core-motion")
                let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
                channel.write(HTTPClientRequestPart.head(head), promise: nil)
                channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
                promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
            case .failure(let error):
                promise.fail(PhoneRequestError("cannot connect to \(hostHeader): \(error)"))
            }
        }
        do {
            let (status, body) = try promise.futureResult.wait()
            timer.cancel()
            return (status, body)
        } catch let error as PhoneRequestError {
            timer.cancel()
            throw error
        } catch {
            timer.cancel()
            throw PhoneRequestError("\(error)")
        }
    }
}

/// Collects one reply; fails on a body over the limit or a connection that closes before the reply ends.
private final class ReplyCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    let promise: EventLoopPromise<(Int, [UInt8])>
    let limit: Int
    var status = 0
    var body: [UInt8] = []

    init(promise: EventLoopPromise<(Int, [UInt8])>, limit: Int) {
        self.promise = promise
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
        case .body(var buffer):
            guard body.count + buffer.readableBytes <= limit else {
                promise.fail(PhoneRequestError("reply larger than \(limit) bytes"))
                context.close(promise: nil)
                return
            }
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            promise.succeed((status, body))
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(PhoneRequestError("the phone closed the connection before the reply ended"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(PhoneRequestError("\(error)"))
        context.close(promise: nil)
    }
}
