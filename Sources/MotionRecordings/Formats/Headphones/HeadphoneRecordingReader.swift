import Foundation

/// Reads recordings of headphone motion: what Apple's `CMHeadphoneMotionManager` delivered, as a capture
/// stored it, converted once into Core Motion's units (`docs/headphones.md#recordings`).
///
/// | format | recognised by | fields | conversion |
/// |---|---|---|---|
/// | Sensor Logger export (folder, `.zip`, or any file of it) | `Metadata.csv` and `Headphone.csv` | `time` (UTC ns), `quaternionW…Z` (or `roll, pitch, yaw` rad), `rotationRateX…Z` rad/s (app 1.30+), `accelerationX…Z` g, `gravityX…Z` **m/s²**, `devicelocation` `left`/`right` | gravity ÷ 9.80665; a missing rotation rate is derived from consecutive quaternions (with a notice); t = 0 is `Metadata.csv`'s recording epoch, as for the phone's sensors |
/// | JSON lines of the `airpod-pose-estimate` capture tool (and anything in its shape) | a first line that is a JSON object with `type` | `sample` records: `t` (s since boot), `q` `[w, x, y, z]`, `rot` rad/s, `acc` g, `grav` g, optional `loc`; `status` records: `event` (`starting`, `connected`, `disconnected`, `stopped`, `error`) at `wall` (Unix s); `loc` records | none (already Core Motion's units); status times are mapped onto `t` through the first sample's `t − wall` |
///
/// Sensor Logger's "Standardise Units & Frames" (`standardisation` true in `Metadata.csv`) writes the
/// attitude in Android's convention, which is not documented for headphones: such an export is refused with
/// a message. The attitude's convention is checked against gravity (`gravity = −(third row of R(q))`); an
/// export whose quaternion matches it only conjugated is read conjugated, with a notice; one that matches
/// neither is refused. Rows follow the bad-input policy of every reader (``RecordingNotice``).
public enum HeadphoneRecordingReader {
    /// Reads the headphone recording at `path` (a Sensor Logger export or a JSON-lines capture).
    public static func read(_ path: String) throws -> HeadphoneRecording {
        try read(URL(fileURLWithPath: path))
    }

    /// Reads the headphone recording at `url`.
    ///
    /// - Throws: ``RecordingError`` naming the file, line and field when it is malformed, or saying what
    ///   was expected when it is no headphone recording.
    public static func read(_ url: URL) throws -> HeadphoneRecording {
        let container = try RecordingContainer(url)
        if container.kind.isFile {
            let head = String(decoding: container.head(container.url.lastPathComponent, count: 256), as: UTF8.self)
            if head.hasPrefix(NativeFormat.magic) {
                return try readNative(container.read(container.url.lastPathComponent), source: url.path)
            }
            // Characters: "\r\n" is one, neither "\r" nor "\n", so test for whitespace, not for each byte.
            if head.drop(while: { $0.isWhitespace }).hasPrefix("{") {
                return try readJSONLines(container.read(container.url.lastPathComponent), source: url.path)
            }
            // One file of a Sensor Logger export: the whole export around it.
            return try read(url.deletingLastPathComponent())
        }
        guard let metadataPath = SensorLoggerReader.metadataPath(container) else {
            throw RecordingError(
                file: url.path, expected: "a headphone recording: \(formats)",
                found: container.isZip ? "a zip archive without Metadata.csv" : "a folder without Metadata.csv")
        }
        return try readSensorLogger(container, metadataPath: metadataPath)
    }

    // MARK: coremotion record

