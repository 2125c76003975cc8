import ArgumentParser
@testable import CoreMotionCLI
import Foundation
import MotionRecordings
import Testing
import TestSupport

@Suite struct InfoReplayCommandTests {
    static let broad = TestData.fixture("recordings/broad/broad-01-excerpt.csv").path
    static let sensorLogger = TestData.fixture("recordings/sensorlogger/ios-walk.zip").path

    @Test func infoParsesAndReports() throws {
        let parsed = try CoreMotionCommand.parseAsRoot(["info", Self.broad, "--json"])
        let info = try #require(parsed as? InfoCommand)
        #expect(info.file == Self.broad)
        #expect(info.json)
        try info.run()  // prints the JSON

        let report = InfoReport(try RecordingReader.read(Self.broad), file: Self.broad)
        #expect(report.format == "BROAD")
        #expect(report.sensors.map(\.sensor) == ["accelerometer", "gyroscope", "magnetometer"])
        #expect(report.sensors[0].samples == 5715)
        #expect(abs(report.sensors[0].rate - 285.714) < 0.01)
        #expect(report.sensors[0].gaps == 0)
        #expect(report.reference["truthAttitude"] == 5715)
        #expect(report.notices.isEmpty)
        #expect(report.text.contains("accelerometer      g     5715     285.71"))
        // JSON round trip of the report.
        let encoder = JSONEncoder()
        let decoded = try JSONDecoder().decode(InfoReport.self, from: encoder.encode(report))
        #expect(decoded == report)

        let sl = InfoReport(try RecordingReader.read(Self.sensorLogger), file: Self.sensorLogger)
        #expect(sl.device == "iPhone 13")
        #expect(sl.startDate == Date(timeIntervalSince1970: 1_735_689_600))
        #expect(sl.sensors.map(\.sensor) == ["accelerometer", "gyroscope", "magnetometer", "barometer"])
        #expect(sl.reference["attitude"] == 150)
    }

    @Test func infoListsMembersAndReportsNotices() throws {
        let parsed = try CoreMotionCommand.parseAsRoot(["info", "--members", TestData.fixture("recordings/qrowd").path])
        let info = try #require(parsed as? InfoCommand)
        #expect(info.members)
        try info.run()
        let table = InfoCommand.membersTable(try RecordingReader.members(of: TestData.fixture("recordings/qrowd")))
        #expect(table.contains("vehicle/user1"))
        #expect(table.contains("automotive"))

        // A damaged copy: the notice shows up.
        let dir = try TestData.temporaryDirectory("cli")
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = try String(contentsOfFile: Self.broad, encoding: .utf8)
        let damaged = dir.appendingPathComponent("cut.csv")
        try String(text.dropLast(40)).write(to: damaged, atomically: true, encoding: .utf8)
        let report = InfoReport(try RecordingReader.read(damaged), file: damaged.path)
        #expect(report.notices.count == 1)
        #expect(report.text.contains("cut short"))
    }

    @Test func replayPrintsAppleUnitsPerLine() throws {
        let parsed = try CoreMotionCommand.parseAsRoot(["replay", Self.sensorLogger, "--sensor", "gyro", "--limit", "3"])
        let replay = try #require(parsed as? ReplayCommand)
        #expect(replay.sensor == .gyro)
        #expect(replay.limit == 3)
        try replay.run()

        let recording = try RecordingReader.read(Self.sensorLogger)
        var data = Data()
        ReplayCommand.writeLines(recording, .accelerometer, limit: nil) { data.append($0) }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 150)
        // t,x,y,z with the shortest round-trip numbers: each line reads back to the same sample.
        for (line, sample) in zip(lines, recording.accelerometer) {
            let f = line.split(separator: ",").map { Double($0)! }
            #expect(f == [sample.time, sample.value.x, sample.value.y, sample.value.z])
        }
        var baro = Data()
        ReplayCommand.writeLines(recording, .barometer, limit: 2) { baro.append($0) }
        #expect(String(decoding: baro, as: UTF8.self) == "-0.3,101.325\n0.7,101.324\n")
        let json = ReplayCommand.samples(recording, .barometer, limit: nil)
        #expect(json.count == 3)
        #expect(json[0] == ReplayCommand.Sample(t: -0.3, kPa: 101.325))
    }

    @Test func badArgumentsAreClearErrors() throws {
        #expect(throws: (any Error).self) { try CoreMotionCommand.parseAsRoot(["replay", Self.broad, "--sensor", "thermometer"]) }
        #expect(throws: (any Error).self) { try CoreMotionCommand.parseAsRoot(["replay", Self.broad, "--sensor", "gyro", "--limit", "-1"]) }
        #expect(throws: (any Error).self) { try CoreMotionCommand.parseAsRoot(["info", Self.broad, "--format", "wav"]) }
        // Aliases people type.
        let parsed = try CoreMotionCommand.parseAsRoot(["replay", Self.broad, "--sensor", "mag", "--format", "BROAD"])
        #expect((parsed as? ReplayCommand)?.sensor == .magnetometer)
        #expect((parsed as? ReplayCommand)?.format == .broad)
        // A sensor the recording does not have.
        let noBaro = try #require(try CoreMotionCommand.parseAsRoot(["replay", Self.broad, "--sensor", "barometer"]) as? ReplayCommand)
        #expect(throws: ValidationError.self) { try noBaro.run() }
        // A missing file.
        let missing = try #require(try CoreMotionCommand.parseAsRoot(["info", "/nonexistent/walk.zip"]) as? InfoCommand)
        #expect(throws: RecordingError.self) { try missing.run() }
    }
}
