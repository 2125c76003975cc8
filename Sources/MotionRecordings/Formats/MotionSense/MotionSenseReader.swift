import Foundation

/// Reads MotionSense (Malekzadeh, Clegg, Cavallaro, Haddadi, "Mobile Sensor Data Anonymization",
/// IoTDI 2019; github.com/mmalekzadeh/motion-sense; MIT): Core Motion device motion of an iPhone 6s
/// in the front trouser pocket, 50 Hz, one CSV per activity trial and subject:
/// `A_DeviceMotion_data*/<activity>_<trial>/sub_<n>.csv` with the columns
/// `,attitude.roll,attitude.pitch,attitude.yaw,gravity.x…z,rotationRate.x…z,userAcceleration.x…z`.
///
/// - There is no time column: rows are uniform at 50 Hz, row `i` at `i / 50` s.
/// - The raw accelerometer is Apple's identity gravity + userAcceleration (g, Apple's sign).
/// - The only rotation rate is Apple's bias-corrected one: it is delivered as the gyroscope (noted
///   in the metadata, `gyroscopeSource`) and is also ``ReferenceData/rotationRate``.
/// - Attitude: Apple's Euler angles to a quaternion, `Quaternion(appleRoll:pitch:yaw:)`.
/// - The activity code of the folder (`dws`, `ups`, `wlk`, `jog`, `sit`, `std`) becomes a label in
///   Core Motion's vocabulary (stairs count as walking); the code is kept in `label`.
/// - `data_subjects_info.csv` (in the archive or beside it) adds weight (kg), height (cm), age and
///   gender (0 female, 1 male, as published) to the properties.
///
/// Members are `<activity>_<trial>/sub_<n>`, e.g. `A_DeviceMotion_data.zip#wlk_7/sub_1`.
enum MotionSenseReader: FormatReader {
    static let format = RecordingFormat.motionSense
    static let rate = 50.0
    static let columns = [
        "attitude.roll", "attitude.pitch", "attitude.yaw", "gravity.x", "gravity.y", "gravity.z",
        "rotationRate.x", "rotationRate.y", "rotationRate.z", "userAcceleration.x", "userAcceleration.y", "userAcceleration.z",
    ]
    static let activities = ["dws": "downstairs", "ups": "upstairs", "wlk": "walking", "jog": "jogging", "sit": "sitting", "std": "standing"]

    static func recognises(_ container: RecordingContainer) -> Bool {
        switch container.kind {
        case .file: return hasHeader(container.head(container.url.lastPathComponent, count: 512))
        case .directory, .zip: return !trialFiles(container).isEmpty
        }
    }

    static func hasHeader(_ head: [UInt8]) -> Bool {
        let line = String(decoding: head, as: UTF8.self).split(whereSeparator: \.isNewline).first ?? ""
        return line.contains("attitude.roll") && line.contains("userAcceleration.z") && line.contains("gravity.x")
    }

    /// `(path, member name)` of every trial CSV.
    static func trialFiles(_ container: RecordingContainer) -> [(path: String, name: String)] {
        container.paths.compactMap { path -> (String, String)? in
            let parts = path.split(separator: "/").map(String.init)
            guard parts.count >= 2, let file = parts.last, file.hasPrefix("sub_"), file.hasSuffix(".csv"),
                  parts.contains(where: { $0.hasPrefix("A_DeviceMotion_data") }) || parts.count == 2 else { return nil }
            let folder = parts[parts.count - 2]
            guard activities[String(folder.prefix(3))] != nil else { return nil }
            return (path, folder + "/" + String(file.dropLast(4)))
        }
    }

    static func members(_ container: RecordingContainer) throws -> [RecordingMember] {
        guard !container.kind.isFile else { return [] }
        let subjects = subjectTable(container)
        return trialFiles(container).map { RecordingMember(name: $0.name, format: format, properties: properties(member: $0.name, subjects: subjects)) }
    }

    /// Properties of member `wlk_7/sub_1`.
    static func properties(member: String, subjects: [String: [String: String]]) -> [String: String] {
        var p: [String: String] = [:]
        let parts = member.split(separator: "/").map(String.init)
        if parts.count == 2 {
            let folder = parts[0]
            let code = String(folder.prefix(3))
            p["label"] = activities[code] ?? code
            p["activity"] = ActivityVocabulary.coreMotionClass(code) ?? "unknown"
            if let underscore = folder.firstIndex(of: "_") { p["trial"] = String(folder[folder.index(after: underscore)...]) }
            let subject = parts[1].replacingOccurrences(of: "sub_", with: "")
            p["subject"] = subject
            if let info = subjects[subject] { p.merge(info) { a, _ in a } }
        }
        return p
    }

    /// `data_subjects_info.csv` (`code,weight,height,age,gender`), from the archive or beside it.
    static func subjectTable(_ container: RecordingContainer) -> [String: [String: String]] {
        var file: TextFile?
        if let path = container.paths.first(where: { ($0 as NSString).lastPathComponent == "data_subjects_info.csv" }) {
            file = try? container.read(path)
        } else {
            let beside = container.url.deletingLastPathComponent().appendingPathComponent("data_subjects_info.csv")
            if let bytes = try? RecordingContainer.readBytes(beside) { file = TextFile(name: beside.path, bytes: bytes) }
        }
        guard let file else { return [:] }
        return subjectTable(file)
    }

