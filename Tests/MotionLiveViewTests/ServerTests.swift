import Foundation
import MotionLiveView
import MotionLiveViewProtocol
import MotionSamples
import Testing

/// A source that publishes `channels` channels at every tick (one sample each) and records commands.
final class FloodSource: LiveViewSource, @unchecked Sendable {
    private let lock = NSLock()
    private let channels: [LiveChannel]
    private var ticks = 0
    private var commands: [PageCommand] = []

    init(channels: Int) {
        self.channels = (0..<channels).map { LiveChannel(key: "c\($0)", components: 3) }
    }

    var hello: LiveViewHello {
        LiveViewHello(source: "flood", timeline: nil, referenceFrame: "xArbitraryZVertical", referenceFrames: ["xArbitraryZVertical"], sampleRate: 0)
    }

    func start(into broadcaster: LiveBroadcaster) throws {}

    func tick(into broadcaster: LiveBroadcaster) -> LiveClock {
        let t = lock.withLock { ticks += 1; return Double(ticks) * 0.05 }
        for c in channels { broadcaster.publish(LiveSample(c, time: t, x: 0.123456, y: -9.87654, z: t)) }
        return LiveClock(time: t, playing: true, speed: 1)
    }

    func handle(_ command: PageCommand, broadcaster: LiveBroadcaster) throws(LiveViewSourceError) {
        lock.withLock { commands.append(command) }
        if case .seek = command { throw LiveViewSourceError("no timeline") }
    }

    var received: [PageCommand] { lock.withLock { commands } }

    func stop() {}
}

/// Runs blocking socket code off Swift's cooperative threads (the server's tasks need them).
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// A server on a free loopback port for the duration of `body`.
func withServer<T: Sendable>(
    source: any LiveViewSource, token: String? = nil, rate: Double = 500,
    _ body: @escaping @Sendable (Int, LiveViewServer) async throws -> T
) async throws -> T {
    let server = LiveViewServer(source: source, access: try LiveViewAccess(host: "127.0.0.1", token: token), port: 0, rate: rate)
    let (ports, continuation) = AsyncStream<Int>.makeStream()
    // The server on a thread of its own: other suites' synchronous tests may hold every thread of the
    // cooperative pool (two on this machine) for seconds, and the server would not answer meanwhile.
    let task = Task(executorPreference: DedicatedThreadExecutor(name: "view server (test)")) {
        // However the server ends (an error before it listened included), the wait for its port below ends.
        defer { continuation.finish() }
        try await server.run { port in continuation.yield(port) }
    }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next() else {
        let outcome = await task.result
        Issue.record("the view server ended before it listened: \(outcome)")
        throw CancellationError()
    }
    // Stopped gracefully, never cancelled: cancelling this task from another thread while it runs on its
    // executor deadlocked the Swift runtime against swift-async-algorithms' merge (a CI run stopped so).
    let result: Result<T, any Error>
    do {
        result = .success(try await body(port, server))
    } catch {
        result = .failure(error)
    }
    await server.stop()
    _ = await task.result
    return try result.get()
}

@Suite("The server over real loopback sockets", .serialized)
struct ServerTests {
    @Test("the page and the stream need the token when one is set")
    func token() async throws {
        try await withServer(source: FloodSource(channels: 1), token: "secret-token") { port, _ in
            try await blocking {
                #expect(try RawWebSocket(port: port, path: "/ws").upgraded == false)
                #expect(try RawWebSocket(port: port, path: "/ws?token=wrong-token").upgraded == false)
                #expect(try RawWebSocket.get(port: port, path: "/?token=wrong").contains("403"))
                #expect(try RawWebSocket.get(port: port, path: "/?token=secret-token").contains("200"))
                #expect(try RawWebSocket.get(port: port, path: "/view.js").contains("200"))
                #expect(try RawWebSocket.get(port: port, path: "/nothing.txt").contains("404"))
                // A page of another site in the same browser may not read the stream; the page's own may.
                #expect(try RawWebSocket(port: port, path: "/ws?token=secret-token", origin: "http://evil.example").upgraded == false)
                #expect(try RawWebSocket(port: port, path: "/ws?token=secret-token", origin: "http://127.0.0.1:\(port)").upgraded)
                let socket = try RawWebSocket(port: port, path: "/ws?token=secret-token")
                #expect(socket.upgraded)
                let hello = try #require(try socket.receive())
                #expect(hello.contains("\"type\":\"hello\""))
                #expect(try socket.receive(until: { $0.contains("\"type\":\"samples\"") }) != nil)
            }
        }
    }

