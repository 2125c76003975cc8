import Foundation
import MotionSamples
import MotionSimulator
import Testing

@Suite("simulated heads wearing headphones")
struct HeadphoneSceneTests {
    @Test("every head scene compiles and loops at 50 Hz; gravity is −(third row of R(q)); the rate is the attitude's derivative")
    func consistent() throws {
        for scene in HeadphoneSceneCatalog.all {
            let simulation = try HeadphoneSimulation(scene: scene)
            let timeline = simulation.timeline()
            #expect(timeline.loopSpan != nil, "\(scene.name)")
            #expect(timeline.rate == 50)
            let samples = timeline.samples
            #expect(samples.count > 250, "\(scene.name)")  // the shortest scene, head-shake, lasts 5.9 s
            var worstGravity = 0.0, worstRate = 0.0
            for (a, b) in zip(samples, samples.dropFirst()) where abs(b.time - a.time - 0.02) < 1e-9 && a.location == b.location {
                worstGravity = max(worstGravity, (gravity(of: a.attitude) - a.gravity).norm)
                // Body-frame angular velocity from consecutive attitudes, at the midpoint.
                let fromAttitude = (a.attitude.conjugate * b.attitude).canonical.rotationVector / 0.02
                worstRate = max(worstRate, (fromAttitude - (a.rotationRate + b.rotationRate) * 0.5).norm)
            }
            #expect(worstGravity < 1e-9, "\(scene.name)")
            #expect(worstRate < 0.05, "\(scene.name): \(worstRate) rad/s")  // measured ≤ 0.02 rad/s (the midpoint rule)
        }
    }

    @Test("nodding moves pitch, shaking moves yaw, as the scenes say")
    func nodAndShake() throws {
        func ranges(_ name: String) throws -> (pitch: ClosedRange<Double>, yaw: ClosedRange<Double>, roll: ClosedRange<Double>) {
            let samples = try HeadphoneSimulation(scene: HeadphoneSceneCatalog.scene(named: name)).timeline().samples
            let first = samples[0].attitude.verticalTwist
            let angles = samples.map { ($0.anchored(removing: first).attitude * HeadphoneScene.budMount(.left).conjugate).appleEulerAngles }
            let deg = 180 / Double.pi
            let p = angles.map { $0.pitch * deg }, y = angles.map { $0.yaw * deg }, r = angles.map { $0.roll * deg }
            return (p.min()!...p.max()!, y.min()!...y.max()!, r.min()!...r.max()!)
        }
        let nod = try ranges("head-nod")
        #expect(abs(nod.pitch.lowerBound + 20) < 1 && abs(nod.pitch.upperBound - 8) < 1)
        #expect(nod.yaw.upperBound - nod.yaw.lowerBound < 0.5)
        let shake = try ranges("head-shake")
        #expect(abs(shake.yaw.lowerBound + 30) < 1 && abs(shake.yaw.upperBound - 30) < 1)
        #expect(shake.pitch.upperBound - shake.pitch.lowerBound < 0.5)
    }

    @Test("taking a bud out: the other takes over after 0.4 s, both out disconnects, both back reconnects")
    func budOutAndIn() throws {
        let timeline = try HeadphoneSimulation(scene: HeadphoneSceneCatalog.scene(named: "bud-out-and-in")).timeline()
        var changes: [(Double, Bool)] = []
        for event in timeline.events {
            switch event {
            case .connected(let t): changes.append((t, true))
            case .disconnected(let t, _): changes.append((t, false))
            case .motion: break
            }
        }
        #expect(changes.count == 3)
        #expect(changes.map(\.1) == [true, false, true])
        #expect(abs(changes[1].0 - 9.98) < 1e-9 && abs(changes[2].0 - 12) < 1e-9)
        let samples = timeline.samples
        #expect(samples.filter { $0.time > 4.39 && $0.time < 9 }.allSatisfy { $0.location == .right })
        #expect(samples.filter { $0.time < 4 || $0.time >= 12 }.allSatisfy { $0.location == .left })
        #expect(!samples.contains { ($0.time >= 4 && $0.time < 4.39) || ($0.time >= 9 && $0.time < 12) })
        // The buds sit differently: the stream's attitude jumps when the right one takes over.
        let before = samples.last { $0.time < 4 }!, after = samples.first { $0.time > 4.39 }!
        #expect(before.attitude.angle(to: after.attitude) > 3 * .pi / 180)
    }

    @Test("a misspelt head scene names the closest")
    func unknownScene() {
        #expect(throws: SceneError.self) { try HeadphoneSceneCatalog.scene(named: "head-shak") }
        let message = (try? HeadphoneSceneCatalog.scene(named: "head-shak")).map { _ in "" }
            ?? String(describing: SceneError.unknownScene(name: "head-shak", available: HeadphoneSceneCatalog.names))
        #expect(message.contains("head-shake"))
    }
}
