import Foundation

/// Reads mPower device motion (Bot et al., "The mPower study, Parkinson disease mobile data collected
/// using ResearchKit", Scientific Data 3:160011, 2016; files from Sage-Bionetworks/mhealthtools,
/// Apache-2.0): Core Motion `CMDeviceMotion` recorded by ResearchKit at about 100 Hz.
///
/// Three layouts:
/// - a flattened device-motion CSV (`walk_data.csv`, `balance_data.csv`, `rest_tremor_data.csv`,
///   `kinetic_tremor_data.csv`): `timestamp` (s), `attitude.x…w`, `rotationRate.*`,
///   `userAcceleration.*`, `gravity.*`, `magneticField.x…z,accuracy`, columns in any order;
/// - three CSVs `accelerometer_data.csv` (user acceleration), `gravity_data.csv` and
///   `gyroscope_data.csv` with `"t","x","y","z"`, one recording (member `flat`);
/// - ResearchKit's JSON: an array of samples (or `{"items": [...]}`) with `timestamp` (s since
///   boot), `attitude{x,y,z,w}`, `rotationRate`, `userAcceleration`, `gravity`, `magneticField`.
///
/// Conversions: times from the first sample; raw accelerometer = gravity + userAcceleration (g,
/// Apple's sign); the gyroscope is Apple's bias-corrected `rotationRate` (there is no raw one; noted
/// in `gyroscopeSource`); the calibrated `magneticField` is used only where its `accuracy` is not
/// −1 (uncalibrated: ResearchKit writes zeros), as the magnetometer and as
/// ``ReferenceData/calibratedMagneticField``. Attitude is the `CMQuaternion` as recorded.
///
/// A folder of these files is a collection; members are the task names (`walk`, `balance`,
/// `rest_tremor`, `kinetic_tremor`, `flat`) and JSON files by path without extension.
enum MPowerReader: FormatReader {
    static let format = RecordingFormat.mPower
    static let trio = ["accelerometer_data.csv", "gravity_data.csv", "gyroscope_data.csv"]

    static func recognises(_ container: RecordingContainer) -> Bool {
        switch container.kind {
        case .file:
            let name = container.url.lastPathComponent
            let head = container.head(name, count: 2048)
            return isDeviceMotionCSV(head) || isResearchKitJSON(head) || (trio.contains(name) && isTrioCSV(head))
        case .directory, .zip:
            // Known file names first, then at most three JSON files (never inflate a whole archive).
            let known = ["walk_data.csv", "balance_data.csv", "rest_tremor_data.csv", "kinetic_tremor_data.csv"]
            let paths = container.paths
            if paths.contains(where: { known.contains(($0 as NSString).lastPathComponent) && isDeviceMotionCSV(container.head($0, count: 2048)) }) {
                return true
            }
            if paths.contains(where: { ($0 as NSString).lastPathComponent == trio[0] && isTrioCSV(container.head($0, count: 256)) }) {
                return true
            }
            return paths.filter { $0.hasSuffix(".json") }.prefix(3).contains { isResearchKitJSON(container.head($0, count: 2048)) }
        }
    }

    static func headerLine(_ head: [UInt8]) -> String {
        String(String(decoding: head, as: UTF8.self).split(whereSeparator: \.isNewline).first ?? "").replacingOccurrences(of: "\"", with: "")
    }

    static func isDeviceMotionCSV(_ head: [UInt8]) -> Bool {
        let h = headerLine(head).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return h.contains("timestamp") && h.contains("attitude.w") && h.contains("userAcceleration.x") && h.contains("gravity.x")
    }

    static func isTrioCSV(_ head: [UInt8]) -> Bool { headerLine(head).trimmingCharacters(in: .whitespaces) == "t,x,y,z" }

    static func isResearchKitJSON(_ head: [UInt8]) -> Bool {
        let text = String(decoding: head, as: UTF8.self)
        guard let first = text.first(where: { !$0.isWhitespace }), first == "[" || first == "{" else { return false }
        return text.contains("\"userAcceleration\"") && text.contains("\"attitude\"") && text.contains("\"timestamp\"")
    }