    @Test("garbage from one page gets it error messages and harms no other page; an oversized message closes only its page")
    func garbage() async throws {
        let source = FloodSource(channels: 2)
        try await withServer(source: source) { port, server in
            try await blocking {
                let bad = try RawWebSocket(port: port)
                let good = try RawWebSocket(port: port)
                #expect(bad.upgraded && good.upgraded)
                _ = try bad.receive()
                _ = try good.receive()
                try bad.send(text: "{{{ not json")
                try bad.write(RawWebSocket.frame(opcode: 2, [0, 1, 2, 3]))
                try bad.send(text: #"{"type":"seek","time":3}"#)
                try bad.send(text: #"{"type":"pause"}"#)
                try bad.send(text: #"{"type":"ping","id":42}"#)
                var errors = 0
                while errors < 3 {
                    let message = try #require(try bad.receive())
                    if message.contains("\"type\":\"error\"") { errors += 1 }
                }
                #expect(try bad.receive(until: { $0.contains("\"type\":\"pong\",\"id\":42") }) != nil)
                #expect(source.received.contains(.pause))
                #expect(try good.receive(until: { $0.contains("\"type\":\"samples\"") }) != nil)
                #expect(try bad.receive(until: { $0.contains("\"type\":\"samples\"") }) != nil)
                // Over the command limit: this page is closed, the other goes on.
                try bad.send(text: String(repeating: "x", count: 4000))
                #expect(try bad.receive(until: { _ in false }) == nil)
                for _ in 0..<10 { #expect(try good.receive(until: { $0.contains("\"type\":\"samples\"") }) != nil) }
                #expect(server.broadcaster.pageCount == 1)
            }
        }
    }

    @Test("a page that stops reading does not slow another; its oldest messages are dropped")
    func stalled() async throws {
        // About 2000 channels × 30 batches/s: some 2.5 MB/s, more than a stalled socket's buffers hold for long.
        let source = FloodSource(channels: 2000)
        try await withServer(source: source) { port, server in
            let (received, sent) = try await blocking {
                let stalled = try RawWebSocket(port: port, receiveBuffer: 4096)
                let reader = try RawWebSocket(port: port)
                #expect(stalled.upgraded && reader.upgraded)
                let start = Date()
                var sequences: [Int] = []
                // Until the stalled page has lost messages and the reader has had 30 batches (30 s at most:
                // a sanitizer build encodes far slower).
                while Date().timeIntervalSince(start) < 30, server.broadcaster.droppedMessages == 0 || sequences.count < 30 {
                    guard let batch = try reader.receive(until: { $0.hasPrefix("{\"type\":\"samples\"") }) else { break }
                    // {"type":"samples","seq":N,…
                    let digits = batch.dropFirst(24).prefix { $0.isNumber }
                    if let sequence = Int(digits) { sequences.append(sequence) }
                }
                withExtendedLifetime(stalled) {}
                return (sequences.count, (sequences.last ?? 0) - (sequences.first ?? 0) + 1)
            }
            // The reader gets (nearly) every batch sent while it read, however stalled the other page is,
            // and the stalled page's oldest messages were dropped.
            #expect(sent > 20)
            #expect(Double(received) >= 0.95 * Double(sent), "\(received) of \(sent) batches")
            #expect(server.broadcaster.droppedMessages > 0)
        }
    }
}
