import Foundation
@testable import MotionRecordings
import Testing
import TestSupport

@Suite struct IPOLGaitReaderTests {
    static let handmade = Fixture.url("ipol/handmade-gait.zip")

    @Test func handMadeTrialInPhoneAxes() throws {
        #expect(try RecordingReader.detect(Self.handmade) == .ipolGait)
        let members = try RecordingReader.members(of: Self.handmade)
        #expect(members.map(\.name) == ["99-1"])
        #expect(members[0].properties["stepTotal"] == "9")
        let r = try RecordingReader.read(Self.handmade)
        #expect(r.accelerometer.count == 600)
        #expect(r.gyroscope.count == 600)
        #expect(r.magnetometer.isEmpty)
        #expect(r.accelerometer[1].time == 0.01)
        // Row 1: Acc (9.218385, 0, 3.355218) m/s², X up, Z backward tilted up 20° → phone (−Y, X, Z) / −9.80665.
        #expect(r.accelerometer[0].value == Vector3(-0.0 / -9.80665, 9.218385 / -9.80665, 3.355218 / -9.80665))
        #expect(r.gyroscope[0].value == Vector3(0.001, 0.002, 0.003))
        // Standing upright with the screen facing backward and up: y ≈ −0.94 g, z ≈ −0.34 g.
        #expect(abs(r.accelerometer[0].value.y - -0.9400) < 1e-3)
        #expect(abs(r.accelerometer[0].value.z - -0.3421) < 1e-3)
        #expect(r.reference.stepTotal == 9)
        #expect(r.reference.stepTimes.first == 1.0)
        #expect(r.reference.stepTimes.count == 9)
        #expect(r.metadata.properties["subject"] == "99")
        #expect(r.metadata.properties["trialBoundaries"] == "100…590 (samples)")
        #expect(r.metadata.licence?.contains("AGPL") == true)
    }

    /// The axis mapping on the real trials: standing, the phone-like y axis points up; in the U-turn
    /// the centripetal acceleration (Apple's sign: toward the outside of the turn) has the sign of the
    /// yaw rate about the vertical along x (a = ω × v with v forward: x must point right).
    @Test(.enabled(if: TestData.has("ipol-gait"), Comment(rawValue: TestData.skipNotice("ipol-gait"))))
    func axesOnTheRealTrials() throws {
        let zip = TestData.url("ipol-gait/GaitData_lowerback_and_footevents.zip")
        let members = try RecordingReader.members(of: zip)
        #expect(members.count == 110)
        var agree = 0
        var decided = 0
        var steps = 0
        for m in members {
            let r = try RecordingReader.read(zip.path + "#" + m.name, format: .ipolGait)
            steps += r.reference.stepTotal ?? 0
            // Boundaries are sample indices on the PacketCounter time axis (t = index / 100 s).
            let boundaries = (m.properties["trialBoundaries"] ?? "").split(separator: "…").compactMap { Double($0.split(separator: " ")[0]) }.map { $0 / 100 }
            let turn = (m.properties["uTurnBoundaries"] ?? "").split(separator: "…").compactMap { Double($0.split(separator: " ")[0]) }.map { $0 / 100 }
            guard boundaries.count == 2, turn.count == 2 else {
                Issue.record("\(m.name): no boundaries")
                continue
            }
            #expect(boundaries[1] <= r.accelerometer.last!.time, "\(m.name)")
            let walk = r.accelerometer.filter { ($0.time >= boundaries[0] && $0.time < turn[0]) || ($0.time >= turn[1] && $0.time < boundaries[1]) }
            let mean = walk.reduce(Vector3.zero) { $0 + $1.value } / Double(walk.count)
            #expect(mean.y < -0.75, "\(m.name): the up axis is y")
            let up = -mean.normalized
            let turning = r.accelerometer.filter { $0.time >= turn[0] && $0.time < turn[1] }
            let turningRates = r.gyroscope.filter { $0.time >= turn[0] && $0.time < turn[1] }
            let yawRate = turningRates.reduce(0) { $0 + $1.value.dot(up) } / Double(turningRates.count)
            let lateral = turning.reduce(0) { $0 + $1.value.x } / Double(turning.count) - mean.x
            guard abs(yawRate) > 0.3 else { continue }
            decided += 1
            if (lateral > 0) == (yawRate > 0) { agree += 1 }
        }
        // Measured: 106 of the 110 trials agree;
        // 3,866 annotated steps, the data set's figure.
        #expect(decided == 110)
        #expect(agree >= 104)
        #expect(steps == 3866)
    }

