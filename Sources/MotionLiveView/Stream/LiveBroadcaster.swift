import Foundation
import MotionLiveViewProtocol

/// The fan-out from one source to every open page.
///
/// A source calls ``publish(_:)-(LiveSample)`` and ``publish(_:)-(LiveEvent)`` from any thread; samples
/// are decimated (``SampleDecimator``) and collected, and ``flush(clock:)`` (called by the server
/// about 30 times a second) turns what was collected into one message for every page. Each page has an
/// outbox of a few messages: a page that does not read (a stalled browser, a slow network) loses its
/// oldest messages, and nobody waits for it. Publishing never blocks on a page.
public final class LiveBroadcaster: @unchecked Sendable {
    /// Messages a page may have waiting before its oldest are dropped.
    public static let outboxSize = 16

    private let lock = NSLock()
    private var decimator: SampleDecimator
    private var pendingSamples: [LiveSample] = []
    private var pendingEvents: [LiveEvent] = []
    private var sequence = 0
    private var pages: [Int: Page] = [:]
    private var nextPageID = 1
    private var droppedByClosedPages = 0
    /// Samples per batch above which the oldest are dropped (a source far faster than the decimator
    /// allows would otherwise grow the batch without bound between two flushes).
    private let batchLimit = 20_000

    private struct Page {
        let continuation: AsyncStream<String>.Continuation
        var dropped = 0
    }

    /// A broadcaster sending at most `rate` samples per second and channel.
    public init(rate: Double = 60) {
        decimator = SampleDecimator(rate: rate)
    }

    /// The most samples per second and channel sent.
    public var rate: Double { decimator.rate }

    /// Offers a sample; it is sent with the next batch if the decimator keeps it.
    public func publish(_ sample: LiveSample) {
        lock.lock()
        defer { lock.unlock() }
        guard decimator.admit(sample) else { return }
        if pendingSamples.count >= batchLimit { pendingSamples.removeFirst(pendingSamples.count / 2) }
        pendingSamples.append(sample)
    }

    /// Offers an event; every event is sent.
    public func publish(_ event: LiveEvent) {
        lock.lock()
        defer { lock.unlock() }
        if pendingEvents.count >= batchLimit { pendingEvents.removeFirst(pendingEvents.count / 2) }
        pendingEvents.append(event)
    }

    /// Drops what was collected and tells every page to clear its plots (after a seek or a frame switch).
    public func reset(time: Double, referenceFrame: String) {
        lock.lock()
        pendingSamples.removeAll(keepingCapacity: true)
        pendingEvents.removeAll(keepingCapacity: true)
        decimator.reset()
        let message = ServerMessageWriter.reset(time: time, referenceFrame: referenceFrame)
        for page in pages.values { page.continuation.yield(message) }
        lock.unlock()
    }

    /// Sends what was collected since the last flush to every page, as one samples message; returns
    /// the number of samples sent.
    @discardableResult
    public func flush(clock: LiveClock) -> Int {
        lock.lock()
        defer { lock.unlock() }
        guard !pages.isEmpty else {
            pendingSamples.removeAll(keepingCapacity: true)
            pendingEvents.removeAll(keepingCapacity: true)
            return 0
        }
        sequence += 1
        let message = ServerMessageWriter.samples(sequence: sequence, clock: clock, samples: pendingSamples, events: pendingEvents)
        let count = pendingSamples.count
        pendingSamples.removeAll(keepingCapacity: true)
        pendingEvents.removeAll(keepingCapacity: true)
        for (id, page) in pages {
            if case .dropped = page.continuation.yield(message) { pages[id]?.dropped += 1 }
        }
        return count
    }

    /// A new page's outbox: the messages to write to it, in order. Call ``remove(page:)`` when it closes.
    public func addPage() -> (id: Int, messages: AsyncStream<String>) {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(Self.outboxSize))
        lock.lock()
        defer { lock.unlock() }
        let id = nextPageID
        nextPageID += 1
        pages[id] = Page(continuation: continuation)
        return (id, stream)
    }

    /// Sends one message to one page only (an answer to its command).
    public func send(_ message: String, toPage id: Int) {
        lock.lock()
        defer { lock.unlock() }
        if let page = pages[id], case .dropped = page.continuation.yield(message) { pages[id]?.dropped += 1 }
    }

    /// Closes a page's outbox and forgets it.
    public func remove(page id: Int) {
        lock.lock()
        let page = pages.removeValue(forKey: id)
        droppedByClosedPages += page?.dropped ?? 0
        lock.unlock()
        page?.continuation.finish()
    }

    /// Closes every page's outbox (the server stops).
    public func finishAll() {
        lock.lock()
        let all = pages
        pages.removeAll()
        lock.unlock()
        for page in all.values { page.continuation.finish() }
    }

    /// Pages open now.
    public var pageCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return pages.count
    }

    /// Messages dropped so far, for every page since the start, because a page did not read them.
    public var droppedMessages: Int {
        lock.lock()
        defer { lock.unlock() }
        return droppedByClosedPages + pages.values.reduce(0) { $0 + $1.dropped }
    }

    /// Messages dropped so far for the page `id` because it did not read them (nil: no such page).
    public func droppedMessages(page id: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        return pages[id]?.dropped
    }
}
