import Foundation

/// Reads the project's own format (`.cmrec`, see the "The coremotion recording format" article),
/// written by ``NativeRecordingWriter`` and ``Recording/write(to:)``.
enum NativeRecordingReader: FormatReader {
    static let format = RecordingFormat.native

    static func recognises(_ container: RecordingContainer) -> Bool {
        switch container.kind {
        case .file: return isNative(container.head(container.url.lastPathComponent, count: 64))
        case .directory, .zip: return !files(container).isEmpty
        }
    }

    static func isNative(_ head: [UInt8]) -> Bool {
        String(decoding: head, as: UTF8.self).hasPrefix("# coremotion recording ")
    }

    static func files(_ container: RecordingContainer) -> [String] {
        container.paths.filter { $0.hasSuffix("." + NativeFormat.fileExtension) && isNative(container.head($0, count: 64)) }
    }

    static func members(_ container: RecordingContainer) throws -> [RecordingMember] {
        guard !container.kind.isFile else { return [] }
        return files(container).map { RecordingMember(name: ($0 as NSString).deletingPathExtension, format: format) }
    }

    static func read(_ container: RecordingContainer, member: String?) throws -> Recording {
        if container.kind.isFile { return try parse(container.read(container.url.lastPathComponent)) }
        let all = files(container)
        let path: String
        if let member {
            guard let found = all.first(where: { $0 == member || ($0 as NSString).deletingPathExtension == member }) else { throw noSuchMember(container, member) }
            path = found
        } else if all.count == 1 {
            path = all[0]
        } else {
            throw memberNeeded(container)
        }
        return try parse(container.read(path))
    }

