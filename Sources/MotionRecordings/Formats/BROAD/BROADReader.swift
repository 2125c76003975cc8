import Foundation

/// Reads BROAD trial CSVs (Laidig et al., "BROAD—A Benchmark for Robust Inertial Orientation
/// Estimation", Data 6(7):72, 2021; CC BY 4.0).
///
/// Layout: `#` comment lines (trial, units, sampling rate, source), then the header
/// `t,ax,ay,az,gx,gy,gz,mx,my,mz,qw,qx,qy,qz,valid` and one row per IMU sample.
///
/// Conversions, once, here:
/// - `t` (s, from 0) is the recording time.
/// - `ax…az` is specific force in m/s² (+9.81 on the axis pointing up, as on Android):
///   Apple's acceleration in g is `value / −9.80665`.
/// - `gx…gz` is the raw rotation rate in rad/s (bias not removed) and `mx…mz` the field in µT, both
///   kept as they are. The IMU's own axes are the device axes.
/// - `qw…qz` (optical truth, sensor → ENU with magnetic north; NaN where markers were lost) goes to
///   ``ReferenceData/truthAttitude``, and `valid` (the scored movement phase) to
///   ``ReferenceData/truthScored``.
enum BROADReader: FormatReader {
    static let format = RecordingFormat.broad
    static let columns = ["t", "ax", "ay", "az", "gx", "gy", "gz", "mx", "my", "mz", "qw", "qx", "qy", "qz", "valid"]

    static func recognises(_ container: RecordingContainer) -> Bool {
        switch container.kind {
        case .file:
            return looksLikeTrial(container.head(container.url.lastPathComponent))
        case .directory, .zip:
            // A collection of trials: the first CSVs decide (detection must not inflate a whole archive).
            return container.paths.filter { $0.hasSuffix(".csv") }.prefix(3).contains { looksLikeTrial(container.head($0, count: 2048)) }
        }
    }

