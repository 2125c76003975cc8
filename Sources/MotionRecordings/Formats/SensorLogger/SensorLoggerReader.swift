import Foundation

/// Reads Sensor Logger exports (Kelvin Choi's app for iOS and Android): a folder or `.zip` with
/// `Metadata.csv` and one CSV per sensor (`time` in ns since the epoch, `seconds_elapsed`, values).
///
/// Units and frames follow the app's documentation (github.com/tszheichoi/awesome-sensor-logger,
/// `UNITS.md`, `COORDINATES.md`, `CROSSPLATFORM.md`):
///
/// | file | iOS, standardisation off | iOS with "Standardise Units & Frames", Android | becomes |
/// |---|---|---|---|
/// | `AccelerometerUncalibrated` | g, Apple's sign | m/s², Android sign (+g up) | raw accelerometer, g: ×1 or ÷ −9.80665 |
/// | `TotalAcceleration` (Android) | — | m/s², Android sign | raw accelerometer when the uncalibrated one is absent |
/// | `Accelerometer` | user acceleration m/s², Apple's sign | m/s², Android sign | ``ReferenceData/userAcceleration`` ÷ 9.80665 or ÷ −9.80665 |
/// | `Gravity` | m/s², Apple's sign | m/s², Android sign | ``ReferenceData/gravity`` likewise |
/// | `GyroscopeUncalibrated` / `Gyroscope` | rad/s | rad/s (same sign) | raw gyroscope / ``ReferenceData/rotationRate`` |
/// | `MagnetometerUncalibrated` / `Magnetometer` | µT | µT | raw magnetometer / ``ReferenceData/calibratedMagneticField`` |
/// | `Barometer` | `pressure` hPa, `relativeAltitude` m | same | barometer kPa (÷ 10) / ``ReferenceData/relativeAltitude`` |
/// | `Orientation` | quaternion, device → x-true-north z-up | Android rotation vector, device → ENU | ``ReferenceData/attitude`` (Android: rotated to x-north, Rz(−90°) ⊗ q) |
/// | `Location` | `altitudeAboveMeanSeaLevel` m (iOS), `altitude` m above the WGS 84 ellipsoid, `verticalAccuracy` m (negative: invalid) | same, `altitudeAboveMeanSeaLevel` only where the export has it | ``Recording/location``: altitude = `altitudeAboveMeanSeaLevel`, ``TimedLocation/ellipsoidalAltitude`` = `altitude` |
/// | `Compass`, `Pedometer`, `Activity` | | | heading °, cumulative steps, labels |
///
/// Columns are found by name, so the iOS order `z,y,x` needs no special case. Times are
/// `(time − recording epoch) / 10⁹` s, so t = 0 is `Metadata.csv`'s `recording epoch time`, which is
/// also ``RecordingMetadata/startDate``. The attitude's convention is checked against `Gravity`
/// (gravity = q* ⊗ (0, 0, −1) ⊗ q, `docs/conventions.md#gravity-from-the-attitude`); an orientation file that matches no known
/// convention is left out with a notice rather than imported wrong.
enum SensorLoggerReader: FormatReader {
    static let format = RecordingFormat.sensorLogger
    static let gravityUnit = standardGravity

    static func recognises(_ container: RecordingContainer) -> Bool {
        switch container.kind {
        case .file:
            let head = String(decoding: container.head(container.url.lastPathComponent, count: 256), as: UTF8.self)
            return head.hasPrefix("time,seconds_elapsed,")
                && FileManager.default.fileExists(atPath: container.url.deletingLastPathComponent().appendingPathComponent("Metadata.csv").path)
        case .directory, .zip:
            return metadataPath(container) != nil
        }
    }

    /// Path of `Metadata.csv` (the shallowest one), whose folder holds the sensor files.
    static func metadataPath(_ container: RecordingContainer) -> String? {
        container.paths
            .filter { ($0 as NSString).lastPathComponent == "Metadata.csv" && !$0.hasPrefix("__MACOSX") }
            .filter { String(decoding: container.head($0, count: 512), as: UTF8.self).contains("platform") }
            .min { $0.count < $1.count }
    }

