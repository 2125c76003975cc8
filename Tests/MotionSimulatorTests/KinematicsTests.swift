import Foundation
import MotionSamples
import Testing
@testable import MotionSimulator

/// The scripted motion is one smooth trajectory whose derivatives are exact: finite differences of
/// the script agree with the analytic velocity, acceleration and angular velocity; nothing jumps at
/// segment boundaries; the accelerometer is gravity minus the true acceleration.
@Suite struct KinematicsTests {
    static let scenes = SceneCatalog.all.map(\.name)

    @Test func jetsMatchFiniteDifferences() {
        // f(t) = sin(3t)·√(2 + t) and a rotation vector through zero: derivatives vs central differences.
        let h = 1e-5
        func f(_ t: Jet) -> Jet { (t * 3.0).sinCos.sin * (t + 2.0).squareRoot }
        for t in [-1.3, 0.0, 0.7, 2.2] {
            let j = f(Jet.time(t))
            let d1 = (f(Jet(t + h)).value - f(Jet(t - h)).value) / (2 * h)
            let d2 = (f(Jet(t + h)).value - 2 * f(Jet(t)).value + f(Jet(t - h)).value) / (h * h)
            #expect(abs(j.d1 - d1) < 1e-8)
            #expect(abs(j.d2 - d2) < 1e-4)
        }
        // Rotation vector (0.4t, −0.2t, 0.1t²) crosses zero at t = 0: the series branch and the
        // closed-form branch both give the exact rotation and its derivatives.
        func q(_ t: Jet) -> JetQuaternion {
            JetQuaternion(rotationVector: JetVector(t * 0.4, t * -0.2, t * t * 0.1))
        }
        for t in [-3.0, -0.5, 0.0, 1e-3, 0.9, 2.5] {
            let j = q(Jet.time(t))
            let exact = Quaternion(rotationVector: Vector3(0.4 * t, -0.2 * t, 0.1 * t * t))
            #expect(j.value.angle(to: exact) < 1e-14)
            let plus = q(Jet(t + h)).value, minus = q(Jet(t - h)).value
            let omega = (minus.conjugate * plus).rotationVector / (2 * h)
            #expect((j.bodyAngularVelocity - omega).norm < 1e-8)
        }
    }

    /// Central differences of position, velocity and attitude at random times in every scene.
    @Test(arguments: scenes)
    func finiteDifferencesAgreeWithAnalyticDerivatives(_ name: String) throws {
        let sim = try Simulation(scene: try SceneCatalog.scene(named: name), seed: 3)
        var random = Xoshiro256StarStar(seed: 99)
        let h = 2e-5
        var worstVelocity = 0.0, worstAcceleration = 0.0, worstRate = 0.0, worstAngularAcceleration = 0.0
        for _ in 0..<300 {
            let t = 0.01 + random.nextOpenUnit() * (sim.script.duration - 0.02)
            let s = sim.state(at: t)
            let p = sim.state(at: t + h), m = sim.state(at: t - h)
            worstVelocity = max(worstVelocity, ((p.position - m.position) / (2 * h) - s.velocity).norm)
            worstAcceleration = max(worstAcceleration, ((p.velocity - m.velocity) / (2 * h) - s.acceleration).norm)
            let omega = (m.attitude.conjugate * p.attitude).rotationVector / (2 * h)
            worstRate = max(worstRate, (omega - s.angularVelocity).norm)
            worstAngularAcceleration = max(
                worstAngularAcceleration, ((p.angularVelocity - m.angularVelocity) / (2 * h) - s.angularAcceleration).norm
            )
        }
        // Central differences with h = 10⁻⁴ s err by h²/6 times the next derivative; the largest
        // (running, shaking) have jerks of a few hundred m/s³: errors of 10⁻⁶. Measured worst over all
        // scenes: velocity 3e-7 m/s, acceleration 2e-5 m/s², rate 1.2e-6 rad/s, angular acceleration 4e-4 rad/s².
        #expect(worstVelocity < 1e-5, "\(name): velocity")
        #expect(worstAcceleration < 2e-4, "\(name): acceleration")
        #expect(worstRate < 1e-5, "\(name): angular velocity")
        #expect(worstAngularAcceleration < 4e-3, "\(name): angular acceleration")
    }

