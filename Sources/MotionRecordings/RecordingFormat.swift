import Foundation

/// The recording formats this module reads (see `docs/conventions.md#recording-formats`).
public enum RecordingFormat: String, CaseIterable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// This project's own text format (`.cmrec`): written by ``NativeRecordingWriter``, read back losslessly.
    case native = "cmrec"
    /// BROAD trial CSV (IMU with optical ground-truth orientation).
    case broad
    /// Sensor Logger export (iOS or Android): a folder or `.zip` of per-sensor CSVs and `Metadata.csv`.
    case sensorLogger = "sensorlogger"
    /// SensorLog (iOS app by Bernd Thomas): one wide CSV, `loggingTime(txt)` first.
    case sensorLog = "sensorlog"
    /// MotionSense: iPhone device motion at 50 Hz, one CSV per subject and trial (zip as published).
    case motionSense = "motionsense"
    /// Oxford Step Counter optimisation set: Android accelerometer and foot-switch steps per trial.
    case oxfordStepCounter = "oxford"
    /// QROWD labelled Android accelerometer streams (`"x","y","z","class"`).
    case qrowd
    /// mPower (ResearchKit) device motion: the flattened CSVs or the original JSON.
    case mPower = "mpower"
    /// IPOL gait data set: XSens IMU on the lower back with annotated foot strikes.
    case ipolGait = "ipol"

    /// Human-readable name.
    public var name: String {
        switch self {
        case .native: "coremotion recording"
        case .broad: "BROAD"
        case .sensorLogger: "Sensor Logger"
        case .sensorLog: "SensorLog"
        case .motionSense: "MotionSense"
        case .oxfordStepCounter: "Oxford Step Counter"
        case .qrowd: "QROWD"
        case .mPower: "mPower"
        case .ipolGait: "IPOL gait"
        }
    }

    /// How the reader recognises the format, for error messages and `--help`.
    public var recognisedBy: String {
        switch self {
        case .native: "a text file starting with `# coremotion recording 1`"
        case .broad: "a CSV with `#` comments and the header `t,ax,ay,az,gx,gy,gz,mx,my,mz,qw,qx,qy,qz,valid` (or a folder of them)"
        case .sensorLogger: "a folder or .zip with `Metadata.csv` and per-sensor CSVs (`AccelerometerUncalibrated.csv`, …)"
        case .sensorLog: "a CSV whose header starts with `loggingTime(txt)`"
        case .motionSense: "a MotionSense zip (`A_DeviceMotion_data*/<activity>_<trial>/sub_<n>.csv`) or one such CSV"
        case .oxfordStepCounter: "the Oxford Step Counter zip (`optimisation/data/<trial>/accelerometer.csv`) or a trial folder"
        case .qrowd: "a CSV with the header `\"x\",\"y\",\"z\",\"class\"` (or the QROWD folder)"
        case .mPower: "mPower CSVs (`walk_data.csv`, `accelerometer_data.csv`, …) or a ResearchKit device-motion JSON"
        case .ipolGait: "the IPOL gait zip (`GaitData/<trial>_lb.txt` + `<trial>.json`) or one `_lb.txt` file"
        }
    }

    public var description: String { rawValue }
}

/// One recording inside a container that holds several (a trial of a data-set archive, a file of a
/// folder), as listed by ``RecordingReader/members(of:format:)``.
public struct RecordingMember: Sendable, Hashable, Codable {
    /// What to put after `#` to read it: `path.zip#name`.
    public var name: String
    /// Its format.
    public var format: RecordingFormat
    /// What the data set says about it (activity, subject, carry position, phone, step total…).
    public var properties: [String: String]

    public init(name: String, format: RecordingFormat, properties: [String: String] = [:]) {
        self.name = name
        self.format = format
        self.properties = properties
    }
}

/// What each format reader provides to ``RecordingReader``.
protocol FormatReader {
    static var format: RecordingFormat { get }
    /// Whether `container` (a file, folder or archive) holds this format.
    static func recognises(_ container: RecordingContainer) -> Bool
    /// The recordings inside `container` (empty when it is a single recording).
    static func members(_ container: RecordingContainer) throws -> [RecordingMember]
    /// Reads the recording, or the member named `member` of a multi-recording container.
    static func read(_ container: RecordingContainer, member: String?) throws -> Recording
}

extension FormatReader {
    static func members(_ container: RecordingContainer) throws -> [RecordingMember] { [] }

    /// The error for a multi-recording container read without naming a member.
    static func memberNeeded(_ container: RecordingContainer) -> RecordingError {
        let list = (try? members(container)) ?? []
        let shown = list.prefix(8).map(\.name).joined(separator: ", ")
        let more = list.count > 8 ? ", … (\(list.count) in all; `coremotion info --members` lists them)" : ""
        return RecordingError(
            file: container.url.path,
            expected: "a member of this \(format.name) collection: PATH#MEMBER with MEMBER one of \(shown)\(more)",
            found: "the whole collection (\(list.count) recordings)")
    }

    /// The error for a member name that is not in the container.
    static func noSuchMember(_ container: RecordingContainer, _ member: String) -> RecordingError {
        let list = (try? members(container)) ?? []
        let shown = list.prefix(8).map(\.name).joined(separator: ", ")
        return RecordingError(
            file: container.url.path,
            expected: "a member of this \(format.name) collection (\(shown)\(list.count > 8 ? ", …" : ""))",
            found: member)
    }
}
