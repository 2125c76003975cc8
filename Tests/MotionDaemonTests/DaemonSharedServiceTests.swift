import Foundation
@testable import MotionDaemon
import MotionDaemonClient
import MotionProtocol
import MotionService
import Testing

/// The daemon as a shared service: no client can stop it or starve the others (docs/security.md). The
/// process-level attacks (a client paused for minutes, other uids, RSS and descriptors) are in
/// tools/security/hostile-clients.py.
@Suite(.serialized) struct DaemonSharedServiceTests {
    /// Runs `body` on a thread of its own and says whether it returned within `seconds` (a deadlocked
    /// daemon must fail the test, not hang the suite).
    private func returns(within seconds: TimeInterval, _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }.start()
        return done.wait(timeout: .now() + seconds) == .success
    }

    @Test("a client whose socket stays full is disconnected off the device thread: the daemon keeps serving the others")
    func stalledClientDoesNotFreezeTheDaemon() throws {
        // 1 kHz, 64 values of room and a 0.5 s stall limit: the stalled client is disconnected within a second.
        // Before the fix the disconnect ran on the device thread under the service's lock and took it again.
        let daemon = try TestDaemon(rates: [.accelerometer: 1000, .gyroscope: 1000], clientBuffer: 64, stallLimit: 0.5)
        let stalled = try RawClient(path: daemon.socketPath, receiveBuffer: 4096)
        guard case .welcome? = stalled.hello(hint: "stalled") else {
            Issue.record("no welcome")
            return
        }
        stalled.send(.subscribeSensor(stream: 1, sensor: .accelerometer, interval: 0))
        let good = try daemon.connect(hint: "good")
        let received = Counter()
        let subscription = good.subscribe(to: .accelerometer, interval: 0) { received.add($0.time) }
        Thread.sleep(forTimeInterval: 2.5)
        let before = received.times.count
        Thread.sleep(forTimeInterval: 1)
        let lastSecond = received.times.count - before
        #expect(lastSecond > 500, "the good client got \(lastSecond) samples in the second after the stall (1 kHz device)")
        #expect(eventually(timeout: 5) { !daemon.core.connectedSessions.contains { $0.identity?.hint == "stalled" } })
        // A new client is still welcomed and answered.
        let probe = try RawClient(path: daemon.socketPath)
        guard case .welcome? = probe.hello(hint: "probe") else {
            Issue.record("no welcome after the stall")
            return
        }
        probe.send(.status(request: 7))
        guard case .reply(let request, _)? = probe.receive(timeout: 5) else {
            Issue.record("no status reply after the stall")
            return
        }
        #expect(request == 7)
        subscription?.cancel()
        good.close()
        #expect(returns(within: 10) { daemon.stop() }, "the daemon did not stop within 10 s")
        daemon.removeFiles()
    }

    @Test("a client that sends requests without reading the replies is no longer read: its requests stay bounded")
    func requestsWithoutReadingAreBounded() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.removeFiles() }
        let flooder = try RawClient(path: daemon.socketPath, receiveBuffer: 4096)
        guard case .welcome? = flooder.hello(hint: "flooder") else {
            Issue.record("no welcome")
            return
        }
        // Send status requests without reading until the socket stays full for 1 s (the daemon stopped
        // reading), at most 20 s. Before the fix the daemon read every request and queued every reply.
        let start = Date()
        var sent = 0
        var fullSince: Date?
        let frame = ClientMessage.status(request: 1).encoded
        while Date().timeIntervalSince(start) < 20 {
            if flooder.sendNow(frame) == frame.count {
                sent += 1
                fullSince = nil
            } else {
                if fullSince == nil { fullSince = Date() }
                if Date().timeIntervalSince(fullSince!) > 1 { break }
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        #expect(fullSince != nil, "the daemon kept reading: \(sent) requests in 20 s")
        #expect(sent < 200_000, "\(sent) requests taken before the daemon stopped reading")
        // Another client is answered meanwhile.
        let other = try RawClient(path: daemon.socketPath)
        guard case .welcome? = other.hello(hint: "other") else {
            Issue.record("no welcome for another client")
            return
        }
        other.send(.status(request: 9))
        guard case .reply(let request, _)? = other.receive(timeout: 5) else {
            Issue.record("no status reply for another client during the flood")
            return
        }
        #expect(request == 9)
    }

    @Test("slots: at most 32 per user other than root, 16 kept for root, refusals counted")
    func slotsPerUser() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.removeFiles() }
        let core = daemon.core
        let limit = core.configuration.maximumClientsPerUser
        let first = (0..<(limit + 5)).map { _ in ClientSession(core: core) }
        let answers = first.map { core.admit($0, uid: 61_001) }
        #expect(answers.prefix(limit).allSatisfy { $0 == nil })
        #expect(answers.suffix(5).allSatisfy { $0?.contains("at most \(limit) per user") == true })
        // Another user is not locked out.
        #expect(core.admit(ClientSession(core: core), uid: 61_002) == nil)
        #expect(core.connectionCounts.refused.perUser == 5)
        // Users other than root together leave the last slots to root.
        var uid: UInt32 = 62_000
        var refusedForRoot = false
        for _ in 0..<(core.configuration.maximumClients) {
            uid += 1
            if let refusal = core.admit(ClientSession(core: core), uid: uid) {
                refusedForRoot = refusal.contains("users other than root")
                break
            }
        }
        #expect(refusedForRoot)
        #expect(core.admit(ClientSession(core: core), uid: 0) == nil)
    }

    @Test("status shows a user other than root only their own clients")
    func statusIsPrivate() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.removeFiles() }
        let client = try daemon.connect(hint: "mine")
        defer { client.close() }
        #expect(eventually { daemon.core.connectedSessions.contains { $0.identity != nil } })
        let own = getuid()
        let asRoot = DaemonStatusReport.make(core: daemon.core, viewerUID: 0)
        let asOwner = DaemonStatusReport.make(core: daemon.core, viewerUID: own)
        let asStranger = DaemonStatusReport.make(core: daemon.core, viewerUID: 61_099)
        #expect(asRoot.clients.count >= 1)
        #expect(asOwner.clients.count >= 1)
        #expect(asStranger.clients.isEmpty)
        #expect(asStranger.clientsConnected == asRoot.clientsConnected)
    }

    @Test("a reply document longer than the protocol carries is an error, never cut into invalid JSON")
    func oversizedDocumentIsAnError() {
        let small = "{\"a\": 1}"
        #expect(ClientSession.documentReply(small) == .document(small))
        let huge = String(repeating: "x", count: DaemonMessage.maximumDocumentLength + 1)
        guard case .error(let code, _, let message) = ClientSession.documentReply(huge) else {
            Issue.record("an oversized document was sent")
            return
        }
        #expect(code == .failed)
        #expect(message.contains("\(DaemonMessage.maximumDocumentLength)"))
    }
}