    /// Acceleration and angular velocity are continuous across every segment boundary and every
    /// end of a transition, turn or move: no jumps, hence no infinite accelerations.
    @Test(arguments: scenes)
    func nothingJumpsAtBoundaries(_ name: String) throws {
        let sim = try Simulation(scene: try SceneCatalog.scene(named: name), seed: 3)
        var times: [Double] = []
        for seg in sim.script.segments {
            times += [seg.start, seg.start + seg.transition]
            for turn in seg.turns { times += [seg.start + turn.at, seg.start + turn.at + turn.length] }
        }
        let e = 1e-7
        var worst = (velocity: 0.0, acceleration: 0.0, attitude: 0.0, rate: 0.0)
        for t in times where t > e && t < sim.script.duration - e {
            let a = sim.state(at: t - e), b = sim.state(at: t + e)
            worst.velocity = max(worst.velocity, (a.velocity - b.velocity).norm)
            worst.acceleration = max(worst.acceleration, (a.acceleration - b.acceleration).norm)
            worst.attitude = max(worst.attitude, a.attitude.angle(to: b.attitude))
            worst.rate = max(worst.rate, (a.angularVelocity - b.angularVelocity).norm)
        }
        // Over 2·10⁻⁷ s a continuous quantity changes by its derivative × 2·10⁻⁷. Measured worst
        // (running, shaking): velocity 3.9e-6 m/s, acceleration 1.4e-4 m/s², attitude 1.8e-6 rad,
        // rate 6e-5 rad/s. A jump would be of the order of the quantity itself.
        #expect(worst.velocity < 1e-5, "\(name)")
        #expect(worst.acceleration < 1e-3, "\(name)")
        #expect(worst.attitude < 1e-5, "\(name)")
        #expect(worst.rate < 1e-4, "\(name)")
    }

    /// Every scene stays finite and physically plausible (checked at 200 Hz).
    @Test(arguments: scenes)
    func motionIsFiniteAndBounded(_ name: String) throws {
        let sim = try Simulation(scene: try SceneCatalog.scene(named: name), seed: 3)
        var maxAcceleration = 0.0, maxRate = 0.0, maxAngularAcceleration = 0.0
        var t = 0.0
        while t <= sim.script.duration {
            let s = sim.state(at: t)
            #expect(s.position.isFinite && s.velocity.isFinite && s.acceleration.isFinite && s.angularVelocity.isFinite)
            #expect(abs(s.attitude.norm - 1) < 1e-12)
            maxAcceleration = max(maxAcceleration, s.acceleration.norm)
            maxRate = max(maxRate, s.angularVelocity.norm)
            maxAngularAcceleration = max(maxAngularAcceleration, s.angularAcceleration.norm)
            t += 0.005
        }
        // Measured maxima over the scenes: 27 m/s² (shaking), 12.8 rad/s (shaking), 330 rad/s² (shaking).
        #expect(maxAcceleration < 40, "\(name): \(maxAcceleration) m/s²")
        #expect(maxRate < 20, "\(name): \(maxRate) rad/s")
        #expect(maxAngularAcceleration < 500, "\(name): \(maxAngularAcceleration) rad/s²")
    }

    /// Noise-free accelerometer minus the gravity of the true attitude (by the formula measured on
    /// iPhone data) is minus the true acceleration in device axes, to rounding.
    @Test(arguments: ["walking-in-hand", "running", "car", "pick-up", "stairs"])
    func accelerometerIsGravityMinusAcceleration(_ name: String) throws {
        let sim = try Simulation(scene: try SceneCatalog.scene(named: name).ideal, seed: 4)
        var worst = 0.0, worstFiniteDifference = 0.0
        for sample in SimTest.samples(sim, .accelerometer, in: 0.01...(sim.script.duration - 0.01)) {
            let t = sample.sample.time
            let s = sim.state(at: t)
            let gravity = SimTest.appleGravity(s.attitude)
            let linear = s.attitude.inverseRotate(s.acceleration)
            let residual = sample.sample.vector! - gravity + linear / standardGravity
            worst = max(worst, residual.norm)
            // The same with the acceleration from second differences of the true position.
            let h = 2.5e-4
            let fd = (sim.state(at: t + h).position - s.position * 2 + sim.state(at: t - h).position) / (h * h)
            let residualFD = sample.sample.vector! - gravity + s.attitude.inverseRotate(fd) / standardGravity
            worstFiniteDifference = max(worstFiniteDifference, residualFD.norm)
        }
        // Measured: 1.9e-15 g (rounding); with second differences (h = 2.5·10⁻⁴ s, error h²/12 ×
        // the fourth derivative of position) 4.7e-5 g worst (running).
        #expect(worst < 1e-14, "\(name)")
        #expect(worstFiniteDifference < 1e-4, "\(name)")
    }

