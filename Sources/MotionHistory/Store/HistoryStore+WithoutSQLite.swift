// The history store of a build without SQLite (the package trait `SQLiteHistory` off): it cannot be opened,
// so a service in such a process runs without history (queries fail with `HistoryError.builtWithoutSQLite`,
// recording is skipped) and links no SQLite. An app that only talks to `coremotiond` and its tests use it:
// the daemon keeps the history. The members match the SQLite store's (HistoryStore.swift and its queries).
#if !SQLiteHistory
import Foundation
import MotionSamples

/// The history store; in this build (no `SQLiteHistory` trait) every attempt to open one throws
/// ``HistoryError/builtWithoutSQLite``.
public final class HistoryStore: Sendable {
    /// Consecutive steps of one source at most this far apart count as moving time, seconds.
    public static let maximumActiveStepGap: TimeInterval = 2
    /// Longest source tag, characters.
    public static let maximumSourceLength = 1024
    /// Longest accelerometer query span and recording request, seconds (12 h, Apple's limit).
    public static let maximumAccelerometerSpan: TimeInterval = 43_200

    /// The settings the store would have been opened with.
    public let configuration: HistoryConfiguration
    /// Where the history would live.
    public var location: HistoryLocation { configuration.location }

    /// - Throws: ``HistoryError/builtWithoutSQLite``, always.
    public init(configuration: HistoryConfiguration) throws {
        self.configuration = configuration
        throw HistoryError.builtWithoutSQLite
    }

    // No instance exists (the initialiser always throws): the members below are never reached.

    public func close() throws { throw HistoryError.builtWithoutSQLite }
    public func flush() throws { throw HistoryError.builtWithoutSQLite }
    public func append(_ step: StepRecord, source: String) throws { throw HistoryError.builtWithoutSQLite }
    public func append(contentsOf steps: [StepRecord], source: String) throws { throw HistoryError.builtWithoutSQLite }
    public func append(_ floor: FloorRecord, source: String) throws { throw HistoryError.builtWithoutSQLite }
    public func append(contentsOf floors: [FloorRecord], source: String) throws { throw HistoryError.builtWithoutSQLite }
    public func append(_ transition: PedometerTransitionRecord, source: String) throws { throw HistoryError.builtWithoutSQLite }
    public func append(contentsOf transitions: [PedometerTransitionRecord], source: String) throws {
        throw HistoryError.builtWithoutSQLite
    }
    public func append(_ activity: ActivityRecord, source: String) throws { throw HistoryError.builtWithoutSQLite }
    public func append(contentsOf activities: [ActivityRecord], source: String) throws { throw HistoryError.builtWithoutSQLite }
    public func append(contentsOf samples: [AccelerometerRecord], source: String) throws { throw HistoryError.builtWithoutSQLite }
    public func pedometerSummary(from start: Date, to end: Date, source: String?) throws -> PedometerSummary {
        throw HistoryError.builtWithoutSQLite
    }
    public func pedometerTransitions(from start: Date, to end: Date, source: String?) throws -> [PedometerTransitionRecord] {
        throw HistoryError.builtWithoutSQLite
    }
    public func latestRecordDate(source: String) throws -> Date? { throw HistoryError.builtWithoutSQLite }
    public func recordSpan() throws -> ClosedRange<Date>? { throw HistoryError.builtWithoutSQLite }
    public func statistics() throws -> HistoryStatistics { throw HistoryError.builtWithoutSQLite }
    public func devices() throws -> [HistoryDeviceSummary] { throw HistoryError.builtWithoutSQLite }
    public func activities(from start: Date, to end: Date, source: String?) throws -> [ActivitySegment] {
        throw HistoryError.builtWithoutSQLite
    }
    public func accelerometerSamples(from start: Date, to end: Date, source: String?) throws -> [RecordedAccelerometerSample] {
        throw HistoryError.builtWithoutSQLite
    }
    @discardableResult
    public func addAccelerometerRecording(from start: Date, duration: TimeInterval, source: String) throws
        -> AccelerometerRecordingRequest
    {
        throw HistoryError.builtWithoutSQLite
    }
    public func accelerometerRecordingRequests(activeAt date: Date, source: String?) throws -> [AccelerometerRecordingRequest] {
        throw HistoryError.builtWithoutSQLite
    }
    public func accelerometerRecordingEnd(activeAt date: Date, source: String?) throws -> Date? {
        throw HistoryError.builtWithoutSQLite
    }
}
#endif
