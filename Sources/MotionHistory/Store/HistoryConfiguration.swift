import Foundation
import MotionSamples

/// What to do when the file at the location is damaged or is not a SQLite database: at open, and when a
/// failed write finds it damaged later (`PRAGMA quick_check`).
public enum DamagedFilePolicy: Sendable, Hashable {
    /// Throw ``HistoryError/damagedFile(path:reason:)``; the file is left as it is. Found after open:
    /// reported once, and nothing more is written to it.
    case fail
    /// Rename the file (and its `-wal`/`-shm` companions) to `<name>.damaged-<UTC date>`, report
    /// ``HistoryNotice/movedAside(path:movedTo:reason:)`` and start an empty history (found after open:
    /// once, and recording goes on in the fresh file).
    case moveAside
}

/// How long each kind of record is kept, seconds.
public struct HistoryRetention: Sendable, Hashable {
    /// Steps, floors and pedometer transitions: 7 days, as Apple's pedometer history.
    public var pedometer: TimeInterval = 7 * 86_400
    /// Activity segments: 7 days (the segment in force at the cut-off is kept: it is the state then).
    public var activity: TimeInterval = 7 * 86_400
    /// Accelerometer samples and recording requests: 3 days, as Apple's sensor recorder.
    public var accelerometer: TimeInterval = 3 * 86_400

    public init() {}
}

/// Size bounds; when one is exceeded the oldest records of that kind are deleted first.
///
/// The defaults allow the retention windows at physical maxima: 7 days of steps at 5 steps/s around the
/// clock, 3 days of continuous 50 Hz accelerometer recording. At those maxima the file holds about
/// 17 MB of steps and 216 MB of accelerometer samples, and stays below about 275 MB with every bound
/// reached (see `docs/history.md`).
public struct HistoryLimits: Sendable, Hashable {
    /// Maximum stored steps (all sources): 7 d × 86 400 s × 5 steps/s.
    public var steps: Int = 3_024_000
    /// Maximum stored floor changes.
    public var floorChanges: Int = 200_000
    /// Maximum stored pedometer pause/resume transitions.
    public var pedometerTransitions: Int = 200_000
    /// Maximum stored activity segments.
    public var activitySegments: Int = 200_000
    /// Maximum stored accelerometer samples: 3 d × 86 400 s × 50 Hz.
    public var accelerometerSamples: Int = 12_960_000
    /// Maximum stored accelerometer recording requests.
    public var recordingRequests: Int = 10_000

    public init() {}
}

/// Something the store did on its own that its owner may want to log.
public enum HistoryNotice: Sendable, Hashable, CustomStringConvertible {
    /// A damaged file was renamed and a fresh history started.
    case movedAside(path: String, movedTo: String, reason: String)
    /// A background flush failed; the records stay pending and are retried at the next flush. Also reported,
    /// once, when the file is found damaged after it was opened and writing to it stops (policy
    /// ``DamagedFilePolicy/fail``, or the file could not be replaced): the reason says so.
    case flushFailed(path: String, reason: String, pendingRecords: Int)
    /// Pending records were dropped because flushes kept failing and the pending buffer was full.
    case droppedPending(path: String, records: Int)
    /// Records were deleted to keep the store under a size bound (not the ordinary retention).
    case evicted(path: String, kind: String, records: Int)

    /// The notice for a log line: paths and reasons (which may quote the file's contents) escaped
    /// (`LogSafeText`).
    public var description: String {
        switch self {
        case .movedAside(let path, let movedTo, let reason):
            "history file '\(path.logSafePath)' was damaged (\(reason.logSafeReason)); moved it to '\(movedTo.logSafePath)' "
                + "and started a fresh history"
        case .flushFailed(let path, let reason, let pending):
            "history file '\(path.logSafePath)': writing failed (\(reason.logSafeReason))"
                + (pending > 0 ? "; \(pending) records kept pending for a retry" : "")
        case .droppedPending(let path, let records):
            "history file '\(path.logSafePath)': dropped \(records) pending records after repeated write failures"
        case .evicted(let path, let kind, let records):
            "history file '\(path.logSafePath)': size bound reached, deleted the \(records) oldest \(kind) records"
        }
    }
}

/// Settings of a ``HistoryStore``.
public struct HistoryConfiguration: Sendable {
    /// Where the history lives.
    public var location: HistoryLocation
    /// How long records are kept.
    public var retention = HistoryRetention()
    /// Size bounds.
    public var limits = HistoryLimits()
    /// What to do with a damaged file at the location.
    public var damagedFilePolicy: DamagedFilePolicy = .fail
    /// Pending records are written at least this often, seconds (one transaction per flush).
    public var flushInterval: TimeInterval = 1
    /// A flush is started as soon as this many records are pending.
    public var flushThreshold: Int = 4096
    /// At most this many records are kept pending while writes fail; older ones are then dropped.
    public var maximumPendingRecords: Int = 1_000_000
    /// Retention and size bounds are enforced at open and then at most this often, seconds.
    public var maintenanceInterval: TimeInterval = 600
    /// How long a write waits for another process's write to finish, seconds.
    public var busyTimeout: TimeInterval = 5
    /// Wall-clock now, for retention (the service may pass its clock's date).
    public var now: @Sendable () -> Date = { Date() }
    /// Receives notices (moved-aside file, failed background flush, evictions). The default writes them to
    /// standard error.
    public var notify: @Sendable (HistoryNotice) -> Void = { notice in
        FileHandle.standardError.write(Data("coremotion history: \(notice)\n".utf8))
    }

    /// Settings with the given location and the documented defaults.
    public init(location: HistoryLocation) {
        self.location = location
    }

    /// Settings for the location chosen by `COREMOTION_HISTORY` (see ``HistoryLocation/fromEnvironment(_:)``).
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> HistoryConfiguration {
        HistoryConfiguration(location: try HistoryLocation.fromEnvironment(environment))
    }
}

extension String {
    /// A path for a message: escaped as any outside text (`LogSafeText`), kept whole up to 1 024 characters.
    var logSafePath: String { LogSafeText.logSafe(self, limit: 1024) }
    /// A reason for a message (SQLite's, which may quote a file's contents, or a nested error's): escaped,
    /// kept whole up to 2 048 characters.
    var logSafeReason: String { LogSafeText.logSafe(self, limit: 2048) }
}
