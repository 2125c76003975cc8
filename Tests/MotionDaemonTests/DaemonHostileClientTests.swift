import Foundation
@testable import MotionDaemon
import MotionDaemonClient
import MotionProtocol
import MotionService
import Testing
import TestSupport

@Suite("coremotiond: slow and hostile clients harm only themselves", .serialized)
struct DaemonHostileClientTests {
    @Test("a client that does not read loses its oldest values, counted; the others lose nothing")
    func slowClient() throws {
        // 1 kHz device; the stalled client may hold 256 values.
        let daemon = try TestDaemon(rates: [.accelerometer: 1000, .gyroscope: 1000], clientBuffer: 256)
        defer { daemon.stop(); daemon.removeFiles() }
        let stalled = try RawClient(path: daemon.socketPath, receiveBuffer: 4096)
        guard case .welcome? = stalled.hello() else {
            Issue.record("no welcome")
            return
        }
        stalled.send(.subscribeSensor(stream: 1, sensor: .accelerometer, interval: 0))
        let good = try daemon.connect()
        defer { good.close() }
        let received = Counter()
        let s = good.subscribe(to: .accelerometer, interval: 0) { received.add($0.time) }
        Thread.sleep(forTimeInterval: 3)
        s?.cancel()
        // The good client got every sample of its span: consecutive times 1 ms apart.
        let times = received.times
        let gaps = zip(times.dropFirst(), times).filter { $0 - $1 > 0.0015 }.count
        #expect(times.count > 2000, "\(times.count) samples in 3 s")
        #expect(gaps == 0, "\(gaps) gaps in the good client's stream")
        let session = try #require(daemon.core.connectedSessions.first { $0.identity?.hint == "raw" })
        let figures = session.outboxFigures
        #expect(figures.dropped > 0)
        #expect(figures.waiting <= 256)
        // When the stalled client reads again it learns how many were dropped.
        var dropped: UInt64 = 0
        for _ in 0..<10_000 {
            guard let message = stalled.receive(timeout: 2) else { break }
            if case .dropped(let stream, let n) = message {
                #expect(stream == 1)
                dropped += n
                break
            }
        }
        #expect(dropped > 0)
    }

    @Test("garbage, oversized frames and a message before the hello are refused with a reason; others carry on")
    func garbage() throws {
        // A short hello timeout, to see a silent client dropped.
        let daemon = try TestDaemon(helloTimeout: 2)
        defer { daemon.stop(); daemon.removeFiles() }
        let good = try daemon.connect()
        defer { good.close() }
        let count = Counter()
        let s = good.subscribe(to: .accelerometer, interval: 0.02) { count.add($0.time) }

        let noise = try RawClient(path: daemon.socketPath)
        noise.send([5, 0, 0, 0, 0x42, 1, 2, 3, 4])  // an unknown message type
        guard case .failure(let code, let text)? = noise.receive() else {
            Issue.record("no failure frame for garbage")
            return
        }
        #expect(code == .malformedFrame && text.contains("0x42"))
        #expect(noise.closedByPeer())

        let huge = try RawClient(path: daemon.socketPath)
        huge.send([0x00, 0x00, 0x00, 0x10])  // 256 MiB declared
        guard case .failure(let code2, _)? = huge.receive() else {
            Issue.record("no failure frame for an oversized frame")
            return
        }
        #expect(code2 == .frameTooLarge)

        let rude = try RawClient(path: daemon.socketPath)
        rude.send(.subscribeSensor(stream: 1, sensor: .accelerometer, interval: 0))
        guard case .failure(let code3, _)? = rude.receive() else {
            Issue.record("no failure frame for a subscription before the hello")
            return
        }
        #expect(code3 == .helloExpected)

        let silent = try RawClient(path: daemon.socketPath)
        #expect(silent.closedByPeer(timeout: 5), "a client that never says hello is not disconnected")

        // One that vanishes mid-frame.
        do {
            let vanishing = try RawClient(path: daemon.socketPath)
            _ = vanishing.hello()
            vanishing.send(Array(ClientMessage.subscribeSensor(stream: 1, sensor: .gyroscope, interval: 0).encoded.prefix(7)))
        }
        count.reset()
        Thread.sleep(forTimeInterval: 1)
        #expect(count.count > 30, "the good client got \(count.count) samples in 1 s")
        #expect(eventually { daemon.core.connectedSessions.count == 1 })
        s?.cancel()
    }

    @Test("a client of another protocol version gets a clear error, never garbage")
    func otherVersion() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.removeFiles() }
        let old = try RawClient(path: daemon.socketPath)
        guard case .failure(let code, let text)? = old.hello(version: 99) else {
            Issue.record("no failure frame")
            return
        }
        #expect(code == .unsupportedVersion)
        #expect(text.contains("version \(ProtocolVersion.current)") && text.contains("version 99"))
        #expect(old.closedByPeer())
    }

    @Test("a client of protocol version 1 (before the headphones) is refused with both versions named")
    func versionOneClient() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.removeFiles() }
        let old = try RawClient(path: daemon.socketPath)
        guard case .failure(let code, let text)? = old.hello(version: 1) else {
            Issue.record("no failure frame")
            return
        }
        #expect(code == .unsupportedVersion)
        #expect(text.contains("protocol version 2") && text.contains("speaks version 1"))
        #expect(old.closedByPeer())
    }

    @Test("a daemon that is not there: a clear error naming the socket and how to start it")
    func noDaemon() throws {
        let folder = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("missing.sock").path
        #expect {
            _ = try DaemonConnection.connect(socketPath: path)
        } throws: { error in
            "\(error)".contains(path) && "\(error)".contains("coremotiond --socket")
        }
    }
}
