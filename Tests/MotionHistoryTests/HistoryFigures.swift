import Foundation
import MotionHistory

/// Measures the figures quoted in `docs/history.md`: insert throughput, file size and query times of a full
/// store. Uses only the public API, so the same file also builds in a release-mode program; the test in
/// `HistoryFiguresTests.swift` runs it when `COREMOTION_HISTORY_FIGURES=1`.
enum HistoryFigures {
    struct Report {
        var lines: [String] = []
        var printing: Bool
        /// Totals read back, for the caller to check.
        var steps = 0
        var accelerometerSamples = 0
        mutating func add(_ line: String) {
            lines.append(line)
            if printing { print("history figures: \(line)") }
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    static func fileBytes(_ url: URL) -> Int {
        ["", "-wal", "-shm"].reduce(0) { total, suffix in
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path + suffix)
            return total + ((attributes?[.size] as? Int) ?? 0)
        }
    }

    /// - Parameters:
    ///   - folder: an empty folder for the files.
    ///   - days: days of pedometer history (7 for the documented figures).
    ///   - accelerometerHours: hours of 50 Hz accelerometer recording (12 for the documented figures).
    ///   - printing: print each figure as it is measured.
    static func run(folder: URL, days: Int = 7, accelerometerHours: Double = 12, printing: Bool = true) throws -> Report {
        var report = Report(printing: printing)
        let clock = ContinuousClock()
        let end = Date(timeIntervalSince1970: 1_700_000_000)
        let firstDay = end.addingTimeInterval(-Double(days) * 86_400)
        let file = folder.appendingPathComponent("history.sqlite")
        var configuration = HistoryConfiguration(location: .file(file))
        configuration.now = { end }
        let source = "sim:walking"

        // 1. Steps at 2 steps/s from 08:00 to 20:00 every day, appended one by one as a detector reports them.
        var store = try HistoryStore(configuration: configuration)
        var generator = SystemRandomNumberGenerator()
        var stepCount = 0
        let insertStart = clock.now
        for day in 0..<days {
            let morning = firstDay.addingTimeInterval(Double(day) * 86_400 + 8 * 3600)
            for index in 0..<(12 * 3600 * 2) {
                let length = 0.7 + Double.random(in: -0.05...0.05, using: &generator)
                try store.append(StepRecord(date: morning.addingTimeInterval(Double(index) * 0.5), strideLength: length), source: source)
                stepCount += 1
            }
            // A state change every 5 minutes of the walk, a floor every 20 minutes, a pause every hour.
            try store.append(contentsOf: stride(from: 0.0, to: 12 * 3600, by: 300).map {
                ActivityRecord(startDate: morning.addingTimeInterval($0), flags: Int($0 / 300) % 2 == 0 ? .walking : .running, confidence: .high)
            }, source: source)
            try store.append(ActivityRecord(startDate: morning.addingTimeInterval(12 * 3600), flags: .stationary, confidence: .high), source: source)
            try store.append(contentsOf: stride(from: 0.0, to: 12 * 3600, by: 1200).map {
                FloorRecord(date: morning.addingTimeInterval($0 + 7), change: .ascended)
            }, source: source)
            try store.append(contentsOf: stride(from: 3600.0, to: 12 * 3600, by: 3600).map {
                PedometerTransitionRecord(date: morning.addingTimeInterval($0), transition: .pause)
            }, source: source)
        }
        try store.flush()
        let insertSeconds = seconds(clock.now - insertStart)
        report.add(String(
            format: "inserted %d steps (%d days x 12 h at 2 steps/s), appended one by one, in %.2f s: %.0f steps/s",
            stepCount, days, insertSeconds, Double(stepCount) / insertSeconds))
        try store.close()
        report.add(String(format: "file after %d days of steps (closed, checkpointed): %.2f MB (%.1f bytes per step)",
                          days, Double(fileBytes(file)) / 1e6, Double(fileBytes(file)) / Double(stepCount)))

        // 2. The live case: one flush per second with the 2 steps of that second.
        store = try HistoryStore(configuration: configuration)
        let liveStart = clock.now
        let liveSeconds = 600
        let liveMorning = end.addingTimeInterval(-3 * 3600)
        for second in 0..<liveSeconds {
            for half in 0..<2 {
                try store.append(StepRecord(date: liveMorning.addingTimeInterval(Double(second) + Double(half) * 0.5), strideLength: 0.7), source: source)
            }
            try store.flush()
        }
        let perFlush = seconds(clock.now - liveStart) / Double(liveSeconds)
        report.add(String(format: "live writing, one transaction per second with 2 steps: %.2f ms per flush", perFlush * 1000))
        stepCount += liveSeconds * 2

        // 3. Queries on the full store.
        /// Median and minimum of `repeats` runs: the machine may be shared, the minimum is the least disturbed.
        func time<T>(_ label: String, repeats: Int = 21, _ body: () throws -> T) rethrows -> T {
            var result = try body()  // warm up
            var runs: [Double] = []
            for _ in 0..<repeats {
                let start = clock.now
                result = try body()
                runs.append(seconds(clock.now - start))
            }
            runs.sort()
            report.add(String(format: "%@: median %.3f ms, min %.3f ms", label, runs[runs.count / 2] * 1000, runs[0] * 1000))
            return result
        }
        let week = try time("pedometerSummary over the whole store, one source") {
            try store.pedometerSummary(from: firstDay, to: end, source: source)
        }
        _ = try time("pedometerSummary over the whole store, all sources") {
            try store.pedometerSummary(from: firstDay, to: end, source: nil)
        }
        _ = try time("pedometerSummary over 1 h 17 min at arbitrary bounds") {
            try store.pedometerSummary(
                from: firstDay.addingTimeInterval(86_400 + 9 * 3600 + 12.3456),
                to: firstDay.addingTimeInterval(86_400 + 10 * 3600 + 17 * 60 + 44.4444), source: source)
        }
        let segments = try time("activities over the whole store") {
            try store.activities(from: firstDay, to: end, source: source)
        }
        report.steps = week.steps
        report.add("whole-store summary: \(week.steps) steps, \(String(format: "%.1f", week.distance)) m, "
            + "\(week.floorsAscended) floors up, active \(String(format: "%.0f", week.activeDuration)) s; "
            + "\(segments.count) activity segments")
        let statistics = try store.statistics()
        report.add("rows: \(statistics.stepMinutes) step minutes, \(statistics.activitySegments) activity segments, "
            + "\(statistics.floorChanges) floor changes, \(statistics.pedometerTransitions) transitions")
        try store.close()

        // 4. Accelerometer recording at 50 Hz, appended a second (50 samples) at a time.
        let accelerometerFile = folder.appendingPathComponent("accelerometer.sqlite")
        var accelerometerConfiguration = configuration
        accelerometerConfiguration.location = .file(accelerometerFile)
        store = try HistoryStore(configuration: accelerometerConfiguration)
        let recordingSeconds = Int(accelerometerHours * 3600)
        let recordingStart = end.addingTimeInterval(-Double(recordingSeconds))
        let recordStart = clock.now
        var batch: [AccelerometerRecord] = []
        batch.reserveCapacity(50)
        for second in 0..<recordingSeconds {
            batch.removeAll(keepingCapacity: true)
            for index in 0..<50 {
                let t = Double(second) + Double(index) * 0.02
                batch.append(AccelerometerRecord(
                    date: recordingStart.addingTimeInterval(t),
                    acceleration: Vector3(0.01 * sin(t), 0.02 * cos(t), -1 + Double.random(in: -0.01...0.01, using: &generator))))
            }
            try store.append(contentsOf: batch, source: source)
        }
        try store.flush()
        let recordSeconds = seconds(clock.now - recordStart)
        let samples = recordingSeconds * 50
        report.add(String(format: "inserted %d accelerometer samples (%.1f h at 50 Hz) in %.2f s: %.0f samples/s",
                          samples, accelerometerHours, recordSeconds, Double(samples) / recordSeconds))
        let all = try time("accelerometerSamples over \(accelerometerHours) h", repeats: 3) {
            try store.accelerometerSamples(from: recordingStart.addingTimeInterval(-0.01), to: end.addingTimeInterval(-0.01), source: source)
        }
        report.accelerometerSamples = all.count
        _ = try time("accelerometerSamples over 1 min") {
            try store.accelerometerSamples(
                from: recordingStart.addingTimeInterval(1800.005), to: recordingStart.addingTimeInterval(1860.005), source: source)
        }
        try store.close()
        let accelerometerBytes = fileBytes(accelerometerFile)
        report.add(String(format: "file after %.1f h of 50 Hz accelerometer: %.1f MB (%.1f bytes per sample; 3 days: %.0f MB)",
                          accelerometerHours, Double(accelerometerBytes) / 1e6, Double(accelerometerBytes) / Double(samples),
                          Double(accelerometerBytes) / Double(samples) * 3 * 86_400 * 50 / 1e6))
        return report
    }
}
