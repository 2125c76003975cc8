import Foundation

/// Reads SensorLog CSV files (the iOS app by Bernd Thomas, sensorlog.berndthomas.net).
///
/// One wide row per logging tick, `loggingTime(txt)` first. Column names, as the app writes them,
/// were taken from public code that consumes SensorLog files: the `In_sensorlog_app` node of
/// pyLiveNodes/LiveNodes (the full channel list of SensorLog 5), `R/acti_read_sensorlog.R` of
/// jhuwit/actiread (`loggingTime(txt)`, `loggingSample(N)`, `locationTimestamp_since1970(s)`,
/// `accelerometerAccelerationX(G)`…), and analysis scripts that list the `activity…`,
/// `pedometer…` and `altimeter…` columns; `loggingTime` is written like
/// `2017-06-23 15:42:42.144 +0200`. Units are in the names: acceleration `(G)`, rotation
/// `(rad/s)`, field `(µT)`, pressure `(kPa)`.
///
/// Every sensor has its own timestamp column and its last value is repeated on every row until it
/// changes. Each sensor is therefore de-duplicated on its own timestamp: a row whose timestamp
/// equals the sensor's previous one is the same sample again and is dropped silently (this is the
/// format, not an error); an older timestamp is a row out of order (policy).
///
/// | columns | becomes |
/// |---|---|
/// | `accelerometerTimestamp_sinceReboot(s)`, `accelerometerAcceleration{X,Y,Z}(G)` | raw accelerometer, g (Apple's sign, as Core Motion gives it) |
/// | `gyroTimestamp_sinceReboot(s)`, `gyroRotation{X,Y,Z}(rad/s)` | raw gyroscope |
/// | `magnetometerTimestamp_sinceReboot(s)`, `magnetometer{X,Y,Z}(µT)` | raw magnetometer |
/// | `altimeterTimestamp_sinceReboot(s)`, `altimeterPressure(kPa)`, `altimeterRelativeAltitude(m)` | barometer kPa, ``ReferenceData/relativeAltitude`` |
/// | `motionTimestamp_sinceReboot(s)`, `motionQuaternion{X,Y,Z,W}(R)`, `motionGravity*(G)`, `motionUserAcceleration*(G)`, `motionRotationRate*(rad/s)`, `motionMagneticField*(µT)`, `motionHeading(°)` | Apple's attitude, gravity, user acceleration, rotation rate, calibrated field, heading |
/// | `activityTimestamp_sinceReboot(s)`, `activity(txt)` | ``ReferenceData/activity`` (Core Motion's vocabulary) |
/// | `pedometerNumberofSteps(N)` at `pedometerEndDate(txt)` | ``ReferenceData/cumulativeSteps`` |
/// | `locationTimestamp_since1970(s)`, `locationLatitude(WGS84)`, `locationLongitude(WGS84)`, `locationAltitude(m)`, `locationVerticalAccuracy(m)` | ``Recording/location``: `locationAltitude(m)` is Core Location's `altitude`, above mean sea level; a vertical accuracy ≤ 0 means the altitude is invalid (none) |
///
/// Time 0 is the earliest sensor timestamp (seconds since the phone booted). The wall clock of
/// time 0 (``RecordingMetadata/startDate``) comes from `loggingTime`: a row is logged after its
/// samples, so the smallest `loggingTime − newest timestamp of the row` over the rows is the offset
/// from boot time to wall clock, good to the logging latency (milliseconds). Fields that are empty
/// or `null` mean "no value in this row". The separator (`,` `;` or tab) is taken from the header.
enum SensorLogReader: FormatReader {
    static let format = RecordingFormat.sensorLog

    static func recognises(_ container: RecordingContainer) -> Bool {
        switch container.kind {
        case .file:
            return isSensorLog(container.head(container.url.lastPathComponent, count: 64))
        case .directory, .zip:
            return container.paths.filter { $0.hasSuffix(".csv") }.prefix(4).contains { isSensorLog(container.head($0, count: 64)) }
        }
    }

    static func isSensorLog(_ head: [UInt8]) -> Bool {
        String(decoding: head, as: UTF8.self).replacingOccurrences(of: "\"", with: "").hasPrefix("loggingTime(txt)")
    }

    static func members(_ container: RecordingContainer) throws -> [RecordingMember] {
        guard !container.kind.isFile else { return [] }
        return container.paths.filter { $0.hasSuffix(".csv") && isSensorLog(container.head($0, count: 64)) }
            .map { RecordingMember(name: ($0 as NSString).deletingPathExtension, format: format) }
    }