    /// Member name → paths.
    static func memberPaths(_ container: RecordingContainer) -> [(name: String, paths: [String])] {
        var out: [(String, [String])] = []
        let paths = container.paths
        for path in paths where path.hasSuffix(".csv") && isDeviceMotionCSV(container.head(path, count: 2048)) {
            let base = (path as NSString).lastPathComponent
            out.append((base.hasSuffix("_data.csv") ? String(base.dropLast("_data.csv".count)) : (base as NSString).deletingPathExtension, [path]))
        }
        // The trio, in the same folder.
        for path in paths where (path as NSString).lastPathComponent == trio[0] {
            let folder = String(path.dropLast(trio[0].count))
            let all = trio.map { folder + $0 }
            if all.allSatisfy(paths.contains) && isTrioCSV(container.head(path, count: 256)) { out.append(("flat", all)) }
        }
        for path in paths where path.hasSuffix(".json") && isResearchKitJSON(container.head(path, count: 2048)) {
            out.append(((path as NSString).deletingPathExtension, [path]))
        }
        return out
    }

    static func members(_ container: RecordingContainer) throws -> [RecordingMember] {
        guard !container.kind.isFile else { return [] }
        return memberPaths(container).map { RecordingMember(name: $0.name, format: format, properties: ["task": taskName($0.name)]) }
    }

    static func taskName(_ member: String) -> String {
        switch member {
        case "walk": "walking, phone in pocket or bag (30 s)"
        case "balance": "standing still (30 s)"
        case "rest_tremor": "rest tremor, phone in hand (≈9 s)"
        case "kinetic_tremor": "kinetic tremor, phone in hand (≈9 s)"
        case "flat": "flat record (10 s)"
        default: member
        }
    }

    static func read(_ container: RecordingContainer, member: String?) throws -> Recording {
        if container.kind.isFile {
            let name = container.url.lastPathComponent
            if trio.contains(name) {
                return try read(RecordingContainer(container.url.deletingLastPathComponent()), member: "flat")
            }
            let file = try container.read(name)
            let base = name.hasSuffix("_data.csv") ? String(name.dropLast("_data.csv".count)) : (name as NSString).deletingPathExtension
            return try isResearchKitJSON(Array(file.bytes.prefix(2048)))
                ? parseJSON(file, source: container.url.path, member: base)
                : parseDeviceMotionCSV(file, source: container.url.path, member: base)
        }
        let all = memberPaths(container)
        let chosen: (name: String, paths: [String])
        if let member {
            guard let found = all.first(where: { $0.name == member || $0.paths.contains(member) }) else { throw noSuchMember(container, member) }
            chosen = found
        } else if all.count == 1 {
            chosen = all[0]
        } else {
            throw memberNeeded(container)
        }
        if chosen.name == "flat" && chosen.paths.count == 3 {
            return try parseTrio(chosen.paths.map { try container.read($0) }, source: container.url.path)
        }
        let file = try container.read(chosen.paths[0])
        return try chosen.paths[0].hasSuffix(".json")
            ? parseJSON(file, source: container.displayName(chosen.paths[0]), member: chosen.name)
            : parseDeviceMotionCSV(file, source: container.displayName(chosen.paths[0]), member: chosen.name)
    }

    static func baseMetadata(source: String, member: String) -> RecordingMetadata {
        var metadata = RecordingMetadata(format: format.name, source: source)
        metadata.deviceName = "iPhone"
        metadata.licence = "Apache-2.0, mPower study (Bot et al., Sci. Data 3:160011, 2016), files from github.com/Sage-Bionetworks/mhealthtools"
        metadata.properties["member"] = member
        metadata.properties["task"] = taskName(member)
        metadata.properties["gyroscopeSource"] = "Apple's bias-corrected rotation rate (ResearchKit records no raw gyroscope)"
        metadata.properties["accelerometerSource"] = "gravity + userAcceleration (Apple's identity)"
        return metadata
    }

    /// One device-motion sample in Apple's units.
    struct Sample {
        var time: Double
        var attitude: Quaternion
        var rotation: Vector3
        var user: Vector3
        var gravity: Vector3
        var field: Vector3
        var fieldAccuracy: Double
    }

    static func assemble(_ samples: [Sample], metadata: RecordingMetadata, notices: [RecordingNotice], file: String) -> Recording {
        var r = Recording(metadata: metadata, notices: notices)
        r.accelerometer = samples.map { TimedVector(time: $0.time, value: $0.gravity + $0.user) }
        r.gyroscope = samples.map { TimedVector(time: $0.time, value: $0.rotation) }
        r.reference.rotationRate = r.gyroscope
        r.reference.gravity = samples.map { TimedVector(time: $0.time, value: $0.gravity) }
        r.reference.userAcceleration = samples.map { TimedVector(time: $0.time, value: $0.user) }
        r.reference.attitude = samples.map { TimedQuaternion(time: $0.time, value: $0.attitude) }
        let calibrated = samples.filter { $0.fieldAccuracy >= 0 }
        if !calibrated.isEmpty {
            r.magnetometer = calibrated.map { TimedVector(time: $0.time, value: $0.field) }
            r.reference.calibratedMagneticField = r.magnetometer
            r.metadata.properties["magnetometerSource"] = "Apple's calibrated magnetic field (no raw magnetometer recorded)"
        }
        if let gap = GapReport.notice(r.accelerometer, file: file, stream: "device motion", time: \.time) { r.notices.append(gap) }
        return r
    }

