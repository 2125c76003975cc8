import Foundation

/// Holds timed items that arrive in bursts and out of order, and releases them in time order once their
/// time plus a *delay* has come: the jitter buffer of every network source.
///
/// Items carry a host time (seconds on the device's clock, already mapped by ``PhoneClock``). An item is
/// due at `time + delay`. The delay follows what the network does: for every message, the buffer
/// notes how long after its *oldest* item it arrived (`arrival − oldest time`); the delay is the largest
/// such figure over the last ``Configuration/window`` seconds plus ``Configuration/margin``, within
/// ``Configuration/minimumDelay`` … ``Configuration/maximumDelay``. For a phone that pushes a batch
/// every 250 ms that is about one batch period (plus the network); a message that arrives a batch late
/// raises it for the window's length, so the next such message is absorbed. A message later than
/// ``Configuration/maximumDelay`` (a backlog: phyphox's first reply holds every sample since the
/// measurement began; or a stall) does not count: no delay would absorb it, and raising the delay to the
/// maximum would hold every later sample 2 s for the window's length.
///
/// Ties in time keep insertion order. Not thread-safe: the owner locks.
public struct JitterBuffer<Element> {
    /// How the delay is chosen.
    public struct Configuration: Sendable, Hashable {
        /// Added to the observed lateness, seconds.
        public var margin: TimeInterval
        /// How long a message's lateness counts, seconds.
        public var window: TimeInterval
        /// The delay never goes below this, seconds.
        public var minimumDelay: TimeInterval
        /// The delay never goes above this, seconds (an item later than that is released on arrival).
        public var maximumDelay: TimeInterval

        /// - Parameters: see the properties; the defaults suit a phone on a LAN.
        public init(margin: TimeInterval = 0.03, window: TimeInterval = 30, minimumDelay: TimeInterval = 0.01, maximumDelay: TimeInterval = 2) {
            self.margin = margin
            self.window = window
            self.minimumDelay = minimumDelay
            self.maximumDelay = maximumDelay
        }
    }

    /// The delay rule.
    public let configuration: Configuration
    private var heap: [(time: Double, sequence: UInt64, element: Element)] = []
    private var sequence: UInt64 = 0
    /// Monotonic deque of (arrival, lateness) with decreasing lateness: its front is the window's maximum.
    private var maxima: [(arrival: Double, lateness: Double)] = []
    private var head = 0

    /// An empty buffer.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Items held.
    public var count: Int { heap.count }
    /// Whether no item is held.
    public var isEmpty: Bool { heap.isEmpty }

    /// The current delay, seconds.
    public var delay: TimeInterval {
        let observed = head < maxima.count ? maxima[head].lateness : 0
        return min(configuration.maximumDelay, max(configuration.minimumDelay, observed + configuration.margin))
    }

    /// Notes that a message whose oldest item has host time `oldest` arrived at `arrival`.
    public mutating func noteMessage(oldest: TimeInterval, arrival: TimeInterval) {
        let lateness = arrival - oldest
        guard lateness.isFinite, lateness <= configuration.maximumDelay else { return }
        while maxima.count > head && maxima[maxima.count - 1].lateness <= lateness { maxima.removeLast() }
        maxima.append((arrival, lateness))
        while head < maxima.count - 1 && maxima[head].arrival < arrival - configuration.window { head += 1 }
        if head > 64 {
            maxima.removeFirst(head)
            head = 0
        }
    }

    /// Adds an item at host time `time`.
    public mutating func insert(_ element: Element, time: TimeInterval) {
        sequence &+= 1
        heap.append((time, sequence, element))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(child, parent) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// The time of the oldest item held.
    public var oldestTime: TimeInterval? { heap.first?.time }

    /// When the oldest item falls due (its time + ``delay``).
    public var nextDue: TimeInterval? { heap.first.map { $0.time + delay } }

    /// Removes and returns the oldest item if it is due at `now`.
    public mutating func popDue(now: TimeInterval) -> (time: TimeInterval, element: Element)? {
        guard let first = heap.first, first.time + delay <= now else { return nil }
        return popFirst().map { ($0.time, $0.element) }
    }

    /// Removes and returns the oldest item, due or not.
    public mutating func popFirst() -> (time: TimeInterval, element: Element)? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let first = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && less(left, smallest) { smallest = left }
            if right < heap.count && less(right, smallest) { smallest = right }
            if smallest == parent { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return (first.time, first.element)
    }

    /// Drops everything held.
    public mutating func removeAll() {
        heap.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    private func less(_ a: Int, _ b: Int) -> Bool {
        heap[a].time < heap[b].time || (heap[a].time == heap[b].time && heap[a].sequence < heap[b].sequence)
    }
}

extension JitterBuffer: Sendable where Element: Sendable {}
