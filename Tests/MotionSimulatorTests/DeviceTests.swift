import Foundation
import MotionSamples
import Testing
import TestSupport
@testable import MotionSimulator

/// The simulator as a device on a virtual clock.
@Suite struct DeviceTests {
    @Test func deliversTheSourceSamplesOnTheClock() throws {
        let clock = VirtualClock(start: 500)
        let device = try SimulatorDevice.make(scene: try SceneCatalog.scene(named: "walking-in-hand"), seed: 9, clock: clock)
        #expect(device.name == "sim:walking-in-hand (seed 9)")
        #expect(device.sensors[.accelerometer]?.maximumRate == 100 && device.sensors[.barometer]?.maximumRate == 1)
        let got = Collector()
        device.run([.accelerometer: 100, .gyroscope: 100], sink: { got.add($0) }, events: { got.add($0) })
        clock.advance(by: 2)
        let samples = got.all
        // 0, 0.01, …, 2.00 s of scene time for two sensors.
        #expect(samples.count == 2 * 201)
        #expect(samples.allSatisfy { $0.sensor == .accelerometer || $0.sensor == .gyroscope })
        // The values are the source's, at clock time 500 + scene time.
        var source = try Simulation(scene: try SceneCatalog.scene(named: "walking-in-hand"), seed: 9).makeSource()
        var expected: [SensorSample] = []
        while let s = source.next(), s.time <= 2 {
            if s.sensor == .accelerometer || s.sensor == .gyroscope { expected.append(s.at(time: 500 + s.time)) }
        }
        #expect(samples == expected)
    }

    @Test func endlessScenesKeepGoingAndFiniteOnesEnd() throws {
        let clock = VirtualClock()
        let endless = try SimulatorDevice.make(scene: try SceneCatalog.scene(named: "still-face-up"), clock: clock)
        let a = Collector()
        endless.run([.barometer: 1], sink: { a.add($0) }, events: { a.add($0) })
        clock.advance(by: 100)  // the script lasts 60 s; `hold` goes on
        #expect(a.all.count == 101 && a.allEvents.isEmpty)

        let finite = Scene(name: "short", segments: [.hold(Hold(duration: 1))], ending: .stop)
        let clock2 = VirtualClock()
        let device = try SimulatorDevice.make(scene: finite, clock: clock2)
        let b = Collector()
        device.run([.accelerometer: 100], sink: { b.add($0) }, events: { b.add($0) })
        clock2.advance(by: 3)
        #expect(b.all.count == 101)
        #expect(b.allEvents == [.endOfData])
    }

    @Test func playsFasterAtASpeedFactor() throws {
        let clock = VirtualClock()
        let device = try SimulatorDevice.make(specification: "sim:still-face-up?seed=2&speed=4", clock: clock)
        let got = Collector()
        device.run([.accelerometer: 100], sink: { got.add($0) }, events: { got.add($0) })
        clock.advance(by: 1)
        // 1 s of clock time is 4 s of scene time: 401 samples 2.5 ms apart.
        #expect(got.all.count == 401)
        #expect(abs(got.all[1].time - got.all[0].time - 0.0025) < 1e-9)
    }

    @Test func specificationsAreParsedWithClearErrors() throws {
        let (scene, seed) = try SimulatorDevice.parse(specification: "sim:stairs?seed=77")
        #expect(scene.name == "stairs" && seed == 77)
        #expect(try SimulatorDevice.parse(specification: "car").seed == 0)
        #expect(try SimulatorDevice.parseWithSpeed(specification: "sim:car?seed=3&speed=4").speed == 4)
        for (spec, phrase) in [
            ("sim:stairs?seed=-1", "seed must be a whole number"),
            ("sim:stairs?pace=2", "unknown option 'pace'"),
            ("sim:stairs?speed=0", "speed must be a positive number"),
            ("sim:", "no scene given"),
            ("sim:escalator", "scenes: still-face-up, "),
        ] {
            do {
                _ = try SimulatorDevice.parse(specification: spec)
                Issue.record("accepted \(spec)")
            } catch let error as SceneError {
                #expect(error.description.contains(phrase), "\(spec): \(error)")
            }
        }
    }

    @Test func aRecordingCarriesTheGroundTruth() throws {
        let sim = try Simulation(scene: try SceneCatalog.scene(named: "walking-in-hand"), seed: 3)
        let recording = sim.recording(duration: 20)
        #expect(recording.metadata.format == "simulator")
        #expect(recording.accelerometer.count == 2001 && recording.barometer.count == 21)
        #expect(recording.reference.stepTotal == sim.stepTimes(in: 0...20).count)
        #expect(recording.reference.truthAttitude.count == 2001)
        // ENU truth: a quarter turn about up from the NWU attitude.
        let t = recording.reference.truthAttitude[500]
        let nwu = sim.truth(at: t.time).attitude
        #expect(t.value.rotate(.unitX).angle(to: Quaternion.aboutZ(.pi / 2).rotate(nwu.rotate(.unitX))) < 1e-12)
        // Apple's outputs stay empty: a simulated recording has none.
        #expect(recording.reference.gravity.isEmpty && recording.reference.cumulativeSteps.isEmpty)
        // Raw accelerometer = true gravity + true user acceleration + the sensor's errors (a few mg).
        let sample = recording.accelerometer[700]
        let truth = sim.truth(at: sample.time)
        #expect((sample.value - (truth.gravity + truth.userAcceleration)).norm < 0.02)
    }
}
