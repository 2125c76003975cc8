import Foundation
import MotionRecordings
import Testing
import TestSupport

let headShakeExcerpt = TestData.fixture("headphones/airpods-head-shake-excerpt.jsonl")

/// The excerpt's sample records as parsed JSON.
func excerptRecords() throws -> [[String: Any]] {
    try String(contentsOf: headShakeExcerpt, encoding: .utf8).split(separator: "\n").compactMap {
        let object = try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        return object?["type"] as? String == "sample" ? object : nil
    }
}

/// Writes a Sensor Logger export with `Headphone.csv` made from the AirPods excerpt (gravity in m/s², time in
/// epoch ns, the first half from the left bud, the rest from the right), as the app writes it.
func writeSensorLoggerExport(
    to folder: URL, standardisation: Bool = false, rotationRate: Bool = true, conjugate: Bool = false, phoneStartOffset: Double? = nil
) throws -> (epoch: Int64, records: [[String: Any]]) {
    let records = try excerptRecords()
    let epochMs: Int64 = 1_789_900_918_000
    try "version,device name,recording time,platform,appVersion,recording epoch time,recording timezone,sensors,sampleRateMs,standardisation\n1,iPhone 15 Pro,2026-09-20_10-41-58,ios,1.45.0,\(epochMs),UTC,Headphone,20,\(standardisation)\n"
        .write(to: folder.appendingPathComponent("Metadata.csv"), atomically: true, encoding: .utf8)
    var csv = "time,seconds_elapsed,roll,pitch,yaw,quaternionW,quaternionX,quaternionY,quaternionZ,"
        + (rotationRate ? "rotationRateX,rotationRateY,rotationRateZ," : "")
        + "accelerationX,accelerationY,accelerationZ,gravityX,gravityY,gravityZ,devicelocation\n"
    let t0 = records[0]["t"] as! Double
    for (i, r) in records.enumerated() {
        let elapsed = (r["t"] as! Double) - t0 + 0.5
        let ns = epochMs * 1_000_000 + Int64((elapsed * 1e9).rounded())
        let q = r["q"] as! [Double], rot = r["rot"] as! [Double], acc = r["acc"] as! [Double], grav = r["grav"] as! [Double]
        let e = r["euler"] as! [String: Double]
        let quaternion = conjugate ? [q[0], -q[1], -q[2], -q[3]] : q
        var row = [String(ns), String(elapsed), String(e["roll"]! * .pi / 180), String(e["pitch"]! * .pi / 180), String(e["yaw"]! * .pi / 180)]
        row += quaternion.map { String($0) }
        if rotationRate { row += rot.map { String($0) } }
        row += acc.map { String($0) } + grav.map { String($0 * 9.80665) }
        row.append(i < records.count / 2 ? "left" : "right")
        csv += row.joined(separator: ",") + "\n"
    }
    try csv.write(to: folder.appendingPathComponent("Headphone.csv"), atomically: true, encoding: .utf8)
    if let offset = phoneStartOffset {
        let ns = epochMs * 1_000_000 + Int64((offset * 1e9).rounded())
        try "time,seconds_elapsed,z,y,x\n\(ns),\(offset),-1,0,0\n\(ns + 10_000_000),\(offset + 0.01),-1,0,0\n"
            .write(to: folder.appendingPathComponent("AccelerometerUncalibrated.csv"), atomically: true, encoding: .utf8)
    }
    return (epochMs * 1_000_000, records)
}

@Suite("headphone recordings")
struct HeadphoneReaderTests {
    @Test("the AirPods capture (JSON lines): every sample as recorded, 50 Hz, status records placed on the samples' axis")
    func jsonLines() throws {
        let recording = try HeadphoneRecordingReader.read(headShakeExcerpt)
        let records = try excerptRecords()
        #expect(recording.samples.count == 150)
        #expect(abs(recording.rate - 50) < 1e-6)
        for (sample, r) in zip(recording.samples, records) {
            let q = r["q"] as! [Double], grav = r["grav"] as! [Double], rot = r["rot"] as! [Double], acc = r["acc"] as! [Double]
            #expect(sample.time == r["t"] as! Double)
            #expect(sample.attitude == Quaternion(w: q[0], x: q[1], y: q[2], z: q[3]))  // as recorded, not renormalised
            #expect(sample.gravity == Vector3(grav[0], grav[1], grav[2]))
            #expect(sample.rotationRate == Vector3(rot[0], rot[1], rot[2]))
            #expect(sample.userAcceleration == Vector3(acc[0], acc[1], acc[2]))
            #expect(sample.location == .unknown)
        }
        // `starting` 3 ms before `connected`, which is 256 ms (arrival clock) before the first sample.
        let connected = try #require(recording.status.first)
        #expect(connected.connected && connected.label == "connected")
        #expect(abs((recording.samples[0].time - connected.time) - 0.2564) < 0.001)
        #expect(abs(connected.time - recording.startTime! - 0.0031) < 0.001)
        #expect(recording.metadata.properties["label"] == "repeated head shakes, AirPods Pro 2 / macOS 26")
        // The first quaternion has z = 0: Apple anchors the stream at its start.
        #expect(abs(recording.samples[0].attitude.z) < 1e-15)
        // Gravity is −(third row of R(q)) to float precision.
        let worst = recording.samples.map { (gravity(of: $0.attitude) - $0.gravity).norm }.max()!
        #expect(worst < 1e-6)  // measured 2.4e-7 g
    }

