import Foundation
import MotionHistory
import MotionSimulator
import Testing

/// The naive definition the store must match exactly: every step, one by one.
struct ReferencePedometer {
    /// (milliseconds since 1970, stride in mm), sorted, unique dates.
    var steps: [(ms: Int64, mm: Int64)]

    init(_ records: [StepRecord]) {
        var byMs: [Int64: Int64] = [:]
        for record in records {
            let ms = Int64((record.date.timeIntervalSince1970 * 1000).rounded())
            if byMs[ms] == nil { byMs[ms] = Int64((record.strideLength * 1000).rounded()) }
        }
        steps = byMs.sorted { $0.key < $1.key }.map { (ms: $0.key, mm: $0.value) }
    }

    func summary(from: Date, to: Date) -> (steps: Int, mm: Int64, activeMs: Int64, first: Int64?, last: Int64?) {
        let f = Int64((from.timeIntervalSince1970 * 1000).rounded())
        let t = Int64((to.timeIntervalSince1970 * 1000).rounded())
        var count = 0
        var mm: Int64 = 0
        var active: Int64 = 0
        var first: Int64?
        var last: Int64?
        for (index, step) in steps.enumerated() {
            if step.ms >= f, step.ms < t {
                count += 1
                mm += step.mm
                if first == nil { first = step.ms }
                last = step.ms
            }
            if index > 0 {
                let p = steps[index - 1].ms
                if step.ms - p <= 2000 { active += max(0, min(step.ms, t) - max(p, f)) }
            }
        }
        return (count, mm, active, first, last)
    }
}

func milliseconds(_ date: Date?) -> Int64? {
    date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
}

@Suite("Pedometer summary")
struct PedometerSummaryTests {
    @Test("a step at the start counts, a step at the end does not")
    func boundsAreHalfOpen() throws {
        let store = try HistoryStore(configuration: testConfiguration(.inMemory))
        try store.append(contentsOf: [0.0, 0.5, 1.0, 1.5].map { StepRecord(date: at($0), strideLength: 0.7) }, source: "sim")
        let summary = try store.pedometerSummary(from: at(0.5), to: at(1.5), source: "sim")
        #expect(summary.steps == 2)
        #expect(abs(summary.distance - 1.4) < 1e-9)
        #expect(milliseconds(summary.firstStepDate) == milliseconds(at(0.5)))
        #expect(milliseconds(summary.lastStepDate) == milliseconds(at(1.0)))
        // Moving time: the gaps 0.5→1.0 and 1.0→1.5 inside the span.
        #expect(abs(summary.activeDuration - 1.0) < 1e-9)
        #expect(summary.averageActivePace.map { abs($0 - 1.0 / 1.4) < 1e-9 } == true)
        #expect(summary.start == at(0.5) && summary.end == at(1.5))
    }

    @Test("an empty span, a span with no steps and an unknown source give zero")
    func emptyResults() throws {
        let store = try HistoryStore(configuration: testConfiguration(.inMemory))
        try store.append(StepRecord(date: at(10), strideLength: 0.7), source: "sim")
        let empty = try store.pedometerSummary(from: at(10), to: at(10), source: "sim")
        #expect(empty.steps == 0 && empty.distance == 0 && empty.activeDuration == 0 && empty.firstStepDate == nil)
        #expect(try store.pedometerSummary(from: at(20), to: at(30), source: "sim").steps == 0)
        #expect(try store.pedometerSummary(from: at(0), to: at(30), source: "other").steps == 0)
        #expect(try store.pedometerSummary(from: at(0), to: at(30), source: nil).steps == 1)
        #expect(try store.pedometerSummary(from: at(0), to: at(30), source: "sim").averageActivePace == nil)
    }

