import Foundation
import Logging
@testable import MotionDaemon
import MotionDaemonClient
import MotionProtocol
import MotionService
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A daemon running in the test process on a temporary socket, over a synthetic real-time device.
final class TestDaemon: @unchecked Sendable {
    let folder: URL
    let core: DaemonCore
    let server: DaemonServer
    var socketPath: String { server.socketPath }

    init(
        rates: [SensorKind: Double] = [.accelerometer: 100, .gyroscope: 100, .magnetometer: 100, .barometer: 2],
        device: (any MotionDevice)? = nil, clientBuffer: Int = 8192, authorizer: any ClientAuthorizer = OpenAuthorizer(),
        folder existing: URL? = nil, helloTimeout: TimeInterval = 10, headphones: (any HeadphoneDevice)? = nil,
        stallLimit: TimeInterval = 30
    ) throws {
        folder = try existing ?? TestData.temporaryDirectory("coremotiond-test")
        var configuration = DaemonConfiguration(
            instance: .user, device: .none, socketPath: folder.appendingPathComponent("d.sock").path,
            historyPath: folder.appendingPathComponent("history.sqlite").path,
            permissionsPath: folder.appendingPathComponent("permissions.json").path, socketMode: 0o600,
            clientBufferCapacity: clientBuffer, helloTimeout: helloTimeout)
        configuration.clientStallLimit = stallLimit
        let device = device ?? ScheduledDevice(
            name: "synthetic", source: SyntheticSource(rates: rates), clock: SystemClock.shared, loop: false)
        var logger = Logger(label: "test.coremotiond")
        logger.logLevel = .warning
        core = DaemonCore(configuration: configuration, device: device, headphones: headphones, authorizer: authorizer, logger: logger)
        core.startRecording()
        server = DaemonServer(core: core)
        try server.bind()
    }

    func connect(hint: String = "test-client") throws -> DaemonConnection {
        try DaemonConnection.connect(socketPath: socketPath, appHint: hint)
    }

    /// Stops serving (clients are told) and writes the history.
    func stop() {
        server.close()
        core.shutDown()
    }

    func removeFiles() { try? FileManager.default.removeItem(at: folder) }
}

/// Counts values from a receive closure.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Double] = []
    func add(_ t: Double) {
        lock.lock()
        values.append(t)
        lock.unlock()
    }
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return values.count
    }
    var times: [Double] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
    func reset() {
        lock.lock()
        values = []
        lock.unlock()
    }
}

/// Waits until `condition` holds or `timeout` passes; returns whether it held.
func eventually(timeout: TimeInterval = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return condition()
}

/// A client that speaks raw bytes to the daemon: for hostile and slow peers.
final class RawClient {
    let fd: Int32
    private var splitter = FrameSplitter(limit: FrameHeader.maximumDaemonFrame)

    init(path: String, receiveBuffer: Int? = nil) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            Glibc.close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { Glibc.close(fd) }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Sends without waiting: the bytes the socket took (0 when it is full).
    func sendNow(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { max(0, Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))) }
    }

    func send(_ message: ClientMessage) { send(message.encoded) }

    /// The next message, or `nil` on timeout or when the daemon closed the connection.
    func receive(timeout: TimeInterval = 15) -> DaemonMessage? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let frame = try? splitter.nextFrame() {
                return try? frame.withUnsafeBytes { try DaemonMessage.decode($0) }
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32(left * 1000)) > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return nil }
            splitter.append(buffer[0..<n])
        }
    }

    /// Whether the daemon closed the connection within `timeout` (reading and discarding what comes).
    func closedByPeer(timeout: TimeInterval = 15) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while deadline.timeIntervalSinceNow > 0 {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) >= 0 else { return true }
            if pfd.revents != 0 {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { return true }
            }
        }
        return false
    }

    /// Says hello and returns the welcome.
    func hello(version: UInt16 = ProtocolVersion.current, hint: String = "raw") -> DaemonMessage? {
        send(.hello(ClientHello(version: version, appHint: hint)))
        return receive()
    }
}
