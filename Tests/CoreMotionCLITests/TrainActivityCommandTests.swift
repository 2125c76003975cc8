import ArgumentParser
@testable import CoreMotionCLI
import Foundation
import MotionEngine
import MotionEvaluation
import MotionRecordings
import Testing
import TestSupport

@Suite struct TrainActivityCommandTests {
    static let walk = TestData.fixture("recordings/qrowd/walk/user1.txt").path

    @Test("train-activity features prints the classifier's window features of a recording")
    func featuresOfARecording() throws {
        let parsed = try CoreMotionCommand.parseAsRoot(["train-activity", "features", Self.walk, "--hop", "32"])
        let command = try #require(parsed as? TrainActivityCommand.Features)
        let lines = try command.csv().split(separator: "\n")
        #expect(lines.first == Substring("start," + ActivityFeature.allCases.map(\.description).joined(separator: ",")))
        // 20 s at 25 Hz: windows of 128 samples every 32 → (500 − 128) / 32 + 1 = 12.
        let windows = ActivityFeatureTable.windows(of: try RecordingReader.read(Self.walk).accelerometer, hopSamples: 32)
        #expect(windows.count == 12)
        #expect(lines.count == windows.count + 1)
        for (line, window) in zip(lines.dropFirst(), windows) {
            let fields = line.split(separator: ",").map { Double($0) }
            #expect(fields.count == ActivityFeature.count + 1)
            #expect(abs((fields[0] ?? .nan) - window.start) < 0.006)
            #expect(zip(fields.dropFirst(), window.features).allSatisfy { $0 == $1 })
        }
    }

    @Test("train-activity refuses bad arguments with a clear error")
    func badArguments() {
        #expect(throws: (any Error).self) { try CoreMotionCommand.parseAsRoot(["train-activity", "features", Self.walk, "--hop", "0"]) }
        #expect(throws: (any Error).self) { try CoreMotionCommand.parseAsRoot(["train-activity", "features"]) }
        #expect(throws: (any Error).self) {
            try (CoreMotionCommand.parseAsRoot(["train-activity", "features", "/nonexistent/recording.csv"]) as? TrainActivityCommand.Features)?.csv()
        }
    }
}
