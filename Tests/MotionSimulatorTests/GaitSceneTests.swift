import Foundation
import MotionSamples
import Testing
@testable import MotionSimulator

/// Steps, cadence, stairs and the scenes that must not step.
@Suite struct GaitSceneTests {
    @Test func walkingHasStepTruthAtTheCadenceAndTheSpectrumShowsIt() throws {
        let sim = try Simulation(scene: try SceneCatalog.scene(named: "walking-in-hand"), seed: 41)
        let steps = sim.stepTimes(in: 0...sim.script.duration)
        // 60 s of walking at 1.9 steps/s, starting and stopping within a 1 s transition: 114 ± 2.
        // Measured: 113.
        #expect(abs(steps.count - 114) <= 2)
        #expect(steps.first! > 3 && steps.last! < 64)
        let gaps = zip(steps.dropFirst(), steps).map { $0 - $1 }.filter { _ in true }
        let steady = Array(gaps.dropFirst(3).dropLast(3))
        let meanGap = steady.reduce(0, +) / Double(steady.count)
        // Mean step interval 1/1.9 = 0.526 s; the ±3 % cadence fluctuation gives a spread of about
        // 0.016 s. Measured: 0.5263 s and 0.0152 s.
        #expect(abs(meanGap - 1 / 1.9) < 0.005)
        let spread = SimTest.standardDeviation(steady)
        #expect(spread > 0.003 && spread < 0.03)
        #expect(sim.truth(at: sim.script.duration).stepCount == steps.count)

        // The accelerometer's magnitude peaks at the step frequency (steady walking 10–55 s).
        let acc = SimTest.samples(sim, .accelerometer, in: 10...55).map { $0.sample.vector!.norm }
        let peak = SimTest.peakFrequency(acc, rate: 100, from: 0.5, to: 5)
        // Measured: 1.90 Hz.
        #expect(abs(peak - 1.9) < 0.05)
    }

    @Test func stepTimesAreAtTheVerticalAccelerationPeaks() throws {
        let sim = try Simulation(scene: try SceneCatalog.scene(named: "walking-in-hand"), seed: 42)
        for t in sim.stepTimes(in: 10...30) {
            // The heel strike is where the vertical acceleration peaks: find the maximum within ±0.15 s.
            var best = (time: t, value: -Double.infinity)
            var s = t - 0.15
            while s <= t + 0.15 {
                let a = sim.state(at: s).acceleration.z
                if a > best.value { best = (s, a) }
                s += 0.001
            }
            // Measured: within 1 ms (the search step).
            #expect(abs(best.time - t) < 0.01)
        }
    }

    @Test func runningStepsAtItsCadence() throws {
        let sim = try Simulation(scene: try SceneCatalog.scene(named: "running"), seed: 43)
        // 60 s at 2.8 steps/s: 168 ± 2. Measured: 167.
        #expect(abs(sim.stepTimes(in: 0...sim.script.duration).count - 168) <= 2)
    }

