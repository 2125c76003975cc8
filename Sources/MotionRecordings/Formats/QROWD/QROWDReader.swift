import Foundation

/// Reads the QROWD labelled accelerometer streams (QROWD project, github.com/QROWD/TR; MIT):
/// `"x","y","z","class"` per row, Android accelerometer in m/s² (+9.81 on the axis pointing up),
/// no timestamps.
///
/// - Apple's g is `value / −9.80665` on every axis.
/// - Rows are taken as uniform at 25 Hz (the data set's rate): row `i` (counting every data row,
///   skipped ones too) is at `i / 25` s, so a skipped row leaves a one-period hole, not a shift.
/// - The class goes to ``ReferenceData/activity`` in Core Motion's vocabulary (see
///   ``ActivityVocabulary``; `driving` → `automotive`, `still` → `stationary`, `run` → `running`),
///   with a new label wherever the class changes; the file's own label is kept in `label`.
///
/// A folder laid out as published (`walk/user1.txt`, …) is a collection: members are
/// `CLASSFOLDER/FILE` without the extension, e.g. `qrowd#walk/user1`.
enum QROWDReader: FormatReader {
    static let format = RecordingFormat.qrowd
    /// The data set's sampling rate, Hz.
    static let rate = 25.0

    static func recognises(_ container: RecordingContainer) -> Bool {
        switch container.kind {
        case .file: return hasHeader(container.head(container.url.lastPathComponent, count: 64))
        case .directory, .zip:
            // The first text files decide (detection must not inflate a whole archive).
            return container.paths.filter { $0.hasSuffix(".txt") || $0.hasSuffix(".csv") }.prefix(4).contains { hasHeader(container.head($0, count: 64)) }
        }
    }

    static func hasHeader(_ head: [UInt8]) -> Bool {
        let line = String(decoding: head, as: UTF8.self).split(whereSeparator: \.isNewline).first ?? ""
        return line.replacingOccurrences(of: "\"", with: "").trimmingCharacters(in: .whitespaces) == "x,y,z,class"
    }

    static func files(_ container: RecordingContainer) -> [String] {
        container.paths.filter { ($0.hasSuffix(".txt") || $0.hasSuffix(".csv")) && hasHeader(container.head($0, count: 64)) }
    }

    static func memberName(_ path: String) -> String {
        (path as NSString).deletingPathExtension
    }

    static func members(_ container: RecordingContainer) throws -> [RecordingMember] {
        guard !container.kind.isFile else { return [] }
        return files(container).map { path in
            var properties: [String: String] = [:]
            let parts = memberName(path).split(separator: "/")
            if parts.count >= 2 {
                properties["folder"] = String(parts[parts.count - 2])
                properties["user"] = String(parts[parts.count - 1])
            }
            if let label = firstLabel(container.head(path, count: 256)) {
                properties["label"] = label
                properties["activity"] = ActivityVocabulary.coreMotionClass(label) ?? "unknown"
            }
            return RecordingMember(name: memberName(path), format: format, properties: properties)
        }
    }

    /// The class of the first data row.
    static func firstLabel(_ head: [UInt8]) -> String? {
        let lines = String(decoding: head, as: UTF8.self).split(whereSeparator: \.isNewline)
        guard lines.count >= 2 else { return nil }
        return lines[1].split(separator: ",").last.map { $0.replacingOccurrences(of: "\"", with: "").trimmingCharacters(in: .whitespaces) }
    }

    static func read(_ container: RecordingContainer, member: String?) throws -> Recording {
        let path: String
        if container.kind.isFile {
            path = container.url.lastPathComponent
        } else {
            let all = files(container)
            guard let member else {
                if all.count == 1 { return try parse(container.read(all[0]), source: container.displayName(all[0])) }
                throw memberNeeded(container)
            }
            guard let found = all.first(where: { memberName($0) == member || $0 == member }) else { throw noSuchMember(container, member) }
            path = found
        }
        return try parse(container.read(path), source: container.displayName(path))
    }

    static func parse(_ file: TextFile, source: String) throws -> Recording {
        var metadata = RecordingMetadata(format: format.name, source: source)
        metadata.licence = "MIT, QROWD project (github.com/QROWD/TR)"
        metadata.properties["rate"] = "25 Hz (assumed uniform: the file has no timestamps)"
        var notices: [RecordingNotice] = []
        var accelerometer: [TimedVector] = []
        var activity: [TimedLabel] = []
        var firstLabel: String?
        try file.bytes.withUnsafeBufferPointer { buffer in
            var rows = DelimitedRows(buffer, separator: 0x2C)
            guard rows.next(), hasHeader(Array(UnsafeBufferPointer(start: rows.base + rows.rowStart, count: rows.rowEnd - rows.rowStart))) else {
                throw RecordingError(
                    file: file.name, line: 1, expected: "the header \"x\",\"y\",\"z\",\"class\"",
                    found: file.isBlank ? "an empty file" : rows.lineText)
            }
            accelerometer.reserveCapacity(buffer.count / 50)
            var policy = StreamPolicy(file: file.name, stream: "accelerometer", timeColumn: "(row number)")
            var index = 0
            var lastLabel: String?
            let scale = -standardGravity
            let names = ["x", "y", "z", "class"]
            while rows.next() {
                if rows.isBlankLine { continue }
                let v: Vector3
                let label: String
                do {
                    try rows.require(fields: 4, atMost: 4, file.name)
                    v = Vector3(try rows.number(0, file.name, names[0]) / scale, try rows.number(1, file.name, names[1]) / scale, try rows.number(2, file.name, names[2]) / scale)
                    guard !rows.isEmpty(3) else { throw rows.fail(file.name, field: 3, column: "class", expected: "an activity class") }
                    label = rows.string(3).trimmingCharacters(in: .whitespaces)
                    if !rows.terminated && !(rows.base[rows.rowEnd - 1] == 0x22) {
                        // An unterminated last line whose class lost its closing quote is cut short.
                        throw TruncatedLastLine(line: rows.line)
                    }
                } catch let cut as TruncatedLastLine {
                    notices.append(.truncated(file.name, line: cut.line))
                    break
                }
                let t = Double(index) / rate
                index += 1
                if label != lastLabel {
                    activity.append(TimedLabel(time: t, label: ActivityVocabulary.coreMotionClass(label) ?? label))
                    if firstLabel == nil { firstLabel = label }
                    lastLabel = label
                }
                if policy.admit(time: t, finite: v.isFinite, line: rows.line) {
                    accelerometer.append(TimedVector(time: t, value: v))
                }
            }
            notices += try policy.finish()
        }
        if let firstLabel { metadata.properties["label"] = firstLabel }
        var reference = ReferenceData()
        reference.activity = activity
        return Recording(metadata: metadata, accelerometer: accelerometer, reference: reference, notices: notices)
    }
}
