import Foundation
import MotionRecordings
import MotionSamples
import MotionSimulator

/// The names people type in the tool's options (recording formats, sensors), read with a "did you mean"
/// (``NameSuggestion``) for a name that is not known.
enum Names {
    /// A name that is not one of the known ones; the description is the whole message.
    struct Unknown: Error, CustomStringConvertible {
        var description: String
    }

    /// The short names of the formats, as `--format` takes them (`cmrec`, `broad`, `sensorlogger`, …).
    static let formatNames = RecordingFormat.allCases.map(\.rawValue)

    /// The format named `text`: its short name or its full name (`Sensor Logger`), in any case.
    static func recordingFormat(_ text: String) throws -> RecordingFormat {
        let lowered = text.lowercased()
        if let format = RecordingFormat.allCases.first(where: { $0.rawValue == lowered || $0.name.lowercased() == lowered }) {
            return format
        }
        throw Unknown(description: NameSuggestion.unknown(
            "recording format", text, among: formatNames, listing: "formats",
            spellings: formatNames + RecordingFormat.allCases.map(\.name)))
    }

    /// Every spelling of a sensor name the tool takes, canonical names first.
    static let sensorSpellings: [(name: String, kind: SensorKind)] =
        SensorKind.allCases.map { ($0.rawValue, $0) } + [
            ("acc", .accelerometer), ("accel", .accelerometer),
            ("gyro", .gyroscope),
            ("mag", .magnetometer),
            ("baro", .barometer), ("pressure", .barometer),
        ]

    /// The sensor named `text` (`accelerometer` or `acc`, `gyroscope` or `gyro`, …), in any case.
    static func sensor(_ text: String) throws -> SensorKind {
        let key = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let match = sensorSpellings.first(where: { $0.name == key }) { return match.kind }
        throw Unknown(description: NameSuggestion.unknown(
            "sensor", text, among: SensorKind.allCases.map(\.rawValue), spellings: sensorSpellings.map(\.name)))
    }

    /// A comma-separated list of sensors (`accelerometer,gyro`).
    static func sensors(_ list: String) throws -> [SensorKind] {
        try list.split(separator: ",").map { try sensor(String($0)) }
    }
}