    @Test func stairsClimbThreeFloorsAndThePressureFalls() throws {
        let sim = try Simulation(scene: try SceneCatalog.scene(named: "stairs"), seed: 44)
        let script = sim.script
        // The first flight starts after the 3 s stand and the 4 s walk; the top is reached after
        // three flights and two landings.
        let bottom = sim.truth(at: 2)
        let topStart = script.segments[7].start, topEnd = topStart + script.segments[7].duration
        let top = sim.truth(at: topStart + 2)
        // 3 × 18 steps × 0.17 m = 9.18 m: the climb ramps in and out but the floor gains exactly that.
        #expect(abs(top.floorAltitude - bottom.floorAltitude - 9.18) < 1e-9)
        // The phone itself bounces a few centimetres with each step (measured 9.158 to 9.195 m).
        #expect(abs(top.relativeAltitude - 9.18) < 0.05)
        // Per 3 m near sea level: 0.036 kPa (measured 0.0360 kPa per 3 m).
        let atmosphere = sim.scene.environment.atmosphere
        let perThreeMetres = (atmosphere.pressure(altitude: bottom.floorAltitude) - atmosphere.pressure(altitude: top.floorAltitude)) / (9.18 / 3)
        #expect(abs(perThreeMetres - 0.036) < 0.0005)

        // The barometer shows it through its noise: mean of the 1 Hz samples while standing at the
        // bottom against those on the top landing walk (4 s).
        let samples = SimTest.samples(sim, .barometer, in: 0...script.duration).map { $0.sample.barometerReading! }
        let atBottom = samples.filter { $0.time <= 3 }.map(\.kilopascals)
        let atTop = samples.filter { $0.time >= topStart + 1 && $0.time <= topEnd - 1 }.map(\.kilopascals)
        let drop = atBottom.reduce(0, +) / Double(atBottom.count) - atTop.reduce(0, +) / Double(atTop.count)
        // Expected 0.1100–0.1103 kPa (with the bounce); noise 1.06 Pa per sample, 4 samples at the
        // bottom and 2 on the top landing: standard error 0.9 Pa. Measured: 0.1104 kPa.
        #expect(abs(drop - 0.1103) < 0.004)

        // Steps: 6 flights of 18 plus the walks and landings.
        let steps = sim.stepTimes(in: 0...script.duration)
        var expected = 0.0
        for seg in script.segments where seg.to.stepping == 1 { expected += seg.to.cadence * seg.duration }
        // Measured: 151 against 151.5 scripted.
        #expect(abs(Double(steps.count) - expected) <= 3)
        // The whole stairway is walked back down: the loop closes at the start altitude.
        #expect(abs(sim.truth(at: script.duration).floorAltitude - bottom.floorAltitude) < 1e-9)
    }

    @Test(arguments: ["still-face-up", "rotate-y", "car", "cycling", "shaking", "elevator", "pick-up"])
    func scenesWithoutWalkingHaveNoSteps(_ name: String) throws {
        let sim = try Simulation(scene: try SceneCatalog.scene(named: name), seed: 45)
        #expect(sim.stepTimes(in: 0...(3 * sim.script.duration)).isEmpty)
        #expect(sim.truth(at: sim.script.duration).stepCount == 0)
    }

    @Test func carTurnsProduceLateralAccelerationAndTheElevatorLifts() throws {
        let car = try Simulation(scene: try SceneCatalog.scene(named: "car"), seed: 46)
        var maxLateral = 0.0, maxSpeed = 0.0
        for t in stride(from: 0.0, through: car.script.duration, by: 0.1) {
            let s = car.state(at: t)
            let (sn, cs) = (sin(s.carrierHeading), cos(s.carrierHeading))
            // Acceleration across the heading (left): v·ψ̇ in a turn.
            maxLateral = max(maxLateral, abs(-sn * s.acceleration.x + cs * s.acceleration.y))
            maxSpeed = max(maxSpeed, (s.velocity.x * s.velocity.x + s.velocity.y * s.velocity.y).squareRoot())
        }
        // 90° over 8 s at 13.9 m/s peaks at v·1.875·(π/2)/8 = 5.1 m/s² (0.52 g); measured 5.25 m/s²
        // (with the phone's own sway).
        #expect(maxLateral > 3 && maxLateral < 6)
        // The phone sits 0.58 m from the car's reference point: turning at up to 0.37 rad/s adds up
        // to 0.21 m/s to its speed; the suspension adds a few cm/s. Measured: 14.01 m/s.
        #expect(abs(maxSpeed - 13.9) < 0.3)
        let lift = try Simulation(scene: try SceneCatalog.scene(named: "elevator"), seed: 47)
        #expect(abs(lift.truth(at: 18).floorAltitude - lift.truth(at: 0).floorAltitude - 12) < 1e-9)
    }
}