    @Test func loopingScenesAreSeamless() throws {
        for name in ["rotate-x", "walking-in-hand", "stairs", "car", "pick-up"] {
            let sim = try Simulation(scene: try SceneCatalog.scene(named: name), seed: 2)
            let T = sim.script.duration
            for k in 1...3 {
                let t = Double(k) * T
                let before = sim.state(at: t - 1e-7), after = sim.state(at: t + 1e-7)
                #expect(before.attitude.angle(to: after.attitude) < 1e-6, "\(name)")
                #expect((before.position - after.position).norm < 1e-6, "\(name)")
                #expect((before.velocity - after.velocity).norm < 1e-5, "\(name)")
                #expect((before.acceleration - after.acceleration).norm < 1e-3, "\(name)")
                #expect((before.angularVelocity - after.angularVelocity).norm < 1e-4, "\(name)")
            }
        }
        // Without free-running vibration (a phone on a table), every pass is identical.
        let rotation = try Simulation(scene: try SceneCatalog.scene(named: "rotate-x"), seed: 2)
        for t in [0.3, 5.1, 9.7] {
            let a = rotation.state(at: t), b = rotation.state(at: t + 3 * rotation.script.duration)
            #expect(a.attitude.angle(to: b.attitude) < 1e-9)
            #expect((a.angularVelocity - b.angularVelocity).norm < 1e-9)
        }
    }

    @Test func holdContinuesTheLastSegment() throws {
        // A walk that holds: it keeps walking straight on at its speed, with steps.
        let scene = Scene(name: "walk-on", segments: [.walk(.walk(duration: 10))], ending: .hold)
        let sim = try Simulation(scene: scene, seed: 1)
        let a = sim.state(at: 20), b = sim.state(at: 30)
        #expect(abs((b.position - a.position).norm - 13.5) < 0.05)
        let steps = sim.stepTimes(in: 20...30)
        // 1.9 steps/s with a ±3 % fluctuation: 19 ± 1 steps in 10 s.
        #expect(abs(steps.count - 19) <= 1)
        // The steps beyond the script follow on from the script's steps at the same rhythm.
        let around = sim.stepTimes(in: 8...12)
        let gaps = zip(around.dropFirst(), around).map { $0 - $1 }
        #expect(gaps.allSatisfy { abs($0 - 1 / 1.9) < 0.05 })
    }

    @Test func keyframesKeepTheAngularVelocityContinuous() throws {
        let sim = try Simulation(scene: try SceneCatalog.scene(named: "pick-up"), seed: 1)
        let seg = sim.script.segments.first { if case .keyframes = $0.postureMove { return true } else { return false } }!
        guard case .keyframes(let spline) = seg.postureMove else { return }
        for key in spline.times.dropFirst() {
            let t = seg.start + key
            let a = sim.state(at: t - 1e-7), b = sim.state(at: t + 1e-7)
            #expect((a.angularVelocity - b.angularVelocity).norm < 1e-5)
            #expect((a.velocity - b.velocity).norm < 1e-6)
        }
        // And the keys are reached exactly.
        let end = sim.state(at: seg.start + seg.duration)
        let expected = Pose.reading.quaternion
        let relative = end.attitude  // heading 0, no pattern in a keyframes segment at its end
        #expect(relative.angle(to: expected) < 1e-9)
    }
}
