import ArgumentParser
@testable import CoreMotionCLI
import Foundation
import MotionEngine
import MotionEvaluation
import MotionRecordings
import MotionSamples
import Testing
import TestSupport

/// Names typed in the tool's options: formats, sensors, scenes, settings; a misspelt one is refused with
/// a "did you mean" and the list.
@Suite("coremotion: names people type")
struct NamesTests {
    static let broad = TestData.fixture("recordings/broad/broad-01-excerpt.csv").path

    /// The message the tool prints for `arguments` (parsing, validation, or the run's error).
    static func message(_ arguments: [String]) -> String? {
        do {
            // Parsing validates; a synchronous command then runs (each case here fails before doing anything).
            var command = try CoreMotionCommand.parseAsRoot(arguments)
            if !(command is any AsyncParsableCommand) { try command.run() }
            return nil
        } catch {
            return CoreMotionCommand.message(for: error)
        }
    }

    @Test("recording formats: short or full name in any case; a misspelt one is suggested")
    func formats() throws {
        #expect(try Names.recordingFormat("sensorlogger") == .sensorLogger)
        #expect(try Names.recordingFormat("Sensor Logger") == .sensorLogger)
        #expect(try Names.recordingFormat("CMREC") == .native)
        #expect(throws: Names.Unknown.self) { try Names.recordingFormat("sensorloger") }
        let text = try #require(Self.message(["info", Self.broad, "--format", "sensorloger"]))
        #expect(text.contains("unknown recording format 'sensorloger'; did you mean 'sensorlogger'? formats: cmrec, broad, "), "\(text)")
        let full = try #require(Self.message(["replay", Self.broad, "--sensor", "acc", "--format", "Sensor Loger"]))
        #expect(full.contains("did you mean 'Sensor Logger'?"), "\(full)")
        // The short and the full name of one format are one suggestion.
        let one = try #require(Self.message(["info", Self.broad, "--format", "motionsens"]))
        #expect(one.contains("did you mean 'motionsense'? formats: "), "\(one)")
        let far = try #require(Self.message(["info", Self.broad, "--format", "wav"]))
        #expect(far.contains("unknown recording format 'wav'; formats: ") && !far.contains("did you mean"), "\(far)")
    }

    @Test("sensor names: the same spellings for replay --sensor and record --sensors")
    func sensors() throws {
        #expect(try Names.sensor("acc") == .accelerometer)
        #expect(try Names.sensor(" Gyro ") == .gyroscope)
        #expect(try Names.sensor("gyroscope") == .gyroscope)
        #expect(try Names.sensors("accelerometer,mag,pressure") == [.accelerometer, .magnetometer, .barometer])
        let replay = try #require(Self.message(["replay", Self.broad, "--sensor", "gyroscop"]))
        #expect(replay.contains("unknown sensor 'gyroscop'; did you mean 'gyroscope'? sensors: accelerometer, gyroscope, magnetometer, barometer"), "\(replay)")
        let record = try #require(Self.message(["record", "--output", "/tmp/never.cmrec", "--sensors", "accelerometer,magnetomter"]))
        #expect(record.contains("unknown sensor 'magnetomter'; did you mean 'magnetometer'?"), "\(record)")
        let thermometer = try #require(Self.message(["replay", Self.broad, "--sensor", "thermometer"]))
        #expect(thermometer.contains("unknown sensor 'thermometer'; sensors: "), "\(thermometer)")
    }

    @Test("simulate: a misspelt scene names the closest and lists them all")
    func scenes() throws {
        let text = try #require(Self.message(["simulate", "walking", "--duration", "1"]))
        #expect(text.contains("unknown scene 'walking'; did you mean 'walking-in-hand'? scenes: still-face-up, "), "\(text)")
        let pocket = try #require(Self.message(["simulate", "poket-walk", "--duration", "1"]))
        #expect(pocket.contains("did you mean 'pocket-walk'?"), "\(pocket)")
    }

    @Test("--device on the tool's commands takes the same messages as COREMOTION_DEVICE")
    func deviceOption() throws {
        let demo = try #require(Self.message(["demo", "--device", "sim:walking"]))
        #expect(demo.contains("did you mean 'walking-in-hand'?"), "\(demo)")
        let record = try #require(Self.message(["record", "--output", "/tmp/never.cmrec", "--device", "replya:/x"]))
        #expect(record.contains("did you mean 'replay:'?"), "\(record)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never.cmrec"))
    }

    @Test("evaluate --set and iio-emulate --driver suggest too")
    func otherNames() throws {
        var settings = FusionFilter.Settings()
        do {
            try SettingsOverrides.apply(["biasLimt=0.1"], to: &settings)
            Issue.record("an unknown setting was accepted")
        } catch {
            #expect("\(error)".contains("bad --set 'biasLimt=0.1': unknown setting 'biasLimt'; did you mean 'biasLimit'?"), "\(error)")
        }
        let driver = try #require(Self.message(["iio-emulate", "--root", "/tmp/never-tree", "--driver", "mpu6500"]))
        #expect(driver.contains("unknown driver 'mpu6500'; did you mean 'mpu6050'?"), "\(driver)")
    }
}
