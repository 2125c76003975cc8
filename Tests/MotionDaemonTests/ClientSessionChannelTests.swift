import Foundation
import Logging
@testable import MotionDaemon
import MotionProtocol
import MotionService
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import TestSupport
import Testing

/// The daemon's session logic on NIO's thread-safe embedded channel (`NIOAsyncTestingChannel`): the same
/// pipeline `DaemonServer` builds for a connection (frame decoder, then ``ClientSession``), fed bytes by the
/// test and read back as frames, with no socket, no bind and no peer process. Timers run on the channel's
/// virtual time (`advanceTime`), so a timeout test takes no wall-clock time.
///
/// The socket-level behaviour (credentials, a peer that stops reading, many clients) stays in
/// `DaemonHostileClientTests` on real sockets, and so does streaming: a stream on this channel stalled when
/// the machine was loaded (6 values of 20 in a sanitizer run, while the device's own subscriber got 6,285),
/// because work the outbox schedules from inside the loop waits there for the test to run the loop; the
/// sharing and hostile suites stream over real sockets.
@Suite("a daemon session on an embedded channel")
struct ClientSessionChannelTests {
    @Test("hello is answered with a welcome naming the device and its sensors")
    func helloIsWelcomed() async throws {
        let session = try await EmbeddedSession()
        defer { session.stop() }
        try await session.send(.hello(ClientHello(appHint: "embedded")))
        let message = try await session.next()
        guard case .welcome(let welcome) = message else {
            Issue.record("expected a welcome, got \(message)")
            return
        }
        #expect(welcome.version == ProtocolVersion.current)
        #expect(welcome.deviceName == "synthetic")
        #expect(Set(welcome.sensors.map(\.kind)) == [.accelerometer, .gyroscope])
        #expect(welcome.authorization == .authorized)
    }

    /// What a client sends that ends its connection, the failure it gets and a part of its text.
    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var before: [ClientMessage] = []
        var bytes: [UInt8]
        var code: FailureCode
        var text: String
        var testDescription: String { name }

        init(_ name: String, before: [ClientMessage] = [], sending message: ClientMessage, _ code: FailureCode, _ text: String) {
            var writer = ByteWriter()
            message.encode(into: &writer)
            self.init(name, before: before, bytes: writer.bytes, code, text)
        }

        init(_ name: String, before: [ClientMessage] = [], bytes: [UInt8], _ code: FailureCode, _ text: String) {
            self.name = name
            self.before = before
            self.bytes = bytes
            self.code = code
            self.text = text
        }

        /// A frame of `body` (type byte and payload) with its length field.
        static func frame(_ body: [UInt8]) -> [UInt8] {
            withUnsafeBytes(of: UInt32(body.count).littleEndian, Array.init) + body
        }
    }

    static let refusals: [Refusal] = [
        Refusal("a first frame other than hello", sending: .subscribeSensor(stream: 1, sensor: .accelerometer, interval: 0.01),
                .helloExpected, "the first frame must be a hello"),
        Refusal("a hello sent twice", before: [.hello(ClientHello(appHint: "embedded"))],
                sending: .hello(ClientHello(appHint: "embedded")), .malformedFrame, "hello sent twice"),
        Refusal("a hello of another protocol version", sending: .hello(ClientHello(version: ProtocolVersion.current + 1, appHint: "future")),
                .unsupportedVersion, "coremotiond speaks protocol version \(ProtocolVersion.current)"),
        Refusal("a declared length above the limit (refused as soon as the length arrives)",
                bytes: withUnsafeBytes(of: UInt32(FrameHeader.maximumClientFrame + 1).littleEndian, Array.init),
                .frameTooLarge, "\(FrameHeader.maximumClientFrame + 1)"),
        Refusal("an unknown message type", bytes: Refusal.frame([0x7E]), .malformedFrame, "unknown message type 0x7e"),
        Refusal("a hello cut short", bytes: Refusal.frame([0x01, 0x43, 0x4D]), .malformedFrame, "frame ends inside magic"),
    ]

    @Test("what ends a connection gets a failure naming the problem, then the connection closes", arguments: refusals)
    func refused(_ refusal: Refusal) async throws {
        let session = try await EmbeddedSession()
        defer { session.stop() }
        for message in refusal.before {
            try await session.send(message)
            _ = try await session.next()
        }
        var bytes = ByteBuffer()
        bytes.writeBytes(refusal.bytes)
        try await session.send(raw: bytes)
        let message = try await session.next()
        #expect(message.failureCode == refusal.code)
        #expect(message.failureText?.contains(refusal.text) == true, "\(String(describing: message.failureText))")
        try await session.waitUntilClosed()
    }

    @Test("no hello within the timeout: helloExpected, on the channel's virtual clock")
    func helloTimeout() async throws {
        let session = try await EmbeddedSession(helloTimeout: 3)
        defer { session.stop() }
        await session.channel.testingEventLoop.advanceTime(by: .seconds(2))
        #expect(try await session.next(timeout: 0.3) == nil)
        await session.channel.testingEventLoop.advanceTime(by: .seconds(2))
        let message = try await session.next()
        #expect(message.failureCode == .helloExpected)
        #expect(message.failureText == "no hello within 3 s")
        try await session.waitUntilClosed()
    }

    @Test("the client closing its end ends its streams and frees its slot")
    func closeFreesSlot() async throws {
        let session = try await EmbeddedSession.welcomed()
        defer { session.stop() }
        try await session.send(.subscribeSensor(stream: 1, sensor: .accelerometer, interval: 0.01))
        #expect(session.core.connectedSessions.count == 1)
        _ = try await session.channel.finish(acceptAlreadyClosed: true)
        let deadline = Date().addingTimeInterval(5)
        while session.core.connectedSessions.count > 0
            || session.core.service.activeMaximumLatency(.accelerometer) != MotionService.backgroundLatency,
            Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(session.core.connectedSessions.count == 0)
        // Only the always-on recorders remain: the live stream's latency 0 is gone.
        #expect(session.core.service.activeMaximumLatency(.accelerometer) == MotionService.backgroundLatency)
    }
}

