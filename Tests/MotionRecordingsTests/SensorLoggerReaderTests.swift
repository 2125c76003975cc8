import Foundation
import MotionRecordings
import Testing
import TestSupport

@Suite struct SensorLoggerReaderTests {
    static let ios = Fixture.url("sensorlogger/ios-walk")
    static let iosZip = Fixture.url("sensorlogger/ios-walk.zip")
    static let android = Fixture.url("sensorlogger/android-walk")

    /// The hand-made climb (barometer and GNSS only): fixes carry the altitude above mean sea level,
    /// its vertical accuracy and the ellipsoidal height, converted once by the reader.
    @Test func readsTheClimbLocation() throws {
        let r = try RecordingReader.read(Fixture.url("sensorlogger/ios-climb"))
        #expect(r.metadata.deviceName == "iPhone 13")
        #expect(r.sensors == [.barometer])
        #expect(r.barometer.count == 85)
        #expect(r.location.count == 31)
        let first = try #require(r.location.first)
        #expect(first.time == 0 && first.altitude == 118.34874501593072 && first.verticalAccuracy == 3)
        #expect(abs((first.ellipsoidalAltitude ?? 0) - (118.34874501593072 - 33.4)) < 1e-9)
        #expect(r.notices.isEmpty, "\(r.notices)")
    }

