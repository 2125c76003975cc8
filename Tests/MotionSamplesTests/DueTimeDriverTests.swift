import Foundation
import MotionSamples
import Testing

@Suite struct DueTimeDriverTests {
    /// On a virtual clock the step runs inside `advance`, with the clock's times, busy or not; the observer
    /// goes with the driver.
    @Test func virtualClockStepsInsideAdvance() {
        let clock = VirtualClock(start: 100)
        let steps = StepLog()
        var driver: DueTimeDriver? = DueTimeDriver(clock: clock, name: "due-test")
        driver?.bind(step: { steps.add($0) }, nextDue: { nil })
        clock.advance(by: 0.02)
        #expect(steps.times.count == 1 && abs((steps.times.first ?? 0) - 100.02) < 1e-9)
        driver?.setBusy(true)  // nothing on a virtual clock
        #expect(driver?.isRunning == false)
        clock.advance(by: 0.03)
        #expect(steps.times.count == 2)
        driver = nil
        clock.advance(by: 0.05)
        #expect(steps.times.count == 2)
    }

    /// On the system clock a named thread steps at the due times while busy, ends when nothing more is due,
    /// starts again on `wake`, and never steps once idle.
    @Test func systemClockThreadFollowsBusyAndDueTimes() async throws {
        let clock = SystemClock()
        let steps = StepLog()
        let due = DueList()
        let driver = DueTimeDriver(clock: clock, name: "due-test-sys", pollInterval: 0.1)
        driver.bind(step: { now in
            steps.add(now, thread: "\(KernelThreadName.current ?? "?") slack \(TimerSlack.current.map(String.init) ?? "?")")
            due.drop(until: now)
        }, nextDue: { due.next })
        let start = clock.now
        due.set([start + 0.02, start + 0.05])
        driver.setBusy(true)
        #expect(try await eventually { steps.times.contains { $0 >= start + 0.05 } })
        // Named, and with 1 µs of timer slack instead of Linux's 50 µs (a 1 kHz device's samples on time).
        #expect(steps.threads.allSatisfy { $0 == "due-test-sys slack 1000" }, "\(steps.threads)")
        // Nothing due: the thread ends.
        #expect(try await eventually { !driver.isRunning })
        let count = steps.times.count
        // New items and a wake: it runs again until they are played.
        due.set([clock.now + 0.03])
        driver.wake()
        #expect(try await eventually { steps.times.count > count && due.next == nil })
        // Idle: no step after the one under way.
        due.set([clock.now + 10])
        driver.setBusy(false)
        #expect(!driver.isRunning)
        try await Task.sleep(nanoseconds: 50_000_000)
        let stopped = steps.times.count
        try await Task.sleep(nanoseconds: 250_000_000)
        #expect(steps.times.count == stopped)
    }

    /// A step that stalls (a stalled sink) does not stall the owner's calls: `setBusy` and `wake` return.
    @Test func aStalledStepStallsNothingElse() async throws {
        let clock = SystemClock()
        let gate = Gate()
        let entered = LockedFlag()
        let driver = DueTimeDriver(clock: clock, name: "due-test-stall")
        driver.bind(
            step: { _ in
                entered.set()
                gate.pass()
            },
            nextDue: { .infinity })
        driver.setBusy(true)
        #expect(try await eventually { entered.value })
        driver.wake()
        driver.setBusy(false)
        driver.setBusy(true)
        driver.setBusy(false)
        gate.open()
        #expect(!driver.isRunning)
    }
}

/// Polls `condition` every 10 ms for at most 5 s.
private func eventually(_ condition: () -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(5)
    while !condition() {
        if Date() > deadline { return false }
        try await Task.sleep(nanoseconds: 10_000_000)
    }
    return true
}

private final class StepLog: @unchecked Sendable {  // @unchecked: every stored var is guarded by `lock`
    private let lock = NSLock()
    private var storedTimes: [TimeInterval] = []
    private var storedThreads: [String?] = []

    func add(_ time: TimeInterval, thread: String? = nil) {
        lock.lock()
        storedTimes.append(time)
        storedThreads.append(thread)
        lock.unlock()
    }

    var times: [TimeInterval] {
        lock.lock()
        defer { lock.unlock() }
        return storedTimes
    }

    var threads: [String?] {
        lock.lock()
        defer { lock.unlock() }
        return storedThreads
    }
}

private final class DueList: @unchecked Sendable {  // @unchecked: every stored var is guarded by `lock`
    private let lock = NSLock()
    private var times: [TimeInterval] = []

    func set(_ times: [TimeInterval]) {
        lock.lock()
        self.times = times
        lock.unlock()
    }

    func drop(until now: TimeInterval) {
        lock.lock()
        times.removeAll { $0 <= now }
        lock.unlock()
    }

    var next: TimeInterval? {
        lock.lock()
        defer { lock.unlock() }
        return times.min()
    }
}

/// Holds whoever calls `pass` until `open`.
private final class Gate: @unchecked Sendable {  // @unchecked: every stored var is guarded by `condition`
    private let condition = NSCondition()
    private var isOpen = false

    func pass() {
        condition.lock()
        while !isOpen { condition.wait() }
        condition.unlock()
    }

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }
}

private final class LockedFlag: @unchecked Sendable {  // @unchecked: every stored var is guarded by `lock`
    private let lock = NSLock()
    private var stored = false

    func set() {
        lock.lock()
        stored = true
        lock.unlock()
    }

    var value: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