    /// The `x-headphone` rows of a `.cmrec` file (``NativeRecordingWriter/append(headphone:)``), value for value.
    static func readNative(_ file: TextFile, source: String) throws -> HeadphoneRecording {
        let display = file.name
        var metadata = RecordingMetadata(format: "coremotion record (headphones)", source: source)
        var samples: [HeadphoneMotionSample] = []
        var skipped = 0
        var lineNumber = 0
        for line in String(decoding: file.bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.hasPrefix("# device: ") { metadata.deviceName = String(line.dropFirst("# device: ".count)) }
            guard !line.hasPrefix("#") else { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 2, fields[1] == Substring(NativeFormat.headphoneStream) else { continue }
            guard fields.count == 16 else {
                throw RecordingError(file: display, line: lineNumber, expected: "16 fields in an x-headphone row", found: "\(fields.count)")
            }
            let numbers = fields[2..<15].compactMap { Double($0) }
            guard let t = Double(fields[0]), numbers.count == 13, let code = Int(fields[15]),
                let location = HeadphoneSensorLocation(rawValue: code)
            else {
                throw RecordingError(file: display, line: lineNumber, expected: "numbers and a location 0, 1 or 2 in an x-headphone row", found: String(line.prefix(80)))
            }
            let sample = HeadphoneMotionSample(
                time: t, attitude: Quaternion(w: numbers[0], x: numbers[1], y: numbers[2], z: numbers[3]),
                rotationRate: Vector3(numbers[4], numbers[5], numbers[6]), userAcceleration: Vector3(numbers[7], numbers[8], numbers[9]),
                gravity: Vector3(numbers[10], numbers[11], numbers[12]), location: location)
            // Out of order, repeated or not finite: skipped (the bad-input policy of every reader).
            guard sample.isFinite, sample.attitude.norm > 0.5, t > (samples.last?.time ?? -.infinity) else {
                skipped += 1
                continue
            }
            samples.append(sample)
        }
        guard !samples.isEmpty else {
            throw RecordingError(file: display, expected: "x-headphone rows (a coremotion record session with headphones)", found: "none")
        }
        var notices: [RecordingNotice] = []
        if skipped > 0 {
            notices.append(RecordingNotice(kind: .other, file: display, count: skipped, message: "skipped \(skipped) headphone rows out of order, repeated or not finite"))
        }
        return HeadphoneRecording(metadata: metadata, samples: samples, startTime: 0, notices: notices)
    }

    /// The formats read, for messages.
    public static let formats =
        "a Sensor Logger export with Headphone.csv (folder, .zip or a file of it), a coremotion record .cmrec with headphones, or a JSON-lines capture (one object per line with \"type\": \"sample\", \"t\", \"q\", \"rot\", \"acc\", \"grav\")"

    // MARK: Sensor Logger

    static func readSensorLogger(_ container: RecordingContainer, metadataPath: String) throws -> HeadphoneRecording {
        let prefix = String(metadataPath.dropLast("Metadata.csv".count))
        let info = try SensorLoggerReader.readMetadata(container.read(metadataPath))
        let name = prefix + "Headphone.csv"
        guard container.contains(name), !container.head(name, count: 8).isEmpty else {
            throw RecordingError(
                file: container.displayName(metadataPath), expected: "Headphone.csv beside Metadata.csv (record with headphones connected)",
                found: "no Headphone.csv")
        }
        if (info["standardisation"] ?? "false").lowercased() == "true" {
            throw RecordingError(
                file: container.displayName(metadataPath), column: "standardisation",
                expected: "standardisation false: with \"Standardise Units & Frames\" on, Sensor Logger writes the headphones' attitude in Android's convention, which is not documented for headphones; record again with it off",
                found: "true")
        }
        var metadata = RecordingMetadata(format: "Sensor Logger (headphones)", source: container.url.path)
        metadata.deviceName = info["device name"].flatMap { $0.isEmpty ? nil : $0 }
        for key in ["appVersion", "platform", "recording time"] {
            if let v = info[key], !v.isEmpty { metadata.properties[key] = v }
        }
        var notices: [RecordingNotice] = []
        let origin: Int64
        if let epoch = info["recording epoch time"].flatMap({ Int64($0.trimmingCharacters(in: .whitespaces)) }) {
            origin = epoch * 1_000_000
        } else {
            origin = try SensorLoggerReader.earliestTime(container, prefix: prefix) ?? 0
            notices.append(RecordingNotice(kind: .other, file: container.displayName(metadataPath), message: "no 'recording epoch time': t = 0 is the earliest sample"))
        }
        metadata.startDate = SensorLoggerReader.date(nanosecondsSince1970: origin)
        let file = try container.read(name)
        let display = container.displayName(name)
        let header = try SensorLoggerReader.headerFields(file)
        let hasQuaternion = ["quaternionW", "quaternionX", "quaternionY", "quaternionZ"].allSatisfy(header.contains)
        let hasRate = ["rotationRateX", "rotationRateY", "rotationRateZ"].allSatisfy(header.contains)
        var columns = hasQuaternion ? ["quaternionW", "quaternionX", "quaternionY", "quaternionZ"] : ["roll", "pitch", "yaw"]
        columns += ["accelerationX", "accelerationY", "accelerationZ", "gravityX", "gravityY", "gravityZ"]
        if hasRate { columns += ["rotationRateX", "rotationRateY", "rotationRateZ"] }
        let table = try ColumnTable.read(
            file, time: .nanoseconds("time", origin: origin), columns: columns, stream: "headphone motion", notices: &notices)
        let locations = try locationColumn(file, header: header)
        let q0 = hasQuaternion ? 4 : 3
        var samples: [HeadphoneMotionSample] = []
        samples.reserveCapacity(table.count)
        for i in 0..<table.count {
            let attitude = hasQuaternion
                ? asRecorded(Quaternion(w: table.value(i, 0), x: table.value(i, 1), y: table.value(i, 2), z: table.value(i, 3)))
                : Quaternion(appleRoll: table.value(i, 0), pitch: table.value(i, 1), yaw: table.value(i, 2))
            let user = Vector3(table.value(i, q0), table.value(i, q0 + 1), table.value(i, q0 + 2))
            let gravity = Vector3(table.value(i, q0 + 3), table.value(i, q0 + 4), table.value(i, q0 + 5)) / standardGravity
            let rate = hasRate ? Vector3(table.value(i, q0 + 6), table.value(i, q0 + 7), table.value(i, q0 + 8)) : .zero
            let location = locations[Int(table.lines[i])] ?? .unknown
            samples.append(HeadphoneMotionSample(
                time: table.times[i], attitude: attitude, rotationRate: rate, userAcceleration: user, gravity: gravity,
                location: location))
        }
        samples = try checkConvention(samples, file: display, notices: &notices)
        if !hasRate && samples.count > 1 {
            samples = derivingRotationRate(samples)
            notices.append(RecordingNotice(
                kind: .other, file: display,
                message: "no rotationRateX…Z columns (Sensor Logger before 1.30): rotation rate derived from consecutive attitudes"))
        }
        if let gap = GapReport.notice(samples.map(\.time), file: display, stream: "headphone motion", time: { $0 }) {
            notices.append(gap)
        }
        metadata.properties["samples"] = String(samples.count)
        return HeadphoneRecording(
            metadata: metadata, samples: samples, startTime: phoneStart(container, prefix: prefix, origin: origin),
            notices: notices)
    }

    /// `devicelocation` by line number (1-based), when the column exists.
    static func locationColumn(_ file: TextFile, header: [String]) throws -> [Int: HeadphoneSensorLocation] {
        guard let column = header.firstIndex(of: "devicelocation") else { return [:] }
        var out: [Int: HeadphoneSensorLocation] = [:]
        file.bytes.withUnsafeBufferPointer { buffer in
            var rows = DelimitedRows(buffer, separator: 0x2C)
            guard rows.next() else { return }
            while rows.next() {
                guard column < rows.fieldCount else { continue }
                out[rows.line] = HeadphoneSensorLocation(name: rows.string(column)) ?? .unknown
            }
        }
        return out
    }

    /// The time of the export's first phone motion sample (what the phone's replay starts with), so that a
    /// headphone replay of the same export stays in step with it; `nil` without phone motion files.
    static func phoneStart(_ container: RecordingContainer, prefix: String, origin: Int64) -> Double? {
        let files = [
            "AccelerometerUncalibrated", "TotalAcceleration", "GyroscopeUncalibrated", "Gyroscope", "MagnetometerUncalibrated",
            "Magnetometer",
        ]
        var earliest: Int64?
        for name in files where container.contains(prefix + name + ".csv") {
            let head = container.head(prefix + name + ".csv", count: 1024)
            head.withUnsafeBufferPointer { buffer in
                var rows = DelimitedRows(buffer, separator: 0x2C)
                guard rows.next(), let k = rows.strings.firstIndex(of: "time"), rows.next(), k < rows.fieldCount,
                      let t = rows.int64(k) else { return }
                earliest = min(earliest ?? t, t)
            }
        }
        return earliest.map { Double($0 &- origin) / 1e9 }
    }

    // MARK: JSON lines

    static func readJSONLines(_ file: TextFile, source: String) throws -> HeadphoneRecording {
        var metadata = RecordingMetadata(format: "headphone capture (JSON lines)", source: source)
        var notices: [RecordingNotice] = []
        var samples: [HeadphoneMotionSample] = []
        var statusWall: [(wall: Double, event: String, line: Int)] = []
        var location = HeadphoneSensorLocation.unknown
        var firstOffset: Double?
        var policy = StreamPolicy(file: file.name, stream: "headphone motion", timeColumn: "t")
        var lineNumber = 0
        var unknownTypes: [String: Int] = [:]
        var start = 0
        let bytes = file.bytes
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            lineNumber += 1
            let line = bytes[start..<end]
            let terminated = end < bytes.count
            start = end + 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            let object: [String: Any]
            do {
                guard let parsed = try LenientJSON.object(from: Array(line)) as? [String: Any] else {
                    throw RecordingError(file: file.name, line: lineNumber, expected: "a JSON object", found: String(decoding: line.prefix(60), as: UTF8.self))
                }
                object = parsed
            } catch let error as RecordingError {
                throw error
            } catch {
                if !terminated {
                    notices.append(.truncated(file.name, line: lineNumber))
                    break
                }
                throw RecordingError(file: file.name, line: lineNumber, expected: "a JSON object on each line", found: String(decoding: line.prefix(60), as: UTF8.self))
            }
            let type = (object["type"] as? String) ?? (object["q"] != nil ? "sample" : "")
            switch type {
            case "header":
                if let label = object["label"] as? String { metadata.properties["label"] = label }
                if let wall = number(object["wall"]) { metadata.startDate = Date(timeIntervalSince1970: wall) }
            case "status":
                guard let event = object["event"] as? String, let wall = number(object["wall"]) else {
                    throw RecordingError(file: file.name, line: lineNumber, column: "event", expected: "a status record with \"event\" and \"wall\"", found: String(decoding: line.prefix(60), as: UTF8.self))
                }
                statusWall.append((wall, event, lineNumber))
            case "loc", "location":
                let text = (object["loc"] ?? object["location"] ?? object["value"]) as? String ?? ""
                location = HeadphoneSensorLocation(name: text) ?? .unknown
            case "sample":
                func vector(_ key: String, count: Int = 3) throws -> [Double] {
                    guard let list = object[key] as? [Any], list.count == count else {
                        throw RecordingError(file: file.name, line: lineNumber, column: key, expected: "an array of \(count) numbers", found: String(describing: object[key] ?? "nothing"))
                    }
                    return try list.map {
                        guard let v = number($0) else {
                            throw RecordingError(file: file.name, line: lineNumber, column: key, expected: "numbers", found: String(describing: $0))
                        }
                        return v
                    }
                }
                guard let t = number(object["t"]) else {
                    throw RecordingError(file: file.name, line: lineNumber, column: "t", expected: "the sample time t in seconds", found: String(describing: object["t"] ?? "nothing"))
                }
                let q = try vector("q", count: 4), rot = try vector("rot"), acc = try vector("acc"), grav = try vector("grav")
                if let text = object["loc"] as? String, let l = HeadphoneSensorLocation(name: text) { location = l }
                let sample = HeadphoneMotionSample(
                    time: t, attitude: asRecorded(Quaternion(w: q[0], x: q[1], y: q[2], z: q[3])),
                    rotationRate: Vector3(rot[0], rot[1], rot[2]), userAcceleration: Vector3(acc[0], acc[1], acc[2]),
                    gravity: Vector3(grav[0], grav[1], grav[2]), location: location)
                guard policy.admit(time: t, finite: sample.isFinite, line: lineNumber) else { continue }
                if firstOffset == nil, let wall = number(object["wall"]) { firstOffset = t - wall }
                samples.append(sample)
            default:
                unknownTypes[type.isEmpty ? "(none)" : type, default: 0] += 1
            }
        }
        notices += try policy.finish()
        for (type, count) in unknownTypes.sorted(by: { $0.key < $1.key }) {
            notices.append(RecordingNotice(kind: .other, file: file.name, count: count, message: "records of type '\(type)' ignored"))
        }
        guard !samples.isEmpty else {
            throw RecordingError(file: file.name, expected: "sample records (\"type\": \"sample\" with t, q, rot, acc, grav)", found: "none")
        }
        // Status records carry only the arrival clock (`wall`): place them on the samples' axis through the
        // first sample's t − wall (its delivery latency is then counted in, ≈ 0.1–0.2 s on real AirPods).
        var status: [HeadphoneStatusRecord] = []
        var startTime: Double?
        if let offset = firstOffset {
            for record in statusWall {
                let t = record.wall + offset
                switch record.event.lowercased() {
                case "starting": startTime = min(startTime ?? t, t)
                case "connected": status.append(HeadphoneStatusRecord(time: t, connected: true, label: record.event))
                case "disconnected", "stopped", "error":
                    status.append(HeadphoneStatusRecord(time: t, connected: false, label: record.event))
                default:
                    notices.append(RecordingNotice(kind: .other, file: file.name, line: record.line, message: "status '\(record.event)' ignored"))
                }
            }
        } else if !statusWall.isEmpty {
            notices.append(RecordingNotice(kind: .other, file: file.name, message: "status records ignored: the samples have no 'wall' time to place them"))
        }
        if let gap = GapReport.notice(samples.map(\.time), file: file.name, stream: "headphone motion", time: { $0 }) {
            notices.append(gap)
        }
        metadata.properties["samples"] = String(samples.count)
        // The first event plays at once: the capture's `starting` record when it has one.
        let first = min(samples[0].time, status.first?.time ?? .infinity)
        return HeadphoneRecording(
            metadata: metadata, samples: samples, status: status, startTime: min(startTime ?? first, first), notices: notices)
    }