    static func parse(_ file: TextFile) throws -> Recording {
        var metadata = RecordingMetadata(format: format.name, source: file.name)
        var notices: [RecordingNotice] = []
        var recording = Recording(metadata: metadata)
        var reference = ReferenceData()
        try file.bytes.withUnsafeBufferPointer { buffer in
            var rows = DelimitedRows(buffer, separator: 0x2C)
            guard rows.next() else {
                throw RecordingError(file: file.name, expected: "`\(NativeFormat.magic)`", found: "an empty file")
            }
            let first = String(decoding: UnsafeBufferPointer(start: rows.base + rows.rowStart, count: rows.rowEnd - rows.rowStart), as: UTF8.self)
            guard first.hasPrefix("# coremotion recording ") else {
                throw RecordingError(file: file.name, line: 1, expected: "`\(NativeFormat.magic)`", found: first)
            }
            guard first.trimmingCharacters(in: .whitespaces) == NativeFormat.magic else {
                throw RecordingError(file: file.name, line: 1, expected: "version 1 of the format (`\(NativeFormat.magic)`)", found: first)
            }
            // Header comments.
            var sawColumns = false
            while rows.next() {
                let text = String(decoding: UnsafeBufferPointer(start: rows.base + rows.rowStart, count: rows.rowEnd - rows.rowStart), as: UTF8.self)
                if text.hasPrefix("#") {
                    try header(text, into: &metadata, reference: &reference, file: file.name, line: rows.line)
                    continue
                }
                if text.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                guard text.trimmingCharacters(in: .whitespaces) == NativeFormat.columnsLine else {
                    throw RecordingError(file: file.name, line: rows.line, expected: "the column line `\(NativeFormat.columnsLine)`", found: text)
                }
                sawColumns = true
                break
            }
            guard sawColumns else {
                throw RecordingError(file: file.name, expected: "the column line `\(NativeFormat.columnsLine)` after the header", found: "the end of the file")
            }
            let estimate = max(16, (buffer.count - rows.position) / 60)
            recording.accelerometer.reserveCapacity(estimate)
            recording.gyroscope.reserveCapacity(estimate / 2)
            var policies: [NativeFormat.Kind: StreamPolicy] = [:]
            for kind in NativeFormat.Kind.allCases { policies[kind] = StreamPolicy(file: file.name, stream: kind.rawValue) }
            // Kinds by their first byte and length, to find a row's kind without making a String.
            let kinds = NativeFormat.Kind.allCases.map { ($0, $0.bytes) }
            var unknown: [String: (Int, Int)] = [:]
            var values = [Double](repeating: 0, count: 6)
            rowLoop: while rows.next() {
                if rows.isBlankLine || rows.lineStarts(with: 0x23) { continue }
                let line = rows.line
                let kind: NativeFormat.Kind
                let t: Double
                do {
                    try rows.require(fields: 2, file.name)
                    t = try rows.number(0, file.name, "time")
                    let start = rows.starts[1]
                    let length = rows.ends[1] - start
                    guard let found = kinds.first(where: { k in
                        k.1.count == length && k.1.withUnsafeBufferPointer { memcmp($0.baseAddress!, rows.base + start, length) == 0 }
                    }) else {
                        let name = rows.string(1)
                        if name.hasPrefix("ref.") || name.hasPrefix("x-") {
                            // A later version's extra stream: skipped and reported, never fatal.
                            unknown[name, default: (line, 0)].1 += 1
                            continue rowLoop
                        }
                        throw rows.fail(file.name, field: 1, column: "sensor", expected: "a sensor (accelerometer, gyroscope, magnetometer, barometer) or a ref.* stream")
                    }
                    kind = found.0
                    let n = kind.valueCount
                    try rows.require(fields: 2 + n, file.name)
                    for k in 0..<n where kind != .activity {
                        values[k] = try rows.number(2 + k, file.name, ["x", "y", "z", "w", "scored"][min(k, 4)])
                    }
                } catch let cut as TruncatedLastLine {
                    notices.append(.truncated(file.name, line: cut.line))
                    break
                }
                var finite = true
                if !kind.keepsNonFinite {
                    for k in 0..<kind.valueCount where kind != .activity && !values[k].isFinite { finite = false }
                }
                guard policies[kind]!.admit(time: t, finite: finite, line: line) else { continue }
                switch kind {
                case .accelerometer: recording.accelerometer.append(TimedVector(time: t, value: Vector3(values[0], values[1], values[2])))
                case .gyroscope: recording.gyroscope.append(TimedVector(time: t, value: Vector3(values[0], values[1], values[2])))
                case .magnetometer: recording.magnetometer.append(TimedVector(time: t, value: Vector3(values[0], values[1], values[2])))
                case .barometer:
                    var celsius: Double?
                    if rows.fieldCount > 3 && !rows.isEmpty(3) {
                        guard let c = rows.double(3) else {
                            if !rows.terminated { notices.append(.truncated(file.name, line: line)); break rowLoop }
                            throw rows.fail(file.name, field: 3, column: "y (°C)", expected: "a temperature in °C or nothing")
                        }
                        celsius = c
                    }
                    recording.barometer.append(PressureReading(time: t, kilopascals: values[0], celsius: celsius))
                case .attitude: reference.attitude.append(TimedQuaternion(time: t, value: Quaternion(w: values[0], x: values[1], y: values[2], z: values[3])))
                case .gravity: reference.gravity.append(TimedVector(time: t, value: Vector3(values[0], values[1], values[2])))
                case .userAcceleration: reference.userAcceleration.append(TimedVector(time: t, value: Vector3(values[0], values[1], values[2])))
                case .rotationRate: reference.rotationRate.append(TimedVector(time: t, value: Vector3(values[0], values[1], values[2])))
                case .calibratedMagneticField: reference.calibratedMagneticField.append(TimedVector(time: t, value: Vector3(values[0], values[1], values[2])))
                case .heading: reference.heading.append(TimedScalar(time: t, value: values[0]))
                case .steps: reference.cumulativeSteps.append(TimedScalar(time: t, value: values[0]))
                case .relativeAltitude: reference.relativeAltitude.append(TimedScalar(time: t, value: values[0]))
                case .activity: reference.activity.append(TimedLabel(time: t, label: rows.string(2).replacingOccurrences(of: "\"\"", with: "\"")))
                case .truth:
                    guard values[4] == 0 || values[4] == 1 else {
                        throw RecordingError(file: file.name, line: line, column: "scored", expected: "0 or 1", found: rows.fieldText(6))
                    }
                    reference.truthAttitude.append(TimedQuaternion(time: t, value: Quaternion(w: values[0], x: values[1], y: values[2], z: values[3])))
                    reference.truthScored.append(values[4] == 1)
                case .step: reference.stepTimes.append(t)
                case .location:
                    var altitude: Double?
                    if rows.fieldCount > 4 && !rows.isEmpty(4) {
                        guard let a = rows.double(4) else {
                            if !rows.terminated { notices.append(.truncated(file.name, line: line)); break rowLoop }
                            throw rows.fail(file.name, field: 4, column: "altitude", expected: "an altitude in m or nothing")
                        }
                        altitude = a
                    }
                    reference.location.append(TimedLocation(time: t, latitude: values[0], longitude: values[1], altitude: altitude))
                }
            }
            for kind in NativeFormat.Kind.allCases { notices += try policies[kind]!.finish() }
            for (name, info) in unknown.sorted(by: { $0.key < $1.key }) {
                notices.append(RecordingNotice(kind: .other, file: file.name, line: info.0, count: info.1, message: "skipped \(info.1) row\(info.1 == 1 ? "" : "s") of the unknown stream '\(name)'"))
            }
        }
        recording.metadata = metadata
        recording.reference = reference
        for sensor in SensorKind.allCases {
            if let gap = GapReport.notice(recording.times(of: sensor), file: file.name, stream: sensor.rawValue, time: { $0 }) { notices.append(gap) }
        }
        recording.notices = notices
        return recording
    }