    @Test(
        "the whole capture: 580 samples over 11.58 s, 575 steps of exactly 20 ms",
        .enabled(if: TestData.has("airpods-head-shake"), Comment(rawValue: TestData.skipNotice("airpods-head-shake"))))
    func wholeCapture() throws {
        let recording = try HeadphoneRecordingReader.read(TestData.url("airpods-head-shake/head-shake.jsonl"))
        #expect(recording.samples.count == 580)
        #expect(abs(recording.duration - 11.579) < 0.001)
        let steps = zip(recording.samples.dropFirst(), recording.samples).map { $0.time - $1.time }
        #expect(steps.filter { abs($0 - 0.02) < 1e-6 }.count == 575)
        #expect(recording.notices.filter { $0.kind != .other }.isEmpty)
        let timeline = recording.timeline()
        #expect(timeline.events.filter { if case .disconnected = $0 { true } else { false } }.count == 1)  // only the end
    }

    @Test("a Sensor Logger export with Headphone.csv: gravity from m/s² to g, the bud from devicelocation, time from the epoch")
    func sensorLogger() throws {
        let folder = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (_, records) = try writeSensorLoggerExport(to: folder, phoneStartOffset: 0.2)
        let recording = try HeadphoneRecordingReader.read(folder.appendingPathComponent("Headphone.csv"))
        #expect(recording.samples.count == records.count)
        #expect(abs(recording.samples[0].time - 0.5) < 1e-9)
        #expect(abs(recording.startTime! - 0.2) < 1e-9)  // the phone's first sample: both replays stay in step
        for (sample, r) in zip(recording.samples, records) {
            let grav = r["grav"] as! [Double]
            #expect((sample.gravity - Vector3(grav[0], grav[1], grav[2])).norm < 1e-12)
        }
        #expect(recording.samples.first?.location == .left && recording.samples.last?.location == .right)
        #expect(recording.metadata.deviceName == "iPhone 15 Pro")
        #expect(recording.notices.isEmpty)
    }

    @Test("Sensor Logger before 1.30 (no rotation rate): derived from the attitudes, close to Apple's")
    func derivedRotationRate() throws {
        let folder = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (_, records) = try writeSensorLoggerExport(to: folder, rotationRate: false)
        let recording = try HeadphoneRecordingReader.read(folder)
        #expect(recording.notices.contains { $0.message.contains("derived") })
        var errors: [Double] = []
        for (sample, r) in zip(recording.samples, records).dropFirst().dropLast() {
            let rot = r["rot"] as! [Double]
            errors.append((sample.rotationRate - Vector3(rot[0], rot[1], rot[2])).norm)
        }
        errors.sort()
        #expect(errors[errors.count / 2] < 0.15)  // median measured 0.06 rad/s: Apple's rate is the gyro's, not the attitude's derivative
    }

    @Test("refused or corrected: standardised units, a conjugated quaternion, broken JSON")
    func badInput() throws {
        let folder = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try writeSensorLoggerExport(to: folder, standardisation: true)
        #expect(throws: RecordingError.self) { try HeadphoneRecordingReader.read(folder) }
        _ = try writeSensorLoggerExport(to: folder, conjugate: true)
        let conjugated = try HeadphoneRecordingReader.read(folder)
        #expect(conjugated.notices.contains { $0.message.contains("conjugate") })
        let direct = try HeadphoneRecordingReader.read(headShakeExcerpt)
        #expect(abs(conjugated.samples[10].attitude.x - direct.samples[10].attitude.x) < 1e-12)

        let bad = folder.appendingPathComponent("bad.jsonl")
        try "{\"type\": \"sample\", \"t\": 1, \"q\": [1, 0, 0, 0], \"rot\": [0, 0, 0], \"acc\": [0, 0, 0], \"grav\": [0, 0, -1]}\n{\"type\": \"sample\", \"t\": 2, \"q\": [1, 0]}\n"
            .write(to: bad, atomically: true, encoding: .utf8)
        do {
            _ = try HeadphoneRecordingReader.read(bad)
            Issue.record("a sample with a 2-number quaternion was read")
        } catch let error as RecordingError {
            #expect(error.line == 2 && error.column == "q")
        }
        // A phone recording is no headphone recording.
        #expect(throws: RecordingError.self) { try HeadphoneRecordingReader.read(TestData.fixture("recordings/sensorlogger/ios-walk")) }
    }