    static func read(_ container: RecordingContainer, member: String?) throws -> Recording {
        if container.kind.isFile {
            // One file of an export: read the whole export around it.
            return try read(RecordingContainer(container.url.deletingLastPathComponent()), member: nil)
        }
        guard let metadataPath = metadataPath(container) else {
            throw RecordingError(file: container.url.path, expected: "Metadata.csv (platform, units, start time) in the Sensor Logger export", found: "no Metadata.csv")
        }
        let prefix = String(metadataPath.dropLast("Metadata.csv".count))
        let info = try readMetadata(container.read(metadataPath))
        func has(_ name: String) -> Bool { container.contains(prefix + name + ".csv") && !container.head(prefix + name + ".csv", count: 8).isEmpty }
        func file(_ name: String) throws -> TextFile { try container.read(prefix + name + ".csv") }

        let platform = (info["platform"] ?? "").lowercased()
        guard platform == "ios" || platform == "android" else {
            throw RecordingError(file: container.displayName(metadataPath), line: 2, column: "platform", expected: "ios or android", found: info["platform"] ?? "nothing")
        }
        let android = platform == "android"
        let standardised = (info["standardisation"] ?? "false").lowercased() == "true"
        // Android convention (m/s², +g up): Apple g = value / −9.80665.
        let androidFrames = android || standardised
        var metadata = RecordingMetadata(format: format.name, source: container.url.path)
        metadata.deviceName = info["device name"].flatMap { $0.isEmpty ? nil : $0 }
        metadata.properties["platform"] = platform
        metadata.properties["standardisation"] = standardised ? "true" : "false"
        for key in ["appVersion", "recording time", "recording timezone", "version", "sensors", "sampleRateMs"] {
            if let v = info[key], !v.isEmpty { metadata.properties[key] = v }
        }
        var notices: [RecordingNotice] = []

        // Time origin: the recording epoch (ms) from Metadata.csv; else the earliest sample.
        var origin: Int64
        if let epoch = info["recording epoch time"].flatMap({ Int64($0.trimmingCharacters(in: .whitespaces)) }) {
            origin = epoch * 1_000_000
        } else {
            origin = try earliestTime(container, prefix: prefix) ?? 0
            notices.append(RecordingNotice(kind: .other, file: container.displayName(metadataPath), message: "no 'recording epoch time': t = 0 is the earliest sample"))
        }
        metadata.startDate = date(nanosecondsSince1970: origin)
        let time = ColumnTable.TimeColumn.nanoseconds("time", origin: origin)

        func vectors(_ name: String, _ stream: String, divisor: Double) throws -> [TimedVector] {
            let table = try ColumnTable.read(file(name), time: time, columns: ["x", "y", "z"], stream: stream, notices: &notices)
            return table.vectors(divisor: divisor)
        }

        var recording = Recording(metadata: metadata)
        let accDivisor = androidFrames ? -gravityUnit : 1
        let motionDivisor = androidFrames ? -gravityUnit : gravityUnit

        // Raw sensors.
        if has("AccelerometerUncalibrated") {
            recording.accelerometer = try vectors("AccelerometerUncalibrated", "raw accelerometer", divisor: accDivisor)
        } else if has("TotalAcceleration") {
            recording.accelerometer = try vectors("TotalAcceleration", "raw accelerometer", divisor: -gravityUnit)
            recording.metadata.properties["accelerometerSource"] = "TotalAcceleration.csv (Android, calibrated, gravity included)"
        }
        if has("GyroscopeUncalibrated") {
            recording.gyroscope = try vectors("GyroscopeUncalibrated", "raw gyroscope", divisor: 1)
        }
        if has("MagnetometerUncalibrated") {
            recording.magnetometer = try vectors("MagnetometerUncalibrated", "raw magnetometer", divisor: 1)
        }
        if has("Barometer") {
            let name = prefix + "Barometer.csv"
            let header = try headerFields(container.read(name))
            let hasAltitude = header.contains("relativeAltitude")
            let columns = hasAltitude ? ["pressure", "relativeAltitude"] : ["pressure"]
            let table = try ColumnTable.read(file("Barometer"), time: time, columns: columns, stream: "barometer", notices: &notices)
            recording.barometer = (0..<table.count).map { PressureReading(time: table.times[$0], kilopascals: table.value($0, 0) / 10) }
            if hasAltitude { recording.reference.relativeAltitude = table.scalars(1) }
        }

        // Apple's (or Android's) processed outputs.
        if has("Accelerometer") {
            recording.reference.userAcceleration = try vectors("Accelerometer", "user acceleration", divisor: motionDivisor)
        }
        if has("Gravity") {
            recording.reference.gravity = try vectors("Gravity", "gravity", divisor: motionDivisor)
        }
        if has("Gyroscope") {
            recording.reference.rotationRate = try vectors("Gyroscope", "rotation rate", divisor: 1)
        }
        if has("Magnetometer") {
            recording.reference.calibratedMagneticField = try vectors("Magnetometer", "calibrated field", divisor: 1)
        }
        if has("Orientation") {
            let table = try ColumnTable.read(file("Orientation"), time: time, columns: ["qw", "qx", "qy", "qz"], stream: "attitude", notices: &notices)
            let raw = (0..<table.count).map {
                TimedQuaternion(time: table.times[$0], value: Quaternion(w: table.value($0, 0), x: table.value($0, 1), y: table.value($0, 2), z: table.value($0, 3)))
            }
            let (attitude, frame, notice) = orientation(raw, gravity: recording.reference.gravity, android: android, standardised: standardised, file: container.displayName(prefix + "Orientation.csv"))
            recording.reference.attitude = attitude
            if let frame { recording.metadata.properties["attitudeReferenceFrame"] = frame }
            if let notice { notices.append(notice) }
        }
        if has("Compass") {
            recording.reference.heading = try ColumnTable.read(file("Compass"), time: time, columns: ["magneticBearing"], stream: "heading", notices: &notices).scalars(0)
        }
        if has("Pedometer") {
            recording.reference.cumulativeSteps = try ColumnTable.read(file("Pedometer"), time: time, columns: ["steps"], stream: "pedometer", notices: &notices).scalars(0)
        }
        if has("Location") {
            recording.location = try locations(file("Location"), time: time, notices: &notices)
        }
        if has("Activity") {
            recording.reference.activity = try labels(file("Activity"), origin: origin, column: "activity", notices: &notices)
        }

        // Fallbacks when a raw file is missing: rebuilt the way Apple defines it, and said so.
        if recording.accelerometer.isEmpty && !recording.reference.gravity.isEmpty && recording.reference.gravity.count == recording.reference.userAcceleration.count {
            recording.accelerometer = zip(recording.reference.gravity, recording.reference.userAcceleration).map {
                TimedVector(time: $0.time, value: $0.value + $1.value)
            }
            recording.metadata.properties["accelerometerSource"] = "Gravity + Accelerometer (no uncalibrated accelerometer in the export)"
            notices.append(RecordingNotice(kind: .other, file: container.url.path, message: "raw accelerometer rebuilt as Apple's gravity + user acceleration"))
        }
        if recording.gyroscope.isEmpty && !recording.reference.rotationRate.isEmpty {
            recording.gyroscope = recording.reference.rotationRate
            recording.metadata.properties["gyroscopeSource"] = "Gyroscope.csv (bias-corrected; no uncalibrated gyroscope in the export)"
            notices.append(RecordingNotice(kind: .other, file: container.url.path, message: "gyroscope is the bias-corrected rotation rate (no GyroscopeUncalibrated.csv)"))
        }
        if recording.magnetometer.isEmpty && !recording.reference.calibratedMagneticField.isEmpty {
            recording.magnetometer = recording.reference.calibratedMagneticField
            recording.metadata.properties["magnetometerSource"] = "Magnetometer.csv (calibrated; no uncalibrated magnetometer in the export)"
            notices.append(RecordingNotice(kind: .other, file: container.url.path, message: "magnetometer is the calibrated field (no MagnetometerUncalibrated.csv)"))
        }

        for (sensor, name) in [(SensorKind.accelerometer, "AccelerometerUncalibrated.csv"), (.gyroscope, "GyroscopeUncalibrated.csv"), (.magnetometer, "MagnetometerUncalibrated.csv"), (.barometer, "Barometer.csv")] {
            let times = recording.times(of: sensor)
            if let gap = GapReport.notice(times, file: container.displayName(prefix + name), stream: sensor.rawValue, time: { $0 }) {
                notices.append(gap)
            }
        }
        recording.notices = notices
        return recording
    }

