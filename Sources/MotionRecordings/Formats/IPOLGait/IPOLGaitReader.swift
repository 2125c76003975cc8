import Foundation

/// Reads the IPOL gait data set (Voisard et al., "A Reference Data Set for the Study of Healthy
/// Subject Gait with Inertial Measurements Units", IPOL 2023, github.com/CyrilVoisard/ipol_dataset_1;
/// AGPL-3.0: used as test data only, never shipped): per trial `<subject>-<trial>_lb.txt`, the XSens
/// MTw IMU on the lower back (L5) at 100 Hz, and `<subject>-<trial>.json` with the annotated foot
/// events and the subject's details.
///
/// `_lb.txt`: a first line `Acquisition frequency: 100 Hz`, then a tab-separated header
/// `PacketCounter Acc_X Acc_Y Acc_Z Gyr_X Gyr_Y Gyr_Z Mag_X Mag_Y Mag_Z`; accelerations are specific
/// force in m/s² (+9.81 on the axis pointing up), rotation rates in rad/s.
///
/// **Axes.** The sensor's frame on the back, worked out from the data (all 110 trials):
/// - `X` points up: standing, Acc_X ≈ +8.3…+9.8 m/s² (the rest of g on `Z`);
/// - `Y` points to the subject's left: during the U-turn the centripetal acceleration along `Y` has
///   the sign of the yaw rate about the vertical in 106 of the 110 trials
///   (a = ω × v: left turns accelerate to the left);
/// - `Z = X × Y` points backward, out of the back (its upward tilt of 5–35° standing is the slope of
///   the skin over L5).
///
/// It is mapped to the axes of a phone worn the same way — upright in portrait on the lower back,
/// screen facing backward: phone `x` = right = −`Y`, `y` = up = `X`, `z` = out of the screen =
/// backward = `Z` (a proper rotation). Then Apple's acceleration in g is `(−Acc_Y, Acc_X, Acc_Z) / −9.80665`
/// and the rotation rate `(−Gyr_Y, Gyr_X, Gyr_Z)`. The magnetometer (arbitrary units normalised to the
/// local field, not µT) is not imported.
///
/// Times: `(PacketCounter − first) / rate`. The counter jumps where packets were lost on the wireless
/// link (in 79 of the 110 trials); the annotations count samples on this same counter axis (the
/// trunk acceleration locked to the strikes is sharper on it than on row numbers in 28 of the 37
/// trials with more than 100 jumps, and trial 7-3's annotations reach past its row count but not
/// past its counter). Foot events are sample indices: every strike (the first
/// index of each `[strike, off]` pair, both feet) goes to ``ReferenceData/stepTimes`` at `index / rate`
/// and their number to ``ReferenceData/stepTotal``; strikes annotated after the last sample are left
/// out with a notice.
enum IPOLGaitReader: FormatReader {
    static let format = RecordingFormat.ipolGait
    static let columns = ["PacketCounter", "Acc_X", "Acc_Y", "Acc_Z", "Gyr_X", "Gyr_Y", "Gyr_Z"]

    static func recognises(_ container: RecordingContainer) -> Bool {
        switch container.kind {
        case .file:
            return isTrialFile(container.head(container.url.lastPathComponent, count: 256))
        case .directory, .zip:
            return container.paths.filter { $0.hasSuffix("_lb.txt") }.prefix(3).contains { isTrialFile(container.head($0, count: 256)) }
        }
    }

    static func isTrialFile(_ head: [UInt8]) -> Bool {
        let lines = String(decoding: head, as: UTF8.self).split(whereSeparator: \.isNewline)
        guard lines.count >= 2 else { return false }
        return lines[0].hasPrefix("Acquisition frequency:") && lines[1].hasPrefix("PacketCounter\t")
    }

    /// `(lb path, json path?, name)` of every trial.
    static func trials(_ container: RecordingContainer) -> [(lb: String, json: String?, name: String)] {
        let paths = Set(container.paths)
        return container.paths.filter { $0.hasSuffix("_lb.txt") && !$0.hasPrefix("__MACOSX") }.map { lb in
            let stem = String(lb.dropLast("_lb.txt".count))
            let json = paths.contains(stem + ".json") ? stem + ".json" : nil
            return (lb, json, (stem as NSString).lastPathComponent)
        }
    }

