import MotionHistory

extension PostgresHistoryStore {
    /// Makes `postgres://` history locations open this store in this process (``MotionHistory/HistoryServers``):
    /// `coremotiond` and `coremotion` call it at start; an app that wants `COREMOTION_HISTORY=postgres://…`
    /// calls it once before its first Core Motion call. A tool reading every device uses no device prefix.
    public static func register() {
        HistoryServers.registerPostgres { configuration, everyDevice in
            try PostgresHistoryStore(configuration: configuration, options: Options(devicePrefix: everyDevice ? "" : nil))
        }
    }
}