    static let csvColumns = [
        "timestamp", "attitude.w", "attitude.x", "attitude.y", "attitude.z", "rotationRate.x", "rotationRate.y", "rotationRate.z",
        "userAcceleration.x", "userAcceleration.y", "userAcceleration.z", "gravity.x", "gravity.y", "gravity.z",
    ]
    static let fieldColumns = ["magneticField.x", "magneticField.y", "magneticField.z", "magneticField.accuracy"]

    static func parseDeviceMotionCSV(_ file: TextFile, source: String, member: String) throws -> Recording {
        var notices: [RecordingNotice] = []
        var samples: [Sample] = []
        try file.bytes.withUnsafeBufferPointer { buffer in
            var rows = DelimitedRows(buffer, separator: 0x2C)
            guard rows.next() else {
                throw RecordingError(file: file.name, expected: "an mPower device-motion header", found: "an empty file")
            }
            let header = rows.strings
            var index: [Int] = []
            for name in csvColumns {
                guard let i = header.firstIndex(of: name) else {
                    throw RecordingError(file: file.name, line: 1, column: name, expected: "the column '\(name)'", found: header.joined(separator: ","))
                }
                index.append(i)
            }
            let fieldIndex = fieldColumns.compactMap { header.firstIndex(of: $0) }
            let hasField = fieldIndex.count == fieldColumns.count
            let needed = max(index.max() ?? 0, fieldIndex.max() ?? 0) + 1
            var policy = StreamPolicy(file: file.name, stream: "device motion", timeColumn: "timestamp")
            var v = [Double](repeating: 0, count: csvColumns.count + fieldColumns.count)
            var origin: Double?
            samples.reserveCapacity(buffer.count / 300)
            while rows.next() {
                if rows.isBlankLine { continue }
                var finite = true
                do {
                    try rows.require(fields: needed, atMost: header.count, file.name)
                    for k in 0..<csvColumns.count {
                        v[k] = try rows.number(index[k], file.name, csvColumns[k])
                        if !v[k].isFinite { finite = false }
                    }
                    if hasField {
                        for k in 0..<fieldColumns.count {
                            v[csvColumns.count + k] = try rows.number(fieldIndex[k], file.name, fieldColumns[k])
                        }
                    } else {
                        v[csvColumns.count + 3] = -1
                    }
                } catch let cut as TruncatedLastLine {
                    notices.append(.truncated(file.name, line: cut.line))
                    break
                }
                if origin == nil && v[0].isFinite { origin = v[0] }
                let t = v[0] - (origin ?? 0)
                guard policy.admit(time: t, finite: finite, line: rows.line) else { continue }
                let n = csvColumns.count
                samples.append(Sample(
                    time: t, attitude: Quaternion(w: v[1], x: v[2], y: v[3], z: v[4]),
                    rotation: Vector3(v[5], v[6], v[7]), user: Vector3(v[8], v[9], v[10]), gravity: Vector3(v[11], v[12], v[13]),
                    field: Vector3(v[n], v[n + 1], v[n + 2]), fieldAccuracy: v[n + 3].isFinite ? v[n + 3] : -1))
            }
            notices += try policy.finish()
        }
        return assemble(samples, metadata: baseMetadata(source: source, member: member), notices: notices, file: file.name)
    }