    /// True when the text has the BROAD header line (after `#` comments).
    static func looksLikeTrial(_ head: [UInt8]) -> Bool {
        let text = String(decoding: head, as: UTF8.self)
        return text.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespacesAndNewlines) == columns.joined(separator: ",") }
    }

    static func members(_ container: RecordingContainer) throws -> [RecordingMember] {
        guard !(container.kind.isFile) else { return [] }
        return container.paths.filter { $0.hasSuffix(".csv") && looksLikeTrial(container.head($0, count: 2048)) }.map { path in
            let name = (path as NSString).lastPathComponent.replacingOccurrences(of: ".csv", with: "")
            var properties: [String: String] = [:]
            if let line = String(decoding: container.head(path, count: 512), as: UTF8.self).split(separator: "\n").first {
                properties = commentProperties(String(line))
            }
            return RecordingMember(name: name, format: .broad, properties: properties)
        }
    }

    static func read(_ container: RecordingContainer, member: String?) throws -> Recording {
        let path: String
        if container.kind.isFile {
            path = container.url.lastPathComponent
        } else {
            guard let member else { throw memberNeeded(container) }
            let candidates = container.paths.filter {
                $0 == member || $0 == member + ".csv" || ($0 as NSString).lastPathComponent == member + ".csv"
                    || ($0 as NSString).lastPathComponent == member
            }
            guard let found = candidates.first else { throw noSuchMember(container, member) }
            path = found
        }
        return try parse(container.read(path), source: container.displayName(path))
    }

    /// The `# BROAD trial NAME (description); groups: a,b` line as properties.
    static func commentProperties(_ line: String) -> [String: String] {
        var properties: [String: String] = [:]
        var text = line.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("# BROAD trial ") else { return properties }
        text.removeFirst("# BROAD trial ".count)
        if let space = text.firstIndex(of: " ") {
            properties["trial"] = String(text[..<space])
            let rest = text[space...]
            if let open = rest.firstIndex(of: "("), let close = rest.lastIndex(of: ")"), open < close {
                properties["description"] = String(rest[rest.index(after: open)..<close])
            }
            if let groups = rest.range(of: "groups: ") {
                properties["groups"] = String(rest[groups.upperBound...]).trimmingCharacters(in: .whitespaces)
            }
        } else {
            properties["trial"] = text
        }
        return properties
    }

    static func parse(_ file: TextFile, source: String) throws -> Recording {
        var metadata = RecordingMetadata(format: format.name, source: source)
        metadata.licence = "CC BY 4.0, Laidig et al., Data 6(7):72, 2021 (github.com/dlaidig/broad)"
        metadata.properties["axes"] = "IMU sensor frame (as recorded)"
        metadata.properties["truth"] = "optical orientation, sensor → ENU (magnetic north)"
        var notices: [RecordingNotice] = []
        var accelerometer: [TimedVector] = []
        var gyroscope: [TimedVector] = []
        var magnetometer: [TimedVector] = []
        var reference = ReferenceData()

        try file.bytes.withUnsafeBufferPointer { buffer in
            var rows = DelimitedRows(buffer, separator: 0x2C)
            var header: [String]?
            // Comments and header.
            while rows.next() {
                if rows.isBlankLine { continue }
                if rows.lineStarts(with: 0x23) {
                    let full = String(decoding: UnsafeBufferPointer(start: rows.base + rows.rowStart, count: rows.rowEnd - rows.rowStart), as: UTF8.self)
                    if full.hasPrefix("# BROAD trial") {
                        metadata.properties.merge(commentProperties(full)) { $1 }
                    }
                    try checkUnits(full, file: file.name, line: rows.line)
                    if let rate = samplingRate(full) { metadata.properties["samplingRate"] = rate }
                    if full.hasPrefix("# source:") {
                        metadata.properties["source"] = full.dropFirst("# source:".count).trimmingCharacters(in: .whitespaces)
                    }
                    continue
                }
                header = rows.strings
                break
            }
            guard let header else {
                throw RecordingError(file: file.name, expected: "the BROAD header \(columns.joined(separator: ","))", found: file.isBlank ? "an empty file" : "only comments")
            }
            var index: [Int] = []
            for name in columns {
                guard let i = header.firstIndex(of: name) else {
                    throw RecordingError(file: file.name, line: rows.line, column: name, expected: "the column '\(name)' in the header", found: header.joined(separator: ","))
                }
                index.append(i)
            }
            let needed = (index.max() ?? 0) + 1
            let estimate = max(16, buffer.count / 160)
            accelerometer.reserveCapacity(estimate)
            gyroscope.reserveCapacity(estimate)
            magnetometer.reserveCapacity(estimate)
            reference.truthAttitude.reserveCapacity(estimate)
            reference.truthScored.reserveCapacity(estimate)

            var accPolicy = StreamPolicy(file: file.name, stream: "accelerometer", timeColumn: "t")
            var gyroPolicy = StreamPolicy(file: file.name, stream: "gyroscope", timeColumn: "t")
            var magPolicy = StreamPolicy(file: file.name, stream: "magnetometer", timeColumn: "t")
            var truthPolicy = StreamPolicy(file: file.name, stream: "optical truth", timeColumn: "t")
            let scale = -standardGravity
            var values = [Double](repeating: 0, count: 15)
            while rows.next() {
                if rows.isBlankLine { continue }
                do {
                    try rows.require(fields: needed, atMost: header.count, file.name)
                    for k in 0..<15 {
                        values[k] = try rows.number(index[k], file.name, columns[k])
                    }
                } catch let cut as TruncatedLastLine {
                    notices.append(.truncated(file.name, line: cut.line))
                    break
                }
                let t = values[0]
                let line = rows.line
                let acc = Vector3(values[1] / scale, values[2] / scale, values[3] / scale)
                if accPolicy.admit(time: t, finite: acc.isFinite, line: line) {
                    accelerometer.append(TimedVector(time: t, value: acc))
                }
                let gyro = Vector3(values[4], values[5], values[6])
                if gyroPolicy.admit(time: t, finite: gyro.isFinite, line: line) {
                    gyroscope.append(TimedVector(time: t, value: gyro))
                }
                let mag = Vector3(values[7], values[8], values[9])
                if magPolicy.admit(time: t, finite: mag.isFinite, line: line) {
                    magnetometer.append(TimedVector(time: t, value: mag))
                }
                // NaN truth is data ("marker lost"), kept as NaN; only the time and `valid` are checked.
                let valid = values[14]
                guard valid == 0 || valid == 1 || !rows.terminated else {
                    throw RecordingError(file: file.name, line: line, column: "valid", expected: "0 or 1", found: rows.fieldText(index[14]))
                }
                if truthPolicy.admit(time: t, finite: valid.isFinite, line: line) {
                    reference.truthAttitude.append(TimedQuaternion(time: t, value: Quaternion(w: values[10], x: values[11], y: values[12], z: values[13])))
                    reference.truthScored.append(valid == 1)
                }
            }
            for policy in [accPolicy, gyroPolicy, magPolicy, truthPolicy] { notices += try policy.finish() }
        }
        if let gap = GapReport.notice(accelerometer, file: file.name, stream: "accelerometer", time: \.time) { notices.append(gap) }
        return Recording(
            metadata: metadata, accelerometer: accelerometer, gyroscope: gyroscope, magnetometer: magnetometer,
            reference: reference, notices: notices)
    }

    /// Refuses a file whose units comment names other units than the ones converted here.
    static func checkUnits(_ line: String, file: String, line number: Int) throws {
        guard line.hasPrefix("# units:") else { return }
        for (unit, what) in [("acc m/s^2", "acc in m/s^2"), ("gyr rad/s", "gyr in rad/s"), ("mag uT", "mag in uT")] where !line.contains(unit) {
            throw RecordingError(file: file, line: number, column: "units", expected: what, found: line)
        }
    }

    /// `sampling_rate 285.71 Hz` from the units comment.
    static func samplingRate(_ line: String) -> String? {
        guard let r = line.range(of: "sampling_rate ") else { return nil }
        let rest = line[r.upperBound...]
        return rest.split(separator: " ").first.map(String.init)
    }
}

extension RecordingContainer.Kind {
    var isFile: Bool { if case .file = self { true } else { false } }
}
