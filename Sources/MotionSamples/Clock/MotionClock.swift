import Foundation

/// Time for everything above the devices: seconds on the time base of
/// `ProcessInfo.processInfo.systemUptime` (Apple's "seconds since boot"), plus the mapping to
/// wall-clock dates that pedometer and activity dates need.
///
/// Nothing in the engine or the service reads the wall clock directly; it reads the clock it is
/// given, so a recording can run on a ``VirtualClock`` at any speed with identical results.
public protocol MotionClock: AnyObject, Sendable {
    /// Current time, seconds.
    var now: TimeInterval { get }
    /// The wall-clock date of a time on this clock.
    func date(at time: TimeInterval) -> Date
    /// The time on this clock of a wall-clock date.
    func time(at date: Date) -> TimeInterval
    /// True for a clock that only moves when told to (``VirtualClock``).
    var isVirtual: Bool { get }
}

/// The host's monotonic clock: `ProcessInfo.processInfo.systemUptime`.
public final class SystemClock: MotionClock {
    /// The process-wide instance.
    public static let shared = SystemClock()

    private let dateOffset: TimeInterval

    public init() {
        // Wall-clock date of uptime 0, fixed once so that dates are monotonic with uptime.
        dateOffset = Date().timeIntervalSinceReferenceDate - ProcessInfo.processInfo.systemUptime
    }

    public var now: TimeInterval { ProcessInfo.processInfo.systemUptime }
    public func date(at time: TimeInterval) -> Date { Date(timeIntervalSinceReferenceDate: dateOffset + time) }
    public func time(at date: Date) -> TimeInterval { date.timeIntervalSinceReferenceDate - dateOffset }
    public var isVirtual: Bool { false }
}

/// A clock that moves only when ``advance(by:)`` or ``advance(to:)`` is called.
///
/// Observers (virtual-time devices) run synchronously inside `advance`, on the caller's thread, in
/// the order they were added, so everything a device emits up to the new time has been handed on
/// when `advance` returns.
public final class VirtualClock: MotionClock, @unchecked Sendable {  // @unchecked: `current`, `observers`, `nextID` are guarded by `lock`; `advancing` serialises advances
    private let lock = NSLock()
    private var current: TimeInterval
    private let origin: TimeInterval
    private let originDate: Date
    private var observers: [(id: Int, body: @Sendable (TimeInterval) -> Void)] = []
    private var nextID = 0
    private let advancing = NSLock()

    /// - Parameters:
    ///   - start: the clock's initial time, seconds (an uptime; default 1000 s after "boot").
    ///   - startDate: the wall-clock date of `start` (default 2025-01-01T00:00:00Z), so that dates
    ///     are identical every run.
    public init(start: TimeInterval = 1000, startDate: Date = Date(timeIntervalSince1970: 1_735_689_600)) {
        current = start
        origin = start
        originDate = startDate
    }

    public var now: TimeInterval {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    public func date(at time: TimeInterval) -> Date { originDate.addingTimeInterval(time - origin) }
    public func time(at date: Date) -> TimeInterval { origin + date.timeIntervalSince(originDate) }
    public var isVirtual: Bool { true }

    /// Moves the clock forward by `seconds` (≥ 0) and runs the observers.
    public func advance(by seconds: TimeInterval) {
        precondition(seconds >= 0 && seconds.isFinite, "VirtualClock.advance(by:) needs a finite, non-negative interval")
        advance(to: now + seconds)
    }

    /// Moves the clock to `time` (never backwards) and runs the observers.
    ///
    /// Large steps are taken in slices of at most 50 ms so that observers see time move the way
    /// it does on a device.
    public func advance(to time: TimeInterval) {
        advancing.lock()
        defer { advancing.unlock() }
        var t = now
        while t < time {
            t = min(time, t + 0.05)
            lock.lock()
            current = t
            let list = observers
            lock.unlock()
            for o in list { o.body(t) }
        }
    }

    /// Adds an observer called with the new time on every step of an advance. Returns a token for
    /// ``removeObserver(_:)``.
    @discardableResult
    public func addObserver(_ body: @escaping @Sendable (TimeInterval) -> Void) -> Int {
        lock.lock()
        defer { lock.unlock() }
        nextID += 1
        observers.append((nextID, body))
        return nextID
    }

    public func removeObserver(_ token: Int) {
        lock.lock()
        defer { lock.unlock() }
        observers.removeAll { $0.id == token }
    }
}
