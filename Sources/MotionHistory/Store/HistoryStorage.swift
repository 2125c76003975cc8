import Foundation
import MotionSamples

/// What a motion history does, whichever database holds it: the SQLite file of one machine
/// (``HistoryStore``) or a PostgreSQL server that many machines share (`PostgresHistoryStore` in
/// `MotionHistoryPostgres`).
///
/// Every record carries a source: the device it came from. Appending validates and buffers; a store writes
/// its buffer on its own schedule, at ``flush()`` and at ``close()``. Queries first write what this process
/// appended, so a process always reads its own records. Passing `nil` as a query's source reads every source
/// the store answers for.
///
/// Both stores pass one suite of behaviour tests (`Tests/HistoryBehaviourTests`).
public protocol HistoryStorage: AnyObject, Sendable {
    /// Where the history lives, for messages (a file path, `memory`, or a server URL without its password).
    var locationDescription: String { get }

    /// Writes what is pending and closes the store. Later calls throw ``HistoryError/closed(location:)``.
    func close() throws
    /// Writes every pending record now.
    func flush() throws

    /// Adds steps in any order; a second step of the same source in the same millisecond is ignored.
    func append(contentsOf steps: [StepRecord], source: String) throws
    /// Adds floor changes.
    func append(contentsOf floors: [FloorRecord], source: String) throws
    /// Adds pedometer pause/resume transitions.
    func append(contentsOf transitions: [PedometerTransitionRecord], source: String) throws
    /// Adds activity state starts; each lasts until the next one of the same source.
    func append(contentsOf activities: [ActivityRecord], source: String) throws
    /// Adds accelerometer samples in increasing date order per source.
    func append(contentsOf samples: [AccelerometerRecord], source: String) throws

    /// Steps, distance, floors and moving time between two dates.
    func pedometerSummary(from start: Date, to end: Date, source: String?) throws -> PedometerSummary
    /// Pause and resume transitions between two dates, oldest first.
    func pedometerTransitions(from start: Date, to end: Date, source: String?) throws -> [PedometerTransitionRecord]
    /// The date of the latest record of any kind of `source`, or `nil` when it has none.
    func latestRecordDate(source: String) throws -> Date?
    /// The span of every record kept, or `nil` when the history is empty.
    func recordSpan() throws -> ClosedRange<Date>?
    /// What the store holds (record counts and bytes on disk), for tools and measurements.
    func statistics() throws -> HistoryStatistics
    /// Every device the store answers for, with its span and counts, sorted by id.
    func devices() throws -> [HistoryDeviceSummary]
    /// Activity segments overlapping the interval, oldest first, clipped to it.
    func activities(from start: Date, to end: Date, source: String?) throws -> [ActivitySegment]
    /// Recorded accelerometer samples in the interval, oldest first, with their identifiers.
    func accelerometerSamples(from start: Date, to end: Date, source: String?) throws -> [RecordedAccelerometerSample]
    /// Asks for accelerometer recording from `start` for `duration` seconds.
    @discardableResult
    func addAccelerometerRecording(from start: Date, duration: TimeInterval, source: String) throws
        -> AccelerometerRecordingRequest
    /// Recording requests covering `date`.
    func accelerometerRecordingRequests(activeAt date: Date, source: String?) throws -> [AccelerometerRecordingRequest]
    /// The end of the latest recording request covering `date`, or `nil`.
    func accelerometerRecordingEnd(activeAt date: Date, source: String?) throws -> Date?

    /// Whether the store keeps the sensor calibration of its machine's hardware itself (a PostgreSQL
    /// history: the machine may be rebuilt, the database stays). The SQLite store does not: the service
    /// keeps it in a file beside the history file.
    var keepsSensorCalibration: Bool { get }
    /// The sensor calibration state last saved for `source` (the service's JSON), or `nil`.
    func savedCalibration(source: String) throws -> Data?
    /// Saves `source`'s sensor calibration state (JSON) dated `savedAt`, replacing an older one.
    func saveCalibration(_ state: Data, savedAt: Date, source: String) throws
}

extension HistoryStorage {
    /// A store keeps no calibration unless it says so.
    public var keepsSensorCalibration: Bool { false }
    /// Nothing saved.
    public func savedCalibration(source: String) throws -> Data? { nil }
    /// Not kept: the service keeps it beside the store.
    public func saveCalibration(_ state: Data, savedAt: Date, source: String) throws {}
}

extension HistoryStorage {
    /// Adds one step.
    public func append(_ step: StepRecord, source: String) throws { try append(contentsOf: [step], source: source) }
    /// Adds one floor change.
    public func append(_ floor: FloorRecord, source: String) throws { try append(contentsOf: [floor], source: source) }
    /// Adds one pedometer transition.
    public func append(_ transition: PedometerTransitionRecord, source: String) throws {
        try append(contentsOf: [transition], source: source)
    }
    /// Adds one activity state start.
    public func append(_ activity: ActivityRecord, source: String) throws {
        try append(contentsOf: [activity], source: source)
    }
}

extension HistoryStore: HistoryStorage {
    public var locationDescription: String { configuration.location.description }
}