    @Test("Sensor Logger's pushed headphone reading converts like a CSV row")
    func pushedReading() throws {
        let values: [String: Double] = [
            "quaternionW": 0.9934391194882508, "quaternionX": -0.11430224957642005, "quaternionY": 0.0036830314614673047,
            "quaternionZ": 0, "rotationRateX": -0.4776, "rotationRateY": -0.6112, "rotationRateZ": 0.6483,
            "accelerationX": -0.0197, "accelerationY": -0.0025, "accelerationZ": 0.0613,
            "gravityX": 0.0073177325539290905 * 9.80665, "gravityY": 0.2271045744419098 * 9.80665, "gravityZ": -0.9738428592681885 * 9.80665,
        ]
        let sample = try #require(SensorLoggerHeadphone.sample(time: 12, value: { values[$0] }, location: "right"))
        #expect(sample.location == .right)
        #expect(abs(sample.gravity.y - 0.2271045744419098) < 1e-12)
        #expect(SensorLoggerHeadphone.agreesWithCoreMotion(sample))
        var android = sample
        android.gravity = -sample.gravity
        #expect(!SensorLoggerHeadphone.agreesWithCoreMotion(android))
        #expect(SensorLoggerHeadphone.sample(time: 0, value: { $0 == "gravityX" ? nil : values[$0] }, location: nil) == nil)
    }

    @Test("a .cmrec with headphones: x-headphone rows read value for value; bad rows skipped or refused; the phone reader skips them")
    func nativeHeadphoneTrack() throws {
        let folder = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("session.cmrec")
        let writer = try NativeRecordingWriter(url: url, metadata: RecordingMetadata(format: "coremotion record", source: "test"), timeOrigin: 100)
        let q = Quaternion(axis: Vector3(1, 0.2, 0).normalized, angle: 0.3)
        let samples = (0..<20).map { k in
            HeadphoneMotionSample(
                time: 100.5 + Double(k) / 50, attitude: q, rotationRate: Vector3(0.1 * Double(k), -0.2, 1.0 / 3),
                userAcceleration: Vector3(0.01, 0.02, -0.03), gravity: gravity(of: q), location: k < 10 ? .left : .right)
        }
        try writer.append(.accelerometer(TimedVector(time: 100.5, value: Vector3(0, 0, -1))))
        for s in samples { try writer.append(headphone: s) }
        try writer.close()
        let recording = try HeadphoneRecordingReader.read(url)
        #expect(recording.samples == samples.map { $0.at(time: $0.time - 100) })
        #expect(recording.notices.isEmpty)
        #expect(abs(recording.rate - 50) < 0.01)
        let phone = try RecordingReader.read(url.path)
        #expect(phone.samples(of: .accelerometer).count == 1)
        #expect(phone.notices.isEmpty)

        // Hostile rows: out of order, repeated and non-finite rows are skipped with a notice; a row with the
        // wrong number of fields, or a location that is not 0, 1 or 2, refuses the file; no rows at all too.
        var text = try String(contentsOf: url, encoding: .utf8)
        text += "0.1,x-headphone,1,0,0,0,0,0,0,0,0,0,0,0,-1,0\n"  // earlier than the last
        text += "9.5,x-headphone,nan,0,0,0,0,0,0,0,0,0,0,0,-1,0\n"
        try text.write(to: url, atomically: true, encoding: .utf8)
        let skipped = try HeadphoneRecordingReader.read(url)
        #expect(skipped.samples.count == samples.count)
        #expect(skipped.notices.contains { $0.message.contains("skipped 2") })
        for bad in ["9.6,x-headphone,1,0,0\n", "9.6,x-headphone,1,0,0,0,0,0,0,0,0,0,0,0,-1,7\n"] {
            try (text + bad).write(to: url, atomically: true, encoding: .utf8)
            #expect(throws: RecordingError.self) { try HeadphoneRecordingReader.read(url) }
        }
        let empty = folder.appendingPathComponent("phone-only.cmrec")
        let phoneOnly = try NativeRecordingWriter(url: empty, metadata: RecordingMetadata(format: "coremotion record", source: "test"))
        try phoneOnly.append(.accelerometer(TimedVector(time: 0.5, value: Vector3(0, 0, -1))))
        try phoneOnly.close()
        #expect(throws: RecordingError.self) { try HeadphoneRecordingReader.read(empty) }
    }
}
