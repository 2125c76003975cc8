import Foundation

/// The bounds a Sensor Logger receiver keeps against peers that push too much, too slowly or too often
/// (docs/network.md, "Limits against hostile peers"). The defaults are the receiver's; tests shorten the times.
public struct SensorLoggerLimits: Sendable, Hashable {
    /// Most TCP connections open at once per receiver; a connection beyond it is closed at once (counted in
    /// ``SensorLoggerServer/Statistics/closedConnections`` under ``SensorLoggerConnectionClosure/overLimit``,
    /// logged at most once a minute). A phone uses one keep-alive connection; 128 holds the 100 phones of the load benchmark (BENCHMARKS.md §8) with room
    /// for reconnections, an eighth of a process's usual 1,024 descriptors.
    public var maximumConnections: Int
    /// A connection with no request under way for this long is closed, seconds: it has sent no complete
    /// request head since it opened or since its last reply (so this also bounds how long a head may take).
    /// Sensor Logger pushes every 0.25–1 s, so its keep-alive connection is never idle that long.
    public var idleTimeout: TimeInterval
    /// A request whose body has not fully arrived this long after its head is cut off, seconds (1 MiB in
    /// 30 s is 35 kB/s, far below any Wi-Fi).
    public var requestTimeout: TimeInterval
    /// Most phones (`deviceId`s) kept at once (128: the load benchmark's 100 and room); a new one beyond it
    /// gets 503, unless it is a phone this process asked for by id (`&device=ID`), which always gets in.
    public var maximumPhones: Int
    /// A phone that has not pushed for this long is forgotten (unless a device follows it), seconds, so a
    /// flood of made-up `deviceId`s holds the receiver full at most this long after it stops.
    public var phoneExpiry: TimeInterval
    /// Most reference entries kept per kind per phone: its devices' ``LiveDevice/Configuration/referenceEntries``
    /// (12,000, about 4 MB per phone with every kind full), so 128 phones hold at most about 0.5 GB.
    public var referenceEntries: Int
    /// Least time between two log lines about refused connections, seconds.
    public var refusalLogInterval: TimeInterval

    /// - Parameters: see the properties; the defaults are the receiver's.
    public init(
        maximumConnections: Int = 128, idleTimeout: TimeInterval = 10, requestTimeout: TimeInterval = 30,
        maximumPhones: Int = 128, phoneExpiry: TimeInterval = 120,
        referenceEntries: Int = LiveDevice.Configuration().referenceEntries,
        refusalLogInterval: TimeInterval = 60
    ) {
        self.maximumConnections = maximumConnections
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
        self.maximumPhones = maximumPhones
        self.phoneExpiry = phoneExpiry
        self.referenceEntries = referenceEntries
        self.refusalLogInterval = refusalLogInterval
    }
}