    /// The date of an epoch time in ns, without the rounding of a 19-digit integer to `Double`.
    static func date(nanosecondsSince1970 ns: Int64) -> Date {
        let (seconds, rest) = ns.quotientAndRemainder(dividingBy: 1_000_000_000)
        return Date(timeIntervalSince1970: Double(seconds) + Double(rest) / 1e9)
    }

    /// Chooses the attitude convention that agrees with the gravity file.
    static func orientation(
        _ raw: [TimedQuaternion], gravity: [TimedVector], android: Bool, standardised: Bool, file: String
    ) -> ([TimedQuaternion], String?, RecordingNotice?) {
        guard !raw.isEmpty else { return ([], nil, nil) }
        // Android's rotation vector is device → ENU (x east); Apple's x-north frame is ENU turned by −90° about z
        // (`AndroidConventions`, shared with the network sources).
        typealias Candidate = (name: String, map: (Quaternion) -> Quaternion)
        let candidates: [Candidate]
        if android {
            candidates = [
                ("xMagneticNorthZVertical (Android rotation vector, ENU, turned to x-north)", { AndroidConventions.appleAttitude(fromENU: $0) }),
                ("xMagneticNorthZVertical (Android rotation vector, conjugated, ENU turned to x-north)", { AndroidConventions.appleAttitude(fromENU: $0.conjugate) }),
            ]
        } else {
            candidates = [
                ("xTrueNorthZVertical", { $0 }),
                ("xTrueNorthZVertical (conjugated)", { $0.conjugate }),
            ]
        }
        guard !gravity.isEmpty else {
            let chosen = candidates[0]
            return (raw.map { TimedQuaternion(time: $0.time, value: chosen.map($0.value)) }, chosen.name,
                    RecordingNotice(kind: .other, file: file, message: "attitude convention not checked (no Gravity.csv)"))
        }
        for candidate in candidates {
            if let error = meanTiltError(raw, gravity: gravity, map: candidate.map), error < 0.1 {
                let mapped = raw.map { TimedQuaternion(time: $0.time, value: candidate.map($0.value)) }
                let notice = standardised
                    ? RecordingNotice(kind: .other, file: file, message: "'Standardise Units & Frames' was on: the attitude's tilt agrees with Gravity, its heading convention is not documented")
                    : nil
                return (mapped, candidate.name, notice)
            }
        }
        return ([], nil, RecordingNotice(kind: .other, file: file, message: "attitude left out: its quaternion agrees with Gravity under no known convention"))
    }