    static func read(_ container: RecordingContainer, member: String?) throws -> Recording {
        if container.kind.isFile {
            return try parse(container.read(container.url.lastPathComponent), source: container.url.path)
        }
        let all = container.paths.filter { $0.hasSuffix(".csv") && isSensorLog(container.head($0, count: 64)) }
        let path: String
        if let member {
            guard let found = all.first(where: { $0 == member || ($0 as NSString).deletingPathExtension == member }) else { throw noSuchMember(container, member) }
            path = found
        } else if all.count == 1 {
            path = all[0]
        } else {
            throw memberNeeded(container)
        }
        return try parse(container.read(path), source: container.displayName(path))
    }

    /// A group of columns read together: a timestamp and values.
    struct Group {
        let name: String
        let timestamp: String
        let values: [String]
        /// Column indices, nil when the file lacks the group.
        var timestampIndex: Int?
        var valueIndices: [Int] = []
        var last = -Double.infinity
        var backwards = 0
        var backwardsLine = 0
        var offered = 0
        var nonFinite = 0
        var nonFiniteLine = 0
        var times: [Double] = []
        var data: [Double] = []

        init(_ name: String, _ timestamp: String, _ values: [String]) {
            self.name = name
            self.timestamp = timestamp
            self.values = values
        }

        var present: Bool { timestampIndex != nil }
    }

    static func separator(of header: [UInt8]) -> UInt8 {
        let line = header.prefix { $0 != 0x0A }
        let counts = [0x2C, 0x3B, 0x09].map { sep in (sep, line.filter { $0 == UInt8(sep) }.count) }
        return UInt8(counts.max { $0.1 < $1.1 }!.0)
    }