    @Test("a span that ends before it starts, or a NaN bound, is an error")
    func invalidSpans() throws {
        let store = try HistoryStore(configuration: testConfiguration(.inMemory))
        #expect(throws: HistoryError.invalidSpan(start: at(5).timeIntervalSince1970, end: at(4).timeIntervalSince1970)) {
            try store.pedometerSummary(from: at(5), to: at(4), source: nil)
        }
        let nan = Date(timeIntervalSince1970: .nan)
        #expect(throws: HistoryError.self) { try store.pedometerSummary(from: nan, to: at(4), source: nil) }
    }

    @Test("matches the step-by-step definition for random steps and random bounds, and adjacent spans add up")
    func randomBoundsMatchReference() throws {
        var rng = SplitMix64(seed: 42)
        var records: [StepRecord] = []
        var t = 0.0
        // Two hours of walking bouts and pauses, some steps exactly on minute boundaries.
        while t < 7200 {
            let bout = Int.random(in: 5...300, using: &rng)
            for _ in 0..<bout {
                t += Double.random(in: 0.3...1.3, using: &rng)
                records.append(StepRecord(date: at(t), strideLength: Double.random(in: 0.4...1.2, using: &rng)))
            }
            t += [0.5, 2.5, 30, 400].randomElement(using: &rng)!
        }
        for minute in stride(from: 60.0, to: 7200, by: 600) {
            let edge = Date(timeIntervalSince1970: (base.timeIntervalSince1970 / 60).rounded(.up) * 60 + minute)
            records.append(StepRecord(date: edge, strideLength: 0.75))
        }
        // Duplicates are ignored, order does not matter.
        records += records.prefix(50)
        records.shuffle(using: &rng)
        let reference = ReferencePedometer(records)

        let store = try HistoryStore(configuration: testConfiguration(.inMemory))
        for chunk in stride(from: 0, to: records.count, by: 97) {
            try store.append(contentsOf: Array(records[chunk..<min(chunk + 97, records.count)]), source: "sim")
            if chunk % 970 == 0 { try store.flush() }  // rows are merged across flushes
        }
        let stepDates = reference.steps.map { Date(timeIntervalSince1970: Double($0.ms) / 1000) }
        for trial in 0..<300 {
            var bounds = (0..<3).map { _ -> Date in
                switch trial % 3 {
                case 0: at(Double.random(in: -100...7500, using: &rng))
                case 1: stepDates.randomElement(using: &rng)!  // exactly on a step
                default:  // on a minute boundary, or a millisecond either side
                    Date(timeIntervalSince1970: ((base.timeIntervalSince1970 / 60).rounded(.up)
                        + Double(Int.random(in: 0...120, using: &rng))) * 60
                        + [-0.001, 0, 0.001].randomElement(using: &rng)!)
                }
            }.sorted()
            if trial % 17 == 0 { bounds[1] = bounds[0] }
            let expected = reference.summary(from: bounds[0], to: bounds[2])
            let summary = try store.pedometerSummary(from: bounds[0], to: bounds[2], source: "sim")
            #expect(summary.steps == expected.steps)
            #expect(Int64((summary.distance * 1000).rounded()) == expected.mm)
            #expect(Int64((summary.activeDuration * 1000).rounded()) == expected.activeMs)
            #expect(milliseconds(summary.firstStepDate) == expected.first)
            #expect(milliseconds(summary.lastStepDate) == expected.last)
            // Additivity: [a, b) + [b, c) = [a, c).
            let left = try store.pedometerSummary(from: bounds[0], to: bounds[1], source: "sim")
            let right = try store.pedometerSummary(from: bounds[1], to: bounds[2], source: "sim")
            #expect(left.steps + right.steps == summary.steps)
            #expect(Int64(((left.distance + right.distance) * 1000).rounded()) == expected.mm)
            #expect(Int64(((left.activeDuration + right.activeDuration) * 1000).rounded()) == expected.activeMs)
        }
        let total = try store.pedometerSummary(from: at(-1), to: at(8000), source: nil)
        #expect(total.steps == reference.steps.count)
    }

    @Test("floors count by direction inside [start, end)")
    func floors() throws {
        let store = try HistoryStore(configuration: testConfiguration(.inMemory))
        try store.append(contentsOf: [
            FloorRecord(date: at(0), change: .ascended), FloorRecord(date: at(5), change: .ascended),
            FloorRecord(date: at(9), change: .descended), FloorRecord(date: at(10), change: .descended),
        ], source: "sim")
        try store.append(FloorRecord(date: at(6), change: .ascended), source: "other")
        let summary = try store.pedometerSummary(from: at(0), to: at(10), source: "sim")
        #expect(summary.floorsAscended == 2 && summary.floorsDescended == 1)
        let all = try store.pedometerSummary(from: at(0), to: at(10.5), source: nil)
        #expect(all.floorsAscended == 3 && all.floorsDescended == 2)
    }

    @Test("sources are kept apart; nil adds them up")
    func sources() throws {
        let store = try HistoryStore(configuration: testConfiguration(.inMemory))
        try store.append(contentsOf: (0..<10).map { StepRecord(date: at(Double($0) * 0.5), strideLength: 0.5) }, source: "a")
        try store.append(contentsOf: (0..<4).map { StepRecord(date: at(100 + Double($0)), strideLength: 1) }, source: "b")
        #expect(try store.pedometerSummary(from: at(0), to: at(200), source: "a").steps == 10)
        #expect(try store.pedometerSummary(from: at(0), to: at(200), source: "b").steps == 4)
        let all = try store.pedometerSummary(from: at(0), to: at(200), source: nil)
        #expect(all.steps == 14)
        #expect(abs(all.distance - 9) < 1e-9)
        #expect(abs(all.activeDuration - (4.5 + 3)) < 1e-9)
        #expect(milliseconds(all.firstStepDate) == milliseconds(at(0)))
        #expect(milliseconds(all.lastStepDate) == milliseconds(at(103)))
    }

    @Test("gaps longer than the moving threshold are not active time")
    func activeDurationThreshold() throws {
        let store = try HistoryStore(configuration: testConfiguration(.inMemory))
        // Gaps of 2.0 s (counted) and 2.001 s (not counted).
        try store.append(contentsOf: [0, 2, 4.001].map { StepRecord(date: at($0), strideLength: 1) }, source: "sim")
        #expect(HistoryStore.maximumActiveStepGap == 2)
        let summary = try store.pedometerSummary(from: at(-10), to: at(10), source: "sim")
        #expect(abs(summary.activeDuration - 2) < 1e-9)
    }

    @Test("invalid steps are refused with the field named, and nothing of the batch is kept")
    func invalidSteps() throws {
        let store = try HistoryStore(configuration: testConfiguration(.inMemory))
        let good = StepRecord(date: at(0), strideLength: 0.7)
        #expect(throws: HistoryError.invalidRecord(kind: "step", index: 1, field: "strideLength (m, 0...65.535)", value: "nan")) {
            try store.append(contentsOf: [good, StepRecord(date: at(1), strideLength: .nan)], source: "sim")
        }
        #expect(throws: HistoryError.self) {
            try store.append(StepRecord(date: Date(timeIntervalSince1970: .infinity), strideLength: 1), source: "sim")
        }
        #expect(throws: HistoryError.self) { try store.append(StepRecord(date: at(0), strideLength: -1), source: "sim") }
        #expect(throws: HistoryError.invalidSource("")) { try store.append(good, source: "") }
        #expect(try store.pedometerSummary(from: at(-1), to: at(10), source: nil).steps == 0)
        let message = "\(HistoryError.invalidRecord(kind: "step", index: 1, field: "strideLength", value: "nan"))"
        #expect(message.contains("step record #1") && message.contains("strideLength"))
    }

    @Test("pause and resume transitions come back in order within [start, end)")
    func transitions() throws {
        let store = try HistoryStore(configuration: testConfiguration(.inMemory))
        try store.append(contentsOf: [
            PedometerTransitionRecord(date: at(10), transition: .pause),
            PedometerTransitionRecord(date: at(0), transition: .resume),
            PedometerTransitionRecord(date: at(20), transition: .resume),
        ], source: "sim")
        let got = try store.pedometerTransitions(from: at(0), to: at(20), source: "sim")
        #expect(got == [
            PedometerTransitionRecord(date: at(0), transition: .resume),
            PedometerTransitionRecord(date: at(10), transition: .pause),
        ])
        #expect(try store.pedometerTransitions(from: at(0), to: at(30), source: "other").isEmpty)
    }
}
