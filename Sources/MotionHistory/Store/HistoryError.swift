import Foundation
import MotionSamples

/// Everything that can go wrong with the history store. Every case that concerns the file names it.
public enum HistoryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file exists but is not a SQLite database, or SQLite found it corrupt. Recovery: move the file
    /// (and its `-wal`/`-shm` companions) aside and start fresh, by hand or with
    /// ``HistoryConfiguration/damagedFilePolicy`` set to ``DamagedFilePolicy/moveAside``.
    case damagedFile(path: String, reason: String)
    /// The file is a SQLite database of some other program (it has tables but no history-store marker); it
    /// is left untouched.
    case foreignDatabase(path: String)
    /// The file was written by a newer version of this store (unknown schema migrations).
    case newerSchema(path: String, unknownMigrations: [String])
    /// The folder of the file could not be created.
    case cannotCreateFolder(path: String, reason: String)
    /// The file could not be opened or written (permissions, read-only file system, missing folder).
    case cannotOpen(path: String, reason: String)
    /// Another SQLite failure while reading or writing the file.
    case databaseFailure(path: String, operation: String, reason: String)
    /// No `XDG_DATA_HOME` and no home folder to put the default file in.
    case noHomeFolder
    /// A record handed to the store has an invalid field. `index` is its position in the appended batch.
    case invalidRecord(kind: String, index: Int, field: String, value: String)
    /// An accelerometer sample is not later than the previous one of the same source.
    case outOfOrderSample(source: String, index: Int, date: Date, previous: Date)
    /// A source tag is empty or longer than ``HistoryStore/maximumSourceLength`` characters.
    case invalidSource(String)
    /// A query span ends before it starts, or a bound is not finite; bounds in seconds since 1970 (a `Date`
    /// holding NaN cannot even be printed, so the error keeps the numbers).
    case invalidSpan(start: TimeInterval, end: TimeInterval)
    /// An accelerometer query or recording is longer than allowed (12 h).
    case spanTooLong(seconds: TimeInterval, limit: TimeInterval)
    /// The store was closed.
    case closed(location: String)
    /// This build has no SQLite: the package was built without its trait `SQLiteHistory` (an app that only
    /// talks to `coremotiond`, whose history the daemon keeps).
    case builtWithoutSQLite
    /// A `postgres://` history URL that cannot be used (shown without its password).
    case invalidServerURL(String, reason: String)
    /// A PostgreSQL history in a process where no PostgreSQL store registered itself (``HistoryServers``),
    /// or opened with the SQLite store.
    case builtWithoutPostgres(location: String)
    /// The PostgreSQL server refused or failed an operation, or could not be reached; `location` is the URL
    /// without its password.
    case serverFailure(location: String, operation: String, reason: String)

    /// The message, with every path, reason and name escaped for a log line (`LogSafeText`).
    public var description: String {
        switch self {
        case .damagedFile(let path, let reason):
            "history file '\(path.logSafePath)' is damaged or not a SQLite database (\(reason.logSafeReason)); move it aside (and its "
                + "-wal/-shm files) to start a fresh history, or open with damagedFilePolicy = .moveAside"
        case .foreignDatabase(let path):
            "history file '\(path.logSafePath)' is a SQLite database of another program; refusing to modify it "
                + "(point COREMOTION_HISTORY at another file)"
        case .newerSchema(let path, let unknown):
            "history file '\(path.logSafePath)' was written by a newer version (unknown migrations: "
                + "\(unknown.map(\.logSafe).joined(separator: ", ")))"
        case .cannotCreateFolder(let path, let reason):
            "cannot create the folder of history file '\(path.logSafePath)': \(reason.logSafeReason)"
        case .cannotOpen(let path, let reason):
            "cannot open history file '\(path.logSafePath)' for writing: \(reason.logSafeReason)"
        case .databaseFailure(let path, let operation, let reason):
            "history file '\(path.logSafePath)': \(operation) failed: \(reason.logSafeReason)"
        case .noHomeFolder:
            "no XDG_DATA_HOME and no home folder for the history file; set COREMOTION_HISTORY"
        case .invalidRecord(let kind, let index, let field, let value):
            "\(kind) record #\(index): invalid \(field) \(value.logSafe)"
        case .outOfOrderSample(let source, let index, let date, let previous):
            "accelerometer sample #\(index) of '\(source.logSafe)': date \(date.timeIntervalSince1970) is not after the "
                + "previous sample's \(previous.timeIntervalSince1970) (seconds since 1970)"
        case .invalidSource(let source):
            "invalid source tag '\(source.logSafe)': it must be 1…\(HistoryStore.maximumSourceLength) characters"
        case .invalidSpan(let start, let end):
            "invalid span: start \(start) and end \(end) (seconds since 1970) must be finite with start ≤ end"
        case .spanTooLong(let seconds, let limit):
            "span of \(seconds) s is longer than the limit of \(limit) s"
        case .closed(let location):
            "history store '\(location.logSafePath)' is closed"
        case .builtWithoutSQLite:
            "no history in this process: swift-core-motion was built without its SQLiteHistory trait (add it to the package's traits: to keep history in process)"
        case .invalidServerURL(let url, let reason):
            "history URL '\(url)': \(reason)"
        case .builtWithoutPostgres(let location):
            "history '\(location.logSafePath)' is a PostgreSQL database, and this process has no PostgreSQL history: depend on the MotionHistoryPostgres product and call PostgresHistoryStore.register() before the first Core Motion call"
        case .serverFailure(let location, let operation, let reason):
            "history database '\(location.logSafePath)': \(operation) failed: \(reason.logSafeReason)"
        }
    }
}
