import Foundation

/// The store's periodic flush: a repeating dispatch timer without leeway.
///
/// In an idle `coremotiond` this is the only timer, so its cost is the daemon's floor: a repeating timer
/// without leeway wakes the dispatch manager thread and one worker per tick (2 context switches); the
/// `asyncAfter` chain it replaces cost 4 (re-arming each time, and a leeway that wakes the manager twice).
package final class FlushTick: @unchecked Sendable {  // @unchecked: the flags and every call on the non-Sendable `timer` (resume, cancel) are under `lock`
    private let timer: any DispatchSourceTimer
    private let lock = NSLock()
    private var started = false
    private var cancelled = false

    package init(queue: DispatchQueue) {
        timer = DispatchSource.makeTimerSource(queue: queue)
    }

    /// Calls `handler` on the queue every `interval` seconds from now, until ``cancel()``.
    package func start(every interval: TimeInterval, handler: @escaping @Sendable () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        guard !started, !cancelled else { return }
        started = true
        timer.setEventHandler(handler: handler)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .nanoseconds(0))
        timer.resume()
    }

    /// Stops the ticks (idempotent; a tick already running finishes).
    package func cancel() {
        lock.lock()
        defer { lock.unlock() }
        guard !cancelled else { return }
        cancelled = true
        if !started {
            // A source is never released suspended: resume it once, cancelled, with nothing to do.
            timer.resume()
        }
        timer.cancel()
    }

    deinit { cancel() }
}
