import Foundation

/// Where the history lives: a SQLite file, memory (nothing survives the process), or a PostgreSQL server.
///
/// ``fromEnvironment(_:)`` resolves the documented location:
/// - `COREMOTION_HISTORY=/path/to/file.sqlite`: that file (a leading `~/` is the home folder; a relative
///   path is taken from the current directory);
/// - `COREMOTION_HISTORY=memory` (or `none`): an in-memory store;
/// - `COREMOTION_HISTORY=postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` (or `postgresql://`, with
///   `?host=/socket/folder` for a Unix socket): a PostgreSQL database shared by many machines
///   (`MotionHistoryPostgres`, built with the package trait `PostgresHistory`);
/// - unset or empty: `$XDG_DATA_HOME/coremotion/history.sqlite` when `XDG_DATA_HOME` is an absolute
///   path, otherwise `~/.local/share/coremotion/history.sqlite`.
public enum HistoryLocation: Sendable, Hashable, CustomStringConvertible {
    /// A SQLite file; its folder is created when missing.
    case file(URL)
    /// An in-memory database, private to one ``HistoryStore``.
    case inMemory
    /// A PostgreSQL database (`postgres://` or `postgresql://` URL).
    case postgres(URL)

    /// The environment variable that overrides the location.
    public static let environmentVariable = "COREMOTION_HISTORY"

    /// The file name inside the data folder.
    public static let defaultFileName = "history.sqlite"

    /// The location chosen by `COREMOTION_HISTORY`, or the default file.
    ///
    /// - Throws: ``HistoryError/noHomeFolder`` when neither `XDG_DATA_HOME` nor a home folder is known.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> HistoryLocation {
        if let value = environment[environmentVariable]?.trimmingCharacters(in: .whitespaces), !value.isEmpty {
            switch value.lowercased() {
            case "memory", "none", ":memory:": return .inMemory
            default:
                if let server = try postgres(value) { return server }
                return .file(resolve(path: value, environment: environment))
            }
        }
        return .file(try defaultFile(environment))
    }

    /// The default file: `$XDG_DATA_HOME/coremotion/history.sqlite`, or
    /// `~/.local/share/coremotion/history.sqlite`.
    public static func defaultFile(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> URL {
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true)
                .appendingPathComponent("coremotion", isDirectory: true)
                .appendingPathComponent(defaultFileName)
        }
        guard let home = homeFolder(environment) else { throw HistoryError.noHomeFolder }
        return URL(fileURLWithPath: home, isDirectory: true)
            .appendingPathComponent(".local/share/coremotion", isDirectory: true)
            .appendingPathComponent(defaultFileName)
    }

    public var description: String {
        switch self {
        case .file(let url): url.path
        case .inMemory: "memory"
        case .postgres(let url): Self.withoutPassword(url)
        }
    }

    /// A PostgreSQL location from a `postgres://` or `postgresql://` URL; `nil` for any other text.
    ///
    /// - Throws: ``HistoryError/invalidServerURL(_:reason:)`` for such a URL without a database name or
    ///   that does not parse.
    public static func postgres(_ text: String) throws -> HistoryLocation? {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") else { return nil }
        let shown = LogSafeText.logSafe(redactPassword(text), limit: 1024)
        guard let url = URL(string: text), url.scheme != nil else {
            throw HistoryError.invalidServerURL(shown, reason: "not a URL")
        }
        let database = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        guard !database.isEmpty, !database.contains("/") else {
            throw HistoryError.invalidServerURL(shown, reason: "no database name (postgres://USER@HOST:PORT/DATABASE)")
        }
        return .postgres(url)
    }

    /// The URL as text with its password replaced by `***`.
    static func withoutPassword(_ url: URL) -> String {
        redactPassword(url.absoluteString)
    }

    private static func redactPassword(_ text: String) -> String {
        // scheme://user:password@host... → scheme://user:***@host...
        guard let schemeEnd = text.range(of: "://"), let at = text[schemeEnd.upperBound...].firstIndex(of: "@"),
              let colon = text[schemeEnd.upperBound..<at].firstIndex(of: ":")
        else { return text }
        return String(text[..<text.index(after: colon)]) + "***" + String(text[at...])
    }

    private static func homeFolder(_ environment: [String: String]) -> String? {
        if let home = environment["HOME"], !home.isEmpty { return home }
        let fallback = NSHomeDirectory()
        return fallback.isEmpty ? nil : fallback
    }

    private static func resolve(path: String, environment: [String: String]) -> URL {
        if path == "~" || path.hasPrefix("~/"), let home = homeFolder(environment) {
            return URL(fileURLWithPath: home + path.dropFirst(), isDirectory: false).standardizedFileURL
        }
        return URL(fileURLWithPath: path, isDirectory: false).standardizedFileURL
    }
}
