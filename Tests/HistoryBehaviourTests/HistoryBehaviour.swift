import Foundation
import MotionHistory
import MotionSamples
import MotionSimulator
import Testing

/// One behaviour every history store shows, written once and run on each store (`HistoryBehaviourSuites`).
struct Behaviour: Sendable, CustomTestStringConvertible {
    let name: String
    /// Closes a store and opens the same history again (not possible in memory).
    let needsReopen: Bool
    let body: @Sendable (HistoryFixture) throws -> Void

    var testDescription: String { name }

    /// The (behaviour, store) pairs to run on `kinds`, skipping reopening in memory.
    static func cases(on kinds: [StoreKind]) -> [(Behaviour, StoreKind)] {
        HistoryBehaviour.all.flatMap { behaviour in
            kinds.filter { $0 != .sqliteMemory || !behaviour.needsReopen }.map { (behaviour, $0) }
        }
    }
}

/// The behaviours.
enum HistoryBehaviour {
    static let all: [Behaviour] = [
        Behaviour(name: "step summary: totals, distance, moving time, a minute merged from two flushes", needsReopen: false, body: stepSummary),
        Behaviour(name: "a second step in the same millisecond is ignored", needsReopen: false, body: duplicateSteps),
        Behaviour(name: "floors and pedometer transitions", needsReopen: false, body: floorsAndTransitions),
        Behaviour(name: "activity segments: state in force, merged, ordered, clipped", needsReopen: false, body: activitySegments),
        Behaviour(name: "accelerometer samples round-trip with increasing identifiers", needsReopen: false, body: accelerometerRoundTrip),
        Behaviour(name: "accelerometer identifiers continue after reopening", needsReopen: true, body: identifiersAcrossReopen),
        Behaviour(name: "an out-of-order accelerometer sample is refused with its batch", needsReopen: false, body: outOfOrderSamples),
        Behaviour(name: "recording requests: active, ending, limits", needsReopen: false, body: recordingRequests),
        Behaviour(name: "invalid spans, sources and records are refused", needsReopen: false, body: invalidInputs),
        Behaviour(name: "a nil source reads every source, a source only its own", needsReopen: false, body: sourceFilter),
        Behaviour(name: "latest record date and record span", needsReopen: false, body: latestAndSpan),
        Behaviour(name: "records survive close and reopen (close writes what is pending)", needsReopen: true, body: survivesReopen),
        Behaviour(name: "a closed store throws closed", needsReopen: false, body: closedStore),
        Behaviour(name: "statistics count what was written", needsReopen: false, body: statisticsCounts),
        Behaviour(name: "step summaries equal the SQLite reference's on irregular steps", needsReopen: false, body: matchesReference),
    ]

    // MARK: Steps

    static func stepSummary(_ fixture: HistoryFixture) throws {
        let store = try fixture.open()
        defer { try? store.close() }
        let source = "iio:test"
        // 200 steps 0.5 s apart from at(10) (the minute starts at at(40) and at(100)), two flushes that
        // both write the minute [at(40), at(100)).
        let walk = (0..<200).map { StepRecord(date: at(10 + 0.5 * Double($0)), strideLength: 0.7) }
        try store.append(contentsOf: Array(walk[..<100]), source: source)
        try store.flush()
        try store.append(contentsOf: Array(walk[100...]), source: source)
        try store.flush()
        // 10 steps 1 s apart; then gaps of exactly 2 s (moving) and 3 s (not).
        let stroll = (0..<10).map { StepRecord(date: at(300 + Double($0)), strideLength: 0.6) }
        let gaps = [400.0, 402, 405].map { StepRecord(date: at($0), strideLength: 0.5) }
        try store.append(contentsOf: stroll + gaps, source: source)

        let all = try store.pedometerSummary(from: at(0), to: at(1000), source: source)
        #expect(all.steps == 213)
        #expect(abs(all.distance - (200 * 0.7 + 10 * 0.6 + 3 * 0.5)) < 1e-9)
        #expect(all.activeDuration == 99.5 + 9 + 2)
        #expect(all.firstStepDate == at(10))
        #expect(all.lastStepDate == at(405))
        let inside = try store.pedometerSummary(from: at(20), to: at(30), source: source)
        #expect(inside.steps == 20)
        #expect(inside.activeDuration == 10)
        // Adjacent spans add up, wherever they cut.
        let cuts = [0, 10, 39.75, 40, 59.9, 60, 99.99, 100, 100.25, 301.5, 401, 403, 1000].map(at)
        var total = PedometerSummary(start: at(0), end: at(1000))
        for (from, to) in zip(cuts, cuts.dropFirst()) {
            let part = try store.pedometerSummary(from: from, to: to, source: source)
            #expect(part == naiveSummary(walk + stroll + gaps, from: from, to: to))
            total.steps += part.steps
            total.activeDuration += part.activeDuration
        }
        #expect(total.steps == all.steps)
        #expect(abs(total.activeDuration - all.activeDuration) < 1e-9)
        // Over everything, the whole minutes come from the stored totals.
        #expect(all == naiveSummary(walk + stroll + gaps, from: at(0), to: at(1000)))
    }

