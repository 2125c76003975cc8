import Foundation
import MotionRecordings
import Testing
import TestSupport

@Suite struct MPowerReaderTests {
    static let folder = Fixture.url("mpower")

    func worstAttitudeGravity(_ r: Recording) -> Double {
        zip(r.reference.attitude, r.reference.gravity).map { $0.value.inverseRotate(Vector3(0, 0, -1)).maxDifference($1.value) }.max() ?? .infinity
    }

    @Test func membersOfTheFolder() throws {
        let members = try RecordingReader.members(of: Self.folder)
        #expect(Set(members.map(\.name)) == ["walk", "flat", "json/phone_data_test"])
        #expect(try RecordingReader.detect(Self.folder) == .mPower)
    }

    @Test func walkDeviceMotion() throws {
        let r = try RecordingReader.read(Self.folder.path + "#walk")
        #expect(r.metadata.format == "mPower")
        #expect(r.accelerometer.count == 1000)
        #expect(r.gyroscope.count == 1000)
        #expect(r.magnetometer.isEmpty)  // magneticField.accuracy −1: not recorded
        #expect(r.accelerometer[0].time == 0)
        #expect(r.accelerometer[1].time == 0.00998000000254251)
        // Row 1: gravity (0.488391369581222, 0.871670663356781, 0.0407941974699497) + user (−0.109668217599392, −0.206601068377495, 0.0452806316316128).
        #expect(r.accelerometer[0].value == Vector3(0.488391369581222, 0.871670663356781, 0.0407941974699497) + Vector3(-0.109668217599392, -0.206601068377495, 0.0452806316316128))
        #expect(r.reference.attitude[0].value == Quaternion(w: 0.692525599915805, x: -0.627623542529534, y: 0.355648404360719, z: -0.00334586305863804))
        #expect(r.reference.rotationRate == r.gyroscope)
        // Measured: 2.98e-8 g between Apple's attitude and Apple's gravity (formula of docs/conventions.md#gravity-from-the-attitude).
        #expect(worstAttitudeGravity(r) < 1e-7)
        #expect(abs(1 / medianInterval(r.times(of: .accelerometer)) - 99.9) < 0.2)
        #expect(r.notices.isEmpty)
    }

    /// The three CSVs and the ResearchKit JSON hold the same flat record: both readings agree.
    @Test func trioAndJSONAgree() throws {
        let trio = try RecordingReader.read(Self.folder.path + "#flat")
        let json = try RecordingReader.read(Self.folder.appendingPathComponent("json/phone_data_test.json"))
        #expect(trio.accelerometer.count == 300)
        #expect(json.accelerometer.count == 300)
        #expect(trio.reference.attitude.isEmpty)
        #expect(json.reference.attitude.count == 300)
        #expect(json.metadata.properties["timeOrigin"] == "1054137.213619292 s since boot")
        // The CSVs were flattened with 15 significant digits.
        let worstValue = zip(trio.accelerometer, json.accelerometer).map { $0.value.maxDifference($1.value) }.max()!
        let worstTime = zip(trio.accelerometer, json.accelerometer).map { abs($0.time - $1.time) }.max()!
        let worstGyro = zip(trio.gyroscope, json.gyroscope).map { $0.value.maxDifference($1.value) }.max()!
        #expect(worstValue < 1e-14)
        #expect(worstGyro < 1e-14)
        #expect(worstTime < 1e-9)
        // The phone lies flat: Apple's gravity is (0, 0, −1).
        #expect(json.reference.gravity[0].value.z < -0.99)
        #expect(worstAttitudeGravity(json) < 1e-7)  // measured 2.97e-8 g
        // A file of the trio reads the trio.
        let one = try RecordingReader.read(Self.folder.appendingPathComponent("csv/gravity_data.csv"))
        #expect(one.accelerometer == trio.accelerometer)
    }

    @Test(.enabled(if: TestData.has("mpower"), Comment(rawValue: TestData.skipNotice("mpower"))))
    func everyPublishedFile() throws {
        let folder = TestData.url("mpower")
        let counts = ["walk": 2991, "balance": 3002, "rest_tremor": 862, "kinetic_tremor": 869, "flat": 990, "json/phone_data_test": 990]
        let members = try RecordingReader.members(of: folder)
        #expect(Set(members.map(\.name)) == Set(counts.keys))
        var worst = 0.0
        for m in members {
            let r = try RecordingReader.read(folder.path + "#" + m.name)
            #expect(r.accelerometer.count == counts[m.name], "\(m.name)")
            let rate = 1 / medianInterval(r.times(of: .accelerometer))
            #expect(rate > 90 && rate < 101, "\(m.name): \(rate) Hz")
            if !r.reference.attitude.isEmpty { worst = max(worst, worstAttitudeGravity(r)) }
        }
        // Measured: 2.98e-8 g in every file (as on the iPhone 13 Sensor Logger walk).
        #expect(worst < 1e-7)
    }

    @Test func damagedCopies() throws {
        let c = try Corruptor(Self.folder.appendingPathComponent("csv/walk_data.csv"))
        defer { c.remove() }
        var r = try RecordingReader.read(try c.truncatedMidLine())
        #expect(r.accelerometer.count == 999)
        #expect(r.notices(.truncatedLastLine).count == 1)
        var e = expectRecordingError { try RecordingReader.read(try c.replacingField(line: 30, field: 12, with: "0.8.7", as: "garbled")) }
        #expect(e?.line == 31)
        #expect(e?.column == "gravity.y")
        r = try RecordingReader.read(try c.replacingField(line: 30, field: 1, with: "Inf", as: "inf"))
        #expect(r.accelerometer.count == 999)
        #expect(r.notices(.nonFinite).first?.line == 31)
        e = expectRecordingError { try RecordingReader.read(try c.droppingColumn(4, lines: 0..<1001), format: .mPower) }
        #expect(e?.column == "timestamp")
        e = expectRecordingError { try RecordingReader.read(try c.editing(lines: 1..<1001, as: "reversed") { $0.reversed() }, format: .mPower) }
        #expect(e?.column == "timestamp")

        let j = try Corruptor(Self.folder.appendingPathComponent("json/phone_data_test.json"))
        defer { j.remove() }
        e = expectRecordingError { try RecordingReader.read(try j.write(String(j.original.dropLast(500)), as: "cut"), format: .mPower) }
        #expect(e?.expected.contains("valid JSON") == true)
        e = expectRecordingError {
            try RecordingReader.read(try j.write(j.original.replacingOccurrences(of: "\"gravity\":{\"x\":", with: "\"gravity\":{\"q\":"), as: "nogravity"), format: .mPower)
        }
        #expect(e?.column == "items[0].gravity.x")
        e = expectRecordingError { try RecordingReader.read(try j.write("", as: "empty"), format: .mPower) }
        #expect(e?.found == "an empty file")
    }
}