    /// The hand-made export: every conversion checked against the motion it was written from.
    @Test func readsTheHandMadeIOSExport() throws {
        let r = try RecordingReader.read(Self.ios)
        #expect(r.metadata.format == "Sensor Logger")
        #expect(r.metadata.deviceName == "iPhone 13")
        #expect(r.metadata.properties["platform"] == "ios")
        #expect(r.metadata.startDate == Date(timeIntervalSince1970: 1_735_689_600))
        #expect(r.metadata.properties["attitudeReferenceFrame"] == "xTrueNorthZVertical")
        for sensor in [SensorKind.accelerometer, .gyroscope, .magnetometer] { #expect(r.count(of: sensor) == 150) }
        let expectedKilopascals: [Double] = [1013.25 / 10, 1013.24 / 10, 1013.2375 / 10]
        #expect(r.barometer.map(\.kilopascals) == expectedKilopascals)
        #expect(r.barometer.first?.time == -0.3)
        #expect(r.reference.relativeAltitude.map(\.value) == [0, 0.08, 0.11])
        #expect(r.reference.cumulativeSteps.map(\.value) == [2, 3])
        #expect(r.location.first?.latitude == 51.752)
        // altitudeAboveMeanSeaLevel is the altitude; the column `altitude` is above the WGS 84 ellipsoid.
        #expect(r.location.first?.altitude == 4.1)
        #expect(r.location.first?.ellipsoidalAltitude == 52.5)
        #expect(r.location.first?.verticalAccuracy == 3)
        #expect(r.accelerometer[0].time == 0.005)
        #expect(r.accelerometer[0].value == Vector3(0.20177699097089272, 0.07827066598764783, -0.9001914296559106))
        #expect(r.notices.isEmpty, "\(r.notices)")
        try checkAppleIdentities(r, tolerance: 1e-12)
    }

    /// Raw = gravity + user acceleration (device motion stamped 2.5 ms after its raw sample), gravity
    /// = −(third row of R), raw gyro − bias-corrected rate = a constant bias.
    func checkAppleIdentities(_ r: Recording, tolerance: Double, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(r.reference.gravity.count == 150)
        var worstSum = 0.0
        var worstAttitude = 0.0
        for (g, u) in zip(r.reference.gravity, r.reference.userAcceleration) {
            let raw = r.accelerometer[nearest(r.accelerometer, g.time - 0.0025)]
            #expect(abs(raw.time - (g.time - 0.0025)) < 1e-9)
            worstSum = max(worstSum, raw.value.maxDifference(g.value + u.value))
        }
        for (q, g) in zip(r.reference.attitude, r.reference.gravity) {
            let (w, x, y, z) = (q.value.w, q.value.x, q.value.y, q.value.z)
            let formula = Vector3(-2 * (x * z - w * y), -2 * (y * z + w * x), -(1 - 2 * (x * x + y * y)))
            worstAttitude = max(worstAttitude, formula.maxDifference(g.value))
        }
        let bias = Vector3(0.012, -0.021, 0.004)
        let worstBias = zip(r.gyroscope, r.reference.rotationRate).map { ($0.value - $1.value).maxDifference(bias) }.max() ?? 1
        let hardIron = Vector3(35, -12, 8)
        let worstIron = zip(r.magnetometer, r.reference.calibratedMagneticField).map { ($0.value - $1.value).maxDifference(hardIron) }.max() ?? 1
        #expect(worstSum < tolerance, sourceLocation: sourceLocation)
        #expect(worstAttitude < tolerance, sourceLocation: sourceLocation)
        #expect(worstBias < tolerance, sourceLocation: sourceLocation)
        #expect(worstIron < tolerance * 100, sourceLocation: sourceLocation)
    }

    @Test func zipReadsLikeTheFolder() throws {
        let folder = try RecordingReader.read(Self.ios)
        let zipped = try RecordingReader.read(Self.iosZip)
        #expect(try RecordingReader.detect(Self.iosZip) == .sensorLogger)
        #expect(zipped.accelerometer == folder.accelerometer)
        #expect(zipped.gyroscope == folder.gyroscope)
        #expect(zipped.magnetometer == folder.magnetometer)
        #expect(zipped.barometer == folder.barometer)
        #expect(zipped.reference.attitude == folder.reference.attitude)
        #expect(zipped.metadata.startDate == folder.metadata.startDate)
    }

    @Test func oneFileOfAnExportReadsTheWholeExport() throws {
        let r = try RecordingReader.read(Self.ios.appendingPathComponent("Gravity.csv"))
        #expect(r.accelerometer.count == 150)
        #expect(r.metadata.format == "Sensor Logger")
    }

    /// The Android export of the same motion (m/s², opposite sign, ENU rotation vector) reads to the
    /// same recording as the iOS one.
    @Test func androidExportConvertsToTheSameAppleValues() throws {
        let a = try RecordingReader.read(Self.android)
        let i = try RecordingReader.read(Self.ios)
        #expect(a.metadata.properties["platform"] == "android")
        #expect(a.metadata.properties["attitudeReferenceFrame"]?.contains("Android") == true)
        #expect(a.accelerometer.count == 150)
        let worstRaw = zip(a.accelerometer, i.accelerometer).map { $0.value.maxDifference($1.value) }.max()!
        let worstGravity = zip(a.reference.gravity, i.reference.gravity).map { $0.value.maxDifference($1.value) }.max()!
        let worstUser = zip(a.reference.userAcceleration, i.reference.userAcceleration).map { $0.value.maxDifference($1.value) }.max()!
        let worstAttitude = zip(a.reference.attitude, i.reference.attitude).map { $0.value.angle(to: $1.value) }.max()!
        #expect(worstRaw < 1e-15)
        #expect(worstGravity < 1e-15)
        #expect(worstUser < 1e-15)
        #expect(worstAttitude < 1e-7)
        try checkAppleIdentities(a, tolerance: 1e-12)
    }

    // MARK: the real iPhone 13 export (GPL, read in place, never copied)

    @Test(.enabled(if: TestData.has("iphone13-walk-sensorlogger"), Comment(rawValue: TestData.skipNotice("iphone13-walk-sensorlogger"))))
    func readsTheIPhone13Walk() throws {
        let r = try RecordingReader.read(TestData.url("iphone13-walk-sensorlogger"))
        #expect(r.metadata.deviceName == "iPhone 13")
        #expect(r.metadata.startDate == Date(timeIntervalSince1970: 1_745_877_875.750))
        #expect(r.metadata.properties["appVersion"] == "1.43.2")
        // Counts: rows of each file.
        #expect(r.accelerometer.count == 9201)
        #expect(r.gyroscope.count == 9201)
        #expect(r.magnetometer.count == 9022)
        #expect(r.barometer.count == 85)
        #expect(r.reference.gravity.count == 9199)
        #expect(r.reference.userAcceleration.count == 9199)
        #expect(r.reference.attitude.count == 9199)
        #expect(r.reference.heading.count == 9199)
        #expect(r.location.count == 22)
        // Altitude above mean sea level (not the ellipsoidal `altitude` column, 33.41 m lower here).
        #expect(r.location.first?.altitude == 46.18591789990777)
        #expect(r.location.first?.ellipsoidalAltitude == 12.775918052495662)
        #expect(r.location.allSatisfy { $0.fusableAltitude != nil })
        #expect(r.reference.cumulativeSteps.first?.value == 8)
        #expect(r.reference.cumulativeSteps.last?.value == 180)
        // Rates: ~100 Hz (median interval 9.93 ms).
        // Rates: raw accelerometer and gyroscope 100.70 Hz (median interval 9.93 ms), magnetometer 98.74 Hz.
        for sensor in [SensorKind.accelerometer, .gyroscope, .magnetometer] {
            let rate = 1 / medianInterval(r.times(of: sensor))
            #expect(rate > 98 && rate < 102, "\(sensor): \(rate) Hz")
        }
        // Units and axes: the first raw row (z,y,x = −0.918…, −0.474…, 0.0894…) in x,y,z order, g.
        #expect(r.accelerometer[0].time == 0.0104785)
        #expect(r.accelerometer[0].value == Vector3(0.089385986328125, -0.47406005859375, -0.9183502197265625))
        // The mean raw acceleration over the walk is gravity: measured |mean| = 1.0047 g, mostly +y
        // (the phone rides upside down in a pocket).
        let sum = r.accelerometer.reduce(Vector3.zero) { $0 + $1.value }
        let mean = sum / Double(r.accelerometer.count)
        #expect(abs(mean.norm - 1) < 0.02)
        #expect(mean.y > 0.95)
        #expect(abs(r.barometer[0].kilopascals - 101.95285034179688) < 1e-12)
        let fieldNorm = r.magnetometer.map(\.value.norm).reduce(0, +) / Double(r.magnetometer.count)
        #expect(fieldNorm > 20 && fieldNorm < 150)

        // The key check: the raw accelerometer equals Apple's gravity + user acceleration of the
        // same instant; device-motion stamps trail the raw ones by about 2.5 ms.
        var worst = 0.0
        var lags: [Double] = []
        for (g, u) in zip(r.reference.gravity, r.reference.userAcceleration) {
            let i = nearest(r.accelerometer, g.time - 0.0025)
            let raw = r.accelerometer[i]
            lags.append(g.time - raw.time)
            worst = max(worst, raw.value.maxDifference(g.value + u.value))
        }
        lags.sort()
        // Measured: worst 5.07e-7 g (float32 rounding of the raw g values); lags 2.4812–2.4833 ms.
        #expect(worst < 1e-6)
        #expect(lags.first! > 0.00247 && lags.last! < 0.00249)

        // Apple's attitude against Apple's gravity with the formula of docs/conventions.md#gravity-from-the-attitude.
        var worstAttitude = 0.0
        for (q, g) in zip(r.reference.attitude, r.reference.gravity) {
            let (w, x, y, z) = (q.value.w, q.value.x, q.value.y, q.value.z)
            let formula = Vector3(-2 * (x * z - w * y), -2 * (y * z + w * x), -(1 - 2 * (x * x + y * y)))
            worstAttitude = max(worstAttitude, formula.maxDifference(g.value))
        }
        // Measured: 2.98e-8 g.
        #expect(worstAttitude < 1e-7)
        #expect(r.metadata.properties["attitudeReferenceFrame"] == "xTrueNorthZVertical")
    }

    // MARK: bad input, on damaged copies of the fixture

    @Test func truncatedGarbledNaNAndReversedFiles() throws {
        let copy = try FolderCopy(Self.ios)
        defer { copy.remove() }
        let name = "AccelerometerUncalibrated.csv"
        let pristine = try String(contentsOf: copy.url(name), encoding: .utf8)

        // Truncated mid-line.
        try copy.rewrite(name) { text in String(text.dropLast(30)) }
        var r = try RecordingReader.read(copy.folder)
        #expect(r.accelerometer.count == 149)
        #expect(r.notices(.truncatedLastLine).first?.line == 151)

        // A garbled field.
        try pristine.write(to: copy.url(name), atomically: true, encoding: .utf8)
        try copy.rewriteLines(name) { lines in
            var l = lines
            var f = l[40].split(separator: ",").map(String.init); f[2] = "-0.9#1"; l[40] = f.joined(separator: ",")
            return l
        }
        var error = expectRecordingError { try RecordingReader.read(copy.folder) }
        #expect(error?.file.hasSuffix(name) == true)
        #expect(error?.line == 41)
        #expect(error?.column == "z")

        // NaN injected.
        try pristine.write(to: copy.url(name), atomically: true, encoding: .utf8)
        try copy.rewriteLines(name) { lines in
            var l = lines
            var f = l[10].split(separator: ",").map(String.init); f[3] = "NaN"; l[10] = f.joined(separator: ",")
            return l
        }
        r = try RecordingReader.read(copy.folder)
        #expect(r.accelerometer.count == 149)
        #expect(r.notices(.nonFinite).first?.line == 11)

        // Reversed.
        try pristine.write(to: copy.url(name), atomically: true, encoding: .utf8)
        try copy.rewriteLines(name) { lines in [lines[0]] + lines.dropFirst().filter { !$0.isEmpty }.reversed() }
        error = expectRecordingError { try RecordingReader.read(copy.folder) }
        #expect(error?.column == "time")

        // Two rows run together (a lost line break): refused, not read as one row with the other lost.
        try pristine.write(to: copy.url(name), atomically: true, encoding: .utf8)
        try copy.rewriteLines(name) { lines in
            var l = lines
            l[20] += l.remove(at: 21)
            return l
        }
        error = expectRecordingError { try RecordingReader.read(copy.folder) }
        #expect(error?.file.hasSuffix(name) == true)
        #expect(error?.line == 21)
        #expect(error?.expected.hasPrefix("at most 5 fields") == true)

        // Missing column.
        try pristine.write(to: copy.url(name), atomically: true, encoding: .utf8)
        try copy.rewriteLines(name) { lines in lines.map { $0.split(separator: ",").dropLast().joined(separator: ",") } }
        error = expectRecordingError { try RecordingReader.read(copy.folder) }
        #expect(error?.column == "x")
        #expect(error?.line == 1)
    }

    @Test func emptySensorFileFallsBackWithANotice() throws {
        let copy = try FolderCopy(Self.ios)
        defer { copy.remove() }
        try "".write(to: copy.url("AccelerometerUncalibrated.csv"), atomically: true, encoding: .utf8)
        let r = try RecordingReader.read(copy.folder)
        #expect(r.accelerometer.count == 150)
        #expect(r.metadata.properties["accelerometerSource"]?.hasPrefix("Gravity + Accelerometer") == true)
        #expect(r.notices(.other).count == 1)
    }

    @Test func brokenMetadataIsAnError() throws {
        let copy = try FolderCopy(Self.ios)
        defer { copy.remove() }
        try copy.rewrite("Metadata.csv") { $0.replacingOccurrences(of: ",ios,", with: ",symbian,") }
        let error = expectRecordingError { try RecordingReader.read(copy.folder) }
        #expect(error?.column == "platform")
        try "".write(to: copy.url("Metadata.csv"), atomically: true, encoding: .utf8)
        let e2 = expectRecordingError { try RecordingReader.read(copy.folder, format: .sensorLogger) }
        #expect(e2?.expected.contains("Metadata.csv") == true)
    }

    /// Damaged copies of the real iPhone export (GPL: copied to a temporary folder only, never kept).
    @Test(.enabled(if: TestData.has("iphone13-walk-sensorlogger"), Comment(rawValue: TestData.skipNotice("iphone13-walk-sensorlogger"))))
    func damagedCopiesOfTheIPhoneExport() throws {
        let copy = try FolderCopy(TestData.url("iphone13-walk-sensorlogger"))
        defer { copy.remove() }
        // Read-only source files stay read-only in the copy: make them writable.
        for name in try FileManager.default.contentsOfDirectory(atPath: copy.folder.path) {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy.url(name).path)
        }
        try copy.rewrite("GyroscopeUncalibrated.csv") { String($0.dropLast(25)) }
        try copy.rewriteLines("Gravity.csv") { lines in
            var l = lines
            var f = l[500].split(separator: ",").map(String.init); f[3] = "nan"; l[500] = f.joined(separator: ",")
            l.swapAt(600, 601)
            return l
        }
        let r = try RecordingReader.read(copy.folder)
        #expect(r.gyroscope.count == 9200)
        #expect(r.notices(.truncatedLastLine).first?.file.hasSuffix("GyroscopeUncalibrated.csv") == true)
        #expect(r.reference.gravity.count == 9197)  // 9,199 − the NaN row − the row out of order
        #expect(r.notices(.nonFinite).first?.line == 501)
        #expect(r.notices(.outOfOrder).first?.line == 602)
        try copy.rewriteLines("Barometer.csv") { lines in var l = lines; l[10] = l[10].replacingOccurrences(of: ",10", with: ",1O"); return l }
        let e = expectRecordingError { try RecordingReader.read(copy.folder) }
        #expect(e?.line == 11)
        #expect(e?.column == "pressure")
    }
}

