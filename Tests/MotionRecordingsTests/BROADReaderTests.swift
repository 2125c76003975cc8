import Foundation
import MotionRecordings
import Testing
import TestSupport

@Suite struct BROADReaderTests {
    static let excerpt = Fixture.url("broad/broad-01-excerpt.csv")

    @Test func readsTheExcerptInAppleUnits() throws {
        let r = try RecordingReader.read(Self.excerpt)
        #expect(r.metadata.format == "BROAD")
        #expect(r.metadata.properties["trial"] == "01_undisturbed_slow_rotation_A")
        #expect(r.metadata.licence?.contains("CC BY 4.0") == true)
        // 5,715 rows of 25 ≤ t < 45 s at 285.714 Hz.
        #expect(r.accelerometer.count == 5715)
        #expect(r.gyroscope.count == 5715)
        #expect(r.magnetometer.count == 5715)
        #expect(r.reference.truthAttitude.count == 5715)
        #expect(r.reference.truthScored.count == 5715)
        #expect(abs(1 / medianInterval(r.times(of: .accelerometer)) - 285.714) < 0.01)
        #expect(r.notices.isEmpty, "\(r.notices)")
        // First row: az = 9.94776398 m/s² specific force → −1.01438… g (lying face up reads −1 g).
        let first = r.accelerometer[0]
        #expect(first.time == 25.0005)
        #expect(first.value.z == 9.94776398 / -9.80665)
        #expect(first.value.x == -0.211662418 / -9.80665)
        #expect(r.gyroscope[0].value == Vector3(0.0042603487, 0, 0.00852244274))
        #expect(r.magnetometer[0].value == Vector3(0.37272157, 15.5199835, -39.5295625))
        #expect(r.reference.truthAttitude[0].value == Quaternion(w: 0.999725716, x: -0.0198162911, y: 0.0123981895, z: -0.001446559))
        // The scored phase starts at t = 33.796 s in this trial.
        let firstScored = r.reference.truthAttitude[r.reference.truthScored.firstIndex(of: true)!].time
        #expect(firstScored == 33.796)
    }

    /// At rest, Apple's acceleration (g) must equal the reference "down" seen through the optical
    /// truth: down_device = q* ⊗ (0, 0, −1) ⊗ q. This checks the sign and the axes of both.
    @Test func accelerationAtRestAgreesWithTheTruthAttitude() throws {
        let r = try RecordingReader.read(Self.excerpt)
        var worst = 0.0
        var n = 0
        for (i, a) in r.accelerometer.enumerated() where a.time < 30 {
            let q = r.reference.truthAttitude[i].value
            guard q.isFinite else { continue }
            let down = q.inverseRotate(Vector3(0, 0, -1))
            worst = max(worst, a.value.normalized.angle(to: down))
            n += 1
        }
        #expect(n > 1000)
        // Measured: 0.0232 rad (1.3°) over 1,419 samples: sensor noise and the IMU-to-marker alignment.
        #expect(worst < 0.05)
    }

