import Foundation
import MotionHistory
import Testing

@Suite("History store: durability, batching, retention, bounds, sharing")
struct HistoryStoreTests {
    func steps(_ count: Int, from start: Double = 0, every interval: Double = 0.5) -> [StepRecord] {
        (0..<count).map { StepRecord(date: at(start + Double($0) * interval), strideLength: 0.7) }
    }

    @Test("a file store runs in WAL with synchronous NORMAL, a busy timeout and incremental auto-vacuum")
    func settings() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let store = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        let settings = try store.databaseSettings()
        #expect(settings.journalMode == "wal")
        #expect(settings.synchronous == 1)
        #expect(settings.busyTimeoutMilliseconds == 5000)
        #expect(settings.autoVacuum == 2)
        #expect(settings.journalSizeLimit == 4 * 1024 * 1024)
        #expect(settings.applicationID == 0x434D_4853)
        #expect(settings.migrations == ["v1"])
        try store.close()
        #expect(throws: HistoryError.closed(location: folder.file.path)) { try store.append(steps(1)[0], source: "sim") }
        #expect(throws: HistoryError.self) { try store.pedometerSummary(from: at(0), to: at(1), source: nil) }
        try store.close()  // twice: nothing
    }

    @Test("records survive closing and reopening")
    func persistence() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let first = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        try first.append(contentsOf: steps(1000), source: "sim")
        try first.append(ActivityRecord(startDate: at(0), flags: .walking, confidence: .high), source: "sim")
        try first.append(contentsOf: [AccelerometerRecord(date: at(1), acceleration: Vector3(0, 0, -1))], source: "sim")
        try first.close()
        let second = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        #expect(try second.pedometerSummary(from: at(0), to: at(1000), source: "sim").steps == 1000)
        #expect(try second.activities(from: at(1), to: at(2), source: "sim").count == 1)
        try second.append(contentsOf: [AccelerometerRecord(date: at(2), acceleration: .zero)], source: "sim")
        // Identifiers continue after reopening.
        #expect(try second.accelerometerSamples(from: at(0), to: at(3), source: nil).map(\.identifier) == [1, 2])
        try second.close()
    }

    @Test("appends are batched: nothing reaches the file before a flush, then all of it in one go")
    func batching() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let writer = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        let reader = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        for step in steps(2000) { try writer.append(step, source: "sim") }
        // The writer's own queries see its pending records (they flush first); another process sees only
        // what is flushed.
        #expect(try reader.pedometerSummary(from: at(0), to: at(2000), source: "sim").steps == 0)
        try writer.flush()
        #expect(try reader.pedometerSummary(from: at(0), to: at(2000), source: "sim").steps == 2000)
        // 2 000 steps at 2 steps/s are 17 minute rows, not 2 000 rows.
        #expect(try reader.statistics().stepMinutes == 17)
        try writer.close()
        try reader.close()
    }

    @Test("the flush threshold and the flush interval write without an explicit flush")
    func automaticFlushes() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        var configuration = testConfiguration(.file(folder.file))
        configuration.flushThreshold = 100
        let byCount = try HistoryStore(configuration: configuration)
        configuration.flushThreshold = 1_000_000
        configuration.flushInterval = 0.05
        let byTime = try HistoryStore(configuration: configuration)
        let reader = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        try byCount.append(contentsOf: steps(150), source: "count")
        try byTime.append(contentsOf: steps(3), source: "time")
        var seen = (0, 0)
        for _ in 0..<500 {
            seen = (
                try reader.pedometerSummary(from: at(0), to: at(100), source: "count").steps,
                try reader.pedometerSummary(from: at(0), to: at(100), source: "time").steps
            )
            if seen == (150, 3) { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(seen == (150, 3))
        try byCount.close()
        try byTime.close()
        try reader.close()
    }

    @Test("dropping a store without close still writes what was pending")
    func dropWithoutClose() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        do {
            let store = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
            try store.append(contentsOf: steps(10), source: "sim")
        }
        let store = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        #expect(try store.pedometerSummary(from: at(0), to: at(100), source: "sim").steps == 10)
    }

    @Test("retention: 7 days of pedometer and activity, 3 days of accelerometer, at open and on demand")
    func retention() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let day = 86_400.0
        let clock = TestClock(at(1))
        let store = try HistoryStore(configuration: testConfiguration(.file(folder.file), clock: clock))
        try store.append(contentsOf: steps(4, from: 0), source: "sim")
        try store.append(contentsOf: steps(4, from: 5 * day), source: "sim")
        try store.append(FloorRecord(date: at(0), change: .ascended), source: "sim")
        try store.append(PedometerTransitionRecord(date: at(0), transition: .pause), source: "sim")
        try store.append(contentsOf: [
            ActivityRecord(startDate: at(0), flags: .walking, confidence: .high),
            ActivityRecord(startDate: at(10), flags: .stationary, confidence: .high),
            ActivityRecord(startDate: at(6 * day), flags: .running, confidence: .high),
        ], source: "sim")
        try store.append(contentsOf: [AccelerometerRecord(date: at(0), acceleration: .zero),
                                      AccelerometerRecord(date: at(2.5 * day), acceleration: .zero)], source: "sim")
        try store.addAccelerometerRecording(from: at(0), duration: 60, source: "sim")
        try store.close()

        // 7 days and a minute later: the records of day 0 are gone; the activity in force then is kept.
        clock.set(at(7 * day + 120))
        let reopened = try HistoryStore(configuration: testConfiguration(.file(folder.file), clock: clock))
        let summary = try reopened.pedometerSummary(from: at(-1), to: at(8 * day), source: "sim")
        #expect(summary.steps == 4)
        #expect(summary.floorsAscended == 0)
        #expect(try reopened.pedometerTransitions(from: at(-1), to: at(8 * day), source: nil).isEmpty)
        #expect(try reopened.activities(from: at(-1), to: at(8 * day), source: "sim").map(\.startDate) == [at(10), at(6 * day)])
        let stats = try reopened.statistics()
        #expect(stats.accelerometerSamples == 0)  // both older than 3 days
        #expect(stats.recordingRequests == 0)
        #expect(stats.activitySegments == 2)

        // Later still, maintenance on demand removes the second batch.
        clock.set(at(12.1 * day))
        try reopened.performMaintenance()
        #expect(try reopened.statistics().steps == 0)
        try reopened.close()
    }

    @Test("size bounds evict the oldest records first and report it")
    func sizeBounds() throws {
        let notices = NoticeLog()
        var configuration = testConfiguration(.inMemory, notices: notices)
        configuration.limits.steps = 1000
        configuration.limits.activitySegments = 5
        configuration.limits.accelerometerSamples = 2048
        let store = try HistoryStore(configuration: configuration)
        try store.append(contentsOf: steps(3000), source: "sim")  // 25 minutes at 2 steps/s
        try store.append(contentsOf: (0..<8).map { ActivityRecord(startDate: at(Double($0)), flags: $0 % 2 == 0 ? .walking : .stationary, confidence: .high) }, source: "sim")
        try store.append(contentsOf: (0..<5000).map { AccelerometerRecord(date: at(Double($0) / 50), acceleration: .zero) }, source: "sim")
        try store.flush()
        let stats = try store.statistics()
        #expect(stats.steps <= 1000 && stats.steps > 1000 - 120)  // whole minutes go: at most one minute too many
        #expect(stats.activitySegments == 5)
        #expect(stats.accelerometerSamples <= 2048 && stats.accelerometerSamples > 2048 - 1024)
        // What is left is the newest.
        let summary = try store.pedometerSummary(from: at(0), to: at(2000), source: "sim")
        #expect(summary.lastStepDate.map { abs($0.timeIntervalSince(at(1499.5))) < 1e-3 } == true)
        // Moving time starts at the oldest step left: nothing joins it to the evicted minute before.
        let first = try #require(summary.firstStepDate)
        #expect(abs(summary.activeDuration - at(1499.5).timeIntervalSince(first)) < 1e-6)
        #expect(summary.steps == stats.steps)
        #expect(try store.activities(from: at(3.5), to: at(100), source: "sim").map(\.startDate) == [at(3), at(4), at(5), at(6), at(7)])
        let kinds = Set(notices.wait { Set($0.compactMap { if case .evicted(_, let kind, _) = $0 { kind } else { nil } }).count == 3 }
            .compactMap { notice -> String? in if case .evicted(_, let kind, _) = notice { kind } else { nil } })
        #expect(kinds == ["step", "activity segment", "accelerometer sample"])
    }

    @Test("two stores on one file write concurrently and read each other's records")
    func twoInstances() async throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let a = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        let b = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (store, name) in [(a, "a"), (b, "b")] {
                group.addTask {
                    for batch in 0..<50 {
                        try store.append(contentsOf: (0..<40).map {
                            StepRecord(date: at(Double(batch * 40 + $0) * 0.5), strideLength: 0.7)
                        }, source: name)
                        try store.append(contentsOf: [AccelerometerRecord(date: at(Double(batch)), acceleration: .zero)], source: name)
                        try store.flush()
                    }
                }
            }
            try await group.waitForAll()
        }
        for store in [a, b] {
            #expect(try store.pedometerSummary(from: at(0), to: at(2000), source: "a").steps == 2000)
            #expect(try store.pedometerSummary(from: at(0), to: at(2000), source: "b").steps == 2000)
            let samples = try store.accelerometerSamples(from: at(-1), to: at(100), source: nil)
            #expect(samples.count == 100)
            #expect(Set(samples.map(\.identifier)).count == 100)  // unique across the two writers
        }
        try a.close()
        try b.close()
    }

    @Test("several stores creating the same new file at once all open it (the schema is created once)")
    func concurrentCreation() async throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let file = folder.file
        let stores = try await withThrowingTaskGroup(of: HistoryStore.self) { group in
            for _ in 0..<6 {
                group.addTask { try HistoryStore(configuration: testConfiguration(.file(file))) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(stores.count == 6)
        for (index, store) in stores.enumerated() {
            try store.append(StepRecord(date: at(Double(index)), strideLength: 0.7), source: "s\(index)")
            try store.flush()
        }
        for store in stores {
            #expect(try store.databaseSettings().migrations == ["v1"])
            #expect(try store.pedometerSummary(from: at(0), to: at(10), source: nil).steps == 6)
            try store.close()
        }
    }

    @Test("two stores writing the same source merge into the same minute rows without losing steps")
    func sameSourceTwoWriters() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let a = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        let b = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        try a.append(contentsOf: steps(60, from: 0, every: 1), source: "sim")
        try b.append(contentsOf: steps(60, from: 0.5, every: 1), source: "sim")
        try a.flush()
        try b.flush()
        #expect(try a.pedometerSummary(from: at(0), to: at(60), source: "sim").steps == 120)
        try a.close()
        try b.close()
    }

    @Test("in memory: works, and nothing is shared between stores")
    func inMemory() throws {
        let a = try HistoryStore(configuration: testConfiguration(.inMemory))
        let b = try HistoryStore(configuration: testConfiguration(.inMemory))
        try a.append(contentsOf: steps(5), source: "sim")
        #expect(try a.pedometerSummary(from: at(0), to: at(10), source: nil).steps == 5)
        #expect(try b.pedometerSummary(from: at(0), to: at(10), source: nil).steps == 0)
        #expect(try a.databaseSettings().journalMode == "memory")
    }
}