    /// `accelerometer_data.csv` (user acceleration), `gravity_data.csv`, `gyroscope_data.csv`, row by row.
    static func parseTrio(_ files: [TextFile], source: String) throws -> Recording {
        var notices: [RecordingNotice] = []
        var tables: [ColumnTable] = []
        let streams = ["user acceleration", "gravity", "rotation rate"]
        for (k, file) in files.enumerated() {
            tables.append(try ColumnTable.read(file, time: .seconds("t", origin: 0), columns: ["x", "y", "z"], stream: streams[k], notices: &notices))
        }
        // The three files are columns of one table: the same rows at the same times.
        let count = tables.map(\.count).min() ?? 0
        for k in 1..<3 where tables[k].count != tables[0].count {
            notices.append(RecordingNotice(kind: .other, file: files[k].name, count: abs(tables[k].count - tables[0].count),
                                           message: "\(tables[k].count) rows where \(files[0].name) has \(tables[0].count): only rows with the same time are kept"))
        }
        var samples: [Sample] = []
        samples.reserveCapacity(count)
        var j = 0
        var k = 0
        for i in 0..<tables[0].count {
            let t = tables[0].times[i]
            while j < tables[1].count && tables[1].times[j] < t { j += 1 }
            while k < tables[2].count && tables[2].times[k] < t { k += 1 }
            guard j < tables[1].count, k < tables[2].count, tables[1].times[j] == t, tables[2].times[k] == t else { continue }
            samples.append(Sample(
                time: t, attitude: Quaternion(w: .nan, x: .nan, y: .nan, z: .nan),
                rotation: Vector3(tables[2].value(k, 0), tables[2].value(k, 1), tables[2].value(k, 2)),
                user: Vector3(tables[0].value(i, 0), tables[0].value(i, 1), tables[0].value(i, 2)),
                gravity: Vector3(tables[1].value(j, 0), tables[1].value(j, 1), tables[1].value(j, 2)),
                field: .zero, fieldAccuracy: -1))
        }
        var r = assemble(samples, metadata: baseMetadata(source: source, member: "flat"), notices: notices, file: files[0].name)
        r.reference.attitude = []  // the three files carry no attitude
        return r
    }

    static func parseJSON(_ file: TextFile, source: String, member: String) throws -> Recording {
        let object: Any
        do {
            object = try LenientJSON.object(from: file.bytes)
        } catch {
            throw RecordingError(file: file.name, expected: "valid JSON (ResearchKit device motion)", found: file.isBlank ? "an empty file" : "\(error.localizedDescription)")
        }
        let items: [Any]
        if let array = object as? [Any] {
            items = array
        } else if let dict = object as? [String: Any], let array = dict["items"] as? [Any] {
            items = array
        } else {
            throw RecordingError(file: file.name, expected: "an array of samples or {\"items\": [...]}", found: "\(type(of: object))")
        }
        var notices: [RecordingNotice] = []
        var samples: [Sample] = []
        samples.reserveCapacity(items.count)
        var policy = StreamPolicy(file: file.name, stream: "device motion", timeColumn: "timestamp")
        var origin: Double?
        for (i, item) in items.enumerated() {
            guard let sample = item as? [String: Any] else {
                throw RecordingError(file: file.name, column: "items[\(i)]", expected: "an object", found: "\(item)")
            }
            func number(_ key: String, _ sub: String? = nil) throws -> Double {
                let value = sub.map { (sample[key] as? [String: Any])?[$0] } ?? sample[key]
                guard let n = value as? NSNumber else {
                    throw RecordingError(file: file.name, column: "items[\(i)].\(key)\(sub.map { "." + $0 } ?? "")", expected: "a number", found: value.map { "\($0)" } ?? "nothing")
                }
                return n.doubleValue
            }
            func vector(_ key: String) throws -> Vector3 { Vector3(try number(key, "x"), try number(key, "y"), try number(key, "z")) }
            let timestamp = try number("timestamp")
            if origin == nil { origin = timestamp }
            let t = timestamp - (origin ?? 0)
            let attitude = Quaternion(w: try number("attitude", "w"), x: try number("attitude", "x"), y: try number("attitude", "y"), z: try number("attitude", "z"))
            let field = sample["magneticField"] != nil ? try vector("magneticField") : .zero
            let accuracy = (sample["magneticField"] as? [String: Any])?["accuracy"] as? NSNumber
            let s = Sample(time: t, attitude: attitude, rotation: try vector("rotationRate"), user: try vector("userAcceleration"),
                           gravity: try vector("gravity"), field: field, fieldAccuracy: accuracy?.doubleValue ?? -1)
            let finite = s.rotation.isFinite && s.user.isFinite && s.gravity.isFinite && attitude.isFinite
            if policy.admit(time: t, finite: finite, line: i + 1) { samples.append(s) }
        }
        notices += try policy.finish()
        var recording = assemble(samples, metadata: baseMetadata(source: source, member: member), notices: notices, file: file.name)
        if let origin { recording.metadata.properties["timeOrigin"] = "\(origin) s since boot" }
        return recording
    }
}