    static func parse(_ file: TextFile, source: String) throws -> Recording {
        var groups = [
            Group("accelerometer", "accelerometerTimestamp_sinceReboot(s)", ["accelerometerAccelerationX(G)", "accelerometerAccelerationY(G)", "accelerometerAccelerationZ(G)"]),
            Group("gyroscope", "gyroTimestamp_sinceReboot(s)", ["gyroRotationX(rad/s)", "gyroRotationY(rad/s)", "gyroRotationZ(rad/s)"]),
            Group("magnetometer", "magnetometerTimestamp_sinceReboot(s)", ["magnetometerX(µT)", "magnetometerY(µT)", "magnetometerZ(µT)"]),
            Group("altimeter", "altimeterTimestamp_sinceReboot(s)", ["altimeterPressure(kPa)", "altimeterRelativeAltitude(m)"]),
            Group("device motion", "motionTimestamp_sinceReboot(s)", [
                "motionQuaternionW(R)", "motionQuaternionX(R)", "motionQuaternionY(R)", "motionQuaternionZ(R)",
                "motionGravityX(G)", "motionGravityY(G)", "motionGravityZ(G)",
                "motionUserAccelerationX(G)", "motionUserAccelerationY(G)", "motionUserAccelerationZ(G)",
                "motionRotationRateX(rad/s)", "motionRotationRateY(rad/s)", "motionRotationRateZ(rad/s)",
            ]),
            Group("location", "locationTimestamp_since1970(s)", ["locationLatitude(WGS84)", "locationLongitude(WGS84)"]),
        ]
        // Optional columns inside a group's row (absent in some versions): read when present.
        let optionalMotion = ["motionMagneticFieldX(µT)", "motionMagneticFieldY(µT)", "motionMagneticFieldZ(µT)", "motionHeading(°)"]
        let (acc, gyro, mag, alt, motion, location) = (0, 1, 2, 3, 4, 5)
        var notices: [RecordingNotice] = []
        var metadata = RecordingMetadata(format: format.name, source: source)
        var activityTimes: [Double] = []
        var activityLabels: [String] = []
        var steps: [(Date, Double)] = []
        var locationAltitude: [Double?] = []
        var locationVertical: [Double?] = []
        var motionField: [Double] = []
        var motionHeading: [Double] = []
        var clockOffset = Double.infinity  // wall clock (s since 1970) − sinceReboot, minimum over rows
        var hasMotionField = false
        var hasHeading = false

        try file.bytes.withUnsafeBufferPointer { buffer in
            let sep = separator(of: Array(buffer.prefix(4096)))
            var rows = DelimitedRows(buffer, separator: sep)
            guard rows.next() else {
                throw RecordingError(file: file.name, expected: "the SensorLog header starting with loggingTime(txt)", found: "an empty file")
            }
            let header = rows.strings.map { $0.replacingOccurrences(of: "\"", with: "") }
            guard header.first == "loggingTime(txt)" else {
                throw RecordingError(file: file.name, line: 1, column: "1", expected: "loggingTime(txt)", found: header.first ?? "")
            }
            func column(_ name: String) -> Int? {
                header.firstIndex(of: name) ?? header.firstIndex { $0.replacingOccurrences(of: "ÂµT", with: "µT") == name }
            }
            for g in groups.indices {
                guard let t = column(groups[g].timestamp) else { continue }
                var indices: [Int] = []
                for name in groups[g].values {
                    guard let i = column(name) else {
                        throw RecordingError(file: file.name, line: 1, column: name, expected: "the column '\(name)' beside \(groups[g].timestamp)", found: "no such column")
                    }
                    indices.append(i)
                }
                groups[g].timestampIndex = t
                groups[g].valueIndices = indices
            }
            let motionFieldIndex = optionalMotion.prefix(3).compactMap(column)
            hasMotionField = motionFieldIndex.count == 3 && groups[motion].present
            let headingIndex = column(optionalMotion[3])
            hasHeading = headingIndex != nil && groups[motion].present
            let altitudeIndex = column("locationAltitude(m)")
            let verticalIndex = column("locationVerticalAccuracy(m)")
            let activityTime = column("activityTimestamp_sinceReboot(s)")
            let activityText = column("activity(txt)")
            let stepCount = column("pedometerNumberofSteps(N)")
            let stepEnd = column("pedometerEndDate(txt)")
            guard groups[acc].present || groups[gyro].present || groups[mag].present || groups[alt].present || groups[motion].present else {
                throw RecordingError(file: file.name, line: 1, expected: "at least one sensor timestamp column (accelerometerTimestamp_sinceReboot(s), …)", found: header.prefix(6).joined(separator: ","))
            }
            let estimate = buffer.count / 400
            for g in groups.indices where groups[g].present {
                groups[g].times.reserveCapacity(estimate)
                groups[g].data.reserveCapacity(estimate * groups[g].values.count)
            }
            var lastActivity = -Double.infinity
            var lastStepEnd: String?
            var values = [Double](repeating: 0, count: 16)
            rowLoop: while rows.next() {
                if rows.isBlankLine { continue }
                let line = rows.line
                // A last line cut short is skipped as a whole (before any of its sensors is kept).
                if !rows.terminated && rows.fieldCount < header.count {
                    notices.append(.truncated(file.name, line: line))
                    break
                }
                var newest = -Double.infinity
                for g in groups.indices {
                    guard let ti = groups[g].timestampIndex, ti < rows.fieldCount, !rows.isMissing(ti) else { continue }
                    guard let t = rows.double(ti) else {
                        if !rows.terminated { notices.append(.truncated(file.name, line: line)); break rowLoop }
                        throw rows.fail(file.name, field: ti, column: groups[g].timestamp, expected: "a timestamp in seconds")
                    }
                    if t == groups[g].last { continue }  // the same sample, repeated by the logger
                    groups[g].offered += 1
                    if t < groups[g].last || !t.isFinite {
                        if t.isFinite {
                            if groups[g].backwards == 0 { groups[g].backwardsLine = line }
                            groups[g].backwards += 1
                        } else {
                            if groups[g].nonFinite == 0 { groups[g].nonFiniteLine = line }
                            groups[g].nonFinite += 1
                        }
                        continue
                    }
                    var finite = true
                    for (k, vi) in groups[g].valueIndices.enumerated() {
                        guard vi < rows.fieldCount, let v = rows.double(vi) else {
                            if !rows.terminated { notices.append(.truncated(file.name, line: line)); break rowLoop }
                            throw rows.fail(file.name, field: vi, column: groups[g].values[k], expected: "a number")
                        }
                        if !v.isFinite { finite = false }
                        values[k] = v
                    }
                    if g == motion {
                        if hasMotionField {
                            for k in 0..<3 { values[13 + k] = motionFieldIndex[k] < rows.fieldCount ? rows.double(motionFieldIndex[k]) ?? .nan : .nan }
                        }
                    }
                    guard finite else {
                        if groups[g].nonFinite == 0 { groups[g].nonFiniteLine = line }
                        groups[g].nonFinite += 1
                        groups[g].last = t
                        continue
                    }
                    groups[g].last = t
                    groups[g].times.append(t)
                    groups[g].data.append(contentsOf: values[0..<groups[g].values.count])
                    if g == location {
                        locationAltitude.append(altitudeIndex.flatMap { $0 < rows.fieldCount ? rows.double($0) : nil })
                        locationVertical.append(verticalIndex.flatMap { $0 < rows.fieldCount ? rows.double($0) : nil })
                    } else {
                        newest = max(newest, t)
                    }
                    if g == motion {
                        if hasMotionField { motionField.append(contentsOf: values[13..<16]) }
                        if hasHeading, let h = headingIndex { motionHeading.append(h < rows.fieldCount ? rows.double(h) ?? .nan : .nan) }
                    }
                }
                // Wall clock of the row: the first 500 rows and every 50th after (the minimum settles early).
                if newest.isFinite, line <= 500 || line % 50 == 0, let date = parseDate(rows.string(0)) {
                    clockOffset = min(clockOffset, date.timeIntervalSince1970 - newest)
                }
                if let at = activityTime, let text = activityText, at < rows.fieldCount, text < rows.fieldCount, !rows.isMissing(at),
                   let t = rows.double(at), t > lastActivity, !rows.isMissing(text) {
                    lastActivity = t
                    activityTimes.append(t)
                    activityLabels.append(rows.string(text).trimmingCharacters(in: .whitespaces))
                }
                if let n = stepCount, let e = stepEnd, n < rows.fieldCount, e < rows.fieldCount, !rows.isMissing(n), !rows.isMissing(e) {
                    let end = rows.string(e)
                    if end != lastStepEnd, let count = rows.double(n), count.isFinite, let date = parseDate(end) {
                        lastStepEnd = end
                        steps.append((date, count))
                    }
                }
            }
        }

        // Policy outcome per sensor.
        for g in groups where g.present {
            if g.backwards > 0 && g.backwards * 100 > g.offered {
                throw RecordingError(file: file.name, line: g.backwardsLine, column: g.timestamp,
                                     expected: "\(g.name) timestamps increasing (at most 1 % of samples out of order)",
                                     found: "\(g.backwards) of \(g.offered) samples go back in time")
            }
            if g.backwards > 0 {
                notices.append(RecordingNotice(kind: .outOfOrder, file: file.name, line: g.backwardsLine, count: g.backwards,
                                               message: "\(g.name): skipped \(g.backwards) sample\(g.backwards == 1 ? "" : "s") older than the one before"))
            }
            if g.nonFinite > 0 {
                notices.append(RecordingNotice(kind: .nonFinite, file: file.name, line: g.nonFiniteLine, count: g.nonFinite,
                                               message: "\(g.name): skipped \(g.nonFinite) sample\(g.nonFinite == 1 ? "" : "s") with a NaN or infinite value"))
            }
        }

        // Time origin: the earliest sensor timestamp since boot.
        let origin = [acc, gyro, mag, alt, motion].compactMap { groups[$0].times.first }.min() ?? 0
        metadata.properties["timeOrigin"] = "\(origin) s since boot"
        if clockOffset.isFinite {
            metadata.startDate = Date(timeIntervalSince1970: origin + clockOffset)
        }
        func vectors(_ g: Group, _ first: Int) -> [TimedVector] {
            let w = g.values.count
            return g.times.indices.map { i in
                TimedVector(time: g.times[i] - origin, value: Vector3(g.data[i * w + first], g.data[i * w + first + 1], g.data[i * w + first + 2]))
            }
        }
        var recording = Recording(metadata: metadata)
        recording.accelerometer = vectors(groups[acc], 0)
        recording.gyroscope = vectors(groups[gyro], 0)
        recording.magnetometer = vectors(groups[mag], 0)
        let a = groups[alt]
        recording.barometer = a.times.indices.map { PressureReading(time: a.times[$0] - origin, kilopascals: a.data[$0 * 2]) }
        recording.reference.relativeAltitude = a.times.indices.map { TimedScalar(time: a.times[$0] - origin, value: a.data[$0 * 2 + 1]) }
        let m = groups[motion]
        let w = m.values.count
        recording.reference.attitude = m.times.indices.map { i in
            TimedQuaternion(time: m.times[i] - origin, value: Quaternion(w: m.data[i * w], x: m.data[i * w + 1], y: m.data[i * w + 2], z: m.data[i * w + 3]))
        }
        recording.reference.gravity = vectors(m, 4)
        recording.reference.userAcceleration = vectors(m, 7)
        recording.reference.rotationRate = vectors(m, 10)
        if hasMotionField {
            recording.reference.calibratedMagneticField = m.times.indices.compactMap { i in
                let v = Vector3(motionField[i * 3], motionField[i * 3 + 1], motionField[i * 3 + 2])
                return v.isFinite ? TimedVector(time: m.times[i] - origin, value: v) : nil
            }
        }
        if hasHeading {
            recording.reference.heading = m.times.indices.compactMap { i in
                motionHeading[i].isFinite && motionHeading[i] >= 0 ? TimedScalar(time: m.times[i] - origin, value: motionHeading[i]) : nil
            }
        }
        recording.reference.activity = zip(activityTimes, activityLabels).map {
            TimedLabel(time: $0 - origin, label: ActivityVocabulary.coreMotionClass($1) ?? $1)
        }
        if let start = recording.metadata.startDate {
            recording.reference.cumulativeSteps = steps.map { TimedScalar(time: $0.0.timeIntervalSince(start), value: $0.1) }
            let l = groups[location]
            recording.location = l.times.indices.map {
                let vertical = locationVertical[$0].flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
                return TimedLocation(time: l.times[$0] - start.timeIntervalSince1970, latitude: l.data[$0 * 2], longitude: l.data[$0 * 2 + 1],
                                     altitude: locationAltitude[$0].flatMap { $0.isFinite ? $0 : nil }, verticalAccuracy: vertical)
            }
        } else if !steps.isEmpty || groups[location].present {
            notices.append(RecordingNotice(kind: .other, file: file.name, message: "no readable loggingTime: pedometer and location (wall-clock times) left out"))
        }
        for (sensor, name) in [(SensorKind.accelerometer, "accelerometer"), (.gyroscope, "gyroscope"), (.magnetometer, "magnetometer")] {
            if let gap = GapReport.notice(recording.times(of: sensor), file: file.name, stream: name, time: { $0 }) { notices.append(gap) }
        }
        recording.notices = notices
        return recording
    }

