import Foundation

/// Reads the Oxford Step Counter data set (Salvi, Velardo, Brinkley, Ferrari, Tarassenko, "An
/// optimised algorithm for accurate steps counting from smart-phone accelerometry", EMBC 2018;
/// CC BY 4.0): per trial, `accelerometer.csv`, `stepcounter.csv` and `metadata.txt`; per set,
/// `stats.csv` with each trial's user, phone, carry position, floor and true step total.
///
/// - `accelerometer.csv` has no header: `timestamp_ns, accuracy, ax, ay, az`, Android m/s² (+9.81 on
///   the axis pointing up): Apple's g is `value / −9.80665`. Times are ns since the phone booted;
///   t = 0 is the earliest sample of the trial (accelerometer or foot switch).
/// - `stepcounter.csv` has no header: `timestamp_ns, left, right`, the two foot switches (1 while
///   pressed, sampled at about 10 Hz). Every 0 → 1 transition of either switch is a foot strike:
///   these times go to ``ReferenceData/stepTimes``. Their number equals the data set's step total for
///   every one of the 48 optimisation trials.
/// - `stats.csv`'s `steps` goes to ``ReferenceData/stepTotal`` (else the number of strikes).
///
/// Address a trial as `optimisation_data.zip#Pixel_Jamie_Hard_InHand_1`; ``members(_:)`` lists them
/// with their carry position, floor type and phone.
enum OxfordStepCounterReader: FormatReader {
    static let format = RecordingFormat.oxfordStepCounter

    static func recognises(_ container: RecordingContainer) -> Bool {
        switch container.kind {
        case .file:
            // One trial's accelerometer.csv beside its stepcounter.csv.
            let folder = container.url.deletingLastPathComponent()
            return container.url.lastPathComponent == "accelerometer.csv"
                && FileManager.default.fileExists(atPath: folder.appendingPathComponent("stepcounter.csv").path)
        case .directory, .zip:
            return !trialFolders(container).isEmpty
        }
    }

    /// Folder paths (ending in `/`, or empty for the container itself) holding a trial.
    static func trialFolders(_ container: RecordingContainer) -> [String] {
        let paths = Set(container.paths)
        return paths.filter { ($0 as NSString).lastPathComponent == "accelerometer.csv" }
            .map { String($0.dropLast("accelerometer.csv".count)) }
            .filter { paths.contains($0 + "stepcounter.csv") && !$0.hasPrefix("__MACOSX") }
            .sorted()
    }

    /// The trial name of a trial folder path.
    static func trialName(_ folder: String) -> String {
        let trimmed = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        return trimmed.isEmpty ? "" : (trimmed as NSString).lastPathComponent
    }

    /// A trial as the data set describes it.
    struct Trial {
        var name: String
        var user: String?
        var phone: String?
        var position: String?
        var surface: String?
        var durationSeconds: Double?
        var steps: Int?

        var properties: [String: String] {
            var p: [String: String] = ["trial": name]
            if let user { p["user"] = user }
            if let phone { p["phone"] = phone }
            if let position { p["carryPosition"] = position }
            if let surface { p["floor"] = surface }
            if let durationSeconds { p["duration"] = "\(durationSeconds)" }
            if let steps { p["stepTotal"] = "\(steps)" }
            return p
        }
    }

    /// `stats.csv` (`#dir, user, phone, position, surface, duration(s), steps`) by trial name.
    static func stats(_ container: RecordingContainer) throws -> [String: Trial] {
        guard let path = container.paths.filter({ ($0 as NSString).lastPathComponent == "stats.csv" }).min(by: { $0.count < $1.count }) else {
            return [:]
        }
        let file = try container.read(path)
        var out: [String: Trial] = [:]
        try file.bytes.withUnsafeBufferPointer { buffer in
            var rows = DelimitedRows(buffer, separator: 0x2C)
            while rows.next() {
                if rows.isBlankLine || rows.lineStarts(with: 0x23) { continue }
                let f = rows.strings
                guard f.count >= 7 else {
                    if !rows.terminated { break }
                    throw RecordingError(file: file.name, line: rows.line, expected: "7 fields: dir, user, phone, position, surface, duration(s), steps", found: rows.lineText)
                }
                guard let steps = Int(f[6]) else {
                    throw RecordingError(file: file.name, line: rows.line, column: "steps", expected: "an integer step total", found: f[6])
                }
                out[f[0]] = Trial(name: f[0], user: f[1], phone: f[2], position: f[3], surface: f[4], durationSeconds: Double(f[5]), steps: steps)
            }
        }
        return out
    }

