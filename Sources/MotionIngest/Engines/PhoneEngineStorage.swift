import Foundation
import MotionHistory

/// A phone whose engines (pedometer, activity, altimeter) are behind its stored readings, as the database
/// sees it now.
public struct PhoneEngineStatus: Sendable, Hashable {
    /// The phone's id in the database.
    public var device: Int64
    /// The phone's device name (its Sensor Logger `deviceId`).
    public var name: String
    /// The first and the newest stored reading of the sensors asked about, microseconds since 1970 (the
    /// phone's clock).
    public var firstReading: Int64
    public var newestReading: Int64
    /// How far its derived records are written, microseconds since 1970; `nil` when never.
    public var derivedUntil: Int64?
    /// Seconds from the newest stored reading to the database's clock now (how long the phone has been
    /// quiet, when the phone's clock is right).
    public var quietSeconds: Double

    public init(device: Int64, name: String, firstReading: Int64, newestReading: Int64, derivedUntil: Int64?, quietSeconds: Double) {
        self.device = device
        self.name = name
        self.firstReading = firstReading
        self.newestReading = newestReading
        self.derivedUntil = derivedUntil
        self.quietSeconds = quietSeconds
    }
}

/// A node's lease on one phone's engines: while it holds it, only this node writes the phone's derived
/// records (`coremotion.device_engine`).
public struct PhoneEngineLease: Sendable, Hashable {
    /// The phone's id in the database and its name.
    public var device: Int64
    public var name: String
    /// The node holding the lease.
    public var node: String
    /// How far the phone's derived records are written, microseconds since 1970: records after it are the
    /// holder's to write.
    public var derivedUntil: Int64

    public init(device: Int64, name: String, node: String, derivedUntil: Int64) {
        self.device = device
        self.name = name
        self.node = node
        self.derivedUntil = derivedUntil
    }
}

/// Records derived from a phone's stored readings, to write in one transaction.
public struct DerivedRecords: Sendable, Hashable {
    public var steps: [StepRecord]
    public var floors: [FloorRecord]
    public var transitions: [PedometerTransitionRecord]
    public var activities: [ActivityRecord]

    public init(
        steps: [StepRecord] = [], floors: [FloorRecord] = [], transitions: [PedometerTransitionRecord] = [],
        activities: [ActivityRecord] = []
    ) {
        self.steps = steps
        self.floors = floors
        self.transitions = transitions
        self.activities = activities
    }

    /// Records of every kind.
    public var count: Int { steps.count + floors.count + transitions.count + activities.count }
}

/// Stored readings of one phone over a span, with what was left out.
public struct StoredReadings: Sendable, Hashable {
    /// One series per stored chunk (one sensor of one push), in the order of their first reading; values in
    /// the phone's units, as stored.
    public var series: [RawSeries]
    /// Why chunks were left out (malformed rows), one line each.
    public var skipped: [String]

    public init(series: [RawSeries] = [], skipped: [String] = []) {
        self.series = series
        self.skipped = skipped
    }
}

/// Where ingest nodes run phones' engines: the stored readings, the per-phone lease and the derived records
/// (the PostgreSQL history, `coremotion.device_engine`).
///
/// The protocol: a node takes a phone's lease when there is none, it expired, or it is its own; reads the
/// stored readings from shortly before ``PhoneEngineLease/derivedUntil``; and writes the records after it in
/// one transaction that also moves `derivedUntil` forward only if the lease is still its own and nobody moved
/// it meanwhile (``commit(_:lease:derivedUntil:leaseSeconds:)``). Calls block their thread.
public protocol PhoneEngineStorage: AnyObject, Sendable {
    /// Phones whose device name starts with `namePrefix` (`""`: every phone) with readings of `sensors`
    /// stored after their derived records, at most `limit`, leaving out those whose lease another node
    /// holds: the ones never derived and furthest behind first. A phone is
    /// listed when its newest reading is more than `lagMicroseconds` past its derived records, or it has been
    /// quiet for `quietSeconds` and has readings past them at all.
    func phonesBehind(
        sensors: [String], namePrefix: String, node: String, lagMicroseconds: Int64, quietSeconds: Double, limit: Int
    ) throws -> [PhoneEngineStatus]

    /// Takes or renews the lease on `phone` for `seconds`: when it has none, it expired, or `node` holds it.
    /// A phone without one starts at `initialDerivedUntil` (microseconds since 1970).
    ///
    /// - Returns: the lease, or `nil` when another node holds it.
    func takeLease(_ phone: PhoneEngineStatus, node: String, seconds: Double, initialDerivedUntil: Int64) throws -> PhoneEngineLease?

    /// The phone's readings of `sensors` between `from` and `through` (microseconds since 1970, inclusive),
    /// at most `limit` chunks: the chunks that overlap the span, whole.
    func readings(device: Int64, sensors: [String], from: Int64, through: Int64, limit: Int) throws -> StoredReadings

    /// Writes `records` (only those dated after the lease's `derivedUntil` are kept) and moves the phone's
    /// `derivedUntil` to `derivedUntil`, renewing the lease for `leaseSeconds`, in one transaction: only if
    /// `lease.node` still holds the lease with the same `derivedUntil`; otherwise nothing is written.
    ///
    /// - Returns: whether it was written.
    func commit(_ records: DerivedRecords, lease: PhoneEngineLease, derivedUntil: Int64, leaseSeconds: Double) throws -> Bool

    /// Gives the lease up (when the node stops), so another node need not wait for it to expire.
    func release(_ lease: PhoneEngineLease) throws
}
