import ArgumentParser
@testable import CoreMotionCLI
import Foundation
import MotionRecordings
import Testing
import TestSupport

@Suite("coremotion record")
struct RecordCommandTests {
    @Test("records a simulated device and reads back what it wrote")
    func recordsAndReadsBack() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("still.cmrec").path
        // 20 s of the still scene at 20× speed: one second of wall time.
        let parsed = try CoreMotionCommand.parseAsRoot(
            ["record", "--output", file, "--device", "sim:still-face-up?speed=20", "--duration", "1", "--json"])
        let command = try #require(parsed as? RecordCommand)
        try command.run()
        let recording = try RecordingReader.read(URL(fileURLWithPath: file))
        // The scene runs at 20×: 100 Hz of scene time is one sample per 0.5 ms of the device's clock.
        // How much of the second the capture covers depends on the machine (all of it idle, about
        // half under the thread sanitizer on a loaded CI machine: 931 samples); what must hold is
        // that every sample of the span the device delivered is in the file.
        let t = recording.accelerometer.map(\.time)
        let span = (t.last ?? 0) - (t.first ?? 0)
        #expect(span > 0.25, "only \(span) s recorded")
        #expect(abs(Double(t.count) - (span * 2000 + 1)) <= 2, "\(t.count) samples over \(span) s at 2 kHz")
        #expect(!recording.gyroscope.isEmpty && !recording.magnetometer.isEmpty)
        #expect(zip(t.dropFirst(), t).allSatisfy { $0 > $1 })
        let mean = recording.accelerometer.map(\.value.z).reduce(0, +) / Double(recording.accelerometer.count)
        #expect(abs(mean + 1) < 0.01)  // face up: (0, 0, −1) g
    }

    @Test("bad arguments are refused with a message")
    func badArguments() {
        #expect(throws: (any Error).self) {
            try CoreMotionCommand.parseAsRoot(["record", "--output", "/tmp/x.cmrec", "--duration", "-1"])
        }
        #expect(throws: (any Error).self) {
            try CoreMotionCommand.parseAsRoot(["record", "--output", "/tmp/x.cmrec", "--sensors", "thermometer"])
        }
        #expect(throws: (any Error).self) {
            let c = try CoreMotionCommand.parseAsRoot(["record", "--output", "/tmp/x.cmrec", "--device", "replay"])
            try (c as? RecordCommand)?.run()
        }
    }
}