    static func members(_ container: RecordingContainer) throws -> [RecordingMember] {
        let table = try stats(container)
        return trialFolders(container).compactMap { folder in
            let name = trialName(folder)
            guard !name.isEmpty else { return nil }
            var properties = (table[name] ?? parseName(name)).properties
            if let sensor = sensorName(container, folder) { properties["sensor"] = sensor }
            return RecordingMember(name: name, format: format, properties: properties)
        }
    }

    /// What a trial's name says (`Phone_User_Surface_Position_N`) when `stats.csv` is absent.
    static func parseName(_ name: String) -> Trial {
        let parts = name.split(separator: "_").map(String.init)
        guard parts.count >= 5 else { return Trial(name: name) }
        return Trial(name: name, user: parts[1], phone: parts[0], position: parts[3], surface: parts[2])
    }

    /// The accelerometer named in `metadata.txt` (`accelerometer : BMI160 accelerometer`).
    static func sensorName(_ container: RecordingContainer, _ folder: String) -> String? {
        guard container.contains(folder + "metadata.txt") else { return nil }
        let text = String(decoding: container.head(folder + "metadata.txt", count: 512), as: UTF8.self)
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == "accelerometer" {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    static func read(_ container: RecordingContainer, member: String?) throws -> Recording {
        if container.kind.isFile {
            return try read(RecordingContainer(container.url.deletingLastPathComponent()), member: nil)
        }
        let folders = trialFolders(container)
        let folder: String
        if let member {
            // A trial name, or a path inside the trial's folder.
            let wanted = member.hasSuffix(".csv") || member.hasSuffix(".txt") ? String(member[..<(member.lastIndex(of: "/") ?? member.startIndex)]) : member
            let name = trialName(wanted)
            guard let found = folders.first(where: { trialName($0) == name }) ?? folders.first(where: { trialName($0).lowercased() == name.lowercased() }) else {
                throw noSuchMember(container, member)
            }
            folder = found
        } else if folders.count == 1 {
            folder = folders[0]
        } else {
            throw memberNeeded(container)
        }
        let name = trialName(folder).isEmpty ? container.url.lastPathComponent : trialName(folder)
        var trial = try stats(container)[name] ?? parseName(name)
        trial.name = name

        var notices: [RecordingNotice] = []
        let accelerometerFile = try container.read(folder + "accelerometer.csv")
        let stepFile = try container.read(folder + "stepcounter.csv")
        let firstStep = try firstTimestamp(stepFile)
        let firstAcc = try firstTimestamp(accelerometerFile)
        let origin = [firstStep, firstAcc].compactMap { $0 }.min() ?? 0

        var metadata = RecordingMetadata(format: format.name, source: container.displayName(folder.isEmpty ? "" : String(folder.dropLast())))
        metadata.deviceName = trial.phone
        metadata.licence = "CC BY 4.0, Salvi et al., EMBC 2018 (github.com/Oxford-step-counter/DataSet)"
        metadata.properties = trial.properties
        metadata.properties["timeOrigin"] = "\(origin) ns since boot"
        if let sensor = sensorName(container, folder) { metadata.properties["sensor"] = sensor }
        if container.contains(folder + "notes.txt") {
            let notes = String(decoding: container.head(folder + "notes.txt", count: 1024), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !notes.isEmpty { metadata.properties["notes"] = notes }
        }

        let accelerometer = try readAccelerometer(accelerometerFile, origin: origin, notices: &notices)
        let strikes = try readFootSwitches(stepFile, origin: origin, notices: &notices)
        var reference = ReferenceData()
        reference.stepTimes = strikes
        reference.stepTotal = trial.steps ?? strikes.count
        if let total = trial.steps, total != strikes.count {
            notices.append(RecordingNotice(
                kind: .other, file: stepFile.name, count: abs(total - strikes.count),
                message: "stats.csv gives \(total) steps, the foot switches \(strikes.count) strikes"))
        }
        if let gap = GapReport.notice(accelerometer, file: accelerometerFile.name, stream: "accelerometer", time: \.time) { notices.append(gap) }
        return Recording(metadata: metadata, accelerometer: accelerometer, reference: reference, notices: notices)
    }

    /// First timestamp (ns) of a header-less file.
    static func firstTimestamp(_ file: TextFile) throws -> Int64? {
        file.bytes.withUnsafeBufferPointer { buffer in
            var rows = DelimitedRows(buffer, separator: 0x2C)
            while rows.next() {
                if rows.isBlankLine { continue }
                return rows.int64(0)
            }
            return nil
        }
    }

    static func readAccelerometer(_ file: TextFile, origin: Int64, notices: inout [RecordingNotice]) throws -> [TimedVector] {
        guard !file.isBlank else {
            throw RecordingError(file: file.name, expected: "rows of timestamp_ns, accuracy, ax, ay, az", found: "an empty file")
        }
        var out: [TimedVector] = []
        try file.bytes.withUnsafeBufferPointer { buffer in
            out.reserveCapacity(buffer.count / 40)
            var rows = DelimitedRows(buffer, separator: 0x2C)
            var policy = StreamPolicy(file: file.name, stream: "accelerometer", timeColumn: "1 (timestamp_ns)")
            let names = ["timestamp_ns", "accuracy", "ax", "ay", "az"]
            let scale = -standardGravity
            while rows.next() {
                if rows.isBlankLine { continue }
                let t: Double
                let v: Vector3
                do {
                    try rows.require(fields: 5, atMost: 5, file.name)
                    guard let ns = rows.int64(0) else {
                        throw rows.fail(file.name, field: 0, column: names[0], expected: "an integer time in nanoseconds")
                    }
                    t = Double(ns &- origin) / 1e9
                    _ = try rows.number(1, file.name, names[1])
                    v = Vector3(
                        try rows.number(2, file.name, names[2]) / scale,
                        try rows.number(3, file.name, names[3]) / scale,
                        try rows.number(4, file.name, names[4]) / scale)
                } catch let cut as TruncatedLastLine {
                    notices.append(.truncated(file.name, line: cut.line))
                    break
                }
                if policy.admit(time: t, finite: v.isFinite, line: rows.line) {
                    out.append(TimedVector(time: t, value: v))
                }
            }
            notices += try policy.finish()
        }
        return out
    }

    /// Foot-strike times: 0 → 1 transitions of either foot switch.
    static func readFootSwitches(_ file: TextFile, origin: Int64, notices: inout [RecordingNotice]) throws -> [Double] {
        var strikes: [Double] = []
        try file.bytes.withUnsafeBufferPointer { buffer in
            var rows = DelimitedRows(buffer, separator: 0x2C)
            var policy = StreamPolicy(file: file.name, stream: "foot switches", timeColumn: "1 (timestamp_ns)")
            var previous: (Int64, Int64)?
            let names = ["timestamp_ns", "left", "right"]
            while rows.next() {
                if rows.isBlankLine { continue }
                let t: Double
                let state: (Int64, Int64)
                do {
                    try rows.require(fields: 3, atMost: 3, file.name)
                    guard let ns = rows.int64(0) else {
                        throw rows.fail(file.name, field: 0, column: names[0], expected: "an integer time in nanoseconds")
                    }
                    guard let left = rows.int64(1), left == 0 || left == 1 else {
                        throw rows.fail(file.name, field: 1, column: names[1], expected: "0 or 1")
                    }
                    guard let right = rows.int64(2), right == 0 || right == 1 else {
                        throw rows.fail(file.name, field: 2, column: names[2], expected: "0 or 1")
                    }
                    t = Double(ns &- origin) / 1e9
                    state = (left, right)
                } catch let cut as TruncatedLastLine {
                    notices.append(.truncated(file.name, line: cut.line))
                    break
                }
                guard policy.admit(time: t, finite: true, line: rows.line) else { continue }
                if let p = previous {
                    if p.0 == 0 && state.0 == 1 { strikes.append(t) }
                    if p.1 == 0 && state.1 == 1 { strikes.append(t) }
                }
                previous = state
            }
            notices += try policy.finish()
        }
        return strikes
    }
}
