import ArgumentParser
import Foundation
import MotionHistory
import MotionHistoryPostgres
import MotionSamples
import MotionService

/// `coremotion history`: reads any motion history (a SQLite file or a PostgreSQL database) for any device.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Read a motion history: its devices, steps, activity and recorded samples (SQLite file or PostgreSQL URL).",
        discussion: """
            --history is a SQLite file (coremotiond's is /var/lib/coremotion/history.sqlite) or a PostgreSQL \
            database (postgres://USER@HOST:PORT/DB, or postgres://USER@localhost/DB?host=/run/postgresql); \
            without it, COREMOTION_HISTORY or the user's default file. A database shared by many machines \
            and phones lists every device in it. See docs/history-postgres.md.
            """,
        subcommands: [Devices.self, Steps.self, Activity.self, Samples.self]
    )

    /// The history to read and the span and device to read.
    struct Selection: ParsableArguments {
        @Option(help: "The history: a SQLite file or a postgres:// URL (default: COREMOTION_HISTORY, else the user's file).")
        var history: String?

        @Option(help: "The device's id (`coremotion history devices` lists them); default: every device.")
        var device: String?

        @Option(help: "Start: an ISO 8601 date or date and time (default: 7 days before --to).")
        var from: String?

        @Option(help: "End: an ISO 8601 date or date and time (default: now).")
        var to: String?

        @Flag(help: "Print one JSON object per line.")
        var json = false

        func span() throws -> (start: Date, end: Date) {
            let end = try to.map { try Self.date($0, option: "--to") } ?? Date()
            let start = try from.map { try Self.date($0, option: "--from") } ?? end.addingTimeInterval(-7 * 86_400)
            guard start <= end else { throw ValidationError("--from must not be after --to") }
            return (start, end)
        }

        static func date(_ text: String, option: String) throws -> Date {
            let full = ISO8601DateFormatter()
            if let date = full.date(from: text) { return date }
            let fractional = ISO8601DateFormatter()
            fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = fractional.date(from: text) { return date }
            let day = ISO8601DateFormatter()
            day.formatOptions = [.withFullDate]
            day.timeZone = TimeZone.current
            if let date = day.date(from: text) { return date }
            throw ValidationError("\(option): '\(text)' is not an ISO 8601 date (2026-11-29) or date and time (2026-11-29T08:00:00Z)")
        }

        /// Opens the store read for every device it holds.
        func open() throws -> any HistoryStorage {
            let location: HistoryLocation
            do {
                if let history {
                    location = try HistoryLocation.postgres(history) ?? .file(URL(fileURLWithPath: history))
                } else {
                    location = try HistoryLocation.fromEnvironment()
                }
            } catch {
                throw ValidationError("\(error)")
            }
            if case .file(let url) = location, !FileManager.default.fileExists(atPath: url.path) {
                throw ValidationError("no history at \(url.path)")
            }
            PostgresHistoryStore.register()
            do {
                return try MotionService.openHistoryForTools(HistoryConfiguration(location: location))
            } catch {
                throw ValidationError("\(error)")
            }
        }
    }

    static func iso(_ date: Date?) -> String {
        guard let date else { return "" }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// Prints `value` as one compact JSON line (dates as ISO 8601 with milliseconds).
    static func jsonLine<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(iso(date))
        }
        // print, not FileHandle.write: a reader that stops early (`| head`) must not crash the tool.
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    struct Devices: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the devices in the history: first and last record, stored samples per sensor, steps.")
        @OptionGroup var selection: Selection

        func run() throws {
            let store = try selection.open()
            defer { try? store.close() }
            var devices = try store.devices()
            if let device = selection.device { devices = devices.filter { $0.id == device } }
            if selection.json {
                for device in devices { try HistoryCommand.jsonLine(device) }
                return
            }
            let rows = devices.map { d in
                [d.id, HistoryCommand.iso(d.first), HistoryCommand.iso(d.last),
                 d.samples.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "), "\(d.steps)"]
            }
            print(Output.table(["device", "first", "last", "samples", "steps"], rows))
        }
    }

    struct Steps: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Steps, distance, floors and moving time per day.")
        @OptionGroup var selection: Selection

        struct Day: Encodable {
            var device: String?
            var start: Date
            var end: Date
            var steps: Int
            var distance: Double
            var floorsAscended: Int
            var floorsDescended: Int
            var activeSeconds: Double
        }

        func run() throws {
            let (start, end) = try selection.span()
            let store = try selection.open()
            defer { try? store.close() }
            var days: [Day] = []
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone.current
            var dayStart = max(start, calendar.startOfDay(for: start))
            while dayStart < end {
                let next = min(end, calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: dayStart)) ?? end)
                let summary = try store.pedometerSummary(from: dayStart, to: next, source: selection.device)
                days.append(Day(
                    device: selection.device, start: dayStart, end: next, steps: summary.steps, distance: summary.distance,
                    floorsAscended: summary.floorsAscended, floorsDescended: summary.floorsDescended,
                    activeSeconds: summary.activeDuration))
                dayStart = next
            }
            if selection.json {
                for day in days { try HistoryCommand.jsonLine(day) }
                return
            }
            let rows = days.map { d in
                [HistoryCommand.iso(d.start), "\(d.steps)", Output.fixed(d.distance, 1), "\(d.floorsAscended)",
                 "\(d.floorsDescended)", Output.fixed(d.activeSeconds, 0)]
            }
            print(Output.table(["day from", "steps", "distance m", "floors up", "floors down", "active s"], rows))
        }
    }

    struct Activity: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Activity segments: start, activity, confidence.")
        @OptionGroup var selection: Selection

        struct Segment: Encodable {
            var device: String
            var start: Date
            var activity: String
            var confidence: String
        }

        func run() throws {
            let (start, end) = try selection.span()
            let store = try selection.open()
            defer { try? store.close() }
            let segments = try store.activities(from: start, to: end, source: selection.device).map {
                Segment(device: $0.source, start: $0.startDate, activity: "\($0.flags)", confidence: "\($0.confidence)")
            }
            if selection.json {
                for segment in segments { try HistoryCommand.jsonLine(segment) }
                return
            }
            print(Output.table(
                ["start", "activity", "confidence", "device"],
                segments.map { [HistoryCommand.iso($0.start), $0.activity, $0.confidence, $0.device] }))
        }
    }

    struct Samples: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Recorded accelerometer samples (the sensor recorder's, in g): identifier, time, x, y, z. Spans of at most 12 h.")
        @OptionGroup var selection: Selection

        struct Sample: Encodable {
            var identifier: UInt64
            var time: Date
            var x: Double
            var y: Double
            var z: Double
        }

        func run() throws {
            let (start, end) = try selection.span()
            let store = try selection.open()
            defer { try? store.close() }
            let samples: [RecordedAccelerometerSample]
            do {
                samples = try store.accelerometerSamples(
                    from: selection.from == nil ? max(start, end.addingTimeInterval(-3_600)) : start, to: end,
                    source: selection.device)
            } catch HistoryError.spanTooLong(let seconds, let limit) {
                throw ValidationError("the span is \(Int(seconds)) s; samples are read at most \(Int(limit)) s at a time (--from, --to)")
            }
            if selection.json {
                for s in samples {
                    try HistoryCommand.jsonLine(Sample(
                        identifier: s.identifier, time: s.date, x: s.acceleration.x, y: s.acceleration.y, z: s.acceleration.z))
                }
                return
            }
            print("identifier,time,x,y,z")
            for s in samples {
                print("\(s.identifier),\(HistoryCommand.iso(s.date)),\(s.acceleration.x),\(s.acceleration.y),\(s.acceleration.z)")
            }
        }
    }
}
