import Foundation

/// The vocabulary of the project's own recording format (`.cmrec`), shared by the reader and the
/// writer. See the "The coremotion recording format" article.
enum NativeFormat {
    static let magic = "# coremotion recording 1"
    static let columnsLine = "time,sensor,x,y,z"
    static let fileExtension = "cmrec"
    /// Properties of a recording read from this format: where the samples were first recorded from.
    static let recordedFormatKey = "recordedFormat"
    static let recordedSourceKey = "recordedSource"
    static let units = "time s from start; accelerometer g (Apple's sign, gravity included); gyroscope rad/s; magnetometer µT; barometer kPa, °C"

    /// Row kinds: the raw sensors and the reference streams.
    enum Kind: String, CaseIterable {
        case accelerometer, gyroscope, magnetometer, barometer
        case attitude = "ref.attitude"
        case gravity = "ref.gravity"
        case userAcceleration = "ref.userAcceleration"
        case rotationRate = "ref.rotationRate"
        case calibratedMagneticField = "ref.calibratedMagneticField"
        case heading = "ref.heading"
        case steps = "ref.steps"
        case relativeAltitude = "ref.relativeAltitude"
        case activity = "ref.activity"
        case truth = "ref.truth"
        case step = "ref.step"
        /// The location side channel (``MotionSamples/Recording/location``, replayed): named `ref.` so
        /// that readers of the first version, which knew it as reference data, still read these files.
        case location = "ref.location"

        /// Number of value fields after `time,sensor` (a minimum where a field is optional).
        var valueCount: Int {
            switch self {
            case .accelerometer, .gyroscope, .magnetometer, .gravity, .userAcceleration, .rotationRate, .calibratedMagneticField: 3
            case .barometer: 1  // kPa, then optional °C
            case .attitude: 4
            case .truth: 5  // w, x, y, z, scored (0/1)
            case .heading, .steps, .relativeAltitude, .activity: 1
            case .step: 0
            case .location: 2  // latitude, longitude, then optional altitude, vertical accuracy, ellipsoidal altitude
            }
        }

        /// Whether NaN values are data (not skipped): optical truth marks lost markers with NaN.
        var keepsNonFinite: Bool { self == .truth }

        var bytes: [UInt8] { Array(rawValue.utf8) }
    }

    /// Column names of the value fields, for errors.
    static let valueColumns = ["x", "y", "z", "w", "scored", "6"]
    /// ``Kind/valueCount`` by index in `Kind.allCases`.
    static let valueCounts = Kind.allCases.map(\.valueCount)
    /// Index of ``Kind/activity`` in `Kind.allCases`.
    static let activityIndex = Kind.allCases.firstIndex(of: .activity)!
    /// The bytes of each kind's name, by index in `Kind.allCases`.
    static let kindBytes = Kind.allCases.map(\.bytes)

    /// The index in `Kind.allCases` of the kind spelled by `length` bytes at `p`, without making a
    /// String: the four raw sensors are told apart by length and first letter.
    @inline(__always)
    static func kindIndex(_ p: UnsafePointer<UInt8>, _ length: Int) -> Int? {
        switch (length, length > 0 ? p[0] : 0) {
        case (13, 0x61): if memcmp(p, "accelerometer", 13) == 0 { return 0 }  // accelerometer
        case (9, 0x67): if memcmp(p, "gyroscope", 9) == 0 { return 1 }
        case (12, 0x6D): if memcmp(p, "magnetometer", 12) == 0 { return 2 }
        case (9, 0x62): if memcmp(p, "barometer", 9) == 0 { return 3 }
        default: break
        }
        guard length > 4, p[0] == 0x72 else { return nil }  // "ref.…"
        for (i, bytes) in kindBytes.enumerated() where i > 3 && bytes.count == length {
            if bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress!, p, length) == 0 }) { return i }
        }
        return nil
    }

    /// Escapes a header value so it stays on one line: `\` → `\\`, newline → `\n`.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
    }

    static func unescape(_ text: String) -> String {
        var out = ""
        var escaping = false
        for c in text {
            if escaping {
                switch c {
                case "n": out.append("\n")
                case "r": out.append("\r")
                case "=": out.append("=")
                default: out.append(c)
                }
                escaping = false
            } else if c == "\\" {
                escaping = true
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// A CSV field for a label: quoted when it holds a comma, a quote or starts with a space.
    static func field(_ label: String) -> String {
        if label.contains(",") || label.contains("\"") || label.hasPrefix(" ") || label.hasSuffix(" ") || label.isEmpty {
            return "\"" + label.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return label
    }

    /// Shortest text that reads back to the same `Double` (Swift's `description`).
    @inline(__always)
    static func number(_ x: Double) -> String { x.description }

    /// The stream of headphone motion samples (``NativeRecordingWriter/append(headphone:)``): 13 numbers and a
    /// location; skipped by the phone reader, read by ``HeadphoneRecordingReader``.
    static let headphoneStream = "x-headphone"
}
