import Foundation
import MotionSamples
import Testing
@testable import MotionSimulator

/// Integrating the gyroscope of a rotation scene gives back the scripted rotation.
@Suite struct RotationSceneTests {
    @Test(arguments: ["rotate-x", "rotate-y", "rotate-z"])
    func noiseFreeGyroscopeIntegratesToTheScript(_ name: String) throws {
        let sim = try Simulation(scene: try SceneCatalog.scene(named: name).ideal, seed: 1)
        let T = sim.script.duration
        let samples = SimTest.samples(sim, .gyroscope, in: 0...T)
        let q0 = sim.state(at: 0).attitude
        let integrated = SimTest.integrate(samples.map { ($0.sample.time, $0.sample.vector!) }, from: q0)
        var worst = 0.0
        for (i, s) in samples.enumerated() {
            worst = max(worst, integrated[i].angle(to: sim.state(at: s.sample.time).attitude))
        }
        // The scene turns by a full 360° and back to its start.
        #expect(sim.state(at: T).attitude.angle(to: q0) < 1e-12)
        #expect(integrated.last!.angle(to: q0) < 1e-6)
        // Averaging the rates at both ends of an interval (trapezoid rule) errs by Δt³/12·θ‴ per
        // step where the rate changes, i.e. only during the two 1 s ramps: at most
        // 2 s·Δt²/12·max|θ‴| with max|θ‴| = ω_peak·max|S″|/ramp² = 0.524·5.77 rad/s³: 2.9e-3°.
        // Measured: 4.7e-4°.
        let rampBound = 2 * 0.01 * 0.01 / 12 * (Double.pi / 6 * 10 / 3.0.squareRoot())
        #expect(worst < rampBound)
        #expect(worst * 180 / .pi < 0.1)
    }

    @Test(arguments: ["rotate-x", "rotate-y", "rotate-z"])
    func noisyGyroscopeIntegratesToTheScriptWithinTheNoiseBound(_ name: String) throws {
        // The default phone gyroscope (white noise, constant bias, bias random walk), with the true
        // bias of each sample removed as a perfect bias estimator would: what remains is white
        // noise, whose integral is an angle random walk of N·√T per axis.
        let sim = try Simulation(scene: try SceneCatalog.scene(named: name), seed: 31)
        let T = sim.script.duration
        let samples = SimTest.samples(sim, .gyroscope, in: 0...T)
        let q0 = sim.state(at: 0).attitude
        let integrated = SimTest.integrate(samples.map { ($0.sample.time, $0.sample.vector! - $0.bias) }, from: q0)
        var worst = 0.0
        for (i, s) in samples.enumerated() {
            worst = max(worst, integrated[i].angle(to: sim.state(at: s.sample.time).attitude))
        }
        let n = SensorErrorModel.phoneGyroscope.noiseDensity
        // 4σ of the three-axis angle random walk after T = 17 s: 4·√3·N·√T = 0.081°.
        let bound = 4 * 3.0.squareRoot() * n * T.squareRoot()
        // Measured (seed 31): 0.015°, 0.017°, 0.016° for x, y, z.
        #expect(worst < bound)
        #expect(worst * 180 / .pi < 0.1)
    }

    @Test func multiAxisKeyframedMotionIntegratesToTheScript() throws {
        // The pick-up scene turns about changing axes (coning): the midpoint rule is then only
        // second-order accurate. Measured at 100 Hz: 0.0047° over 17.5 s of picking up, turning
        // to landscape and back, and putting down.
        let sim = try Simulation(scene: try SceneCatalog.scene(named: "pick-up").ideal, seed: 1)
        let samples = SimTest.samples(sim, .gyroscope, in: 0...sim.script.duration)
        let q0 = sim.state(at: 0).attitude
        let integrated = SimTest.integrate(samples.map { ($0.sample.time, $0.sample.vector!) }, from: q0)
        var worst = 0.0
        for (i, s) in samples.enumerated() {
            worst = max(worst, integrated[i].angle(to: sim.state(at: s.sample.time).attitude))
        }
        #expect(worst * 180 / .pi < 0.1)
    }
}
