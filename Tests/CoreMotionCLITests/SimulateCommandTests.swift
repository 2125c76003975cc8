import ArgumentParser
@testable import CoreMotionCLI
import Foundation
import MotionRecordings
import MotionSimulator
import Testing
import TestSupport

@Suite("coremotion simulate")
struct SimulateCommandTests {
    @Test("without --duration, one pass of the scene is written; --duration sets the length")
    func defaultDurationIsOnePass() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let scene = try SceneCatalog.scene(named: "pick-up")
        let length = try Simulation(scene: scene, seed: 2).script.duration
        #expect(length == 17.5)  // as `coremotion simulate --list` gives it

        let whole = dir.appendingPathComponent("whole.cmrec").path
        let command = try #require(try CoreMotionCommand.parseAsRoot(["simulate", "pick-up", "--seed", "2", "-o", whole]) as? SimulateCommand)
        try command.run()
        let t = try RecordingReader.read(URL(fileURLWithPath: whole)).accelerometer.map(\.time)
        #expect(t.first == 0)
        #expect(abs((t.last ?? 0) - length) <= 0.01, "last sample at \(t.last ?? 0) s")

        let part = dir.appendingPathComponent("part.cmrec").path
        let shorter = try #require(try CoreMotionCommand.parseAsRoot(["simulate", "pick-up", "--duration", "5", "-o", part]) as? SimulateCommand)
        try shorter.run()
        let u = try RecordingReader.read(URL(fileURLWithPath: part)).accelerometer.map(\.time)
        #expect(abs((u.last ?? 0) - 5) <= 0.01)
    }

    @Test("bad arguments are refused with a message")
    func badArguments() {
        #expect(throws: (any Error).self) { try CoreMotionCommand.parseAsRoot(["simulate"]) }
        #expect(throws: (any Error).self) { try CoreMotionCommand.parseAsRoot(["simulate", "car", "--duration=-1"]) }
        #expect(throws: (any Error).self) { try CoreMotionCommand.parseAsRoot(["simulate", "car", "--duration", "nan"]) }
        #expect(throws: (any Error).self) { try CoreMotionCommand.parseAsRoot(["simulate", "car", "-o", "x.txt"]) }
        #expect(throws: (any Error).self) {
            let c = try CoreMotionCommand.parseAsRoot(["simulate", "no-such-scene"])
            try (c as? SimulateCommand)?.run()
        }
    }
}