    /// One `# key: value` header line.
    static func header(_ text: String, into metadata: inout RecordingMetadata, reference: inout ReferenceData, file: String, line: Int) throws {
        let body = text.dropFirst().trimmingCharacters(in: .whitespaces)
        guard let colon = body.range(of: ": ") ?? body.range(of: ":") else { return }  // a plain comment
        let key = String(body[..<colon.lowerBound])
        let value = String(body[colon.upperBound...])
        switch key {
        case "device": metadata.deviceName = NativeFormat.unescape(value)
        case "start":
            let number = value.split(separator: " ").first.map(String.init) ?? ""
            guard let seconds = Double(number), seconds.isFinite else {
                throw RecordingError(file: file, line: line, column: "start", expected: "seconds since 1970", found: value)
            }
            metadata.startDate = Date(timeIntervalSince1970: seconds)
        case "source": metadata.properties[NativeFormat.recordedSourceKey] = NativeFormat.unescape(value)
        case "format": metadata.properties[NativeFormat.recordedFormatKey] = NativeFormat.unescape(value)
        case "licence": metadata.licence = NativeFormat.unescape(value)
        case "property":
            // `key = value`, with `=` in the key escaped as `\=`.
            var k = ""
            var rest = Substring(value)
            var escaping = false
            while let c = rest.first {
                rest = rest.dropFirst()
                if escaping { k.append("\\"); k.append(c); escaping = false; continue }
                if c == "\\" { escaping = true; continue }
                if c == "=" { break }
                k.append(c)
            }
            let propertyKey = NativeFormat.unescape(k.trimmingCharacters(in: .whitespaces))
            let propertyValue = NativeFormat.unescape(rest.hasPrefix(" ") ? String(rest.dropFirst()) : String(rest))
            metadata.properties[propertyKey] = propertyValue
        case "step-total":
            guard let total = Int(value.trimmingCharacters(in: .whitespaces)) else {
                throw RecordingError(file: file, line: line, column: "step-total", expected: "an integer", found: value)
            }
            reference.stepTotal = total
        default:
            break  // units and any other comment are informative
        }
    }
}
