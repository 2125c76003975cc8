import Foundation

/// One push of raw readings from a phone, as an ingest node stores it: every reading of every sensor the
/// phone sent, with the push's identity, so that a retried or duplicated push is stored once.
///
/// Values keep the sender's units (Sensor Logger: m/s² for the accelerometer, rad/s, µT, hPa, degrees).
public struct RawPush: Sendable, Hashable {
    /// The phone's stable id (Sensor Logger's `deviceId`); the store's device name.
    public var device: String
    /// The recording the push belongs to (Sensor Logger's `sessionId`), or `""`.
    public var session: String
    /// The push's number within its session (Sensor Logger's `messageId`).
    public var messageID: Int64
    /// When the node received it, microseconds since 1970 (kept as received: the spool stores it exactly).
    public var receivedMicroseconds: Int64
    /// When the node received it.
    public var receivedAt: Date { Date(timeIntervalSince1970: Double(receivedMicroseconds) / 1e6) }
    /// The readings, one series per sensor and field list.
    public var series: [RawSeries]

    public init(device: String, session: String, messageID: Int64, receivedAt: Date, series: [RawSeries]) {
        let microseconds = (receivedAt.timeIntervalSince1970 * 1e6).rounded()
        self.init(
            device: device, session: session, messageID: messageID,
            receivedMicroseconds: microseconds.isFinite && abs(microseconds) < 9e18 ? Int64(microseconds) : 0, series: series)
    }

    public init(device: String, session: String, messageID: Int64, receivedMicroseconds: Int64, series: [RawSeries]) {
        self.device = device
        self.session = session
        self.messageID = messageID
        self.receivedMicroseconds = receivedMicroseconds
        self.series = series
    }

    /// Whether the store and the spool can keep it: a device id of 1…1024 bytes, a session of at most 256,
    /// at most ``PushSpoolRecord/maximumSeries`` well-formed series of at most
    /// ``PushSpoolRecord/maximumReadings`` readings.
    public var isStorable: Bool {
        (1...1024).contains(device.utf8.count) && session.utf8.count <= 256 && series.count <= PushSpoolRecord.maximumSeries
            && series.allSatisfy { $0.isWellFormed && $0.count <= PushSpoolRecord.maximumReadings }
    }

    /// Readings in the push, all series together.
    public var readingCount: Int { series.reduce(0) { $0 + $1.count } }
}

/// The readings of one sensor in a push: times and, per reading, one value per field.
public struct RawSeries: Sendable, Hashable {
    /// The sensor as the sender names it (`accelerometer`, `gyroscope`, `magnetometer`, `barometer`, …).
    public var sensor: String
    /// The names of the value fields, in order (`["x", "y", "z"]`).
    public var fields: [String]
    /// Reading times, microseconds since 1970, in the order received.
    public var microseconds: [Int64]
    /// `fields.count` values per reading, reading after reading.
    public var values: [Double]

    public init(sensor: String, fields: [String], microseconds: [Int64], values: [Double]) {
        self.sensor = sensor
        self.fields = fields
        self.microseconds = microseconds
        self.values = values
    }

    /// Readings in the series.
    public var count: Int { microseconds.count }

    /// Whether the shape is consistent: one value per field and reading, names within the store's limits.
    public var isWellFormed: Bool {
        !sensor.isEmpty && sensor.utf8.count <= 255 && !fields.isEmpty && fields.count <= 32
            && fields.allSatisfy { !$0.isEmpty && $0.utf8.count <= 64 }
            && values.count == microseconds.count * fields.count
    }
}

/// A store that keeps raw pushes durably (the PostgreSQL history; an ingest node's spool in front of it).
public protocol RawPushStorage: AnyObject, Sendable {
    /// Stores the push in one transaction: its readings, the device's counters and its receipt.
    ///
    /// - Returns: `false` when a push with the same device, session and message id was stored before (by
    ///   this node or another): nothing is stored again.
    /// - Throws: ``RawPushRefused`` when the store refuses the push for what it contains (sending it again
    ///   cannot help: the caller answers the sender 400, a spool skips it); any other error when the push could
    ///   not be made durable now (the caller keeps it elsewhere or asks the sender to resend).
    func store(_ push: RawPush, node: String) throws -> Bool

    /// Whether the store answers now (a cheap round trip that stores nothing), within a few seconds.
    func isReachable() -> Bool
}

/// A push the store refuses for its contents, not for its own state: a name the database cannot hold (a NUL
/// character), a value outside a column's range. Storing it again fails the same way, so it is neither kept
/// for later nor allowed to hold up the pushes after it.
public struct RawPushRefused: Error, Sendable, CustomStringConvertible {
    /// Why, as the store says it (for the log and the sender's 400).
    public let reason: String

    public init(reason: String) { self.reason = reason }

    public var description: String { "the store refuses this push: \(reason)" }
}