    static func subjectTable(_ file: TextFile) -> [String: [String: String]] {
        var out: [String: [String: String]] = [:]
        file.bytes.withUnsafeBufferPointer { buffer in
            var rows = DelimitedRows(buffer, separator: 0x2C)
            guard rows.next() else { return }
            let header = rows.strings
            let names = ["weight": "weight (kg)", "height": "height (cm)", "age": "age", "gender": "gender (0 female, 1 male)"]
            while rows.next() {
                let f = rows.strings
                guard f.count == header.count, let code = header.firstIndex(of: "code") else { continue }
                var info: [String: String] = [:]
                for (k, name) in header.enumerated() where name != "code" { info[names[name] ?? name] = f[k] }
                out[f[code]] = info
            }
        }
        return out
    }

    static func read(_ container: RecordingContainer, member: String?) throws -> Recording {
        if container.kind.isFile {
            let url = container.url
            let name = url.deletingLastPathComponent().lastPathComponent + "/" + url.deletingPathExtension().lastPathComponent
            // data_subjects_info.csv sits beside the A_DeviceMotion_data folder.
            var subjects: [String: [String: String]] = [:]
            var folder = url.deletingLastPathComponent()
            for _ in 0..<3 {
                folder = folder.deletingLastPathComponent()
                let candidate = folder.appendingPathComponent("data_subjects_info.csv")
                if let bytes = try? RecordingContainer.readBytes(candidate) {
                    subjects = subjectTable(TextFile(name: candidate.path, bytes: bytes))
                    break
                }
            }
            return try parse(container.read(url.lastPathComponent), source: url.path, member: name, subjects: subjects)
        }
        let all = trialFiles(container)
        let chosen: (path: String, name: String)
        if let member {
            let wanted = member.hasSuffix(".csv") ? String(member.dropLast(4)) : member
            guard let found = all.first(where: { $0.name == wanted || $0.path == member || $0.path.hasSuffix("/" + wanted + ".csv") }) else {
                throw noSuchMember(container, member)
            }
            chosen = found
        } else if all.count == 1 {
            chosen = all[0]
        } else {
            throw memberNeeded(container)
        }
        return try parse(container.read(chosen.path), source: container.displayName(chosen.path), member: chosen.name, subjects: subjectTable(container))
    }

    static func parse(_ file: TextFile, source: String, member: String, subjects: [String: [String: String]]) throws -> Recording {
        var metadata = RecordingMetadata(format: format.name, source: source)
        metadata.deviceName = "iPhone 6s"
        metadata.licence = "MIT, Malekzadeh et al., IoTDI 2019 (github.com/mmalekzadeh/motion-sense)"
        metadata.properties = properties(member: member, subjects: subjects)
        metadata.properties["member"] = member
        metadata.properties["rate"] = "50 Hz (uniform: the file has no time column)"
        metadata.properties["gyroscopeSource"] = "Apple's bias-corrected rotation rate (MotionSense has no raw gyroscope)"
        metadata.properties["placement"] = "front trouser pocket"
        var notices: [RecordingNotice] = []
        var recording = Recording(metadata: metadata)
        var reference = ReferenceData()
        try file.bytes.withUnsafeBufferPointer { buffer in
            var rows = DelimitedRows(buffer, separator: 0x2C)
            guard rows.next() else {
                throw RecordingError(file: file.name, expected: "the MotionSense header (\(columns.joined(separator: ",")))", found: "an empty file")
            }
            let header = rows.strings
            var index: [Int] = []
            for name in columns {
                guard let i = header.firstIndex(of: name) else {
                    throw RecordingError(file: file.name, line: 1, column: name, expected: "the column '\(name)'", found: header.joined(separator: ","))
                }
                index.append(i)
            }
            let needed = (index.max() ?? 0) + 1
            let estimate = buffer.count / 200
            recording.accelerometer.reserveCapacity(estimate)
            recording.gyroscope.reserveCapacity(estimate)
            reference.attitude.reserveCapacity(estimate)
            reference.gravity.reserveCapacity(estimate)
            reference.userAcceleration.reserveCapacity(estimate)
            var policy = StreamPolicy(file: file.name, stream: "device motion", timeColumn: "(row number)")
            var v = [Double](repeating: 0, count: columns.count)
            var row = 0
            while rows.next() {
                if rows.isBlankLine { continue }
                var finite = true
                do {
                    try rows.require(fields: needed, atMost: header.count, file.name)
                    for k in 0..<columns.count {
                        v[k] = try rows.number(index[k], file.name, columns[k])
                        if !v[k].isFinite { finite = false }
                    }
                } catch let cut as TruncatedLastLine {
                    notices.append(.truncated(file.name, line: cut.line))
                    break
                }
                let t = Double(row) / rate
                row += 1
                guard policy.admit(time: t, finite: finite, line: rows.line) else { continue }
                let gravity = Vector3(v[3], v[4], v[5])
                let rotation = Vector3(v[6], v[7], v[8])
                let user = Vector3(v[9], v[10], v[11])
                recording.accelerometer.append(TimedVector(time: t, value: gravity + user))
                recording.gyroscope.append(TimedVector(time: t, value: rotation))
                reference.gravity.append(TimedVector(time: t, value: gravity))
                reference.userAcceleration.append(TimedVector(time: t, value: user))
                reference.attitude.append(TimedQuaternion(time: t, value: Quaternion(appleRoll: v[0], pitch: v[1], yaw: v[2])))
            }
            notices += try policy.finish()
        }
        reference.rotationRate = recording.gyroscope
        if let activity = metadata.properties["activity"] {
            reference.activity = [TimedLabel(time: 0, label: activity)]
        }
        recording.reference = reference
        recording.notices = notices
        return recording
    }
}