    static func members(_ container: RecordingContainer) throws -> [RecordingMember] {
        guard !container.kind.isFile else { return [] }
        return try trials(container).map { trial in
            var properties: [String: String] = [:]
            if let json = trial.json { properties = try events(container.read(json)).properties }
            return RecordingMember(name: trial.name, format: format, properties: properties)
        }
    }

    static func read(_ container: RecordingContainer, member: String?) throws -> Recording {
        if container.kind.isFile {
            let lb = container.url
            let jsonURL = URL(fileURLWithPath: String(lb.path.dropLast("_lb.txt".count)) + ".json")
            let json = FileManager.default.fileExists(atPath: jsonURL.path) ? TextFile(name: jsonURL.path, bytes: try RecordingContainer.readBytes(jsonURL)) : nil
            return try parse(container.read(lb.lastPathComponent), events: json, source: lb.path)
        }
        let all = trials(container)
        let chosen: (lb: String, json: String?, name: String)
        if let member {
            let wanted = member.hasSuffix("_lb.txt") ? String((member as NSString).lastPathComponent.dropLast("_lb.txt".count)) : member
            guard let found = all.first(where: { $0.name == wanted || $0.lb == member }) else { throw noSuchMember(container, member) }
            chosen = found
        } else if all.count == 1 {
            chosen = all[0]
        } else {
            throw memberNeeded(container)
        }
        return try parse(container.read(chosen.lb), events: chosen.json.map { try container.read($0) }, source: container.displayName(chosen.lb))
    }

    /// The annotations of a trial.
    struct Events {
        var strikes: [Int] = []
        var properties: [String: String] = [:]
    }

    static func events(_ file: TextFile) throws -> Events {
        let object: Any
        do {
            object = try LenientJSON.object(from: file.bytes)
        } catch {
            throw RecordingError(file: file.name, expected: "valid JSON (foot events)", found: file.isBlank ? "an empty file" : error.localizedDescription)
        }
        guard let dict = object as? [String: Any] else {
            throw RecordingError(file: file.name, expected: "a JSON object", found: "\(type(of: object))")
        }
        var out = Events()
        for key in ["LeftFootEvents", "RightFootEvents"] {
            guard let pairs = dict[key] as? [[Any]] else {
                throw RecordingError(file: file.name, column: key, expected: "an array of [strike, off] sample indices", found: dict[key].map { "\($0)" } ?? "nothing")
            }
            for (i, pair) in pairs.enumerated() {
                guard let strike = (pair.first as? NSNumber)?.intValue, strike >= 0 else {
                    throw RecordingError(file: file.name, column: "\(key)[\(i)]", expected: "[strike, off] sample indices", found: "\(pair)")
                }
                out.strikes.append(strike)
            }
        }
        out.strikes.sort()
        for (key, value) in dict where !(value is [Any]) && !(value is NSNull) {
            out.properties[key.prefix(1).lowercased() + key.dropFirst()] = "\(value)"
        }
        for key in ["TrialBoundaries", "UTurnBoundaries"] {
            if let pair = dict[key] as? [NSNumber], pair.count == 2 {
                out.properties[key.prefix(1).lowercased() + key.dropFirst()] = "\(pair[0].intValue)…\(pair[1].intValue) (samples)"
            }
        }
        out.properties["stepTotal"] = "\(out.strikes.count)"
        return out
    }

