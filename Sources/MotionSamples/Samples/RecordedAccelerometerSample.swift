import Foundation

/// A recorded accelerometer sample read back from the history (`CMRecordedAccelerometerData`).
public struct RecordedAccelerometerSample: Sendable, Hashable {
    /// Unique identifier, increasing in the order the samples were written (1, 2, 3, …; never reused in
    /// one store file).
    public var identifier: UInt64
    /// Wall-clock date of the sample (microsecond resolution).
    public var date: Date
    /// Acceleration including gravity, g.
    public var acceleration: Vector3

    public init(identifier: UInt64, date: Date, acceleration: Vector3) {
        self.identifier = identifier
        self.date = date
        self.acceleration = acceleration
    }
}
