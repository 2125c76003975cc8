import ArgumentParser
import Foundation
import MotionEngine
import MotionRecordings

/// `coremotion altitude FILE`: runs the altimeter engine on a recording's barometer (and its GNSS
/// fixes for absolute altitude) and prints its updates, beside Apple's relative altitude and the GNSS
/// altitude when the recording has them.
struct AltitudeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "altitude",
        abstract: "Relative (and absolute) altitude from a recording's barometer; compare with Apple's altimeter.",
        discussion: "Absolute altitude comes from the recording's location fixes (altitude above sea level with a "
            + "vertical accuracy) fused with the barometer, or from --sea-level-pressure (kPa) or --known-altitude "
            + "(m at the recording's start)."
    )

    @Argument(help: "Recording file, folder or archive (PATH or PATH#MEMBER).")
    var file: String

    @Option(help: "Interval between updates for a barometer faster than that, s (a slower one gives one update per sample).")
    var interval: Double = AltimeterEngine.iPhoneUpdateInterval

    @Flag(help: "Do not fuse the recording's location fixes into absolute altitude.")
    var noLocation = false

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
        /// The newest GNSS altitude above sea level at or before the update, m.
        var gnssAltitude: Double?
    }

    struct Report: Codable {
        var updates: [Row]
        var maxAbsRelativeAltitude: Double
        var maxAbsAppleDifference: Double?
        var maxAbsPressureDifference: Double?
        /// Median interval between updates, s.
        var medianInterval: Double
        /// Where absolute altitude came from.
        var absoluteReference: String
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
        let fixes = noLocation ? [] : recording.location.filter { $0.fusableAltitude != nil }
        var reference = AltimeterEngine.Reference.none
        var referenceName = "none"
        if let p = seaLevelPressure {
            reference = .seaLevelPressure(kilopascals: p, uncertainty: 0.05)
            referenceName = "sea-level pressure \(p) kPa"
        } else if let h = knownAltitude {
            reference = .knownAltitude(metres: h, accuracy: 1, time: recording.barometer[0].time)
            referenceName = "known altitude \(h) m"
        } else if !fixes.isEmpty {
            reference = .locationFixes
            referenceName = "\(fixes.count) GNSS fixes fused with the barometer"
        }
        var engine = AltimeterEngine(configuration: .init(updateInterval: interval, reference: reference))
        var rows: [Row] = []
        let acc = recording.accelerometer, baro = recording.barometer
        let apple = recording.reference.relativeAltitude
        let gnss = fixes.compactMap { f in f.altitude.map { TimedScalar(time: f.time, value: $0) } }
        var i = 0, j = 0, k = 0
        func drain(_ engine: inout AltimeterEngine) {
            while let u = engine.nextUpdate() {
                var row = Row(time: u.time, relativeAltitude: u.relativeAltitude, pressure: u.pressure, absolute: u.absolute)
                if let a = Self.latest(apple, at: u.time) {
                    row.appleRelativeAltitude = a
                    row.appleMinusOurs = a - u.relativeAltitude
                }
                if let p = Self.latestPressure(baro, at: u.time) { row.fileMinusOurPressure = p - u.pressure }
                row.gnssAltitude = Self.latest(gnss, at: u.time)
                rows.append(row)
            }
        }
        // Barometer, accelerometer and fixes merged in time order (a fix before a sample of its time).
        while i < acc.count || j < baro.count || k < fixes.count {
            let tb = j < baro.count ? baro[j].time : .infinity
            let ta = i < acc.count ? acc[i].time : .infinity
            let tf = k < fixes.count ? fixes[k].time : .infinity
            if tf <= tb && tf <= ta {
                engine.add(fixes[k]); k += 1
            } else if tb <= ta {
                engine.add(.barometer(baro[j])); j += 1
            } else {
                engine.add(.accelerometer(acc[i])); i += 1
            }
            drain(&engine)
        }
        var intervals = zip(rows.dropFirst(), rows).map { $0.time - $1.time }
        intervals.sort()
        let report = Report(
            updates: rows,
            maxAbsRelativeAltitude: rows.map { abs($0.relativeAltitude) }.max() ?? 0,
            maxAbsAppleDifference: rows.compactMap { $0.appleMinusOurs.map(abs) }.max(),
            maxAbsPressureDifference: rows.compactMap { $0.fileMinusOurPressure.map(abs) }.max(),
            medianInterval: intervals.isEmpty ? 0 : intervals[intervals.count / 2],
            absoluteReference: referenceName
        )
        if let plot {
            var svg = SVGPlot(title: "Relative altitude", xLabel: "time (s)", yLabel: "m")
            svg.add("ours", rows.map { ($0.time, $0.relativeAltitude) })
            if !apple.isEmpty { svg.add("Apple", apple.map { ($0.time, $0.value) }, dashed: true) }
            try svg.write(to: URL(fileURLWithPath: plot))
        }
        if json { try Output.json(report); return }
        let table = Output.table(
            ["time s", "relative m", "pressure kPa", "Apple m", "Apple − ours m", "absolute m", "± m", "GNSS m"],
            rows.map { r in
                [Output.fixed(r.time, 3), Output.fixed(r.relativeAltitude, 3), Output.fixed(r.pressure, 5),
                 r.appleRelativeAltitude.map { Output.fixed($0, 3) } ?? "", r.appleMinusOurs.map { Output.fixed($0, 3) } ?? "",
                 r.absolute.map { Output.fixed($0.altitude, 2) } ?? "unavailable", r.absolute.map { Output.fixed($0.accuracy, 2) } ?? "",
                 r.gnssAltitude.map { Output.fixed($0, 2) } ?? ""]
            }
        )
        print(table)
        print("\n\(rows.count) updates, median interval \(Output.fixed(report.medianInterval, 4)) s; absolute altitude: \(report.absoluteReference)")
        print("max |relative altitude| \(Output.fixed(report.maxAbsRelativeAltitude, 3)) m"
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