    /// The quaternion as recorded: Apple's are float-precision, unit to about 1e-7, and the capture's Euler
    /// angles were computed from them as they are; only one further from unit than 1e-3 (not a rotation as
    /// written) is normalised.
    static func asRecorded(_ q: Quaternion) -> Quaternion {
        abs(q.norm - 1) > 1e-3 ? q.normalized : q
    }

    private static func number(_ value: Any?) -> Double? {
        switch value {
        case let d as Double: d
        case let i as Int: Double(i)
        case let n as NSNumber: n.doubleValue
        case let s as String: Double(s)
        default: nil
        }
    }

    // MARK: Checks

    /// Checks the attitude against gravity: `gravity = −(third row of R(q))`. A conjugated quaternion is
    /// turned back (with a notice); one that agrees with neither is refused.
    static func checkConvention(
        _ samples: [HeadphoneMotionSample], file: String, notices: inout [RecordingNotice]
    ) throws -> [HeadphoneMotionSample] {
        guard !samples.isEmpty else { return samples }
        func meanError(_ map: (Quaternion) -> Quaternion) -> Double {
            let step = max(1, samples.count / 400)
            var sum = 0.0, n = 0
            for i in stride(from: 0, to: samples.count, by: step) where samples[i].gravity.norm > 0.1 {
                sum += MotionSamples.gravity(of: map(samples[i].attitude)).angle(to: samples[i].gravity)
                n += 1
            }
            return n > 0 ? sum / Double(n) : 0
        }
        if meanError({ $0 }) < 0.1 { return samples }
        if meanError({ $0.conjugate }) < 0.1 {
            notices.append(RecordingNotice(kind: .other, file: file, message: "the quaternion is the conjugate of Core Motion's (device → reference is its inverse): read conjugated"))
            return samples.map { var s = $0; s.attitude = s.attitude.conjugate; return s }
        }
        throw RecordingError(
            file: file, column: "quaternionW…Z",
            expected: "an attitude that agrees with gravity (gravity = −(third row of R(q)), Core Motion's convention)",
            found: String(format: "a mean disagreement of %.0f°", meanError({ $0 }) * 180 / .pi))
    }

    /// The body-frame angular velocity between consecutive attitudes (rad/s), for exports without a rotation
    /// rate: ω ≈ rotationVector(q(k−1)* ⊗ q(k+1)) / (t(k+1) − t(k−1)) (one-sided at the ends and across gaps
    /// longer than 0.2 s).
    static func derivingRotationRate(_ samples: [HeadphoneMotionSample]) -> [HeadphoneMotionSample] {
        var out = samples
        for k in samples.indices {
            let a = k > 0 && samples[k].time - samples[k - 1].time < 0.2 ? k - 1 : k
            let b = k + 1 < samples.count && samples[k + 1].time - samples[k].time < 0.2 ? k + 1 : k
            guard a != b else { continue }
            let dq = (samples[a].attitude.conjugate * samples[b].attitude).canonical
            out[k].rotationRate = dq.rotationVector / (samples[b].time - samples[a].time)
        }
        return out
    }
}
