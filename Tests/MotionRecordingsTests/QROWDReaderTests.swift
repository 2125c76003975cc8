import Foundation
import MotionRecordings
import Testing
import TestSupport

@Suite struct QROWDReaderTests {
    static let folder = Fixture.url("qrowd")

    @Test func readsAFileAsUniform25HzWithItsClass() throws {
        let r = try RecordingReader.read(Self.folder.appendingPathComponent("walk/user1.txt"))
        #expect(r.metadata.format == "QROWD")
        #expect(r.accelerometer.count == 500)
        #expect(r.accelerometer[1].time == 0.04)
        #expect(r.accelerometer.last?.time == 499.0 / 25)
        // −2.60148644447327, −9.42528057098389, 1.52547895908356 m/s² (Android) → Apple g.
        #expect(r.accelerometer[0].value == Vector3(-2.60148644447327 / -9.80665, -9.42528057098389 / -9.80665, 1.52547895908356 / -9.80665))
        // Android y = −9.4 m/s² means the phone's top points down (upside down in a pocket):
        // Apple's y reads +0.96 g.
        #expect(r.accelerometer[0].value.y > 0.9)
        #expect(r.reference.activity == [TimedLabel(time: 0, label: "walking")])
        #expect(r.metadata.properties["label"] == "walking")
        #expect(r.notices.isEmpty)
    }

    @Test func quotedNumbersAndMembersOfTheFolder() throws {
        let members = try RecordingReader.members(of: Self.folder)
        #expect(members.map(\.name) == ["vehicle/user1", "walk/user1"])
        #expect(members.first?.properties["activity"] == "automotive")
        #expect(members.first?.properties["label"] == "driving")
        let r = try RecordingReader.read(Self.folder.path + "#vehicle/user1")
        #expect(r.accelerometer.count == 500)
        #expect(r.accelerometer[0].value.y == 7.45033025741577 / -9.80665)
        #expect(r.reference.activity.first?.label == "automotive")
        let e = expectRecordingError { try RecordingReader.read(Self.folder) }
        #expect(e?.expected.contains("vehicle/user1") == true)
    }

    @Test(.enabled(if: TestData.has("qrowd"), Comment(rawValue: TestData.skipNotice("qrowd"))))
    func readsEveryPublishedStream() throws {
        let folder = TestData.url("qrowd")
        let members = try RecordingReader.members(of: folder)
        #expect(members.count == 10)
        // Rows per file (wc -l minus the header) and the five Core Motion classes.
        let rows = ["cycling/user1": 19900, "cycling/user2": 16400, "run/user1": 13600, "run/user2": 12700, "still/user1": 27600,
                    "still/user2": 38100, "vehicle/user1": 17300, "vehicle/user2": 34700, "walk/user1": 22900, "walk/user2": 14500]
        var classes: Set<String> = []
        for m in members {
            let r = try RecordingReader.read(folder.path + "#" + m.name)
            #expect(r.accelerometer.count == rows[m.name], "\(m.name)")
            #expect(r.reference.activity.count == 1, "\(m.name)")
            classes.insert(r.reference.activity[0].label)
            // Whatever the activity, the mean acceleration is about 1 g (gravity).
            let mean = r.accelerometer.reduce(Vector3.zero) { $0 + $1.value } / Double(r.accelerometer.count)
            #expect(mean.norm > 0.5 && mean.norm < 1.2, "\(m.name): \(mean.norm)")
        }
        #expect(classes == ["stationary", "walking", "running", "cycling", "automotive"])
    }

    @Test func damagedCopies() throws {
        let c = try Corruptor(Self.folder.appendingPathComponent("walk/user1.txt"))
        defer { c.remove() }
        var r = try RecordingReader.read(try c.truncatedMidLine(), format: .qrowd)
        #expect(r.accelerometer.count == 499)
        #expect(r.notices(.truncatedLastLine).count == 1)

        var e = expectRecordingError { try RecordingReader.read(try c.replacingField(line: 50, field: 1, with: "9..4", as: "garbled")) }
        #expect(e?.line == 51)
        #expect(e?.column == "y")

        r = try RecordingReader.read(try c.replacingField(line: 50, field: 2, with: "NaN", as: "nan"))
        #expect(r.accelerometer.count == 499)
        // Data row 49 (t = 1.96 s) is skipped: a one-period hole, later rows keep their times.
        #expect(r.accelerometer[48].time == 48.0 / 25)
        #expect(r.accelerometer[49].time == 50.0 / 25)
        #expect(r.notices(.nonFinite).first?.line == 51)

        e = expectRecordingError { try RecordingReader.read(try c.droppingColumn(2, lines: 1..<501), format: .qrowd) }
        #expect(e?.expected == "4 fields")

        // Two rows run together ("…,1.5,\"walking\"-2.6,-9.4,…" would read the second row's x as the
        // class of the first and lose the second row): refused at that line.
        e = expectRecordingError { try RecordingReader.read(try c.editing(line: 50, as: "merged") { $0.replacingOccurrences(of: "\"walking\"", with: "nan") + c.lines[51] }, format: .qrowd) }
        #expect(e?.line == 51)
        #expect(e?.column == "5")
        #expect(e?.expected.hasPrefix("at most 4 fields") == true)
        #expect(e?.found?.hasPrefix("7 fields") == true)

        e = expectRecordingError { try RecordingReader.read(try c.write("", as: "empty"), format: .qrowd) }
        #expect(e?.found == "an empty file")
        e = expectRecordingError { try RecordingReader.read(try c.write("t,ax\n1,2\n", as: "foreign"), format: .qrowd) }
        #expect(e?.line == 1)
    }
}
