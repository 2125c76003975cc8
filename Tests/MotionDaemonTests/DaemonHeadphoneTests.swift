@testable import CoreMotion
import Foundation
import MotionDaemonClient
import MotionProtocol
import MotionService
import MotionSimulator
import Testing
import TestSupport

/// Records delegate calls and samples from any thread.
final class HeadphoneEvents: NSObject, CMHeadphoneMotionManagerDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    private var samples: [(t: Double, q: CMQuaternion, location: CMDeviceMotion.SensorLocation)] = []

    func headphoneMotionManagerDidConnect(_ manager: CMHeadphoneMotionManager) { note("connect") }
    func headphoneMotionManagerDidDisconnect(_ manager: CMHeadphoneMotionManager) { note("disconnect") }

    func note(_ item: String) {
        lock.lock()
        items.append(item)
        lock.unlock()
    }

    func add(_ motion: CMDeviceMotion) {
        lock.lock()
        if samples.isEmpty { items.append("sample") }
        samples.append((motion.timestamp, motion.attitude.quaternion, motion.sensorLocation))
        lock.unlock()
    }

    var log: [String] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }

    var received: [(t: Double, q: CMQuaternion, location: CMDeviceMotion.SensorLocation)] {
        lock.lock()
        defer { lock.unlock() }
        return samples
    }
}

@Suite("headphones through coremotiond", .serialized)
struct DaemonHeadphoneTests {
    static func simulatedHeadphones(_ scene: String) throws -> ScheduledHeadphoneDevice {
        let timeline = try HeadphoneSimulation(scene: HeadphoneSceneCatalog.scene(named: scene)).timeline()
        return ScheduledHeadphoneDevice(name: "sim:\(scene)", timeline: timeline, clock: SystemClock.shared)
    }

    @Test("the welcome names the daemon's headphones; without them headphone motion is not available")
    func availability() throws {
        let daemon = try TestDaemon(headphones: try Self.simulatedHeadphones("head-nod"))
        defer { daemon.stop(); daemon.removeFiles() }
        let connection = try daemon.connect()
        defer { connection.close() }
        #expect(connection.welcome.headphones == "sim:head-nod")
        MotionProviderOverride.with(connection) {
            #expect(CMHeadphoneMotionManager().isDeviceMotionAvailable)
            #expect(CMHeadphoneActivityManager().isActivityAvailable)
        }
        let plain = try TestDaemon()
        defer { plain.stop(); plain.removeFiles() }
        let other = try plain.connect()
        defer { other.close() }
        #expect(other.welcome.headphones == nil)
        MotionProviderOverride.with(other) {
            #expect(!CMHeadphoneMotionManager().isDeviceMotionAvailable)
        }
    }

    @Test("CMHeadphoneMotionManager over the daemon: didConnect first, 50 Hz samples with the bud, anchored at q.z = 0, status updates")
    func motionManager() throws {
        let daemon = try TestDaemon(headphones: try Self.simulatedHeadphones("look-around"))
        defer { daemon.stop(); daemon.removeFiles() }
        Thread.sleep(forTimeInterval: 2)  // the head has turned left meanwhile: the anchor must still give q.z = 0
        let connection = try daemon.connect()
        defer { connection.close() }
        try MotionProviderOverride.with(connection) {
            let manager = CMHeadphoneMotionManager()
            let events = HeadphoneEvents()
            manager.delegate = events
            manager.startDeviceMotionUpdates(to: OperationQueue()) { motion, _ in
                if let motion { events.add(motion) }
            }
            #expect(eventually { events.received.count >= 50 })
            manager.stopDeviceMotionUpdates()
            let samples = events.received
            #expect(events.log.prefix(2) == ["connect", "sample"])
            let first = try #require(samples.first)
            #expect(abs(first.q.z) < 1e-12)
            #expect(samples.allSatisfy { $0.location == .headphoneLeft })
            let steps = zip(samples.dropFirst(), samples).map { $0.t - $1.t }
            #expect(steps.allSatisfy { abs($0 - 0.02) < 1e-6 })
            #expect(abs(ProcessInfo.processInfo.systemUptime - samples.last!.t) < 1)
            // Status updates on their own report the connected headphones at once.
            let activity = CMHeadphoneActivityManager()
            let statuses = Counter()
            activity.startStatusUpdates(to: OperationQueue()) { status, _ in
                if status == .connected { statuses.add(1) }
            }
            #expect(eventually { statuses.count == 1 })
            activity.stopStatusUpdates()
        }
    }

    @Test("a daemon that goes away reports the headphones disconnected")
    func daemonGone() throws {
        let daemon = try TestDaemon(headphones: try Self.simulatedHeadphones("head-nod"))
        defer { daemon.removeFiles() }
        let connection = try daemon.connect()
        defer { connection.close() }
        MotionProviderOverride.with(connection) {
            let manager = CMHeadphoneMotionManager()
            let events = HeadphoneEvents()
            manager.delegate = events
            manager.startDeviceMotionUpdates(to: OperationQueue()) { motion, _ in if let motion { events.add(motion) } }
            #expect(eventually { events.log.contains("sample") })
            daemon.stop()
            #expect(eventually { events.log.last == "disconnect" })
            manager.stopDeviceMotionUpdates()
        }
    }
}