/// A ``DaemonCore`` over a synthetic device and one connection to it on a `NIOAsyncTestingChannel`.
private final class EmbeddedSession: Sendable {
    let folder: URL
    let core: DaemonCore
    let channel: NIOAsyncTestingChannel
    private let frames = LockedFrames()

    init(helloTimeout: TimeInterval = 10) async throws {
        folder = try TestData.temporaryDirectory("coremotiond-embedded")
        let configuration = DaemonConfiguration(
            instance: .user, device: .none, socketPath: folder.appendingPathComponent("d.sock").path,
            historyPath: folder.appendingPathComponent("history.sqlite").path,
            permissionsPath: folder.appendingPathComponent("permissions.json").path, socketMode: 0o600,
            clientBufferCapacity: 8192, helloTimeout: helloTimeout)
        let device = ScheduledDevice(
            name: "synthetic", source: SyntheticSource(rates: [.accelerometer: 100, .gyroscope: 100]), clock: SystemClock.shared,
            loop: false)
        var logger = Logger(label: "test.coremotiond.embedded")
        logger.logLevel = .critical
        core = DaemonCore(configuration: configuration, device: device, authorizer: OpenAuthorizer(), logger: logger)
        core.startRecording()
        let core = self.core
        // The pipeline DaemonServer gives each connection.
        channel = try await NIOAsyncTestingChannel { channel in
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(
                MessageFrameDecoder(limit: FrameHeader.maximumClientFrame, decode: ClientMessage.decode)))
            try channel.pipeline.syncOperations.addHandler(ClientSession(core: core))
        }
        try await channel.connect(to: SocketAddress(unixDomainSocketPath: "/embedded")).get()
    }

    /// A session past its hello (the welcome read).
    static func welcomed() async throws -> EmbeddedSession {
        let session = try await EmbeddedSession()
        try await session.send(.hello(ClientHello(appHint: "embedded")))
        _ = try await session.next()
        return session
    }

    func send(_ message: ClientMessage) async throws {
        var writer = ByteWriter()
        message.encode(into: &writer)
        var bytes = ByteBuffer()
        bytes.writeFrames(writer)
        try await send(raw: bytes)
    }

    func send(raw bytes: ByteBuffer) async throws {
        do {
            try await channel.writeInbound(bytes)
        } catch is ProtocolError {
            // The decoder's error also reaches the session (errorCaught), which answers with a failure.
        }
    }

    /// The next message the daemon wrote, waiting up to `timeout` seconds (an issue and a throw past it).
    func next(sourceLocation: SourceLocation = #_sourceLocation) async throws -> DaemonMessage {
        guard let message = try await next(timeout: 5) else {
            Issue.record("no message from the session within 5 s", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return message
    }

    /// The next message the daemon wrote, or `nil` when none comes within `timeout` seconds.
    func next(timeout: TimeInterval) async throws -> DaemonMessage? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let message = try frames.pop() { return message }
            // Work the session's loop scheduled for "now" from the loop itself (the outbox coming back for the
            // rest of a large batch) runs only when asked, on the testing loop; a real loop runs it at once.
            await channel.testingEventLoop.run()
            if let buffer = try await channel.readOutbound(as: ByteBuffer.self) {
                frames.append(Array(buffer.readableBytesView))
                continue
            }
            if Date() >= deadline { return nil }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits until the session closed the connection.
    func waitUntilClosed(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = Date().addingTimeInterval(5)
        while channel.isActive, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(!channel.isActive, "the session did not close the connection", sourceLocation: sourceLocation)
    }

    func stop() {
        core.shutDown()
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Bytes the session wrote, split into frames.
private final class LockedFrames: Sendable {
    private let splitter = NIOLockedValueBox(FrameSplitter(limit: FrameHeader.maximumDaemonFrame))

    func append(_ bytes: [UInt8]) { splitter.withLockedValue { $0.append(bytes) } }

    func pop() throws -> DaemonMessage? {
        guard let frame = try splitter.withLockedValue({ try $0.nextFrame() }) else { return nil }
        return try frame.withUnsafeBytes { raw throws(ProtocolError) in try DaemonMessage.decode(raw) }
    }
}

extension DaemonMessage {
    fileprivate var failureCode: FailureCode? {
        if case .failure(let code, _) = self { code } else { nil }
    }

    fileprivate var failureText: String? {
        if case .failure(_, let text) = self { text } else { nil }
    }
}
