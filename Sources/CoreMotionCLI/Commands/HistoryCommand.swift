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
            abstract: "Recorded accelerometer samples (the sensor recorder's, in g), or a phone's stored raw readings (--sensor).",
            discussion: """
                Without --sensor: the sensor recorder's accelerometer samples (CMSensorRecorder), identifier, time, \
                x, y, z in g; spans of at most 12 h (default: the last hour before --to). With --sensor NAME and \
                --device: the raw readings of that sensor which ingest nodes stored for a phone (PostgreSQL only), \
                in the phone's own units and axes, with the sensor's field names; spans of at most 1 h (default: \
                the last hour before --to). `coremotion history devices` lists each device's sensors.
                """)
        @OptionGroup var selection: Selection

        @Option(help: "A pushed sensor's name (e.g. accelerometer, gyroscope, location): its stored raw readings.")
        var sensor: String?

        struct Sample: Encodable {
            var identifier: UInt64
            var time: Date
            var x: Double
            var y: Double
            var z: Double
        }

        func run() throws {
            let (start, end) = try selection.span()
            if let sensor {
                try printRawReadings(sensor, start: selection.from == nil ? max(start, end.addingTimeInterval(-3_600)) : start, end: end)
                return
            }
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

        /// One stored raw reading as a JSON line: its values under `values`, keyed by field name (a field
        /// may be called `time`), non-finite values as `null`.
        struct RawReadingLine: Encodable {
            var sensor: String
            var time: Date
            var fields: [String]
            var values: [Double]

            struct Key: CodingKey {
                var stringValue: String
                var intValue: Int? { nil }
                init(_ name: String) { stringValue = name }
                init?(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(sensor, forKey: Key("sensor"))
                try container.encode(time, forKey: Key("time"))
                try container.encode(time.timeIntervalSince1970, forKey: Key("unix_time"))
                var named = container.nestedContainer(keyedBy: Key.self, forKey: Key("values"))
                for (field, value) in zip(fields, values) {
                    if !value.isFinite {
                        try named.encodeNil(forKey: Key(field))
                    } else if let single = Samples.storedSingle(value) {
                        try named.encode(single, forKey: Key(field))
                    } else {
                        try named.encode(value, forKey: Key(field))
                    }
                }
            }
        }

        /// `value` as the float4 it was stored as, when it is one (most sensors' readings are stored as `real`):
        /// printed as `0.1`, not as the `Double` nearest that float4, `0.10000000149011612`.
        static func storedSingle(_ value: Double) -> Float? {
            let single = Float(value)
            return single.isFinite && Double(single) == value ? single : nil
        }

        /// `text` as one CSV field: quoted when it holds a comma, a quote or a line break (field names come
        /// from the phones).
        static func csvField(_ text: String) -> String {
            guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }

        /// A phone's stored raw readings of `sensor` (PostgreSQL: what ingest nodes stored from its pushes).
        func printRawReadings(_ sensor: String, start: Date, end: Date) throws {
            guard let device = selection.device else {
                throw ValidationError("--sensor needs --device: the phone whose readings to print (`coremotion history devices` lists them)")
            }
            let store = try selection.open()
            defer { try? store.close() }
            guard let postgres = store as? PostgresHistoryStore else {
                throw ValidationError("raw readings of pushed sensors are stored only in a PostgreSQL history (by ingest nodes, docs/ingest.md); --history must be a postgres:// URL")
            }
            let series: [StoredRawReadings]
            do {
                let read = try postgres.rawReadings(device: device, sensor: sensor, from: start, to: end)
                series = read.series
                if read.truncated {
                    FileHandle.standardError.write(Data(
                        "coremotion: more than \(PostgresHistoryStore.defaultRawReadingLimit) readings in the span; the first ones are printed (ask for a shorter span with --from and --to)\n".utf8))
                }
            } catch HistoryError.spanTooLong(let seconds, let limit) {
                throw ValidationError("the span is \(Int(seconds)) s; raw readings are read at most \(Int(limit)) s at a time (--from, --to)")
            }
            for (index, s) in series.enumerated() {
                if selection.json {
                    for r in s.readings { try HistoryCommand.jsonLine(RawReadingLine(sensor: s.sensor, time: r.time, fields: s.fields, values: r.values)) }
                    continue
                }
                // A sensor sent with two field lists (an app update) prints two tables, one after the other.
                if index > 0 { print("") }
                print((["time", "unix_time"] + s.fields.map(Self.csvField)).joined(separator: ","))
                for r in s.readings {
                    let values = r.values.map { value in Self.storedSingle(value).map { "\($0)" } ?? "\(value)" }.joined(separator: ",")
                    print("\(HistoryCommand.iso(r.time)),\(String(format: "%.6f", r.time.timeIntervalSince1970)),\(values)")
                }
            }
        }
    }
}