    @Test func damagedCopies() throws {
        let tmp = try TestData.temporaryDirectory("ipol")
        defer { try? FileManager.default.removeItem(at: tmp) }
        let container = try RecordingContainer(Self.handmade)
        let lb = tmp.appendingPathComponent("99-1_lb.txt")
        try Data(try container.read("GaitData/99-1_lb.txt").bytes).write(to: lb)
        try Data(try container.read("GaitData/99-1.json").bytes).write(to: tmp.appendingPathComponent("99-1.json"))
        let plain = try RecordingReader.read(lb)
        #expect(plain.accelerometer.count == 600)
        #expect(plain.reference.stepTotal == 9)

        let c = try Corruptor(lb)
        defer { c.remove() }
        var r = try RecordingReader.read(try c.truncatedMidLine(), format: .ipolGait)
        #expect(r.accelerometer.count == 599)
        #expect(r.notices(.truncatedLastLine).count == 1)
        #expect(r.notices(.other).count == 1)  // the damaged copy has no JSON beside it
        var e = expectRecordingError { try RecordingReader.read(try c.replacingField(line: 40, field: 2, with: "0..1", separator: "\t", as: "garbled"), format: .ipolGait) }
        #expect(e?.line == 41)
        #expect(e?.column == "Acc_Y")
        r = try RecordingReader.read(try c.replacingField(line: 40, field: 5, with: "nan", separator: "\t", as: "nan"), format: .ipolGait)
        #expect(r.gyroscope.count == 599)
        #expect(r.accelerometer.count == 600)
        e = expectRecordingError { try RecordingReader.read(try c.editing(lines: 2..<602, as: "reversed") { $0.reversed() }, format: .ipolGait) }
        #expect(e?.column == "PacketCounter")
        e = expectRecordingError { try RecordingReader.read(try c.droppingColumn(4, lines: 1..<602, separator: "\t"), format: .ipolGait) }
        #expect(e?.column == "Gyr_X")
        e = expectRecordingError { try RecordingReader.read(try c.write("", as: "empty"), format: .ipolGait) }
        #expect(e?.found == "an empty file")
        // Broken events JSON beside a good trial.
        try "{\"LeftFootEvents\": 3}".write(to: tmp.appendingPathComponent("99-1.json"), atomically: true, encoding: .utf8)
        e = expectRecordingError { try RecordingReader.read(lb) }
        #expect(e?.column == "LeftFootEvents")
    }

    /// Damaged copies of a real trial (AGPL data, copied to a temporary folder only).
    @Test(.enabled(if: TestData.has("ipol-gait"), Comment(rawValue: TestData.skipNotice("ipol-gait"))))
    func damagedCopiesOfARealTrial() throws {
        let tmp = try TestData.temporaryDirectory("ipol-real")
        defer { try? FileManager.default.removeItem(at: tmp) }
        let container = try RecordingContainer(TestData.url("ipol-gait/GaitData_lowerback_and_footevents.zip"))
        let lb = tmp.appendingPathComponent("3-1_lb.txt")
        try Data(try container.read("GaitData/3-1_lb.txt").bytes).write(to: lb)
        try Data(try container.read("GaitData/3-1.json").bytes).write(to: tmp.appendingPathComponent("3-1.json"))
        let whole = try RecordingReader.read(lb)
        #expect(whole.accelerometer.count == 3269)
        #expect(whole.reference.stepTotal == 39)
        let c = try Corruptor(lb)
        defer { c.remove() }
        let r = try RecordingReader.read(try c.truncatedMidLine(), format: .ipolGait)
        #expect(r.accelerometer.count == 3268)
        #expect(r.notices(.truncatedLastLine).count == 1)
        let e = expectRecordingError { try RecordingReader.read(try c.replacingField(line: 1000, field: 3, with: "4,88", separator: "\t", as: "comma"), format: .ipolGait) }
        #expect(e?.line == 1001)
        #expect(e?.column == "Acc_Z")
    }
}

