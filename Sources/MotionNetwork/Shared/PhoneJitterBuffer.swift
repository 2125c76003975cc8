// Shared helper of the phone network sources (phyphox, SensorServer; branch net-phyphox). At the merge, fold
// with the Sensor Logger server's jitter buffer (`Shared/`): both hold samples for a fixed delay and release
// them merge-sorted by time.
import MotionSamples

/// Holds samples that arrive in bursts (a phyphox poll, a WebSocket read) and releases them merge-sorted by
/// time, each `delay` seconds after its own (mapped) time: handlers then see the sensors interleaved and
/// evenly paced, as from local hardware, `delay` late (NETWORK.md §6).
///
/// Each sensor's samples must be inserted in increasing time order (the device checks); across sensors any
/// order is fine. A sample inserted after its release time is released at the next ``popDue(now:)``.
public struct PhoneJitterBuffer: Sendable {
    /// How long after its time a sample is released, seconds.
    public var delay: Double
    private var queues: [[SensorSample]] = Array(repeating: [], count: SensorKind.allCases.count)
    private var heads: [Int] = Array(repeating: 0, count: SensorKind.allCases.count)

    public init(delay: Double) {
        self.delay = max(0, delay)
    }

    private static func index(_ kind: SensorKind) -> Int {
        SensorKind.allCases.firstIndex(of: kind) ?? 0
    }

    /// Adds a sample (its time on the device clock).
    public mutating func insert(_ sample: SensorSample) {
        queues[Self.index(sample.sensor)].append(sample)
    }

    /// Number of samples held.
    public var count: Int {
        zip(queues, heads).reduce(0) { $0 + $1.0.count - $1.1 }
    }

    /// The earliest sample time held, if any.
    public var earliest: Double? {
        var best: Double?
        for i in queues.indices where heads[i] < queues[i].count {
            let t = queues[i][heads[i]].time
            if best.map({ t < $0 }) ?? true { best = t }
        }
        return best
    }

    /// When the next sample is due (its time + delay), if any.
    public var nextDue: Double? { earliest.map { $0 + delay } }

    /// Removes and returns the earliest sample if it is due at `now`.
    public mutating func popDue(now: Double) -> SensorSample? {
        var best = -1
        var bestTime = Double.infinity
        for i in queues.indices where heads[i] < queues[i].count {
            let t = queues[i][heads[i]].time
            if t < bestTime {
                bestTime = t
                best = i
            }
        }
        guard best >= 0, bestTime + delay <= now else { return nil }
        let sample = queues[best][heads[best]]
        heads[best] += 1
        if heads[best] == queues[best].count {
            queues[best].removeAll(keepingCapacity: true)
            heads[best] = 0
        } else if heads[best] > 4096 {
            queues[best].removeFirst(heads[best])
            heads[best] = 0
        }
        return sample
    }

    /// Drops everything held.
    public mutating func removeAll() {
        for i in queues.indices {
            queues[i].removeAll()
            heads[i] = 0
        }
    }
}
