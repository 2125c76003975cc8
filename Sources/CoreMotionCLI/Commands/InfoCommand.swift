import ArgumentParser
import Foundation
import MotionRecordings

/// `coremotion info FILE`: what a recording holds, in Apple's units, and what the reader noticed.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe a recording: format, device, sensors (samples, rate, duration, gaps), reference data, notices.",
        discussion: """
            FILE is a recording file, folder or .zip in any supported format (\(RecordingFormat.allCases.map(\.name).joined(separator: ", "))).
            A collection (a data-set archive or folder) holds several recordings: name one as FILE#MEMBER, and list them with --members.
            """
    )

    @Argument(help: "The recording (file, folder or .zip), optionally FILE#MEMBER.")
    var file: String

    @Option(help: "The format, instead of detecting it (\(Names.formatNames.joined(separator: ", "))).", transform: Names.recordingFormat)
    var format: RecordingFormat?

    @Flag(help: "List the recordings inside a collection instead of reading one.")
    var members = false

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        if members {
            let list = try RecordingReader.members(of: URL(fileURLWithPath: file), format: format)
            if json {
                try Output.json(list)
            } else if list.isEmpty {
                print("\(file): a single recording (no members)")
            } else {
                print(Self.membersTable(list))
            }
            return
        }
        let recording = try RecordingReader.read(file, format: format)
        let report = InfoReport(recording, file: file)
        if json {
            try Output.json(report)
        } else {
            print(report.text)
        }
    }

    static func membersTable(_ list: [RecordingMember]) -> String {
        let keys = Array(Set(list.flatMap(\.properties.keys))).sorted().prefix(6)
        return Output.table(["member"] + keys, list.map { m in [m.name] + keys.map { m.properties[$0] ?? "" } })
    }
}

/// The content of `coremotion info`, also its JSON form.
struct InfoReport: Codable, Equatable {
    struct Sensor: Codable, Equatable {
        var sensor: String
        var unit: String
        var samples: Int
        /// Median rate, Hz.
        var rate: Double
        /// First and last sample time, s.
        var first: Double
        var last: Double
        var duration: Double
        /// Intervals longer than five median intervals.
        var gaps: Int
    }

    var file: String
    var format: String
    var device: String?
    var startDate: Date?
    var licence: String?
    var properties: [String: String]
    var sensors: [Sensor]
    /// Location fixes (replayed beside the sensors), and how many carry an altitude above sea level
    /// with a vertical accuracy (what the altimeter fuses).
    var locationFixes: Int
    var locationFixesWithAltitude: Int
    /// Reference streams present, with their number of entries.
    var reference: [String: Int]
    var stepTotal: Int?
    var notices: [String]

    init(_ recording: Recording, file: String) {
        self.file = file
        format = recording.metadata.format
        device = recording.metadata.deviceName
        startDate = recording.metadata.startDate
        licence = recording.metadata.licence
        properties = recording.metadata.properties
        sensors = recording.sensors.map { kind in
            let times = recording.times(of: kind)
            let median = InfoReport.medianInterval(times)
            let gaps = median > 0 ? zip(times, times.dropFirst()).filter { $1 - $0 > 5 * median }.count : 0
            return Sensor(
                sensor: kind.rawValue, unit: kind.unit, samples: times.count, rate: median > 0 ? 1 / median : 0,
                first: times.first ?? 0, last: times.last ?? 0, duration: (times.last ?? 0) - (times.first ?? 0), gaps: gaps)
        }
        locationFixes = recording.location.count
        locationFixesWithAltitude = recording.location.filter { $0.fusableAltitude != nil }.count
        let r = recording.reference
        let counts: [(String, Int)] = [
            ("attitude", r.attitude.count), ("gravity", r.gravity.count), ("userAcceleration", r.userAcceleration.count),
            ("rotationRate", r.rotationRate.count), ("calibratedMagneticField", r.calibratedMagneticField.count),
            ("heading", r.heading.count), ("cumulativeSteps", r.cumulativeSteps.count), ("relativeAltitude", r.relativeAltitude.count),
            ("activity", r.activity.count), ("truthAttitude", r.truthAttitude.count), ("truthScored", r.truthScored.filter { $0 }.count),
            ("stepTimes", r.stepTimes.count),
        ]
        reference = Dictionary(uniqueKeysWithValues: counts.filter { $0.1 > 0 })
        stepTotal = r.stepTotal
        notices = recording.notices.map(\.description)
    }

    static func medianInterval(_ times: [Double]) -> Double {
        guard times.count > 1 else { return 0 }
        var d = (1..<times.count).map { times[$0] - times[$0 - 1] }
        d.sort()
        return d[d.count / 2]
    }

    var text: String {
        var lines = ["file:    \(file)", "format:  \(format)"]
        if let device { lines.append("device:  \(device)") }
        if let startDate {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            lines.append("start:   \(formatter.string(from: startDate))")
        }
        if let licence { lines.append("licence: \(licence)") }
        for (key, value) in properties.sorted(by: { $0.key < $1.key }) { lines.append("  \(key): \(value)") }
        lines.append("")
        if sensors.isEmpty {
            lines.append("no raw sensor samples")
        } else {
            lines.append(Output.table(
                ["sensor", "unit", "samples", "rate (Hz)", "from (s)", "to (s)", "duration (s)", "gaps"],
                sensors.map { [$0.sensor, $0.unit, "\($0.samples)", Output.fixed($0.rate, 2), Output.fixed($0.first), Output.fixed($0.last), Output.fixed($0.duration), "\($0.gaps)"] }))
        }
        if locationFixes > 0 {
            lines.append("location: \(locationFixes) fixes, \(locationFixesWithAltitude) with altitude above sea level and vertical accuracy")
        }
        lines.append("")
        if reference.isEmpty {
            lines.append("reference data: none")
        } else {
            lines.append("reference data: " + reference.sorted(by: { $0.key < $1.key }).map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        if let stepTotal { lines.append("step total: \(stepTotal)") }
        if notices.isEmpty {
            lines.append("notices: none")
        } else {
            lines.append("notices:")
            lines += notices.map { "  " + $0 }
        }
        return lines.joined(separator: "\n")
    }
}
