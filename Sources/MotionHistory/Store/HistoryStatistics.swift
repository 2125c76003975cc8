import Foundation

/// What the store holds, for tools and measurements. A PostgreSQL store reports its tables' bytes as pages of
/// 8 KiB (`pg_total_relation_size`).
public struct HistoryStatistics: Sendable, Hashable {
    /// Source tags ever written.
    public var sources = 0
    /// `step_minute` rows (one per source and minute with steps).
    public var stepMinutes = 0
    /// Stored steps.
    public var steps = 0
    /// Stored floor changes.
    public var floorChanges = 0
    /// Stored pedometer pause/resume transitions.
    public var pedometerTransitions = 0
    /// Stored activity segments.
    public var activitySegments = 0
    /// `accelerometer_chunk` rows.
    public var accelerometerChunks = 0
    /// Stored accelerometer samples.
    public var accelerometerSamples = 0
    /// Stored accelerometer recording requests.
    public var recordingRequests = 0
    /// Pages of the main database file (`PRAGMA page_count`).
    public var pageCount = 0
    /// Bytes per page (`PRAGMA page_size`).
    public var pageSize = 0
    /// Unused pages inside the file (`PRAGMA freelist_count`).
    public var freePages = 0

    public init() {}

    /// Size of the main database file once the write-ahead log is checkpointed, bytes.
    public var databaseBytes: Int { pageCount * pageSize }
}
