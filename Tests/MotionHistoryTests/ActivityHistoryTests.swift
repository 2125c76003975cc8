import Foundation
import MotionHistory
import Testing

@Suite("Activity history")
struct ActivityHistoryTests {
    let walking = ActivityRecord(startDate: at(0), flags: .walking, confidence: .high)

    func store(with records: [ActivityRecord], source: String = "sim") throws -> HistoryStore {
        let store = try HistoryStore(configuration: testConfiguration(.inMemory))
        try store.append(contentsOf: records, source: source)
        return store
    }

    @Test("the first segment may start before the span: it is the state at the start")
    func firstSegmentBeforeStart() throws {
        let store = try store(with: [
            ActivityRecord(startDate: at(0), flags: .stationary, confidence: .high),
            ActivityRecord(startDate: at(100), flags: .walking, confidence: .medium),
            ActivityRecord(startDate: at(200), flags: [.stationary, .automotive], confidence: .low),
            ActivityRecord(startDate: at(300), flags: .running, confidence: .high),
        ])
        let segments = try store.activities(from: at(150), to: at(300), source: "sim")
        #expect(segments.map(\.startDate) == [at(100), at(200)])  // 300 is the end: excluded
        #expect(segments.map(\.flags) == [.walking, [.stationary, .automotive]])
        #expect(segments.map(\.confidence) == [.medium, .low])
        #expect(segments.allSatisfy { $0.source == "sim" })
        // A segment starting exactly at the start is the state at the start.
        #expect(try store.activities(from: at(100), to: at(101), source: "sim").map(\.startDate) == [at(100)])
        // After the last segment: that segment, still in force.
        #expect(try store.activities(from: at(1000), to: at(2000), source: "sim").map(\.flags) == [.running])
    }

    @Test("no data in the span: empty (the API reports CMErrorUnknown)")
    func emptyWhenNoData() throws {
        let store = try store(with: [ActivityRecord(startDate: at(100), flags: .walking, confidence: .high)])
        #expect(try store.activities(from: at(0), to: at(100), source: "sim").isEmpty)
        #expect(try store.activities(from: at(0), to: at(50), source: nil).isEmpty)
        #expect(try store.activities(from: at(200), to: at(200), source: "sim").isEmpty)  // empty span
        #expect(try store.activities(from: at(0), to: at(1000), source: "unknown-device").isEmpty)
        let empty = try HistoryStore(configuration: testConfiguration(.inMemory))
        #expect(try empty.activities(from: at(0), to: at(1000), source: nil).isEmpty)
        #expect(throws: HistoryError.invalidSpan(start: at(2).timeIntervalSince1970, end: at(1).timeIntervalSince1970)) {
            try store.activities(from: at(2), to: at(1), source: nil)
        }
    }

    @Test("repeated identical states are one segment; a change of confidence is a new one")
    func coalescing() throws {
        let store = try store(with: [
            ActivityRecord(startDate: at(0), flags: .walking, confidence: .high),
            ActivityRecord(startDate: at(10), flags: .walking, confidence: .high),
            ActivityRecord(startDate: at(20), flags: .walking, confidence: .low),
            ActivityRecord(startDate: at(30), flags: .walking, confidence: .low),
            ActivityRecord(startDate: at(40), flags: [], confidence: .low),
        ])
        let segments = try store.activities(from: at(5), to: at(50), source: "sim")
        #expect(segments.map(\.startDate) == [at(0), at(20), at(40)])
        #expect(segments.last?.flags == [])
    }

    @Test("several sources: each source's state at the start, then all segments in date order")
    func severalSources() throws {
        let store = try store(with: [
            ActivityRecord(startDate: at(0), flags: .walking, confidence: .high),
            ActivityRecord(startDate: at(50), flags: .stationary, confidence: .high),
        ], source: "a")
        try store.append(contentsOf: [
            ActivityRecord(startDate: at(10), flags: .cycling, confidence: .medium),
            ActivityRecord(startDate: at(30), flags: .automotive, confidence: .medium),
        ], source: "b")
        let all = try store.activities(from: at(20), to: at(60), source: nil)
        #expect(all.map(\.startDate) == [at(0), at(10), at(30), at(50)])
        #expect(all.map(\.source) == ["a", "b", "b", "a"])
        #expect(try store.activities(from: at(20), to: at(60), source: "b").map(\.flags) == [.cycling, .automotive])
    }

    @Test("flags outside the defined set are refused")
    func invalidFlags() throws {
        let store = try HistoryStore(configuration: testConfiguration(.inMemory))
        #expect(throws: HistoryError.invalidRecord(kind: "activity", index: 0, field: "flags", value: "64")) {
            try store.append(ActivityRecord(startDate: at(0), flags: ActivityFlags(rawValue: 64), confidence: .low), source: "sim")
        }
        #expect(ActivityFlags.all.rawValue == 63)
    }

    @Test("the latest record date covers every kind of record of the source")
    func latestRecordDate() throws {
        let store = try store(with: [ActivityRecord(startDate: at(100), flags: .walking, confidence: .high)])
        try store.append(StepRecord(date: at(130.25), strideLength: 0.7), source: "sim")
        try store.append(FloorRecord(date: at(120), change: .ascended), source: "sim")
        #expect(try store.latestRecordDate(source: "sim").map { abs($0.timeIntervalSince(at(130.25))) < 1e-3 } == true)
        try store.append(contentsOf: [AccelerometerRecord(date: at(140), acceleration: .zero)], source: "sim")
        #expect(try store.latestRecordDate(source: "sim").map { abs($0.timeIntervalSince(at(140))) < 1e-6 } == true)
        #expect(try store.latestRecordDate(source: "other") == nil)
    }
}