    static func duplicateSteps(_ fixture: HistoryFixture) throws {
        let store = try fixture.open()
        defer { try? store.close() }
        try store.append(contentsOf: [StepRecord(date: at(10), strideLength: 0.7), StepRecord(date: at(10.0001), strideLength: 0.9)], source: "s")
        try store.flush()
        try store.append(StepRecord(date: at(10.0004), strideLength: 0.8), source: "s")  // the same millisecond again
        try store.append(StepRecord(date: at(10.0006), strideLength: 0.8), source: "s")  // the next one
        let summary = try store.pedometerSummary(from: at(0), to: at(60), source: "s")
        #expect(summary.steps == 2)
        #expect(abs(summary.distance - 1.5) < 1e-9)
        #expect(summary.activeDuration == 0.001)
        #expect(try store.statistics().steps == 2)
    }

    // MARK: Floors and transitions

    static func floorsAndTransitions(_ fixture: HistoryFixture) throws {
        let store = try fixture.open()
        defer { try? store.close() }
        try store.append(contentsOf: [
            FloorRecord(date: at(5), change: .ascended), FloorRecord(date: at(15), change: .ascended),
            FloorRecord(date: at(25), change: .descended), FloorRecord(date: at(35), change: .ascended),
        ], source: "s")
        try store.append(contentsOf: [
            PedometerTransitionRecord(date: at(30), transition: .resume),
            PedometerTransitionRecord(date: at(10), transition: .pause),
            PedometerTransitionRecord(date: at(50), transition: .pause),
        ], source: "s")
        let summary = try store.pedometerSummary(from: at(5), to: at(35), source: "s")
        #expect(summary.floorsAscended == 2)
        #expect(summary.floorsDescended == 1)
        #expect(summary.steps == 0)
        let transitions = try store.pedometerTransitions(from: at(10), to: at(50), source: "s")
        #expect(transitions == [
            PedometerTransitionRecord(date: at(10), transition: .pause), PedometerTransitionRecord(date: at(30), transition: .resume),
        ])
        #expect(try store.pedometerTransitions(from: at(10), to: at(50), source: "other").isEmpty)
    }

    // MARK: Activity

    static func activitySegments(_ fixture: HistoryFixture) throws {
        let store = try fixture.open()
        defer { try? store.close() }
        try store.append(contentsOf: [
            ActivityRecord(startDate: at(0), flags: .walking, confidence: .high),
            ActivityRecord(startDate: at(10), flags: .walking, confidence: .high),
            ActivityRecord(startDate: at(20), flags: .running, confidence: .medium),
            ActivityRecord(startDate: at(40), flags: .stationary, confidence: .low),
        ], source: "a")
        try store.append(ActivityRecord(startDate: at(5), flags: .cycling, confidence: .high), source: "b")
        // The state in force at the start comes first; the same state again is one segment.
        #expect(try store.activities(from: at(5), to: at(30), source: "a") == [
            ActivitySegment(startDate: at(0), flags: .walking, confidence: .high, source: "a"),
            ActivitySegment(startDate: at(20), flags: .running, confidence: .medium, source: "a"),
        ])
        // A segment starting at the start is the state then; one starting at the end is not included.
        #expect(try store.activities(from: at(20), to: at(40), source: "a") == [
            ActivitySegment(startDate: at(20), flags: .running, confidence: .medium, source: "a"),
        ])
        // Every source, by start.
        #expect(try store.activities(from: at(6), to: at(30), source: nil) == [
            ActivitySegment(startDate: at(0), flags: .walking, confidence: .high, source: "a"),
            ActivitySegment(startDate: at(5), flags: .cycling, confidence: .high, source: "b"),
            ActivitySegment(startDate: at(20), flags: .running, confidence: .medium, source: "a"),
        ])
        #expect(try store.activities(from: at(25), to: at(25), source: nil).isEmpty)
        #expect(try store.activities(from: at(-10), to: at(-1), source: nil).isEmpty)
    }

    // MARK: Accelerometer

    static func samples(_ count: Int, from start: Double, every interval: Double = 0.02) -> [AccelerometerRecord] {
        (0..<count).map { i in
            let x = sin(Double(i) * 0.37) * 1.3
            return AccelerometerRecord(date: at(start + interval * Double(i)), acceleration: Vector3(x, -x / 3 + 0.1, -1 + 1e-9 * Double(i)))
        }
    }

    static func accelerometerRoundTrip(_ fixture: HistoryFixture) throws {
        let store = try fixture.open()
        defer { try? store.close() }
        let written = samples(2500, from: 0.01)  // 50 s at 50 Hz: three chunks
        try store.append(contentsOf: written, source: "iio:accel")
        let read = try store.accelerometerSamples(from: at(0), to: at(60), source: "iio:accel")
        #expect(read.count == 2500)
        for (sample, original) in zip(read, written) {
            #expect(abs(sample.date.timeIntervalSince(original.date)) < 1e-6)
            for (a, b) in [(sample.acceleration.x, original.acceleration.x), (sample.acceleration.y, original.acceleration.y),
                           (sample.acceleration.z, original.acceleration.z)] {
                #expect(abs(a - b) <= 6e-8 * abs(b) + 1e-45)
                #expect(a == Double(Float(b)))
            }
        }
        #expect(zip(read, read.dropFirst()).allSatisfy { $1.identifier == $0.identifier + 1 })
        // (start, end]: a sample at the start is not included, one at the end is.
        let bounded = try store.accelerometerSamples(from: written[0].date, to: written[2].date, source: nil)
        #expect(bounded.map(\.identifier) == [read[1].identifier, read[2].identifier])
        #expect(try store.accelerometerSamples(from: at(0), to: at(60), source: "other").isEmpty)
        #expect(try store.statistics().accelerometerChunks == 3)
    }

    static func identifiersAcrossReopen(_ fixture: HistoryFixture) throws {
        var store = try fixture.open()
        try store.append(contentsOf: samples(10, from: 0), source: "iio:accel")
        try store.close()
        store = try fixture.open()
        defer { try? store.close() }
        try store.append(contentsOf: samples(10, from: 1), source: "iio:accel")
        let read = try store.accelerometerSamples(from: at(-1), to: at(2), source: "iio:accel")
        #expect(read.count == 20)
        #expect(zip(read, read.dropFirst()).allSatisfy { $1.identifier > $0.identifier })
    }

    static func outOfOrderSamples(_ fixture: HistoryFixture) throws {
        let store = try fixture.open()
        defer { try? store.close() }
        let first = AccelerometerRecord(date: at(1), acceleration: Vector3(0, 0, -1))
        let earlier = AccelerometerRecord(date: at(0.5), acceleration: Vector3(0, 0, -1))
        let later = AccelerometerRecord(date: at(2), acceleration: Vector3(0, 0, -1))
        #expect(throws: HistoryError.outOfOrderSample(source: "s", index: 1, date: at(0.5), previous: at(1))) {
            try store.append(contentsOf: [first, earlier], source: "s")
        }
        try store.append(contentsOf: [first], source: "s")
        #expect(throws: HistoryError.outOfOrderSample(source: "s", index: 1, date: at(1), previous: at(2))) {
            try store.append(contentsOf: [later, first], source: "s")
        }
        #expect(throws: HistoryError.outOfOrderSample(source: "s", index: 0, date: at(1), previous: at(1))) {
            try store.append(contentsOf: [first], source: "s")
        }
        // Another source has its own order.
        try store.append(contentsOf: [earlier], source: "t")
        #expect(try store.accelerometerSamples(from: at(0), to: at(10), source: "s").count == 1)
        #expect(try store.accelerometerSamples(from: at(0), to: at(10), source: nil).count == 2)
    }

    static func recordingRequests(_ fixture: HistoryFixture) throws {
        let store = try fixture.open()
        defer { try? store.close() }
        let first = try store.addAccelerometerRecording(from: at(0), duration: 100, source: "a")
        let second = try store.addAccelerometerRecording(from: at(50), duration: 200, source: "a")
        try store.addAccelerometerRecording(from: at(10), duration: 30, source: "b")
        #expect(first == AccelerometerRecordingRequest(start: at(0), end: at(100), source: "a"))
        #expect(try store.accelerometerRecordingRequests(activeAt: at(60), source: nil) == [first, second])
        #expect(try store.accelerometerRecordingRequests(activeAt: at(20), source: "b").map(\.end) == [at(40)])
        #expect(try store.accelerometerRecordingRequests(activeAt: at(40), source: "b").isEmpty)  // the end is exclusive
        #expect(try store.accelerometerRecordingEnd(activeAt: at(60), source: "a") == at(250))
        #expect(try store.accelerometerRecordingEnd(activeAt: at(100), source: nil) == at(250))
        #expect(try store.accelerometerRecordingEnd(activeAt: at(250), source: nil) == nil)
        #expect(try store.accelerometerRecordingEnd(activeAt: at(60), source: "c") == nil)
        try store.addAccelerometerRecording(from: at(0), duration: 43_200, source: "a")
        #expect(throws: HistoryError.spanTooLong(seconds: 43_201, limit: 43_200)) {
            try store.addAccelerometerRecording(from: at(0), duration: 43_201, source: "a")
        }
        #expect(throws: HistoryError.self) { try store.addAccelerometerRecording(from: at(0), duration: 0, source: "a") }
        #expect(throws: HistoryError.self) { try store.addAccelerometerRecording(from: at(0), duration: .nan, source: "a") }
    }

    // MARK: Validation

    static func invalidInputs(_ fixture: HistoryFixture) throws {
        let store = try fixture.open()
        defer { try? store.close() }
        let nan = Date(timeIntervalSince1970: .nan)
        #expect(throws: HistoryError.invalidSpan(start: at(10).timeIntervalSince1970, end: at(5).timeIntervalSince1970)) {
            try store.pedometerSummary(from: at(10), to: at(5), source: nil)
        }
        func isInvalidSpan(_ error: HistoryError) -> Bool {
            if case .invalidSpan = error { return true }
            return false
        }
        expectError(isInvalidSpan) { try store.pedometerSummary(from: nan, to: at(5), source: nil) }
        expectError(isInvalidSpan) { try store.pedometerTransitions(from: at(10), to: at(5), source: nil) }
        expectError(isInvalidSpan) { try store.activities(from: at(10), to: at(5), source: "s") }
        expectError(isInvalidSpan) { try store.accelerometerSamples(from: at(10), to: at(5), source: nil) }
        #expect(throws: HistoryError.spanTooLong(seconds: 43_201, limit: 43_200)) {
            try store.accelerometerSamples(from: at(0), to: at(43_201), source: nil)
        }
        #expect(try store.accelerometerSamples(from: at(0), to: at(43_200), source: nil).isEmpty)
        // An empty span is valid and empty.
        #expect(try store.pedometerSummary(from: at(5), to: at(5), source: nil).steps == 0)
        #expect(throws: HistoryError.invalidSource("")) { try store.append(StepRecord(date: at(0), strideLength: 0.7), source: "") }
        #expect(throws: HistoryError.invalidSource(String(repeating: "x", count: 1025))) {
            try store.append(StepRecord(date: at(0), strideLength: 0.7), source: String(repeating: "x", count: 1025))
        }
        #expect(throws: HistoryError.invalidRecord(kind: "step", index: 1, field: "strideLength (m, 0...65.535)", value: "70.0")) {
            try store.append(contentsOf: [StepRecord(date: at(0), strideLength: 0.7), StepRecord(date: at(1), strideLength: 70)], source: "s")
        }
        #expect(throws: HistoryError.self) { try store.append(FloorRecord(date: nan, change: .ascended), source: "s") }
        #expect(throws: HistoryError.self) {
            try store.append(ActivityRecord(startDate: at(0), flags: ActivityFlags(rawValue: 0x80), confidence: .low), source: "s")
        }
        #expect(throws: HistoryError.self) {
            try store.append(contentsOf: [AccelerometerRecord(date: at(0), acceleration: Vector3(.infinity, 0, 0))], source: "s")
        }
        // Nothing of a refused batch was kept.
        #expect(try store.pedometerSummary(from: at(-10), to: at(10), source: nil).steps == 0)
    }

    // MARK: Sources

    static func sourceFilter(_ fixture: HistoryFixture) throws {
        let store = try fixture.open()
        defer { try? store.close() }
        try store.append(contentsOf: (0..<30).map { StepRecord(date: at(Double($0)), strideLength: 0.7) }, source: "iio:x")
        try store.append(contentsOf: (0..<20).map { StepRecord(date: at(0.25 + Double($0)), strideLength: 0.8) }, source: "sim:walking")
        try store.append(FloorRecord(date: at(3), change: .ascended), source: "sim:walking")
        let all = try store.pedometerSummary(from: at(0), to: at(100), source: nil)
        let iio = try store.pedometerSummary(from: at(0), to: at(100), source: "iio:x")
        let sim = try store.pedometerSummary(from: at(0), to: at(100), source: "sim:walking")
        #expect(iio.steps == 30 && sim.steps == 20 && all.steps == 50)
        #expect(abs(all.distance - iio.distance - sim.distance) < 1e-9)
        #expect(all.activeDuration == iio.activeDuration + sim.activeDuration)
        #expect(iio.activeDuration == 29 && sim.activeDuration == 19)
        #expect(all.floorsAscended == 1 && iio.floorsAscended == 0)
        #expect(all.firstStepDate == at(0) && all.lastStepDate == at(29))
        #expect(try store.pedometerSummary(from: at(0), to: at(100), source: "replay:none").steps == 0)
        #expect(try store.latestRecordDate(source: "replay:none") == nil)
    }

    static func latestAndSpan(_ fixture: HistoryFixture) throws {
        let store = try fixture.open()
        defer { try? store.close() }
        #expect(try store.recordSpan() == nil)
        #expect(try store.latestRecordDate(source: "a") == nil)
        try store.append(contentsOf: [StepRecord(date: at(-20.25), strideLength: 0.7), StepRecord(date: at(100.5), strideLength: 0.7)], source: "a")
        try store.append(ActivityRecord(startDate: at(200), flags: .walking, confidence: .high), source: "a")
        try store.append(contentsOf: samples(5, from: 140, every: 2.5), source: "a")  // last at at(150)
        try store.append(PedometerTransitionRecord(date: at(120), transition: .pause), source: "b")
        try store.append(FloorRecord(date: at(300), change: .ascended), source: "b")
        #expect(try store.latestRecordDate(source: "a") == at(200))
        #expect(try store.latestRecordDate(source: "b") == at(300))
        let span = try #require(try store.recordSpan())
        #expect(abs(span.lowerBound.timeIntervalSince(at(-20.25))) < 1e-6)
        #expect(abs(span.upperBound.timeIntervalSince(at(300))) < 1e-6)
        // Only samples: the last sample's date.
        try store.append(contentsOf: samples(3, from: 400), source: "c")
        let latest = try #require(try store.latestRecordDate(source: "c"))
        #expect(abs(latest.timeIntervalSince(at(400.04))) < 1e-6)
    }

    // MARK: Lifecycle

    static func survivesReopen(_ fixture: HistoryFixture) throws {
        var store = try fixture.open()
        let steps = (0..<90).map { StepRecord(date: at(Double($0) * 0.75), strideLength: 0.7) }
        try store.append(contentsOf: Array(steps[..<45]), source: "s")
        try store.flush()
        try store.append(contentsOf: Array(steps[45...]), source: "s")  // pending until close
        try store.append(FloorRecord(date: at(3), change: .descended), source: "s")
        try store.append(PedometerTransitionRecord(date: at(4), transition: .pause), source: "s")
        try store.append(ActivityRecord(startDate: at(5), flags: .running, confidence: .high), source: "s")
        try store.append(contentsOf: samples(7, from: 6), source: "s")
        try store.addAccelerometerRecording(from: at(0), duration: 600, source: "s")
        let before = try store.pedometerSummary(from: at(0), to: at(100), source: "s")
        try store.append(StepRecord(date: at(99), strideLength: 1), source: "s")
        try store.close()
        store = try fixture.open()
        defer { try? store.close() }
        let after = try store.pedometerSummary(from: at(0), to: at(100), source: "s")
        #expect(after.steps == before.steps + 1)
        #expect(after.floorsDescended == 1)
        #expect(try store.pedometerTransitions(from: at(0), to: at(10), source: "s").count == 1)
        #expect(try store.activities(from: at(6), to: at(7), source: "s").map(\.flags) == [.running])
        #expect(try store.accelerometerSamples(from: at(0), to: at(10), source: "s").count == 7)
        #expect(try store.accelerometerRecordingEnd(activeAt: at(10), source: "s") == at(600))
        #expect(after == naiveSummary(steps + [StepRecord(date: at(99), strideLength: 1)], from: at(0), to: at(100), floorsDescended: 1))
    }

    static func closedStore(_ fixture: HistoryFixture) throws {
        let store = try fixture.open()
        try store.append(StepRecord(date: at(1), strideLength: 0.7), source: "s")
        try store.close()
        try store.close()  // twice: nothing
        func isClosed(_ error: HistoryError) -> Bool {
            if case .closed = error { return true }
            return false
        }
        expectError(isClosed) { try store.append(StepRecord(date: at(2), strideLength: 0.7), source: "s") }
        expectError(isClosed) { try store.flush() }
        expectError(isClosed) { try store.pedometerSummary(from: at(0), to: at(10), source: nil) }
        expectError(isClosed) { try store.pedometerTransitions(from: at(0), to: at(10), source: nil) }
        expectError(isClosed) { try store.activities(from: at(0), to: at(10), source: nil) }
        expectError(isClosed) { try store.accelerometerSamples(from: at(0), to: at(10), source: nil) }
        expectError(isClosed) { try store.latestRecordDate(source: "s") }
        expectError(isClosed) { try store.recordSpan() }
        expectError(isClosed) { try store.statistics() }
        expectError(isClosed) { try store.addAccelerometerRecording(from: at(0), duration: 10, source: "s") }
        expectError(isClosed) { try store.accelerometerRecordingRequests(activeAt: at(0), source: nil) }
    }

    static func statisticsCounts(_ fixture: HistoryFixture) throws {
        let store = try fixture.open()
        defer { try? store.close() }
        #expect(try store.statistics().steps == 0)
        try store.append(contentsOf: (0..<130).map { StepRecord(date: at(Double($0)), strideLength: 0.7) }, source: "a")  // 3 minutes
        try store.append(contentsOf: [FloorRecord(date: at(1), change: .ascended), FloorRecord(date: at(2), change: .descended)], source: "a")
        try store.append(PedometerTransitionRecord(date: at(1), transition: .pause), source: "b")
        try store.append(contentsOf: [
            ActivityRecord(startDate: at(0), flags: .walking, confidence: .high), ActivityRecord(startDate: at(9), flags: .running, confidence: .high),
        ], source: "b")
        try store.append(contentsOf: samples(1100, from: 0), source: "a")  // two chunks
        try store.addAccelerometerRecording(from: at(0), duration: 60, source: "a")
        let statistics = try store.statistics()
        #expect(statistics.sources == 2)
        #expect(statistics.steps == 130)
        #expect(statistics.stepMinutes == 3)
        #expect(statistics.floorChanges == 2)
        #expect(statistics.pedometerTransitions == 1)
        #expect(statistics.activitySegments == 2)
        #expect(statistics.accelerometerChunks == 2)
        #expect(statistics.accelerometerSamples == 1100)
        #expect(statistics.recordingRequests == 1)
        #expect(statistics.databaseBytes > 0)
    }

    // MARK: Against the reference

    /// Irregular steps (bursts, pauses around the 2 s gap, minute edges), appended out of order in several
    /// flushes, summed over many spans: equal to an in-memory SQLite store's answers and to the definition.
    static func matchesReference(_ fixture: HistoryFixture) throws {
        let store = try fixture.open()
        defer { try? store.close() }
        let reference = try HistoryStore(location: .inMemory)
        defer { try? reference.close() }
        var generator = SplitMix64(seed: 42)
        var steps: [StepRecord] = []
        var t = 5.0
        while t < 700 {
            let gap: Double
            switch generator.next() % 10 {
            case 0: gap = 1.999 + Double(generator.next() % 3) * 0.001  // around the 2 s rule
            case 1: gap = 3 + Double(generator.next() % 5000) / 100
            default: gap = 0.3 + Double(generator.next() % 400) / 1000
            }
            t += gap
            steps.append(StepRecord(date: at(t), strideLength: Double(500 + generator.next() % 400) / 1000))
        }
        // Out of order, in four batches, each flushed.
        var shuffled = steps
        for i in stride(from: shuffled.count - 1, to: 0, by: -1) { shuffled.swapAt(i, Int(generator.next() % UInt64(i + 1))) }
        let size = (shuffled.count + 3) / 4
        for batch in stride(from: 0, to: shuffled.count, by: size).map({ Array(shuffled[$0..<min($0 + size, shuffled.count)]) }) {
            try store.append(contentsOf: batch, source: "sim:random")
            try reference.append(contentsOf: batch, source: "sim:random")
            try store.flush()
        }
        for _ in 0..<40 {
            let a = Double(generator.next() % 720_000) / 1000
            let b = a + Double(generator.next() % 300_000) / 1000
            for source in ["sim:random", nil] as [String?] {
                let mine = try store.pedometerSummary(from: at(a), to: at(b), source: source)
                #expect(mine == (try reference.pedometerSummary(from: at(a), to: at(b), source: source)), "span \(a)…\(b)")
                #expect(mine == naiveSummary(steps, from: at(a), to: at(b)), "span \(a)…\(b)")
            }
        }
    }

    // MARK: Helpers

    /// Expects `body` to throw a ``HistoryError`` that `matches`.
    static func expectError<R>(
        _ matches: (HistoryError) -> Bool, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
    ) {
        let error = #expect(throws: HistoryError.self, sourceLocation: sourceLocation) { try body() }
        if let error, !matches(error) { Issue.record("unexpected error: \(error)", sourceLocation: sourceLocation) }
    }

    /// The summary by its definition: steps by the millisecond (a duplicate ignored), moving time the part
    /// of `[from, to)` covered by gaps of at most 2 s between consecutive steps.
    static func naiveSummary(
        _ steps: [StepRecord], from: Date, to: Date, floorsAscended: Int = 0, floorsDescended: Int = 0
    ) -> PedometerSummary {
        var byMillisecond: [Int64: Int64] = [:]
        for step in steps {
            let ms = Int64((step.date.timeIntervalSince1970 * 1000).rounded())
            if byMillisecond[ms] == nil { byMillisecond[ms] = Int64((step.strideLength * 1000).rounded()) }
        }
        let fromMs = Int64((from.timeIntervalSince1970 * 1000).rounded())
        let toMs = Int64((to.timeIntervalSince1970 * 1000).rounded())
        var summary = PedometerSummary(start: from, end: to)
        summary.floorsAscended = floorsAscended
        summary.floorsDescended = floorsDescended
        let times = byMillisecond.keys.sorted()
        var distance: Int64 = 0
        var active: Int64 = 0
        for (index, t) in times.enumerated() {
            if t >= fromMs, t < toMs {
                summary.steps += 1
                distance += byMillisecond[t]!
                let date = Date(timeIntervalSince1970: Double(t) / 1000)
                if summary.firstStepDate == nil { summary.firstStepDate = date }
                summary.lastStepDate = date
            }
            if index > 0 {
                let p = times[index - 1]
                if t - p <= 2000 { active += max(0, min(t, toMs) - max(p, fromMs)) }
            }
        }
        summary.distance = Double(distance) / 1000
        summary.activeDuration = Double(active) / 1000
        return summary
    }
}
