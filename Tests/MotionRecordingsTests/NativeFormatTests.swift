import Foundation
@testable import MotionRecordings
import Testing
import TestSupport

/// Bit-for-bit equality of two recordings' samples and reference data (NaN equals NaN, −0 ≠ +0).
func bitIdentical(_ a: Recording, _ b: Recording, sourceLocation: SourceLocation = #_sourceLocation) {
    func same(_ x: Double, _ y: Double) -> Bool { x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN) }
    func vectors(_ p: [TimedVector], _ q: [TimedVector], _ name: String) {
        #expect(p.count == q.count, "\(name) count", sourceLocation: sourceLocation)
        let bad = Array(zip(p, q)).firstIndex { !(same($0.time, $1.time) && same($0.value.x, $1.value.x) && same($0.value.y, $1.value.y) && same($0.value.z, $1.value.z)) }
        #expect(bad == nil, "\(name) differs at \(bad ?? -1)", sourceLocation: sourceLocation)
    }
    func quaternions(_ p: [TimedQuaternion], _ q: [TimedQuaternion], _ name: String) {
        #expect(p.count == q.count, "\(name) count", sourceLocation: sourceLocation)
        let bad = Array(zip(p, q)).firstIndex { !(same($0.time, $1.time) && same($0.value.w, $1.value.w) && same($0.value.x, $1.value.x) && same($0.value.y, $1.value.y) && same($0.value.z, $1.value.z)) }
        #expect(bad == nil, "\(name) differs at \(bad ?? -1)", sourceLocation: sourceLocation)
    }
    func scalars(_ p: [TimedScalar], _ q: [TimedScalar], _ name: String) {
        #expect(p.count == q.count && zip(p, q).allSatisfy { same($0.time, $1.time) && same($0.value, $1.value) }, "\(name)", sourceLocation: sourceLocation)
    }
    vectors(a.accelerometer, b.accelerometer, "accelerometer")
    vectors(a.gyroscope, b.gyroscope, "gyroscope")
    vectors(a.magnetometer, b.magnetometer, "magnetometer")
    #expect(a.barometer.count == b.barometer.count && zip(a.barometer, b.barometer).allSatisfy {
        same($0.time, $1.time) && same($0.kilopascals, $1.kilopascals) && $0.celsius.map(\.bitPattern) == $1.celsius.map(\.bitPattern)
    }, "barometer", sourceLocation: sourceLocation)
    quaternions(a.reference.attitude, b.reference.attitude, "attitude")
    vectors(a.reference.gravity, b.reference.gravity, "gravity")
    vectors(a.reference.userAcceleration, b.reference.userAcceleration, "userAcceleration")
    vectors(a.reference.rotationRate, b.reference.rotationRate, "rotationRate")
    vectors(a.reference.calibratedMagneticField, b.reference.calibratedMagneticField, "calibratedMagneticField")
    scalars(a.reference.heading, b.reference.heading, "heading")
    scalars(a.reference.cumulativeSteps, b.reference.cumulativeSteps, "steps")
    scalars(a.reference.relativeAltitude, b.reference.relativeAltitude, "relativeAltitude")
    #expect(a.reference.activity == b.reference.activity, sourceLocation: sourceLocation)
    quaternions(a.reference.truthAttitude, b.reference.truthAttitude, "truth")
    #expect(a.reference.truthScored == b.reference.truthScored, sourceLocation: sourceLocation)
    #expect(a.reference.stepTimes.map(\.bitPattern) == b.reference.stepTimes.map(\.bitPattern), sourceLocation: sourceLocation)
    #expect(a.reference.stepTotal == b.reference.stepTotal, sourceLocation: sourceLocation)
    #expect(a.location.count == b.location.count && zip(a.location, b.location).allSatisfy {
        same($0.time, $1.time) && same($0.latitude, $1.latitude) && same($0.longitude, $1.longitude)
            && $0.altitude.map(\.bitPattern) == $1.altitude.map(\.bitPattern)
            && $0.verticalAccuracy.map(\.bitPattern) == $1.verticalAccuracy.map(\.bitPattern)
            && $0.ellipsoidalAltitude.map(\.bitPattern) == $1.ellipsoidalAltitude.map(\.bitPattern)
    }, "location", sourceLocation: sourceLocation)
    #expect(a.metadata.deviceName == b.metadata.deviceName, sourceLocation: sourceLocation)
    #expect(a.metadata.startDate?.timeIntervalSince1970.bitPattern == b.metadata.startDate?.timeIntervalSince1970.bitPattern, sourceLocation: sourceLocation)
    #expect(a.metadata.licence == b.metadata.licence, sourceLocation: sourceLocation)
}

