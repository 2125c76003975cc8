import CoreMotion
import CoreMotionTesting
import Foundation
import Testing

@testable import DaemonOnly

/// The light app's own tests: its unchanged motion code on the simulator and on a real recording, on a
/// virtual clock, in a build without the package's default traits (no HTTP server, no SQLite).
@Suite("DaemonOnly's motion code on CoreMotionTesting, without the default traits")
struct AccelerometerLogTests {
    @Test("lying still face up: ten updates a second, gravity along -z")
    func stillFaceUp() throws {
        let harness = try MotionTestHarness(scene: "still-face-up")
        harness.run {
            let log = AccelerometerLog()
            #expect(log.isAvailable)
            log.start()
            harness.advance(by: 10)
            log.stop()
            #expect(log.count >= 99 && log.count <= 101)
            let z = log.latest?.z ?? 0
            #expect(abs(z + 1) < 0.05)
        }
    }

    /// 1.5 s of a Sensor Logger export at 100 Hz (the repository's hand-made fixture
    /// `Tests/Fixtures/recordings/sensorlogger/ios-walk.zip`, bundled with these tests), thinned to 10 Hz.
    @Test("an iPhone's walk from a Sensor Logger recording: fifteen updates, magnitudes of a walk")
    func recordedWalk() throws {
        let walk = try #require(Bundle.module.url(forResource: "ios-walk", withExtension: "zip", subdirectory: "Recordings"))
        let harness = try MotionTestHarness(recording: walk)
        harness.run {
            let log = AccelerometerLog()
            log.start()
            harness.advance(by: 3)  // past the end of the recording
            log.stop()
            #expect(log.count >= 14 && log.count <= 16, "\(log.count) updates")
            let a = log.latest ?? CMAcceleration(x: 0, y: 0, z: 0)
            let magnitude = (a.x * a.x + a.y * a.y + a.z * a.z).squareRoot()
            #expect(magnitude > 0.3 && magnitude < 3)
        }
    }

    @Test("history needs SQLite: a pedometer query says which trait is missing")
    func historyWithoutSQLite() throws {
        let harness = try MotionTestHarness(scene: "walking-in-hand")
        let message: String? = harness.run {
            let pedometer = CMPedometer()
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var text: String?
            pedometer.queryPedometerData(from: Date(timeIntervalSinceNow: -60), to: Date()) { _, error in
                text = error.map { "\($0.localizedDescription)" }
                done.signal()
            }
            _ = done.wait(timeout: .now() + 10)
            return text
        }
        #expect(message?.contains("SQLiteHistory") == true)
    }
}
