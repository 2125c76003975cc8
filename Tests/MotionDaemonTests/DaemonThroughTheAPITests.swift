@testable import CoreMotion
import Foundation
import MotionAuthorization
import Logging
@testable import MotionDaemon
import MotionDaemonClient
import MotionService
import Testing
import TestSupport

/// Apple's API over the daemon: the same code, the same behaviour, as in process.
@Suite("Core Motion through coremotiond", .serialized)
struct DaemonThroughTheAPITests {
    @Test("COREMOTION_DEVICE: auto uses the daemon when its socket answers, else in-process sensors; service:PATH insists")
    func selection() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.removeFiles() }
        let auto = try MotionProviders.makeFromEnvironment(["COREMOTION_SOCKET": daemon.socketPath])
        #expect(auto is DaemonConnection)
        (auto as? DaemonConnection)?.close()
        let explicit = try MotionProviders.makeFromEnvironment(["COREMOTION_DEVICE": "service:\(daemon.socketPath)"])
        #expect(explicit.deviceName == "synthetic")
        (explicit as? DaemonConnection)?.close()
        let missing = daemon.folder.appendingPathComponent("nobody.sock").path
        let fallback = try MotionProviders.makeFromEnvironment(["COREMOTION_SOCKET": missing, "COREMOTION_DEVICE": "auto"])
        #expect(fallback is MotionService)
        #expect(throws: MotionProviderError.self) {
            _ = try MotionProviders.makeFromEnvironment(["COREMOTION_DEVICE": "service:\(missing)"])
        }
    }

    @Test("CMMotionManager over the daemon: push on a queue, pull, own interval")
    func motionManager() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.removeFiles() }
        let connection = try daemon.connect()
        defer { connection.close() }
        MotionProviderOverride.with(connection) {
            let motion = CMMotionManager()
            #expect(motion.isAccelerometerAvailable && motion.isDeviceMotionAvailable)
            motion.accelerometerUpdateInterval = 0.05
            #expect(abs(motion.accelerometerUpdateInterval - 0.05) < 1e-9)
            let queue = OperationQueue()
            let count = Counter()
            motion.startAccelerometerUpdates(to: queue) { data, error in
                if let data, error == nil { count.add(data.timestamp) }
            }
            motion.startDeviceMotionUpdates()
            #expect(eventually { count.count >= 10 && motion.deviceMotion != nil })
            let t = count.times
            let step = (t.last! - t.first!) / Double(t.count - 1)
            #expect(abs(step - 0.05) < 0.005, "interval \(step) s")
            // Timestamps are on this process's systemUptime clock.
            #expect(abs(ProcessInfo.processInfo.systemUptime - t.last!) < 1)
            motion.stopAccelerometerUpdates()
            motion.stopDeviceMotionUpdates()
        }
    }

    @Test("an app the user has not decided on: pedometer history gives CMErrorMotionActivityNotAuthorized")
    func notDeterminedHistory() throws {
        let folder = try TestData.temporaryDirectory("coremotiond-api")
        let store = PermissionStore(file: folder.appendingPathComponent("p.json"), logger: Logger(label: "test"))
        let daemon = try TestDaemon(authorizer: PolicyAuthorizer(policy: AdminPolicy(), store: store, logger: Logger(label: "test")), folder: folder)
        defer { daemon.stop(); daemon.removeFiles() }
        let connection = try daemon.connect()
        defer { connection.close() }
        MotionProviderOverride.with(connection) {
            #expect(CMPedometer.authorizationStatus() == .notDetermined)
            let pedometer = CMPedometer()
            let done = DispatchSemaphore(value: 0)
            let box = Box()
            pedometer.queryPedometerData(from: Date().addingTimeInterval(-60), to: Date()) { data, error in
                box.error = error as NSError?
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 5) == .success)
            #expect(box.error?.domain == CMErrorDomain)
            #expect(box.error?.code == Int(CMErrorMotionActivityNotAuthorized.rawValue))
        }
    }

    @Test("when the app does not keep up, the daemon drops its oldest values and the connection counts them")
    func appTooSlow() throws {
        let daemon = try TestDaemon(rates: [.accelerometer: 1000], clientBuffer: 64)
        defer { daemon.stop(); daemon.removeFiles() }
        let connection = try daemon.connect()
        defer { connection.close() }
        // A receive closure that takes 2 ms per sample of a 1 kHz stream stalls the connection's reading.
        let s = connection.subscribe(to: .accelerometer, interval: 0) { _ in Thread.sleep(forTimeInterval: 0.002) }
        #expect(eventually(timeout: 15) { connection.droppedCount > 0 })
        s?.cancel()
    }

    final class Box: @unchecked Sendable { var error: NSError? }
}
