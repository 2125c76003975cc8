/// Core Motion's activity flags (`CMMotionActivity`), shared by the activity engine and the history
/// store. They may overlap (stationary + automotive at a red light) and may all be clear (movement no
/// class describes).
@frozen
public struct ActivityFlags: OptionSet, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// No estimate (no data yet, recording was off, or after a gap in the data).
    public static let unknown = ActivityFlags(rawValue: 1 << 0)
    /// Not moving (also set with ``automotive`` when a vehicle stops).
    public static let stationary = ActivityFlags(rawValue: 1 << 1)
    /// On a walking person.
    public static let walking = ActivityFlags(rawValue: 1 << 2)
    /// On a running person.
    public static let running = ActivityFlags(rawValue: 1 << 3)
    /// On a bicycle.
    public static let cycling = ActivityFlags(rawValue: 1 << 4)
    /// In a vehicle.
    public static let automotive = ActivityFlags(rawValue: 1 << 5)

    /// Every defined flag; other bits are invalid.
    public static let all: ActivityFlags = [.unknown, .stationary, .walking, .running, .cycling, .automotive]

    /// Flag names joined by `+` (`stationary+automotive`), or `unclassified` when none is set.
    public var description: String {
        let names = [
            (ActivityFlags.unknown, "unknown"), (.stationary, "stationary"), (.walking, "walking"),
            (.running, "running"), (.cycling, "cycling"), (.automotive, "automotive"),
        ].filter { contains($0.0) }.map(\.1)
        return names.isEmpty ? "unclassified" : names.joined(separator: "+")
    }
}

/// How likely a reported activity is right, with Core Motion's raw values
/// (`CMMotionActivityConfidence`).
public enum ActivityConfidence: Int, CaseIterable, Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    case low = 0
    case medium = 1
    case high = 2

    public static func < (a: ActivityConfidence, b: ActivityConfidence) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        switch self {
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        }
    }
}
