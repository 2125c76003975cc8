import Foundation
@testable import MotionRecordings
import Testing
import TestSupport

@Suite struct SensorLogReaderTests {
    static let file = Fixture.url("sensorlog/handmade-sensorlog.csv")

    @Test func deduplicatesEachSensorOnItsOwnTimestamp() throws {
        let r = try RecordingReader.read(Self.file)
        #expect(r.metadata.format == "SensorLog")
        #expect(r.accelerometer.count == 299)  // 300 rows, one tick without a new sample
        #expect(r.gyroscope.count == 300)
        #expect(r.magnetometer.count == 150)   // 50 Hz, each value on two rows
        #expect(r.barometer.map(\.kilopascals) == [101.325, 101.3244, 101.32405])
        #expect(r.reference.relativeAltitude.map(\.value) == [0, 0.05, 0.08])
        #expect(r.reference.attitude.count == 300)
        #expect(r.location.count == 3)
        #expect(r.reference.activity.map(\.label) == ["walking", "running"])
        #expect(abs(r.reference.activity[0].time - -4.2) < 1e-9)
        #expect(r.reference.cumulativeSteps.map(\.value) == [4, 8])
        #expect(r.notices.isEmpty, "\(r.notices)")
        // Time 0 is the first raw sample; the accelerometer row 58 repeated row 57.
        #expect(r.accelerometer[0].time == 0)
        #expect(abs(r.accelerometer[58].time - 0.59) < 1e-9)
        // Wall clock of time 0 from loggingTime (2024-08-22 14:12:07.869 +0200), to the logging latency.
        let start = try #require(r.metadata.startDate)
        #expect(abs(start.timeIntervalSince1970 - 1_724_328_727.869) < 0.003)
        #expect(abs(r.reference.cumulativeSteps[0].time - 1.18) < 0.003)
        #expect(abs(r.location[0].time - 0.0) < 0.003)
        // locationAltitude(m) is Core Location's altitude above mean sea level; with its vertical accuracy.
        #expect(r.location[0].altitude == 245.2)
        #expect(r.location[0].verticalAccuracy != nil && r.location[0].fusableAltitude != nil)
        #expect(r.location[0].ellipsoidalAltitude == nil)
    }

    @Test func appleIdentitiesHoldOnTheReadValues() throws {
        let r = try RecordingReader.read(Self.file)
        var worstSum = 0.0
        for (g, u) in zip(r.reference.gravity, r.reference.userAcceleration) {
            let raw = r.accelerometer[nearest(r.accelerometer, g.time - 0.0025)]
            guard abs(raw.time - (g.time - 0.0025)) < 1e-6 else { continue }
            worstSum = max(worstSum, raw.value.maxDifference(g.value + u.value))
        }
        let worstAttitude = zip(r.reference.attitude, r.reference.gravity).map { q, g in
            let (w, x, y, z) = (q.value.w, q.value.x, q.value.y, q.value.z)
            return Vector3(-2 * (x * z - w * y), -2 * (y * z + w * x), -(1 - 2 * (x * x + y * y))).maxDifference(g.value)
        }.max()!
        let worstBias = zip(r.gyroscope, r.reference.rotationRate).map { ($0.value - $1.value).maxDifference(Vector3(0.012, -0.021, 0.004)) }.max()!
        // Six-decimal values: identities hold to a few 1e-6.
        #expect(worstSum < 3e-6)
        #expect(worstAttitude < 1e-5)
        #expect(worstBias < 3e-6)
        #expect(r.reference.calibratedMagneticField.count == 300)
        #expect(r.reference.heading.count == 300)
    }

    @Test func semicolonSeparatedReadsTheSame() throws {
        let c = try Corruptor(Self.file)
        defer { c.remove() }
        let semicolons = try c.write(c.original.replacingOccurrences(of: ",", with: ";"), as: "semicolon")
        let a = try RecordingReader.read(semicolons)
        let b = try RecordingReader.read(Self.file)
        #expect(a.accelerometer == b.accelerometer)
        #expect(a.reference.attitude == b.reference.attitude)
    }

    @Test func loggingTimeFormats() {
        let expected = 1_498_225_362.144
        for text in ["2017-06-23 15:42:42.144 +0200", "2017-06-23T15:42:42.144+02:00", "2017-06-23T13:42:42.144Z", "2017-06-23 13:42:42.144 +0000"] {
            let d = SensorLogReader.parseDate(text)
            #expect(d.map { abs($0.timeIntervalSince1970 - expected) < 1e-6 } == true, "\(text)")
        }
        #expect(SensorLogReader.parseDate("2017-06-23 15:42:42.144") == nil)  // no zone: ambiguous
        #expect(SensorLogReader.parseDate("yesterday") == nil)
        #expect(SensorLogReader.parseDate("2017-13-23 15:42:42 +0200") == nil)
    }

    @Test func damagedCopies() throws {
        let c = try Corruptor(Self.file)
        defer { c.remove() }
        let header = splitLines(c.original)[0].split(separator: ",").map(String.init)
        let accY = header.firstIndex(of: "accelerometerAccelerationY(G)")!
        let accT = header.firstIndex(of: "accelerometerTimestamp_sinceReboot(s)")!

        var r = try RecordingReader.read(try c.truncatedMidLine(), format: .sensorLog)
        #expect(r.notices(.truncatedLastLine).count == 1)
        #expect(r.gyroscope.count == 299)

        var e = expectRecordingError { try RecordingReader.read(try c.replacingField(line: 100, field: accY, with: "0.1.2", as: "garbled")) }
        #expect(e?.line == 101)
        #expect(e?.column == "accelerometerAccelerationY(G)")

        r = try RecordingReader.read(try c.replacingField(line: 100, field: accY, with: "nan", as: "nan"))
        #expect(r.accelerometer.count == 298)
        #expect(r.notices(.nonFinite).first?.line == 101)

        e = expectRecordingError { try RecordingReader.read(try c.editing(lines: 1..<301, as: "reversed") { $0.reversed() }) }
        #expect(e?.expected.contains("increasing") == true)

        // One sample out of order is skipped.
        r = try RecordingReader.read(try c.replacingField(line: 150, field: accT, with: "62609.0", as: "jump"))
        #expect(r.notices(.outOfOrder).count == 1)

        e = expectRecordingError { try RecordingReader.read(try c.droppingColumn(accY, lines: 0..<301), format: .sensorLog) }
        #expect(e?.column == "accelerometerAccelerationY(G)")
        e = expectRecordingError { try RecordingReader.read(try c.write("", as: "empty"), format: .sensorLog) }
        #expect(e?.found == "an empty file")
        e = expectRecordingError { try RecordingReader.read(try c.write("time,x\n1,2\n", as: "foreign"), format: .sensorLog) }
        #expect(e?.expected == "loggingTime(txt)")
    }
}
