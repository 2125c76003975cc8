import Foundation
import MotionRecordings
import MotionSamples
import Testing
import TestSupport
@testable import MotionSimulator

@Suite struct ExportTests {
    @Test func csvLinesReadBackToTheIdenticalSamples() throws {
        var source = try Simulation(scene: try SceneCatalog.scene(named: "stairs"), seed: 8).makeSource()
        var count = 0
        while let s = source.next(), s.time <= 3 {
            let line = SampleCSV.line(s)
            #expect(line.split(separator: ",", omittingEmptySubsequences: false).count == 5)
            #expect(SampleCSV.parse(Substring(line)) == s)
            count += 1
        }
        #expect(count == 3 * 301 + 4)
        #expect(SampleCSV.parse("1.0,accelerometer,1,2") == nil)
        #expect(SampleCSV.parse("x,accelerometer,1,2,3") == nil)
        #expect(SampleCSV.parse("1.0,thermometer,1,2,3") == nil)
        let truth = SampleCSV.truthLine(try Simulation(scene: try SceneCatalog.scene(named: "stairs")).truth(at: 50))
        #expect(truth.split(separator: ",").count == SampleCSV.truthHeader.split(separator: ",").count)
    }

    @Test func stepCountAgreesWithStepTimesEverywhere() throws {
        for scene in [try SceneCatalog.scene(named: "walking-in-hand"),
                      Scene(name: "walk-on", segments: [.hold(Hold(duration: 2, carry: .hand)), .walk(.walk(duration: 10))], ending: .hold)] {
            let sim = try Simulation(scene: scene, seed: 1)
            for t in stride(from: 0.0, through: 3.2 * sim.script.duration, by: 1.37) {
                #expect(sim.script.stepCount(upTo: t) == sim.stepTimes(in: 0...t).count, "\(scene.name) at \(t)")
            }
        }
    }
}

@Suite struct NativeFormatExportTests {
    @Test func aSimulatedRecordingRoundTripsThroughTheProjectFormat() throws {
        let sim = try Simulation(scene: try SceneCatalog.scene(named: "stairs"), seed: 12)
        let recording = sim.recording(duration: 30, truthInterval: 0.05)
        let dir = try TestData.temporaryDirectory("sim-cmrec")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("stairs.cmrec")
        try recording.write(to: url)
        let back = try RecordingReader.read(url)
        // Samples come back bit for bit, and the ground truth with them.
        #expect(back.accelerometer == recording.accelerometer)
        #expect(back.gyroscope == recording.gyroscope)
        #expect(back.magnetometer == recording.magnetometer)
        #expect(back.barometer == recording.barometer)
        #expect(back.reference.stepTotal == recording.reference.stepTotal)
        #expect(back.reference.stepTimes == recording.reference.stepTimes)
        #expect(back.reference.truthAttitude == recording.reference.truthAttitude)
        #expect(back.metadata.properties["scene"] == "stairs" && back.metadata.properties["seed"] == "12")
    }
}
