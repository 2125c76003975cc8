import Foundation

/// How a process opens a history that lives on a database server (`postgres://…`): a store module registers
/// itself at start, so that only the processes that want one link its client library.
///
/// `coremotiond` and `coremotion` register the PostgreSQL store (`MotionHistoryPostgres`); an app that wants
/// `COREMOTION_HISTORY=postgres://…` in its own process depends on the `MotionHistoryPostgres` product and
/// calls `PostgresHistoryStore.register()` once before its first Core Motion call. Without a registration,
/// opening such a location throws ``HistoryError/builtWithoutPostgres(location:)``.
public enum HistoryServers {
    /// Opens the store for a server location; `everyDevice`: a tool that reads every device in the database,
    /// not only this machine's.
    public typealias Opener = @Sendable (_ configuration: HistoryConfiguration, _ everyDevice: Bool) throws -> any HistoryStorage

    private static let openers = LockedState<[String: Opener]>([:])

    /// Registers the opener of `postgres://` locations (replacing an earlier one).
    public static func registerPostgres(_ opener: @escaping Opener) {
        openers.withLock { $0["postgres"] = opener }
    }

    /// Opens the store for a `.postgres` location with the registered opener.
    ///
    /// - Throws: ``HistoryError/builtWithoutPostgres(location:)`` when no store registered itself, or what
    ///   the store throws.
    public static func open(_ configuration: HistoryConfiguration, everyDevice: Bool = false) throws -> any HistoryStorage {
        guard let opener = openers.withLock({ $0["postgres"] }) else {
            throw HistoryError.builtWithoutPostgres(location: configuration.location.description)
        }
        return try opener(configuration, everyDevice)
    }
}
