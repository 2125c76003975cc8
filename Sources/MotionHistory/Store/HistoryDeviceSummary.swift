import Foundation

/// One device (source) of a history and what the history holds of it (`coremotion history devices`).
public struct HistoryDeviceSummary: Sendable, Hashable, Codable {
    /// The device's id in the store: its source tag (SQLite) or its device name (PostgreSQL: the machine id
    /// and device spec, or a phone's Sensor Logger `deviceId`).
    public var id: String
    /// The oldest record of any kind, or `nil` when none is kept any more.
    public var first: Date?
    /// The newest record of any kind.
    public var last: Date?
    /// Stored raw readings per sensor name (`accelerometer` for the sensor recorder's samples).
    public var samples: [String: Int]
    /// Stored steps.
    public var steps: Int

    public init(id: String, first: Date?, last: Date?, samples: [String: Int], steps: Int) {
        self.id = id
        self.first = first
        self.last = last
        self.samples = samples
        self.steps = steps
    }
}
