import ArgumentParser
@testable import CoreMotionCLI
import Foundation
import MotionLiveViewProtocol
import MotionRecordings
import Testing
import TestSupport

@Suite struct ViewCommandTests {
    @Test("off loopback a token is required; FILE and --device exclude each other")
    func options() throws {
        #expect(throws: (any Error).self) { try CoreMotionCommand.parseAsRoot(["view", "--host", "0.0.0.0"]) }
        #expect(throws: (any Error).self) { try CoreMotionCommand.parseAsRoot(["view", "--host", "0.0.0.0", "--token", "short"]) }
        #expect(throws: (any Error).self) { try CoreMotionCommand.parseAsRoot(["view", "file.csv", "--device", "sim:still-face-up"]) }
        #expect(throws: (any Error).self) { try CoreMotionCommand.parseAsRoot(["view", "--rate", "0"]) }
        #expect(throws: (any Error).self) { try CoreMotionCommand.parseAsRoot(["view", "--device", "sim:walking"]) }
        let parsed = try CoreMotionCommand.parseAsRoot(["view", "--host", "0.0.0.0", "--token", "long-enough", "--port", "0"])
        let view = try #require(parsed as? ViewCommand)
        #expect(view.token == "long-enough")
        #expect(try CoreMotionCommand.parseAsRoot(["view", "--device", "sim:walking-in-hand"]) is ViewCommand)
    }

    @Test("a phone's recording gives every channel, Apple's outputs and the running error, in two frames")
    func sensorLoggerTimeline() throws {
        let recording = try RecordingReader.read(TestData.fixture("recordings/sensorlogger/ios-walk.zip").path)
        let timeline = RecordingTimelineBuilder.build(recording, name: "ios-walk.zip")
        #expect(timeline.hello.referenceFrames == ["xArbitraryZVertical", "xMagneticNorthZVertical"])
        #expect(timeline.hello.referenceFrame == "xMagneticNorthZVertical")
        let keys = Set(timeline.channelKeys)
        for key in ["acc", "gyro", "mag", "grav", "user", "att", "head", "ped", "pres", "alt", "apple.att", "err.apple"] {
            #expect(keys.contains(key), "no \(key) in \(keys.sorted())")
        }
        // 1.5 s of a walk: too short for a step, but Apple's pedometer total is there.
        #expect(keys.contains("apple.steps"))
    }

    @Test("BROAD's optical truth gives the running error against the truth")
    func broadTimeline() throws {
        let recording = try RecordingReader.read(TestData.fixture("recordings/broad/broad-01-excerpt.csv").path)
        let timeline = RecordingTimelineBuilder.build(recording, name: "broad")
        #expect(Set(timeline.channelKeys).isSuperset(of: ["truth.att", "err.truth", "att", "acc"]))
    }
}
