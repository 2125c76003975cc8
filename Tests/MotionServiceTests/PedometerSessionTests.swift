import Foundation
import MotionHistory
@testable import MotionService
import MotionSamples
import MotionSimulator
import Synchronization
import Testing

/// A history whose pedometer totals wait for the test to let them through (a PostgreSQL server far away or
/// down); everything else goes to an in-memory store.
private final class GatedHistory: HistoryStorage, @unchecked Sendable {  // @unchecked: `isOpen`, `waiting` under `condition`
    let inner: HistoryStore
    private let condition = NSCondition()
    private var isOpen = true
    private var waiting = 0

    init() throws { inner = try HistoryStore(configuration: HistoryConfiguration(location: .inMemory)) }

    /// Holds every pedometer query until ``open()``.
    func hold() { condition.withLock { isOpen = false } }

    /// Lets the queries through.
    func open() {
        condition.withLock {
            isOpen = true
            condition.broadcast()
        }
    }

    /// Waits until a query is held at the gate, at most `seconds`.
    func awaitQueryHeld(seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while waiting == 0 {
            if !condition.wait(until: deadline) { return waiting > 0 }
        }
        return true
    }

    func pedometerSummary(from start: Date, to end: Date, source: String?) throws -> PedometerSummary {
        condition.lock()
        waiting += 1
        condition.broadcast()
        while !isOpen { condition.wait() }
        waiting -= 1
        condition.unlock()
        return try inner.pedometerSummary(from: start, to: end, source: source)
    }

    var locationDescription: String { "gated" }
    func close() throws { try inner.close() }
    func flush() throws { try inner.flush() }
    func append(contentsOf steps: [StepRecord], source: String) throws { try inner.append(contentsOf: steps, source: source) }
    func append(contentsOf floors: [FloorRecord], source: String) throws { try inner.append(contentsOf: floors, source: source) }
    func append(contentsOf transitions: [PedometerTransitionRecord], source: String) throws {
        try inner.append(contentsOf: transitions, source: source)
    }
    func append(contentsOf activities: [ActivityRecord], source: String) throws { try inner.append(contentsOf: activities, source: source) }
    func append(contentsOf samples: [AccelerometerRecord], source: String) throws { try inner.append(contentsOf: samples, source: source) }
    func pedometerTransitions(from start: Date, to end: Date, source: String?) throws -> [PedometerTransitionRecord] {
        try inner.pedometerTransitions(from: start, to: end, source: source)
    }
    func latestRecordDate(source: String) throws -> Date? { try inner.latestRecordDate(source: source) }
    func recordSpan() throws -> ClosedRange<Date>? { try inner.recordSpan() }
    func statistics() throws -> HistoryStatistics { try inner.statistics() }
    func devices() throws -> [HistoryDeviceSummary] { try inner.devices() }
    func activities(from start: Date, to end: Date, source: String?) throws -> [ActivitySegment] {
        try inner.activities(from: start, to: end, source: source)
    }
    func accelerometerSamples(from start: Date, to end: Date, source: String?) throws -> [RecordedAccelerometerSample] {
        try inner.accelerometerSamples(from: start, to: end, source: source)
    }
    func addAccelerometerRecording(from start: Date, duration: TimeInterval, source: String) throws -> AccelerometerRecordingRequest {
        try inner.addAccelerometerRecording(from: start, duration: duration, source: source)
    }
    func accelerometerRecordingRequests(activeAt date: Date, source: String?) throws -> [AccelerometerRecordingRequest] {
        try inner.accelerometerRecordingRequests(activeAt: date, source: source)
    }
    func accelerometerRecordingEnd(activeAt date: Date, source: String?) throws -> Date? {
        try inner.accelerometerRecordingEnd(activeAt: date, source: source)
    }
}

/// A value shared between the test and a handler's thread.
private final class Latest<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func set(_ newValue: Value) { value.withLock { $0 = newValue } }
    var current: Value { value.withLock { $0 } }
}

@Suite("live pedometer sessions from a past date")
struct PedometerSessionTests {
    /// A service walking `walking-in-hand` (3 s standing, 60 s walking, 3 s standing) on a virtual clock,
    /// recording steps from the start, with the history given.
    private func walkingService(history: GatedHistory) throws -> (MotionService, VirtualClock) {
        let clock = VirtualClock()
        let simulation = try Simulation(scene: SceneCatalog.resolve("walking-in-hand"), seed: 1)
        let device = ScheduledDevice(name: "sim:walking-in-hand", source: simulation.makeSource(), clock: clock)
        let service = MotionService(device: device, history: .inMemory)
        service.historyLock.withLock { service.historyState = .open(history) }
        service.startPedometerRecording()
        return (service, clock)
    }

    @Test("a session's slow history query stalls no delivery, and every step is counted once")
    func slowHistoryStallsNothing() throws {
        // Measured before the recorder read the history outside its lock: the device thread waited for the
        // query (the advance below did not return before it), since it takes that lock for every accelerometer batch.
        var totals: [Int] = []
        for gated in [false, true] {
            let history = try GatedHistory()
            let (service, clock) = try walkingService(history: history)
            let start = clock.date(at: clock.now)
            clock.advance(by: 20)
            #expect(service.deliveries.waitUntilDelivered(timeout: 30))
            let before = try history.inner.pedometerSummary(from: start, to: clock.date(at: clock.now), source: nil).steps
            #expect(before >= 20, "steps in the history before the session: \(before)")

            if gated { history.hold() }
            let last = Latest<PedometerTotals?>(nil)
            let added = DispatchSemaphore(value: 0)
            let subscription = Latest<(any MotionSubscription)?>(nil)
            DispatchQueue.global().async {
                subscription.set(service.subscribePedometer(from: start) { last.set($0) })
                added.signal()
            }
            if gated {
                #expect(history.awaitQueryHeld(seconds: 30))
                // 20 s of walking delivered while the session's history query waits (advanced on a thread of
                // its own: the virtual clock waits for the device, which a stalled recorder would hold).
                let delivered = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    clock.advance(by: 20)
                    _ = service.deliveries.waitUntilDelivered(timeout: 60)
                    delivered.signal()
                }
                let stalled = delivered.wait(timeout: .now() + 10) != .success
                #expect(!stalled, "delivery stalled behind the history query")
                history.open()
                if stalled { _ = delivered.wait(timeout: .now() + 60) }
                #expect(added.wait(timeout: .now() + 30) == .success)
            } else {
                #expect(added.wait(timeout: .now() + 30) == .success)
                clock.advance(by: 20)
                #expect(service.deliveries.waitUntilDelivered(timeout: 10))
            }
            // The walk ends at 63 s; its pause (3.4 s after the last step) makes the session report.
            clock.advance(by: 28)
            #expect(service.deliveries.waitUntilDelivered(timeout: 30))
            let end = clock.date(at: clock.now)
            let stored = try history.inner.pedometerSummary(from: start, to: end, source: nil).steps
            let reported = try #require(last.current).steps
            #expect(reported == stored, "the session reported \(reported) steps, the history holds \(stored)")
            totals.append(reported)
            subscription.current?.cancel()
        }
        // The same walk without a slow history counts the same steps: none lost, none twice.
        #expect(totals.count == 2 && totals[0] == totals[1], "\(totals)")
        #expect((totals.first ?? 0) >= 100)
    }
}
