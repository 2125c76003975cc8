import ArgumentParser
import Foundation
import MotionRecordings

/// `coremotion replay FILE --sensor S`: one sensor's samples in Apple's units, one per line.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Print one sensor's samples of a recording in Apple's axes and units: t,x,y,z per line.",
        discussion: """
            Times are seconds from the recording's time origin. Units: accelerometer g (Apple's sign, gravity included), \
            gyroscope rad/s, magnetometer µT; barometer lines are t,kPa[,°C]. FILE may be FILE#MEMBER for a collection.
            """
    )

    /// The sensor to print (read with the short names people type: ``Names/sensor(_:)``).
    enum Sensor: String, CaseIterable {
        case accelerometer, gyro, magnetometer, barometer

        init(_ kind: SensorKind) {
            switch kind {
            case .accelerometer: self = .accelerometer
            case .gyroscope: self = .gyro
            case .magnetometer: self = .magnetometer
            case .barometer: self = .barometer
            }
        }

        /// The sensor named `text`, or an error with a "did you mean".
        static func named(_ text: String) throws -> Sensor { Sensor(try Names.sensor(text)) }

        var kind: SensorKind {
            switch self {
            case .accelerometer: .accelerometer
            case .gyro: .gyroscope
            case .magnetometer: .magnetometer
            case .barometer: .barometer
            }
        }
    }

    @Argument(help: "The recording (file, folder or .zip), optionally FILE#MEMBER.")
    var file: String

    @Option(help: "The sensor: accelerometer, gyro, magnetometer or barometer.", transform: Sensor.named)
    var sensor: Sensor

    @Option(help: "The format, instead of detecting it (\(Names.formatNames.joined(separator: ", "))).", transform: Names.recordingFormat)
    var format: RecordingFormat?

    @Option(help: "Print at most N samples.")
    var limit: Int?

    @Flag(help: "Print a JSON array of samples.")
    var json = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be zero or more, got \(limit)") }
    }

    func run() throws {
        let recording = try RecordingReader.read(file, format: format)
        guard recording.count(of: sensor.kind) > 0 else {
            let present = recording.sensors.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("\(file) has no \(sensor.kind) samples (it has: \(present.isEmpty ? "no raw sensors" : present))")
        }
        for notice in recording.notices { Output.note("notice: \(notice)") }
        if json {
            try Output.json(Self.samples(recording, sensor.kind, limit: limit))
        } else {
            Self.writeLines(recording, sensor.kind, limit: limit) { Output.write($0) }
        }
    }

    /// A sample for `--json`.
    struct Sample: Codable, Equatable {
        var t: Double
        var x: Double?
        var y: Double?
        var z: Double?
        var kPa: Double?
        var celsius: Double?
    }

    static func samples(_ recording: Recording, _ kind: SensorKind, limit: Int?) -> [Sample] {
        let n = min(recording.count(of: kind), limit ?? .max)
        switch kind {
        case .barometer:
            return recording.barometer.prefix(n).map { Sample(t: $0.time, kPa: $0.kilopascals, celsius: $0.celsius) }
        case .accelerometer, .gyroscope, .magnetometer:
            let list = kind == .accelerometer ? recording.accelerometer : kind == .gyroscope ? recording.gyroscope : recording.magnetometer
            return list.prefix(n).map { Sample(t: $0.time, x: $0.value.x, y: $0.value.y, z: $0.value.z) }
        }
    }

    /// Writes `t,x,y,z` lines (shortest round-trip numbers) in chunks to `sink`.
    static func writeLines(_ recording: Recording, _ kind: SensorKind, limit: Int?, to sink: (Data) -> Void) {
        var buffer = ""
        buffer.reserveCapacity(1 << 17)
        func emit(_ line: String) {
            buffer += line
            buffer += "\n"
            if buffer.utf8.count >= 1 << 16 {
                sink(Data(buffer.utf8))
                buffer.removeAll(keepingCapacity: true)
            }
        }
        let n = min(recording.count(of: kind), limit ?? .max)
        switch kind {
        case .barometer:
            for p in recording.barometer.prefix(n) { emit("\(p.time),\(p.kilopascals)" + (p.celsius.map { ",\($0)" } ?? "")) }
        case .accelerometer, .gyroscope, .magnetometer:
            let list = kind == .accelerometer ? recording.accelerometer : kind == .gyroscope ? recording.gyroscope : recording.magnetometer
            for v in list.prefix(n) { emit("\(v.time),\(v.value.x),\(v.value.y),\(v.value.z)") }
        }
        if !buffer.isEmpty { sink(Data(buffer.utf8)) }
    }
}