    /// `2017-06-23 15:42:42.144 +0200`, its ISO 8601 form `2017-06-23T15:42:42.144+02:00`, or
    /// either without fractional seconds.
    static func parseDate(_ text: String) -> Date? {
        let s = text.trimmingCharacters(in: .whitespaces)
        guard s.count >= 19 else { return nil }
        let chars = Array(s.utf8)
        func int(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= chars.count else { return nil }
            var v = 0
            for c in chars[from..<(from + count)] {
                guard c >= 0x30 && c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            return v
        }
        guard let year = int(0, 4), chars[4] == 0x2D, let month = int(5, 2), chars[7] == 0x2D, let day = int(8, 2),
              chars[10] == 0x20 || chars[10] == 0x54, let hour = int(11, 2), chars[13] == 0x3A, let minute = int(14, 2),
              chars[16] == 0x3A, let second = int(17, 2) else { return nil }
        var i = 19
        var fraction = 0.0
        if i < chars.count && (chars[i] == 0x2E || chars[i] == 0x2C) {
            i += 1
            var scale = 0.1
            while i < chars.count, chars[i] >= 0x30 && chars[i] <= 0x39 {
                fraction += Double(chars[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
        }
        while i < chars.count && chars[i] == 0x20 { i += 1 }
        var offset = 0
        if i < chars.count {
            if chars[i] == 0x5A {  // Z
                offset = 0
            } else if chars[i] == 0x2B || chars[i] == 0x2D {
                let sign = chars[i] == 0x2D ? -1 : 1
                guard let h = int(i + 1, 2) else { return nil }
                var j = i + 3
                if j < chars.count && chars[j] == 0x3A { j += 1 }
                let m = int(j, 2) ?? 0
                offset = sign * (h * 3600 + m * 60)
            } else {
                return nil
            }
        } else {
            return nil  // without a zone the wall clock is ambiguous
        }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        // Days from the civil date (proleptic Gregorian), then seconds since 1970.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let seconds = Double(days * 86400 + hour * 3600 + minute * 60 + second - offset) + fraction
        return Date(timeIntervalSince1970: seconds)
    }
}
