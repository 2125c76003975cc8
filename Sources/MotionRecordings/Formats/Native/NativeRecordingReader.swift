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
            // One policy per kind, indexed by the kind's position in `allCases`.
            let allKinds = NativeFormat.Kind.allCases
            let valueCounts = NativeFormat.valueCounts
            let fileName = file.name
            var policies = allKinds.map { StreamPolicy(file: fileName, stream: $0.rawValue) }
            var unknown: [String: (Int, Int)] = [:]
            // Scalars, not an array: no uniqueness check on every store in the hot loop.
            var v0 = 0.0, v1 = 0.0, v2 = 0.0, v3 = 0.0, v4 = 0.0
            rowLoop: while rows.next() {
                if !rows.startsLikeNumber && (rows.isBlankLine || rows.lineStarts(with: 0x23)) { continue }
                let line = rows.line
                let kindIndex: Int
                let t: Double
                do {
                    try rows.require(fields: 2, fileName)
                    t = try rows.number(0, fileName, "time")
                    guard let found = NativeFormat.kindIndex(rows.base + rows.starts[1], rows.ends[1] - rows.starts[1]) else {
                        let name = rows.string(1)
                        // The headphones' track: HeadphoneRecordingReader reads it.
                        if name == NativeFormat.headphoneStream { continue rowLoop }
                        if name.hasPrefix("ref.") || name.hasPrefix("x-") {
                            // A later version's extra stream: skipped and reported, never fatal.
                            unknown[name, default: (line, 0)].1 += 1
                            continue rowLoop
                        }
                        throw rows.fail(fileName, field: 1, column: "sensor", expected: "a sensor (accelerometer, gyroscope, magnetometer, barometer) or a ref.* stream")
                    }
                    kindIndex = found
                    let n = valueCounts[found]
                    try rows.require(fields: 2 + n, fileName)
                    if found != NativeFormat.activityIndex {
                        if n > 0 { v0 = try rows.number(2, fileName, "x") }
                        if n > 1 { v1 = try rows.number(3, fileName, "y") }
                        if n > 2 { v2 = try rows.number(4, fileName, "z") }
                        if n > 3 { v3 = try rows.number(5, fileName, "w") }
                        if n > 4 { v4 = try rows.number(6, fileName, "scored") }
                    }
                } catch let cut as TruncatedLastLine {
                    notices.append(.truncated(fileName, line: cut.line))
                    break
                }
                let kind = allKinds[kindIndex]
                var finite = true
                if !kind.keepsNonFinite && kind != .activity {
                    let n = valueCounts[kindIndex]
                    finite = (n < 1 || v0.isFinite) && (n < 2 || v1.isFinite) && (n < 3 || v2.isFinite) && (n < 4 || v3.isFinite) && (n < 5 || v4.isFinite)
                }
                guard policies[kindIndex].admit(time: t, finite: finite, line: line) else { continue }
                switch kind {
                case .accelerometer: recording.accelerometer.append(TimedVector(time: t, value: Vector3(v0, v1, v2)))
                case .gyroscope: recording.gyroscope.append(TimedVector(time: t, value: Vector3(v0, v1, v2)))
                case .magnetometer: recording.magnetometer.append(TimedVector(time: t, value: Vector3(v0, v1, v2)))
                case .barometer:
                    var celsius: Double?
                    if rows.fieldCount > 3 && !rows.isEmpty(3) {
                        guard let c = rows.double(3) else {
                            if !rows.terminated { notices.append(.truncated(fileName, line: line)); break rowLoop }
                            throw rows.fail(fileName, field: 3, column: "y (°C)", expected: "a temperature in °C or nothing")
                        }
                        celsius = c
                    }
                    recording.barometer.append(PressureReading(time: t, kilopascals: v0, celsius: celsius))
                case .attitude: reference.attitude.append(TimedQuaternion(time: t, value: Quaternion(w: v0, x: v1, y: v2, z: v3)))
                case .gravity: reference.gravity.append(TimedVector(time: t, value: Vector3(v0, v1, v2)))
                case .userAcceleration: reference.userAcceleration.append(TimedVector(time: t, value: Vector3(v0, v1, v2)))
                case .rotationRate: reference.rotationRate.append(TimedVector(time: t, value: Vector3(v0, v1, v2)))
                case .calibratedMagneticField: reference.calibratedMagneticField.append(TimedVector(time: t, value: Vector3(v0, v1, v2)))
                case .heading: reference.heading.append(TimedScalar(time: t, value: v0))
                case .steps: reference.cumulativeSteps.append(TimedScalar(time: t, value: v0))
                case .relativeAltitude: reference.relativeAltitude.append(TimedScalar(time: t, value: v0))
                case .activity: reference.activity.append(TimedLabel(time: t, label: rows.string(2).replacingOccurrences(of: "\"\"", with: "\"")))
                case .truth:
                    guard v4 == 0 || v4 == 1 else {
                        throw RecordingError(file: fileName, line: line, column: "scored", expected: "0 or 1", found: rows.fieldText(6))
                    }
                    reference.truthAttitude.append(TimedQuaternion(time: t, value: Quaternion(w: v0, x: v1, y: v2, z: v3)))
                    reference.truthScored.append(v4 == 1)
                case .step: reference.stepTimes.append(t)
                case .location:
                    // Optional fields 4, 5, 6: altitude above mean sea level, vertical accuracy,
                    // ellipsoidal altitude (m); empty or absent means none.
                    var optional: [Double?] = [nil, nil, nil]
                    for (k, column) in ["altitude", "vertical accuracy", "ellipsoidal altitude"].enumerated() {
                        let field = 4 + k
                        guard rows.fieldCount > field && !rows.isEmpty(field) else { continue }
                        guard let a = rows.double(field) else {
                            if !rows.terminated { notices.append(.truncated(fileName, line: line)); break rowLoop }
                            throw rows.fail(fileName, field: field, column: column, expected: "a number of metres or nothing")
                        }
                        optional[k] = a.isFinite ? a : nil
                    }
                    recording.location.append(TimedLocation(
                        time: t, latitude: v0, longitude: v1, altitude: optional[0],
                        verticalAccuracy: optional[1].flatMap { $0 > 0 ? $0 : nil }, ellipsoidalAltitude: optional[2]))
                }
            }
            for policy in policies { notices += try policy.finish() }
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
