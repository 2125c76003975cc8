import Foundation

/// Runs an owner's "deliver what is due" step at the right times on its clock: the scheduling that every
/// device playing or pacing items against a ``MotionClock`` needs, written once.
///
/// The owner (a device) keeps its items and knows two things, given to ``bind(step:nextDue:)``:
/// - `step(now)`: deliver (or act on) everything due up to clock time `now`;
/// - `nextDue()`: the clock time of the next item, `.infinity` when nothing is scheduled yet but the owner
///   still wants to be stepped at the poll interval (a silence check), or `nil` when nothing will ever fall
///   due again unless the owner says so (the end of a finite recording).
///
/// On a ``VirtualClock`` the driver registers an observer that calls `step` with the clock's time inside
/// every `advance`, whether or not the owner is busy (tests see everything due as soon as `advance` returns;
/// a recording plays on whether or not anyone listens). ``setBusy(_:)`` and ``wake()`` do nothing there.
///
/// On the system clock a thread of its own, named `name` for the kernel (what `top -H` shows), runs while
/// the owner is busy (``setBusy(_:)``): it calls `step`, then waits until `nextDue()` but at most
/// ``pollInterval``, or until ``wake()`` says new items came. It ends when the owner becomes idle, when
/// `nextDue()` is `nil`, or when the owner is gone; each thread carries a generation, so a thread of an
/// earlier busy period never steps again once it was told to stop, even if a new thread has started since.
///
/// Locks: `step` and `nextDue` are always called with no lock of the driver's held, so a stalled sink in
/// `step` stalls only this driver's thread. ``setBusy(_:)`` and ``wake()`` take the driver's own lock briefly
/// and call nothing of the owner's, so an owner may call them while holding its own lock (the lock order is
/// owner, then driver).
public final class DueTimeDriver: @unchecked Sendable {  // @unchecked: every stored var is guarded by `condition`
    /// The clock the due times are on.
    public let clock: any MotionClock
    /// The thread's name (its first 15 bytes reach the kernel).
    public let name: String
    /// The longest the thread waits between two steps, seconds.
    public let pollInterval: TimeInterval

    private let condition = NSCondition()
    private var step: (@Sendable (TimeInterval) -> Void)?
    private var nextDue: (@Sendable () -> TimeInterval?)?
    private var busy = false
    private var threadRunning = false
    private var generation = 0
    /// Set by ``wake()``, cleared when the thread looks at the owner again.
    private var poked = false
    private var observerToken: Int?

    /// Waits shorter than this are slept, not waited on the condition (a condition wait is not worth it).
    private static let shortestWait: TimeInterval = 0.0005

    /// - Parameters:
    ///   - clock: the clock the owner's due times are on.
    ///   - name: the thread's name on the system clock, e.g. `coremotion.device`.
    ///   - pollInterval: the longest wait between two steps, seconds (> 0).
    public init(clock: any MotionClock, name: String, pollInterval: TimeInterval = 0.1) {
        precondition(pollInterval > 0, "the poll interval must be positive")
        self.clock = clock
        self.name = name
        self.pollInterval = pollInterval
    }

    deinit {
        if let observerToken, let virtual = clock as? VirtualClock { virtual.removeObserver(observerToken) }
    }

    /// Gives the driver the owner's step and next due time; call once, at the end of the owner's `init`
    /// (capture the owner weakly: the driver's thread must not keep it alive). On a ``VirtualClock`` the
    /// step runs from the next `advance` on.
    public func bind(step: @escaping @Sendable (TimeInterval) -> Void, nextDue: @escaping @Sendable () -> TimeInterval?) {
        condition.lock()
        precondition(self.step == nil, "a DueTimeDriver is bound once")
        self.step = step
        self.nextDue = nextDue
        condition.unlock()
        guard let virtual = clock as? VirtualClock else { return }
        let token = virtual.addObserver { [weak self] now in self?.stepOnVirtualClock(now) }
        condition.lock()
        observerToken = token
        condition.unlock()
    }

    /// Whether the owner wants to be stepped: `true` starts the thread (again, if it had ended), `false` stops
    /// it (a step under way finishes; none follows). Nothing on a virtual clock.
    public func setBusy(_ busy: Bool) {
        guard !clock.isVirtual else { return }
        condition.lock()
        defer { condition.unlock() }
        self.busy = busy
        if busy {
            guard !threadRunning else { return }
            threadRunning = true
            generation += 1
            let generation = generation
            let name = name
            let thread = Thread { [self] in
                KernelThreadName.setCurrent(name)
                // Due times to the microsecond rather than Linux's default 50 µs of timer slack (a 1 kHz
                // device's raw samples reached a client about 50 µs later: BENCHMARKS.md §6).
                TimerSlack.setCurrent(nanoseconds: 1_000)
                self.drive(generation: generation)
            }
            thread.name = name
            thread.qualityOfService = .userInteractive
            thread.start()
        } else if threadRunning {
            threadRunning = false
            generation += 1
            condition.broadcast()
        }
    }

    /// New items came: the thread looks at `nextDue()` again now rather than at the end of its wait (and
    /// starts again if it had ended with nothing due while the owner is busy). Nothing on a virtual clock,
    /// where time moves only in `advance`.
    public func wake() {
        guard !clock.isVirtual else { return }
        condition.lock()
        let restart = busy && !threadRunning
        poked = true
        condition.broadcast()
        condition.unlock()
        if restart { setBusy(true) }
    }

    /// Whether the thread of a busy period is running now (`false` on a virtual clock).
    public var isRunning: Bool {
        condition.lock()
        defer { condition.unlock() }
        return threadRunning
    }

    private func stepOnVirtualClock(_ now: TimeInterval) {
        condition.lock()
        let step = self.step
        condition.unlock()
        step?(now)
    }

    /// The owner's closures when `generation` is still the current one (clearing the poke), else `nil`.
    private func current(_ generation: Int) -> (step: @Sendable (TimeInterval) -> Void, nextDue: @Sendable () -> TimeInterval?)? {
        condition.lock()
        defer { condition.unlock() }
        guard threadRunning, self.generation == generation, let step, let nextDue else { return nil }
        poked = false
        return (step, nextDue)
    }

    private func drive(generation: Int) {
        while let (step, nextDue) = current(generation) {
            step(clock.now)
            guard let due = nextDue() else {
                // Nothing will fall due: end, unless items came meanwhile.
                condition.lock()
                let ending = self.generation == generation && !poked
                if ending { threadRunning = false }
                condition.unlock()
                if ending { return }
                continue
            }
            let wait = min(max(due - clock.now, 0), pollInterval)
            if wait > Self.shortestWait {
                condition.lock()
                if threadRunning && self.generation == generation && !poked {
                    _ = condition.wait(until: Date().addingTimeInterval(wait))
                }
                condition.unlock()
            } else if wait > 0 {
                // Sleep rather than spin (with this thread's 1 µs timer slack, the wake-up is on time); the items
                // keep their scheduled times. At 10 kHz this costs a few per cent of a core, not all of it.
                usleep(UInt32(max(1, wait * 1e6)))
            }
        }
    }
}
