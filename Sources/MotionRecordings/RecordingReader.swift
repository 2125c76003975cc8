import Foundation

/// Reads any supported recording into a ``Recording`` in Apple's axes and units.
///
/// ```swift
/// let walk = try RecordingReader.read(URL(fileURLWithPath: "walk.zip"))          // format detected
/// let trial = try RecordingReader.read("optimisation_data.zip#Pixel_Jamie_Hard_InHand_1")
/// let members = try RecordingReader.members(of: URL(fileURLWithPath: "optimisation_data.zip"))
/// ```
///
/// A container that holds several recordings (a data-set archive or folder) is addressed member by
/// member with `PATH#MEMBER`; ``members(of:format:)`` lists the names. Every reader follows the
/// same bad-input policy (see ``RecordingNotice`` and the "Bad input" article).
public enum RecordingReader {
    /// The readers in detection order: formats recognised by a header line first, then layouts.
    static var readers: [any FormatReader.Type] {
        detectionOrder.map(reader(for:))
    }

    static let detectionOrder: [RecordingFormat] = [
        .native, .sensorLog, .broad, .qrowd, .mPower, .sensorLogger, .oxfordStepCounter, .motionSense, .ipolGait,
    ]

    static func reader(for format: RecordingFormat) -> any FormatReader.Type {
        switch format {
        case .native: NativeRecordingReader.self
        case .broad: BROADReader.self
        case .sensorLogger: SensorLoggerReader.self
        case .oxfordStepCounter: OxfordStepCounterReader.self
        case .qrowd: QROWDReader.self
        case .motionSense: MotionSenseReader.self
        case .mPower: MPowerReader.self
        case .ipolGait: IPOLGaitReader.self
        case .sensorLog: SensorLogReader.self
        }
    }


    /// Reads the recording at `url` (a file, a folder or a `.zip`).
    ///
    /// - Parameters:
    ///   - url: the recording. A `#MEMBER` fragment (or a path ending in `#MEMBER` that does not exist
    ///     as such) selects one recording of a multi-recording container.
    ///   - format: the format, or `nil` to detect it.
    /// - Throws: ``RecordingError`` when the file cannot be read, is malformed, or matches no format
    ///   (the message lists the supported formats).
    public static func read(_ url: URL, format: RecordingFormat? = nil) throws -> Recording {
        let (base, member) = split(url)
        return try read(base, member: member, format: format)
    }

    /// Reads `location`, a path with an optional `#MEMBER` suffix.
    public static func read(_ location: String, format: RecordingFormat? = nil) throws -> Recording {
        try read(URL(fileURLWithPath: location), format: format)
    }

    /// Reads member `member` (or the whole container when `nil`) of the recording at `url`.
    public static func read(_ url: URL, member: String?, format: RecordingFormat? = nil) throws -> Recording {
        let container = try RecordingContainer(url)
        let reader = try format.map(reader(for:)) ?? detect(container)
        var recording = try reader.read(container, member: member?.isEmpty == true ? nil : member)
        if recording.metadata.properties["member"] == nil, let member, !member.isEmpty {
            recording.metadata.properties["member"] = member
        }
        return recording
    }

    /// The format of the recording at `url` (without `#MEMBER`), detected from its layout and contents.
    public static func detect(_ url: URL) throws -> RecordingFormat {
        let (base, _) = split(url)
        return try detect(RecordingContainer(base)).format
    }

    /// The recordings inside a multi-recording container (data-set archive or folder); empty for a
    /// single recording.
    public static func members(of url: URL, format: RecordingFormat? = nil) throws -> [RecordingMember] {
        let (base, _) = split(url)
        let container = try RecordingContainer(base)
        let reader = try format.map(reader(for:)) ?? detect(container)
        return try reader.members(container)
    }

    static func detect(_ container: RecordingContainer) throws -> any FormatReader.Type {
        if let reader = readers.first(where: { $0.recognises(container) }) { return reader }
        let list = RecordingFormat.allCases.map { "\($0.name) (\($0.recognisedBy))" }.joined(separator: "; ")
        throw RecordingError(
            file: container.url.path,
            expected: "a supported recording format: \(list)",
            found: container.isDirectory ? "a folder without a known layout"
                : container.isZip ? "a zip archive without a known layout"
                : String(decoding: container.head(container.url.lastPathComponent, count: 60), as: UTF8.self)
                    .split(separator: "\n").first.map(String.init) ?? "an empty file")
    }

    /// Splits `file.zip#member` into the container and the member name.
    static func split(_ url: URL) -> (URL, String?) {
        if let fragment = url.fragment, !fragment.isEmpty {
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            components?.fragment = nil
            if let clean = components?.url { return (clean, fragment.removingPercentEncoding ?? fragment) }
        }
        let path = url.path
        if !FileManager.default.fileExists(atPath: path), let hash = path.lastIndex(of: "#") {
            let base = String(path[..<hash])
            let member = String(path[path.index(after: hash)...])
            if FileManager.default.fileExists(atPath: base) {
                return (URL(fileURLWithPath: base), member)
            }
        }
        return (url, nil)
    }
}
