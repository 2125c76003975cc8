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
/// `DaemonHostileClientTests` on real sockets.
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

    @Test("a first frame other than hello gets helloExpected, then the connection closes")
    func firstFrameMustBeHello() async throws {
        let session = try await EmbeddedSession()
        defer { session.stop() }
        try await session.send(.subscribeSensor(stream: 1, sensor: .accelerometer, interval: 0.01))
        let message = try await session.next()
        #expect(message.failureCode == .helloExpected)
        #expect(message.failureText?.contains("first frame must be a hello") == true)
        try await session.waitUntilClosed()
    }

    @Test("a hello sent twice is a malformed frame")
    func helloTwice() async throws {
        let session = try await EmbeddedSession()
        defer { session.stop() }
        try await session.send(.hello(ClientHello(appHint: "embedded")))
        _ = try await session.next()
        try await session.send(.hello(ClientHello(appHint: "embedded")))
        let message = try await session.next()
        #expect(message.failureCode == .malformedFrame)
        #expect(message.failureText == "hello sent twice")
        try await session.waitUntilClosed()
    }

    @Test("a hello of another protocol version is refused with the version the daemon speaks")
    func otherVersion() async throws {
        let session = try await EmbeddedSession()
        defer { session.stop() }
        try await session.send(.hello(ClientHello(version: ProtocolVersion.current + 1, appHint: "future")))
        let message = try await session.next()
        #expect(message.failureCode == .unsupportedVersion)
        #expect(message.failureText?.contains("protocol version \(ProtocolVersion.current)") == true)
        try await session.waitUntilClosed()
    }

    @Test("a declared frame length above the limit is refused as soon as the length arrives")
    func frameTooLarge() async throws {
        let session = try await EmbeddedSession()
        defer { session.stop() }
        var bytes = ByteBuffer()
        bytes.writeInteger(UInt32(FrameHeader.maximumClientFrame + 1), endianness: .little)
        try await session.send(raw: bytes)
        let message = try await session.next()
        #expect(message.failureCode == .frameTooLarge)
        try await session.waitUntilClosed()
    }

    @Test("a frame that cannot be decoded is named in the failure", arguments: [
        ("an unknown message type", [UInt8(0x7E)]),
        ("a hello cut short", [UInt8(0x01), 0x43, 0x4D]),
    ])
    func malformed(_ name: String, _ frame: [UInt8]) async throws {
        let session = try await EmbeddedSession()
        defer { session.stop() }
        var bytes = ByteBuffer()
        bytes.writeInteger(UInt32(frame.count), endianness: .little)
        bytes.writeBytes(frame)
        try await session.send(raw: bytes)
        let message = try await session.next()
        #expect(message.failureCode == .malformedFrame, "\(name)")
        #expect(message.failureText?.isEmpty == false, "\(name)")
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

    @Test("a sensor subscription streams the device's samples on its stream")
    func subscriptionStreams() async throws {
        let session = try await EmbeddedSession()
        defer { session.stop() }
        try await session.send(.hello(ClientHello(appHint: "embedded")))
        _ = try await session.next()
        let direct = Counter()
        let probe = try #require(session.core.service.subscribe(to: .accelerometer, interval: 0.01) { direct.add($0.time) })
        try await session.send(.subscribeSensor(stream: 7, sensor: .accelerometer, interval: 0.01))
        // The device runs in real time on its own thread: generous bounds for a machine busy with other suites.
        var received = 0
        let deadline = Date().addingTimeInterval(30)
        while received < 20, Date() < deadline {
            guard let message = try await session.next(timeout: 10) else { break }
            if case .samples(let stream, let values) = message {
                #expect(stream == 7)
                received += values.count
            }
        }
        #expect(received >= 20, "device: \(direct.count) samples to a direct subscriber, end \(session.core.service.hasReachedEnd), rate \(String(describing: session.core.service.activeRate(.accelerometer)))")
        probe.cancel()
    }

    @Test("the client closing its end ends its streams and frees its slot")
    func closeFreesSlot() async throws {
        let session = try await EmbeddedSession()
        defer { session.stop() }
        try await session.send(.hello(ClientHello(appHint: "embedded")))
        _ = try await session.next()
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