    /// Mean angle (rad) between gravity and the down vector seen through the mapped attitude, over
    /// up to 400 samples matched by time (within 20 ms); `nil` when nothing matches.
    static func meanTiltError(_ attitude: [TimedQuaternion], gravity: [TimedVector], map: (Quaternion) -> Quaternion) -> Double? {
        let step = max(1, attitude.count / 400)
        var j = 0
        var sum = 0.0
        var n = 0
        var i = 0
        while i < attitude.count {
            let a = attitude[i]
            while j + 1 < gravity.count && abs(gravity[j + 1].time - a.time) <= abs(gravity[j].time - a.time) { j += 1 }
            if abs(gravity[j].time - a.time) < 0.02, a.value.isFinite, gravity[j].value.norm > 0.1 {
                let down = map(a.value).normalized.inverseRotate(Vector3(0, 0, -1))
                sum += down.angle(to: gravity[j].value)
                n += 1
            }
            i += step
        }
        return n > 0 ? sum / Double(n) : nil
    }

    /// `Metadata.csv`: a header and one row.
    static func readMetadata(_ file: TextFile) throws -> [String: String] {
        var out: [String: String] = [:]
        try file.bytes.withUnsafeBufferPointer { buffer in
            var rows = DelimitedRows(buffer, separator: 0x2C)
            guard rows.next() else {
                throw RecordingError(file: file.name, expected: "a header and one row", found: "an empty file")
            }
            let header = rows.strings
            guard rows.next() else {
                throw RecordingError(file: file.name, line: 2, expected: "a row of values under the header", found: "nothing")
            }
            let values = rows.strings
            for (k, name) in header.enumerated() where k < values.count { out[name] = values[k] }
        }
        return out
    }

