import CoreMotion
import CoreMotionTesting
import Foundation
import Testing

import WalkTracking

/// The app's model on CoreMotionTesting: its unchanged pedometer code on a walk recorded on an iPhone
/// (bundled with the tests) and on simulator scenes, on a virtual clock: seconds of walking in milliseconds,
/// the same result on every run.
@Suite("WalkSession on recorded and simulated walks")
struct WalkSessionTests {
    /// 20 s of a MotionSense walk: an iPhone 6s in a front trouser pocket, device motion at 50 Hz (MIT;
    /// Recordings/LICENSE-MotionSense.txt). A resource of this test target (`resources: [.copy("Recordings")]`).
    static let walk = Bundle.module.url(forResource: "motionsense-walk", withExtension: "csv", subdirectory: "Recordings")

    /// Replays the recorded walk into a new session and returns its last update.
    static func replayWalk() throws -> WalkProgress? {
        let recording = try #require(walk, "the bundled recording")
        let harness = try MotionTestHarness(recording: recording)
        return harness.run {
            let session = WalkSession()
            session.start(from: harness.date)
            harness.advance(by: 25)  // past the end of the 20 s recording
            session.stop()
            return session.progress
        }
    }

    @Test("the recorded walk: its steps, a walker's cadence and stride")
    func recordedWalk() throws {
        let walk = try #require(try Self.replayWalk(), "no pedometer update during the walk")
        // About 1.8 steps a second for 19 s: 35 steps and 18.8 m measured on this recording (live and with
        // `coremotion steps`); the bounds leave room for a better step detector, not for a broken one.
        #expect((30...40).contains(walk.steps), "\(walk.steps) steps")
        let stride = try #require(walk.strideLength, "no distance")
        #expect(stride > 0.45 && stride < 0.65, "\(stride) m a step")
        #expect(walk.duration > 15 && walk.duration <= 21, "\(walk.duration) s")
    }

    @Test("the same recording gives the same walk every time")
    func deterministic() throws {
        #expect(try Self.replayWalk() == Self.replayWalk())
    }

    @Test("a phone lying still counts no step")
    func lyingStill() throws {
        let harness = try MotionTestHarness(scene: "still-face-up")
        let steps = harness.run {
            let session = WalkSession()
            session.start(from: harness.date)
            harness.advance(by: 20)
            session.stop()
            return session.progress?.steps ?? 0
        }
        #expect(steps == 0)
    }
}