    @Test(.enabled(if: TestData.has("broad"), Comment(rawValue: TestData.skipNotice("broad"))))
    func readsEveryTrialWithTheManifestCounts() throws {
        let folder = TestData.url("broad")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("manifest.json"))) as! [String: Any]
        let trials = manifest["trials"] as! [String: [String: Any]]
        let members = try RecordingReader.members(of: folder)
        #expect(Set(members.map(\.name)) == Set(trials.keys))
        for (name, info) in trials.sorted(by: { $0.key < $1.key }) {
            let r = try RecordingReader.read(folder.appendingPathComponent(info["file"] as! String))
            #expect(r.accelerometer.count == info["samples"] as! Int, "\(name)")
            #expect(r.reference.truthScored.filter { $0 }.count == info["valid_samples"] as! Int, "\(name)")
            #expect(r.reference.truthAttitude.filter { !$0.value.isFinite }.count == info["gt_nan_samples"] as! Int, "\(name)")
            #expect(abs(1 / medianInterval(r.times(of: .gyroscope)) - 285.714) < 0.01, "\(name)")
            #expect(r.notices.allSatisfy { $0.kind == .gap }, "\(name): \(r.notices)")
        }
        // A member of the folder by name.
        let one = try RecordingReader.read(folder.appendingPathComponent("#28_disturbed_stationary_magnet_A").path)
        #expect(one.metadata.properties["trial"] == "28_disturbed_stationary_magnet_A")
    }

    // MARK: bad input, on corrupted copies of the real excerpt

    @Test func truncatedLastLineIsSkipped() throws {
        let c = try Corruptor(Self.excerpt)
        defer { c.remove() }
        let r = try RecordingReader.read(try c.truncatedMidLine())
        #expect(r.accelerometer.count == 5714)
        #expect(r.notices(.truncatedLastLine).count == 1)
        #expect(r.notices(.truncatedLastLine).first?.line == 5722)
    }

    @Test func garbledFieldIsAnErrorNamingLineAndColumn() throws {
        let c = try Corruptor(Self.excerpt)
        defer { c.remove() }
        let url = try c.replacingField(line: 107, field: 2, with: "-0.36x3164852", as: "garbled")
        let error = expectRecordingError { try RecordingReader.read(url) }
        #expect(error?.line == 108)
        #expect(error?.column == "ay")
        #expect(error?.expected == "a number")
        #expect(error?.found == "-0.36x3164852")
        #expect(error?.description.contains(":108 column ay") == true)
    }

    @Test func rowsRunTogetherAreRefusedAndTrailingSeparatorsAllowed() throws {
        let c = try Corruptor(Self.excerpt)
        defer { c.remove() }
        // A lost line break: the second row's fields would be ignored (a silently lost sample).
        let error = expectRecordingError { try RecordingReader.read(try c.joiningLine(107)) }
        #expect(error?.line == 108)
        #expect(error?.column == "16")
        #expect(error?.expected.hasPrefix("at most 15 fields") == true)
        // A separator at the end of every line adds only empty fields: read as before.
        let trailing = try c.editing(lines: 0..<c.lines.count, as: "trailing") { rows in
            rows.map { $0.first?.isNumber == true || $0.hasPrefix("-") ? $0 + "," : $0 }
        }
        let r = try RecordingReader.read(trailing)
        #expect(r.accelerometer.count == 5715)
        #expect(r.magnetometer.count == 5715)
    }

    @Test func nonFiniteValuesSkipOnlyTheirSensor() throws {
        let c = try Corruptor(Self.excerpt)
        defer { c.remove() }
        var url = try c.replacingField(line: 200, field: 1, with: "nan", as: "nan")
        var text = try splitLines(String(contentsOf: url, encoding: .utf8))
        var fields = text[300].split(separator: ",").map(String.init)
        fields[5] = "inf"
        text[300] = fields.joined(separator: ",")
        url = try c.write(text.joined(separator: "\n"), as: "nan-inf")
        let r = try RecordingReader.read(url)
        #expect(r.accelerometer.count == 5714)
        #expect(r.gyroscope.count == 5714)
        #expect(r.magnetometer.count == 5715)
        let nonFinite = r.notices(.nonFinite)
        #expect(nonFinite.count == 2)
        #expect(nonFinite.map(\.line).contains(201))
        #expect(nonFinite.map(\.line).contains(301))
    }

    @Test func reversedTimestampsAreRefused() throws {
        let c = try Corruptor(Self.excerpt)
        defer { c.remove() }
        let url = try c.editing(lines: 7..<5722, as: "reversed") { $0.reversed() }
        let error = expectRecordingError { try RecordingReader.read(url) }
        #expect(error?.column == "t")
        #expect(error?.expected.contains("at most 1 %") == true)
    }

    @Test func fewRowsOutOfOrderOrRepeatedAreSkipped() throws {
        let c = try Corruptor(Self.excerpt)
        defer { c.remove() }
        // Swap two rows (one goes back in time) and repeat another.
        let url = try c.editing(lines: 1000..<1003, as: "swapped") { rows in [rows[1], rows[0], rows[2], rows[2]] }
        let r = try RecordingReader.read(url)
        #expect(r.accelerometer.count == 5714)
        #expect(r.notices(.outOfOrder).first?.count == 1)
        #expect(r.notices(.duplicateTime).first?.count == 1)
        let times = r.times(of: .accelerometer)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func gapsAreReported() throws {
        let c = try Corruptor(Self.excerpt)
        defer { c.remove() }
        let url = try c.editing(lines: 2000..<2700, as: "gap") { _ in [] }
        let r = try RecordingReader.read(url)
        // 700 rows removed: one interval of 701 × 3.5 ms = 2.4535 s.
        let gaps = r.notices(.gap)
        #expect(gaps.count == 1)
        #expect(gaps.first?.message.contains("longest 2.45") == true, "\(gaps)")
    }

    @Test func missingColumnIsAnError() throws {
        let c = try Corruptor(Self.excerpt)
        defer { c.remove() }
        let url = try c.droppingColumn(6, lines: 6..<5722)
        let error = expectRecordingError { try RecordingReader.read(url, format: .broad) }
        #expect(error?.column == "gz")
        #expect(error?.line == 7)
    }

    @Test func emptyAndForeignFilesAreRefused() throws {
        let c = try Corruptor(Self.excerpt)
        defer { c.remove() }
        let empty = try c.write("", as: "empty")
        let e1 = expectRecordingError { try RecordingReader.read(empty) }
        #expect(e1?.expected.contains("supported recording format") == true)
        #expect(e1?.expected.contains("BROAD") == true)
        let e2 = expectRecordingError { try RecordingReader.read(empty, format: .broad) }
        #expect(e2?.found == "an empty file")
        let foreign = try c.write("\"x\",\"y\",\"z\",\"class\"\n1,2,3,\"walking\"\n", as: "foreign")
        let e3 = expectRecordingError { try RecordingReader.read(foreign, format: .broad) }
        #expect(e3?.column == "t")
    }
}
