import ArgumentParser
import Foundation
import MotionEngine
import MotionRecordings

/// `coremotion altitude FILE`: runs the altimeter engine on a recording's barometer and prints its
/// updates, beside Apple's relative altitude when the recording has it.
struct AltitudeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "altitude",
        abstract: "Relative (and absolute) altitude from a recording's barometer; compare with Apple's altimeter.",
        discussion: "Absolute altitude needs --sea-level-pressure (kPa) or --known-altitude (m at the recording's start)."
    )

    @Argument(help: "Recording file, folder or archive (PATH or PATH#MEMBER).")
    var file: String

    @Option(help: "Interval between updates, s.")
    var interval: Double = 1

    @Option(help: "Sea-level pressure (QNH) of the day, kPa, for absolute altitude.")
    var seaLevelPressure: Double?

    @Option(help: "Known altitude at the start of the recording, m, for absolute altitude.")
    var knownAltitude: Double?

    @Option(help: "Write an SVG plot of our relative altitude and Apple's.")
    var plot: String?

    @Flag(help: "Print results as JSON.")
    var json = false

    struct Row: Codable {
        var time: Double
        var relativeAltitude: Double
        var pressure: Double
        var appleRelativeAltitude: Double?
        var appleMinusOurs: Double?
        var fileMinusOurPressure: Double?
        var absolute: AbsoluteAltitude?
    }

    struct Report: Codable {
        var updates: [Row]
        var maxAbsRelativeAltitude: Double
        var maxAbsAppleDifference: Double?
        var maxAbsPressureDifference: Double?
    }

    mutating func validate() throws {
        guard interval.isFinite && interval > 0 else { throw ValidationError("--interval must be a positive number of seconds, got \(interval)") }
        if let p = seaLevelPressure, !(p.isFinite && p > 50 && p < 120) {
            throw ValidationError("--sea-level-pressure is in kPa (e.g. 101.3), got \(p)")
        }
        if seaLevelPressure != nil && knownAltitude != nil {
            throw ValidationError("give either --sea-level-pressure or --known-altitude, not both")
        }
    }

    mutating func run() throws {
        let recording = try RecordingReader.read(URL(fileURLWithPath: file))
        guard !recording.barometer.isEmpty else {
            throw ValidationError("\(file): the recording has no barometer samples")
        }
        var reference = AltimeterEngine.Reference.none
        if let p = seaLevelPressure { reference = .seaLevelPressure(kilopascals: p, uncertainty: 0.05) }
        if let h = knownAltitude { reference = .knownAltitude(metres: h, accuracy: 1, time: recording.barometer[0].time) }
        var engine = AltimeterEngine(configuration: .init(updateInterval: interval, reference: reference))
        var rows: [Row] = []
        let acc = recording.accelerometer, baro = recording.barometer
        let apple = recording.reference.relativeAltitude
        var i = 0, j = 0
        func drain(_ engine: inout AltimeterEngine) {
            while let u = engine.nextUpdate() {
                var row = Row(time: u.time, relativeAltitude: u.relativeAltitude, pressure: u.pressure, absolute: u.absolute)
                if let a = Self.latest(apple, at: u.time) {
                    row.appleRelativeAltitude = a
                    row.appleMinusOurs = a - u.relativeAltitude
                }
                if let p = Self.latestPressure(baro, at: u.time) { row.fileMinusOurPressure = p - u.pressure }
                rows.append(row)
            }
        }
        while i < acc.count || j < baro.count {
            if j < baro.count && (i >= acc.count || baro[j].time <= acc[i].time) {
                engine.add(.barometer(baro[j])); j += 1
            } else {
                engine.add(.accelerometer(acc[i])); i += 1
            }
            drain(&engine)
        }
        let report = Report(
            updates: rows,
            maxAbsRelativeAltitude: rows.map { abs($0.relativeAltitude) }.max() ?? 0,
            maxAbsAppleDifference: rows.compactMap { $0.appleMinusOurs.map(abs) }.max(),
            maxAbsPressureDifference: rows.compactMap { $0.fileMinusOurPressure.map(abs) }.max()
        )
        if let plot {
            var svg = SVGPlot(title: "Relative altitude", xLabel: "time (s)", yLabel: "m")
            svg.add("ours", rows.map { ($0.time, $0.relativeAltitude) })
            if !apple.isEmpty { svg.add("Apple", apple.map { ($0.time, $0.value) }, dashed: true) }
            try svg.write(to: URL(fileURLWithPath: plot))
        }
        if json { try Output.json(report); return }
        let table = Output.table(
            ["time s", "relative m", "pressure kPa", "Apple m", "Apple − ours m", "absolute m", "± m"],
            rows.map { r in
                [Output.fixed(r.time, 2), Output.fixed(r.relativeAltitude, 3), Output.fixed(r.pressure, 5),
                 r.appleRelativeAltitude.map { Output.fixed($0, 3) } ?? "", r.appleMinusOurs.map { Output.fixed($0, 3) } ?? "",
                 r.absolute.map { Output.fixed($0.altitude, 2) } ?? "unavailable", r.absolute.map { Output.fixed($0.accuracy, 2) } ?? ""]
            }
        )
        print(table)
        print("\nmax |relative altitude| \(Output.fixed(report.maxAbsRelativeAltitude, 3)) m"
              + (report.maxAbsAppleDifference.map { ", max |Apple − ours| \(Output.fixed($0, 3)) m" } ?? "")
              + (report.maxAbsPressureDifference.map { ", max |file − reported pressure| \(Output.fixed($0, 6)) kPa" } ?? ""))
    }

    /// The newest value at or before `time` (Apple's updates are not on our grid).
    static func latest(_ series: [TimedScalar], at time: Double) -> Double? {
        var lo = 0, hi = series.count
        while lo < hi { let mid = (lo + hi) / 2; if series[mid].time <= time { lo = mid + 1 } else { hi = mid } }
        return lo > 0 ? series[lo - 1].value : nil
    }

    static func latestPressure(_ series: [PressureReading], at time: Double) -> Double? {
        var lo = 0, hi = series.count
        while lo < hi { let mid = (lo + hi) / 2; if series[mid].time <= time { lo = mid + 1 } else { hi = mid } }
        return lo > 0 ? series[lo - 1].kilopascals : nil
    }
}