@Suite struct NativeFormatTests {
    /// A recording exercising every stream and awkward values.
    static func awkwardRecording(count: Int = 2000) -> Recording {
        var rng = SystemRandomNumberGenerator()
        func random() -> Double {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: return Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF | (Bool.random(using: &rng) ? 1 << 63 : 0))
            case 1: return [-0.0, 0.0, Double.leastNonzeroMagnitude, -2.2250738585072014e-308, 1.7976931348623157e308, 0.1, 1e-5, 123456789.123456789][Int.random(in: 0..<8, using: &rng)]
            default: return Double.random(in: -20...20, using: &rng)
            }
        }
        var metadata = RecordingMetadata(format: "Sensor Logger", source: "/tmp/walk, with \"quotes\"\nand a newline", deviceName: "Pixel 7 = Ω",
                                         startDate: Date(timeIntervalSince1970: 1_745_877_875.7504), licence: "CC BY 4.0: see \\README")
        metadata.properties = ["weight (kg)": "102", "a=b: c": "x = y\nz", "empty": ""]
        var r = Recording(metadata: metadata)
        var t = 0.0
        for i in 0..<count {
            t += Double.random(in: 0.001...0.02, using: &rng)
            r.accelerometer.append(TimedVector(time: t, value: Vector3(random(), random(), random())))
            r.gyroscope.append(TimedVector(time: t + 1e-4, value: Vector3(random(), random(), random())))
            if i % 2 == 0 { r.magnetometer.append(TimedVector(time: t, value: Vector3(random(), random(), random()))) }
            if i % 50 == 0 { r.barometer.append(PressureReading(time: t, kilopascals: 101 + random() / 100, celsius: i % 100 == 0 ? random() : nil)) }
            r.reference.attitude.append(TimedQuaternion(time: t, value: Quaternion(w: random(), x: random(), y: random(), z: random())))
            r.reference.gravity.append(TimedVector(time: t, value: Vector3(random(), random(), random())))
            r.reference.truthAttitude.append(TimedQuaternion(time: t, value: i % 7 == 0 ? Quaternion(w: .nan, x: .nan, y: .nan, z: .nan) : Quaternion(w: random(), x: random(), y: random(), z: random())))
            r.reference.truthScored.append(i % 3 == 0)
        }
        r.reference.userAcceleration = r.reference.gravity
        r.reference.rotationRate = r.gyroscope
        r.reference.calibratedMagneticField = r.magnetometer
        r.reference.heading = [TimedScalar(time: 0.5, value: 359.99), TimedScalar(time: 1, value: 0)]
        r.reference.cumulativeSteps = [TimedScalar(time: 2, value: 8), TimedScalar(time: 3.5, value: 13)]
        r.reference.relativeAltitude = [TimedScalar(time: -0.54, value: 0), TimedScalar(time: 0.5, value: -0.021137237548828125)]
        r.reference.activity = [TimedLabel(time: 0, label: "walking"), TimedLabel(time: 5, label: "odd, \"label\""), TimedLabel(time: 6, label: "")]
        r.reference.stepTimes = [0.25, 0.75, 1.3333333333333333]
        r.reference.stepTotal = 3
        r.location = [TimedLocation(time: -1.5, latitude: 39.297482679533644, longitude: -76.58991133946252, altitude: 46.18591789990777,
                                    verticalAccuracy: 3, ellipsoidalAltitude: 12.775918052495662),
                      TimedLocation(time: 2.7, latitude: 39.3, longitude: -76.6),
                      TimedLocation(time: 3.1, latitude: 39.3, longitude: -76.6, ellipsoidalAltitude: -0.0)]
        return r
    }

    @Test func writeThenReadIsBitExact() throws {
        let dir = try TestData.temporaryDirectory("native")
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = Self.awkwardRecording()
        let url = dir.appendingPathComponent("awkward.cmrec")
        try original.write(to: url)
        let back = try RecordingReader.read(url)
        #expect(try RecordingReader.detect(url) == .native)
        bitIdentical(original, back)
        #expect(back.metadata.format == "coremotion recording")
        #expect(back.metadata.properties["recordedFormat"] == "Sensor Logger")
        #expect(back.metadata.properties["recordedSource"] == original.metadata.source)
        var properties = back.metadata.properties
        properties["recordedFormat"] = nil
        properties["recordedSource"] = nil
        #expect(properties == original.metadata.properties)
        #expect(back.notices.isEmpty, "\(back.notices)")
        // Writing what was read gives the same file.
        let again = dir.appendingPathComponent("again.cmrec")
        try back.write(to: again)
        #expect(try Data(contentsOf: again) == Data(contentsOf: url))
    }

    @Test func everyReaderRoundTripsThroughTheOwnFormat() throws {
        let dir = try TestData.temporaryDirectory("native")
        defer { try? FileManager.default.removeItem(at: dir) }
        let sources = [
            Fixture.url("broad/broad-01-excerpt.csv").path, Fixture.url("sensorlogger/ios-walk").path, Fixture.url("sensorlogger/android-walk").path,
            Fixture.url("sensorlog/handmade-sensorlog.csv").path, Fixture.url("mpower").path + "#walk", Fixture.url("qrowd/walk/user1.txt").path,
            Fixture.url("motionsense/motionsense-excerpt.zip").path + "#wlk_7/sub_1", Fixture.url("oxford").path, Fixture.url("ipol/handmade-gait.zip").path,
        ]
        for (i, source) in sources.enumerated() {
            let r = try RecordingReader.read(source)
            let url = dir.appendingPathComponent("\(i).cmrec")
            try r.write(to: url)
            let back = try RecordingReader.read(url)
            bitIdentical(r, back)
            #expect(back.metadata.properties["recordedFormat"] == r.metadata.format, "\(source)")
        }
    }

    @Test func streamingWriterAppendsFlushesAndCloses() throws {
        let dir = try TestData.temporaryDirectory("native")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("live.cmrec")
        let writer = try NativeRecordingWriter(url: url, metadata: RecordingMetadata(format: "IIO", source: "iio:device0", deviceName: "test rig"), timeOrigin: 1000)
        let samples: [SensorSample] = (0..<300).flatMap { i -> [SensorSample] in
            let t = 1000 + Double(i) / 100
            return [.accelerometer(TimedVector(time: t, value: Vector3(0, 0, -1 + Double(i) * 1e-6))),
                    .gyroscope(TimedVector(time: t + 0.002, value: Vector3(0.01, 0, 0)))] + (i % 100 == 0 ? [.barometer(PressureReading(time: t, kilopascals: 101.3, celsius: 24.5))] : [])
        }
        try writer.append(samples.prefix(200))
        try writer.flush()
        // What is flushed can be read while recording goes on.
        let partial = try RecordingReader.read(url)
        #expect(partial.accelerometer.count == 100)  // the first 200 appends: 100 accelerometer, 99 gyroscope, 1 barometer rows
        try writer.append(samples.dropFirst(200))
        try writer.close()
        #expect(writer.rowCount == samples.count)
        let r = try RecordingReader.read(url)
        #expect(r.accelerometer.count == 300)
        #expect(r.accelerometer[0].time == 0)
        #expect(r.accelerometer[299].value.z == -1 + 299 * 1e-6)
        #expect(r.barometer.map(\.celsius) == [24.5, 24.5, 24.5])
        #expect(r.metadata.deviceName == "test rig")
        #expect(throws: RecordingError.self) { try writer.append(samples[0]) }
    }

    /// The committed own-format copy of the BROAD excerpt is what the writer makes of the CSV.
    @Test func committedBROADConversionMatchesTheCSV() throws {
        let csv = try RecordingReader.read(Fixture.url("broad/broad-01-excerpt.csv"))
        let native = try RecordingReader.read(Fixture.url("native/broad-01-excerpt.cmrec"))
        bitIdentical(csv, native)
        #expect(native.metadata.properties["recordedFormat"] == "BROAD")
        #expect(native.metadata.licence?.contains("CC BY 4.0") == true)
    }

    @Test func damagedCopies() throws {
        let c = try Corruptor(Fixture.url("native/broad-01-excerpt.cmrec"))
        defer { c.remove() }
        let lines = c.lines
        let first = lines.firstIndex(of: NativeFormat.columnsLine)! + 1
        var r = try RecordingReader.read(try c.truncatedMidLine())
        #expect(r.notices(.truncatedLastLine).count == 1)
        var e = expectRecordingError { try RecordingReader.read(try c.replacingField(line: first + 10, field: 3, with: "1.2.3", as: "garbled")) }
        #expect(e?.line == first + 11)
        #expect(e?.column == "y")
        r = try RecordingReader.read(try c.replacingField(line: first + 10, field: 2, with: "nan", as: "nan"))
        #expect(r.notices(.nonFinite).count == 1)
        e = expectRecordingError { try RecordingReader.read(try c.replacingField(line: first + 10, field: 1, with: "thermometer", as: "sensor")) }
        #expect(e?.column == "sensor")
        r = try RecordingReader.read(try c.replacingField(line: first + 10, field: 1, with: "ref.future", as: "future"))
        #expect(r.notices(.other).first?.message.contains("ref.future") == true)
        e = expectRecordingError { try RecordingReader.read(try c.editing(lines: first..<(lines.count - 1), as: "reversed") { $0.reversed() }) }
        #expect(e?.expected.contains("increasing") == true)
        e = expectRecordingError { try RecordingReader.read(try c.editing(line: 0, as: "v2") { _ in "# coremotion recording 2" }) }
        #expect(e?.expected.contains("version 1") == true)
        e = expectRecordingError { try RecordingReader.read(try c.editing(line: first - 1, as: "nocolumns") { _ in "t,s,a,b,c" }) }
        #expect(e?.expected.contains("column line") == true)
        e = expectRecordingError { try RecordingReader.read(try c.write("", as: "empty"), format: .native) }
        #expect(e?.found == "an empty file")
        e = expectRecordingError { try RecordingReader.read(try c.editing(line: first + 3, as: "short") { $0.components(separatedBy: ",").prefix(4).joined(separator: ",") }) }
        #expect(e?.expected == "5 fields")
    }

    /// Regenerates the committed own-format fixture (run with COREMOTION_WRITE_FIXTURES=1).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["COREMOTION_WRITE_FIXTURES"] == "1"))
    func regenerateFixture() throws {
        let csv = try RecordingReader.read(Fixture.url("broad/broad-01-excerpt.csv"))
        var copy = csv
        copy.metadata.source = "Tests/Fixtures/recordings/broad/broad-01-excerpt.csv"
        try FileManager.default.createDirectory(at: Fixture.url("native"), withIntermediateDirectories: true)
        try copy.write(to: Fixture.url("native/broad-01-excerpt.cmrec"))
    }
}