    /// The header fields of a CSV.
    static func headerFields(_ file: TextFile) throws -> [String] {
        file.bytes.withUnsafeBufferPointer { buffer in
            var rows = DelimitedRows(buffer, separator: 0x2C)
            return rows.next() ? rows.strings : []
        }
    }

    /// Earliest `time` over the sensor files (used when Metadata.csv has no epoch).
    static func earliestTime(_ container: RecordingContainer, prefix: String) throws -> Int64? {
        var earliest: Int64?
        for path in container.paths where path.hasPrefix(prefix) && path.hasSuffix(".csv") && !path.hasSuffix("Metadata.csv") {
            let file = try container.read(path)
            file.bytes.withUnsafeBufferPointer { buffer in
                var rows = DelimitedRows(buffer, separator: 0x2C)
                guard rows.next(), let k = rows.strings.firstIndex(of: "time"), rows.next(), k < rows.fieldCount, let t = rows.int64(k) else { return }
                earliest = min(earliest ?? t, t)
            }
        }
        return earliest
    }

    /// `Location.csv` as fixes: `altitudeAboveMeanSeaLevel` is the altitude (Core Location's `altitude`);
    /// the column `altitude` is the height above the WGS 84 ellipsoid (the app's `UNITS.md`) and goes to
    /// ``TimedLocation/ellipsoidalAltitude``; a negative or absent `verticalAccuracy` means none (then
    /// the altitude is not fused). Without `altitudeAboveMeanSeaLevel` the fixes have no altitude.
    static func locations(_ file: TextFile, time: ColumnTable.TimeColumn, notices: inout [RecordingNotice]) throws -> [TimedLocation] {
        let header = try headerFields(file)
        var columns = ["latitude", "longitude"]
        func optional(_ name: String) -> Int? {
            guard header.contains(name) else { return nil }
            columns.append(name)
            return columns.count - 1
        }
        let msl = optional("altitudeAboveMeanSeaLevel")
        let vertical = optional("verticalAccuracy")
        let ellipsoidal = optional("altitude")
        let table = try ColumnTable.read(file, time: time, columns: columns, stream: "location", notices: &notices)
        return (0..<table.count).map { i in
            let accuracy = vertical.map { table.value(i, $0) }.flatMap { $0 > 0 ? $0 : nil }
            return TimedLocation(
                time: table.times[i], latitude: table.value(i, 0), longitude: table.value(i, 1),
                altitude: msl.map { table.value(i, $0) }, verticalAccuracy: accuracy,
                ellipsoidalAltitude: ellipsoidal.map { table.value(i, $0) })
        }
    }

    /// Text labels by time (`Activity.csv`).
    static func labels(_ file: TextFile, origin: Int64, column: String, notices: inout [RecordingNotice]) throws -> [TimedLabel] {
        var out: [TimedLabel] = []
        try file.bytes.withUnsafeBufferPointer { buffer in
            var rows = DelimitedRows(buffer, separator: 0x2C)
            guard rows.next() else { return }
            let header = rows.strings
            guard let t = header.firstIndex(of: "time"), let c = header.firstIndex(of: column) else {
                throw RecordingError(file: file.name, line: 1, column: column, expected: "the columns 'time' and '\(column)'", found: header.joined(separator: ","))
            }
            var policy = StreamPolicy(file: file.name, stream: column)
            while rows.next() {
                if rows.isBlankLine { continue }
                guard rows.fieldCount > max(t, c), let ns = rows.int64(t) else {
                    if !rows.terminated { notices.append(.truncated(file.name, line: rows.line)); break }
                    throw rows.fail(file.name, field: t, column: "time", expected: "an integer time in nanoseconds")
                }
                let time = Double(ns &- origin) / 1e9
                if policy.admit(time: time, finite: true, line: rows.line) {
                    out.append(TimedLabel(time: time, label: rows.string(c)))
                }
            }
            notices += try policy.finish()
        }
        return out
    }
}