    static func parse(_ file: TextFile, events: TextFile?, source: String) throws -> Recording {
        var metadata = RecordingMetadata(format: format.name, source: source)
        metadata.deviceName = "XSens MTw Awinda (lower back)"
        metadata.licence = "AGPL-3.0, Voisard et al., IPOL 2023 (github.com/CyrilVoisard/ipol_dataset_1): test data only"
        metadata.properties["axes"] = "phone-like: x = right (−Y), y = up (X), z = backward (Z) of the XSens frame"
        metadata.properties["magnetometer"] = "not imported (arbitrary units normalised to the local field)"
        var notices: [RecordingNotice] = []
        var accelerometer: [TimedVector] = []
        var gyroscope: [TimedVector] = []
        var rate = 100.0
        try file.bytes.withUnsafeBufferPointer { buffer in
            var rows = DelimitedRows(buffer, separator: 0x09)
            guard rows.next() else {
                throw RecordingError(file: file.name, expected: "`Acquisition frequency: 100 Hz` then a tab-separated header", found: "an empty file")
            }
            let first = rows.lineText
            guard first.hasPrefix("Acquisition frequency:") else {
                throw RecordingError(file: file.name, line: 1, expected: "`Acquisition frequency: N Hz`", found: first)
            }
            let number = first.dropFirst("Acquisition frequency:".count).trimmingCharacters(in: .whitespaces).split(separator: " ").first.flatMap { Double($0) }
            guard let number, number > 0, number.isFinite else {
                throw RecordingError(file: file.name, line: 1, expected: "a positive sampling frequency in Hz", found: first)
            }
            rate = number
            metadata.properties["rate"] = "\(number) Hz"
            guard rows.next() else {
                throw RecordingError(file: file.name, line: 2, expected: "the header \(columns.joined(separator: " "))", found: "nothing")
            }
            let header = rows.strings
            var index: [Int] = []
            for name in columns {
                guard let i = header.firstIndex(of: name) else {
                    throw RecordingError(file: file.name, line: 2, column: name, expected: "the column '\(name)'", found: header.joined(separator: " "))
                }
                index.append(i)
            }
            let needed = (index.max() ?? 0) + 1
            accelerometer.reserveCapacity(buffer.count / 80)
            gyroscope.reserveCapacity(buffer.count / 80)
            var accPolicy = StreamPolicy(file: file.name, stream: "accelerometer", timeColumn: "PacketCounter")
            var gyroPolicy = StreamPolicy(file: file.name, stream: "gyroscope", timeColumn: "PacketCounter")
            var firstCounter: Double?
            var v = [Double](repeating: 0, count: columns.count)
            let g = standardGravity
            while rows.next() {
                if rows.isBlankLine { continue }
                do {
                    try rows.require(fields: needed, atMost: header.count, file.name)
                    for k in 0..<columns.count { v[k] = try rows.number(index[k], file.name, columns[k]) }
                } catch let cut as TruncatedLastLine {
                    notices.append(.truncated(file.name, line: cut.line))
                    break
                }
                if firstCounter == nil && v[0].isFinite { firstCounter = v[0] }
                let t = (v[0] - (firstCounter ?? 0)) / rate
                // XSens (X up, Y left, Z back) → phone (x right, y up, z back); specific force → Apple g.
                let acc = Vector3(-v[2] / -g, v[1] / -g, v[3] / -g)
                let gyro = Vector3(-v[5], v[4], v[6])
                if accPolicy.admit(time: t, finite: acc.isFinite, line: rows.line) { accelerometer.append(TimedVector(time: t, value: acc)) }
                if gyroPolicy.admit(time: t, finite: gyro.isFinite, line: rows.line) { gyroscope.append(TimedVector(time: t, value: gyro)) }
            }
            notices += try accPolicy.finish()
            notices += try gyroPolicy.finish()
        }
        var reference = ReferenceData()
        if let events {
            let e = try IPOLGaitReader.events(events)
            metadata.properties.merge(e.properties) { $1 }
            // Strikes annotated past the last sample cannot be seen in the recording: they are left
            // out, with a notice.
            let end = accelerometer.last.map { $0.time } ?? 0
            let times = e.strikes.map { Double($0) / rate }
            reference.stepTimes = times.filter { $0 <= end }
            reference.stepTotal = reference.stepTimes.count
            if reference.stepTimes.count < times.count {
                let dropped = times.count - reference.stepTimes.count
                notices.append(RecordingNotice(
                    kind: .other, file: events.name, count: dropped,
                    message: "\(dropped) foot strike\(dropped == 1 ? "" : "s") annotated after the last sample (t = \(end) s) left out of the step truth"))
            }
        } else {
            notices.append(RecordingNotice(kind: .other, file: file.name, message: "no foot-event JSON beside the trial: no step truth"))
        }
        if let gap = GapReport.notice(accelerometer, file: file.name, stream: "accelerometer", time: \.time) { notices.append(gap) }
        return Recording(metadata: metadata, accelerometer: accelerometer, gyroscope: gyroscope, reference: reference, notices: notices)
    }
}
