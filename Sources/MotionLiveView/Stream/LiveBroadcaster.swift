import Foundation
import MotionLiveViewProtocol
import NIOConcurrencyHelpers

/// The fan-out from one source to every open page.
///
/// A source calls ``publish(_:)-(LiveSample)`` and ``publish(_:)-(LiveEvent)`` from any thread; samples
/// are decimated (``SampleDecimator``) and collected, and ``flush(clock:)`` (called by the server
/// about 30 times a second) turns what was collected into one message for every page. Each page has an
/// outbox of a few messages: a page that does not read (a stalled browser, a slow network) loses its
/// oldest messages, and nobody waits for it. Publishing never blocks on a page.
public final class LiveBroadcaster: Sendable {
    /// Messages a page may have waiting before its oldest are dropped.
    public static let outboxSize = 16

    /// What the sources, the server's flush and the pages share. The pages' continuations are yielded to
    /// under the lock (a yield only queues the message), so that every page gets its messages in order.
    private struct State {
        var decimator: SampleDecimator
        var pendingSamples: [LiveSample] = []
        var pendingEvents: [LiveEvent] = []
        var sequence = 0
        var pages: [Int: Page] = [:]
        var nextPageID = 1
        var droppedByClosedPages = 0
    }
    private let state: NIOLockedValueBox<State>
    /// Samples per batch above which the oldest are dropped (a source far faster than the decimator
    /// allows would otherwise grow the batch without bound between two flushes).
    private let batchLimit = 20_000

    private struct Page {
        let continuation: AsyncStream<String>.Continuation
        var dropped = 0
    }

    /// A broadcaster sending at most `rate` samples per second and channel.
    public init(rate: Double = 60) {
        let decimator = SampleDecimator(rate: rate)
        self.rate = decimator.rate
        state = NIOLockedValueBox(State(decimator: decimator))
    }

    /// The most samples per second and channel sent.
    public let rate: Double

    /// Offers a sample; it is sent with the next batch if the decimator keeps it.
    public func publish(_ sample: LiveSample) {
        let batchLimit = self.batchLimit
        state.withLockedValue { state in
            guard state.decimator.admit(sample) else { return }
            if state.pendingSamples.count >= batchLimit { state.pendingSamples.removeFirst(state.pendingSamples.count / 2) }
            state.pendingSamples.append(sample)
        }
    }

    /// Offers an event; every event is sent.
    public func publish(_ event: LiveEvent) {
        let batchLimit = self.batchLimit
        state.withLockedValue { state in
            if state.pendingEvents.count >= batchLimit { state.pendingEvents.removeFirst(state.pendingEvents.count / 2) }
            state.pendingEvents.append(event)
        }
    }

    /// Drops what was collected and tells every page to clear its plots (after a seek or a frame switch).
    public func reset(time: Double, referenceFrame: String) {
        state.withLockedValue { state in
            state.pendingSamples.removeAll(keepingCapacity: true)
            state.pendingEvents.removeAll(keepingCapacity: true)
            state.decimator.reset()
            let message = ServerMessageWriter.reset(time: time, referenceFrame: referenceFrame)
            for page in state.pages.values { page.continuation.yield(message) }
        }
    }

    /// Sends what was collected since the last flush to every page, as one samples message; returns
    /// the number of samples sent.
    @discardableResult
    public func flush(clock: LiveClock) -> Int {
        state.withLockedValue { state in
            guard !state.pages.isEmpty else {
                state.pendingSamples.removeAll(keepingCapacity: true)
                state.pendingEvents.removeAll(keepingCapacity: true)
                return 0
            }
            state.sequence += 1
            let message = ServerMessageWriter.samples(
                sequence: state.sequence, clock: clock, samples: state.pendingSamples, events: state.pendingEvents)
            let count = state.pendingSamples.count
            state.pendingSamples.removeAll(keepingCapacity: true)
            state.pendingEvents.removeAll(keepingCapacity: true)
            for (id, page) in state.pages {
                if case .dropped = page.continuation.yield(message) { state.pages[id]?.dropped += 1 }
            }
            return count
        }
    }

    /// A new page's outbox: the messages to write to it, in order. Call ``remove(page:)`` when it closes.
    public func addPage() -> (id: Int, messages: AsyncStream<String>) {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(Self.outboxSize))
        let id = state.withLockedValue { state in
            let id = state.nextPageID
            state.nextPageID += 1
            state.pages[id] = Page(continuation: continuation)
            return id
        }
        return (id, stream)
    }

    /// Sends one message to one page only (an answer to its command).
    public func send(_ message: String, toPage id: Int) {
        state.withLockedValue { state in
            if let page = state.pages[id], case .dropped = page.continuation.yield(message) { state.pages[id]?.dropped += 1 }
        }
    }

    /// Closes a page's outbox and forgets it.
    public func remove(page id: Int) {
        let page = state.withLockedValue { state in
            let page = state.pages.removeValue(forKey: id)
            state.droppedByClosedPages += page?.dropped ?? 0
            return page
        }
        page?.continuation.finish()
    }

    /// Closes every page's outbox (the server stops).
    public func finishAll() {
        let all = state.withLockedValue { state in
            let all = state.pages
            state.pages.removeAll()
            return all
        }
        for page in all.values { page.continuation.finish() }
    }

    /// Pages open now.
    public var pageCount: Int {
        state.withLockedValue { $0.pages.count }
    }

    /// Messages dropped so far, for every page since the start, because a page did not read them.
    public var droppedMessages: Int {
        state.withLockedValue { state in state.droppedByClosedPages + state.pages.values.reduce(0) { $0 + $1.dropped } }
    }

    /// Messages dropped so far for the page `id` because it did not read them (nil: no such page).
    public func droppedMessages(page id: Int) -> Int? {
        state.withLockedValue { $0.pages[id]?.dropped }
    }
}
