import Foundation
import MotionHistory
import Testing

@Suite("Accelerometer history")
struct AccelerometerHistoryTests {
    /// `count` samples at 50 Hz from `start` seconds, with x = index.
    func samples(_ count: Int, from start: Double = 0, rate: Double = 50) -> [AccelerometerRecord] {
        (0..<count).map { AccelerometerRecord(date: at(start + Double($0) / rate), acceleration: Vector3(Double($0), 0.5, -1)) }
    }

    @Test("the span is (start, end]; samples come back in order with increasing unique identifiers")
    func boundsAndIdentifiers() throws {
        let store = try HistoryStore(configuration: testConfiguration(.inMemory))
        try store.append(contentsOf: samples(100), source: "sim")
        try store.flush()
        try store.append(contentsOf: samples(100, from: 2), source: "sim")
        let got = try store.accelerometerSamples(from: at(0), to: at(1), source: "sim")
        #expect(got.count == 50)  // 0.02 … 1.00
        #expect(got.first.map { abs($0.date.timeIntervalSince(at(0.02))) < 1e-6 } == true)
        #expect(got.last.map { abs($0.date.timeIntervalSince(at(1.0))) < 1e-6 } == true)
        let all = try store.accelerometerSamples(from: at(-1), to: at(10), source: nil)
        #expect(all.count == 200)
        #expect(all.map(\.identifier) == Array(1...200).map(UInt64.init))
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.date < $1.date })
        #expect(all[37].acceleration == Vector3(37, 0.5, -1))
    }

    @Test("chunks split at 1 024 samples and 60 s; values survive as 32-bit floats")
    func chunking() throws {
        let store = try HistoryStore(configuration: testConfiguration(.inMemory))
        var records = samples(3000, rate: 100)
        records += [AccelerometerRecord(date: at(200), acceleration: Vector3(0.123456789, -9.87654321, 1e-5))]
        try store.append(contentsOf: records, source: "sim")
        let stats = try store.statistics()
        #expect(stats.accelerometerSamples == 3001)
        #expect(stats.accelerometerChunks == 4)  // 1024 + 1024 + 952, then the sample 170 s later
        let got = try store.accelerometerSamples(from: at(-1), to: at(201), source: "sim")
        #expect(got.count == 3001)
        let last = try #require(got.last)
        #expect(abs(last.acceleration.x - 0.123456789) < 1e-7)
        #expect(abs(last.acceleration.y + 9.87654321) < 1e-6)
        #expect(abs(last.acceleration.z - 1e-5) < 1e-12)
        // A span starting inside a chunk finds it.
        #expect(try store.accelerometerSamples(from: at(15), to: at(15.1), source: "sim").count == 10)
    }

    @Test("a span longer than 12 h is refused with the limit named")
    func spanLimit() throws {
        let store = try HistoryStore(configuration: testConfiguration(.inMemory))
        #expect(try store.accelerometerSamples(from: at(0), to: at(43_200), source: nil).isEmpty)
        #expect(throws: HistoryError.spanTooLong(seconds: 43_201, limit: 43_200)) {
            try store.accelerometerSamples(from: at(0), to: at(43_201), source: nil)
        }
        #expect("\(HistoryError.spanTooLong(seconds: 43_201, limit: 43_200))".contains("43200"))
    }

    @Test("backwards or repeated dates and non-finite values are refused, and the batch is not kept")
    func invalidSamples() throws {
        let store = try HistoryStore(configuration: testConfiguration(.inMemory))
        try store.append(contentsOf: samples(10), source: "sim")
        #expect(throws: HistoryError.outOfOrderSample(source: "sim", index: 0, date: at(0.18), previous: at(0.18))) {
            try store.append(contentsOf: [AccelerometerRecord(date: at(0.18), acceleration: .zero)], source: "sim")
        }
        let backwards = [AccelerometerRecord(date: at(5), acceleration: .zero), AccelerometerRecord(date: at(4), acceleration: .zero)]
        #expect(throws: HistoryError.self) { try store.append(contentsOf: backwards, source: "sim") }
        #expect(throws: HistoryError.invalidRecord(kind: "accelerometer", index: 1, field: "y", value: "nan")) {
            try store.append(contentsOf: [
                AccelerometerRecord(date: at(6), acceleration: .zero),
                AccelerometerRecord(date: at(7), acceleration: Vector3(0, .nan, 0)),
            ], source: "sim")
        }
        // Another source has its own order; the refused batches left nothing.
        try store.append(contentsOf: samples(1), source: "other")
        #expect(try store.accelerometerSamples(from: at(-1), to: at(10), source: "sim").count == 10)
        // The failed batches did not move the order check: 6 s is still acceptable.
        try store.append(contentsOf: [AccelerometerRecord(date: at(6), acceleration: .zero)], source: "sim")
    }

    @Test("recording requests survive reopening; the latest end of the requests in force is reported")
    func recordingRequests() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        do {
            let store = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
            try store.addAccelerometerRecording(from: at(0), duration: 3600, source: "iio:accel")
            try store.addAccelerometerRecording(from: at(600), duration: 7200, source: "iio:accel")
            #expect(throws: HistoryError.spanTooLong(seconds: 43_201, limit: 43_200)) {
                try store.addAccelerometerRecording(from: at(0), duration: 43_201, source: "iio:accel")
            }
            #expect(throws: HistoryError.self) { try store.addAccelerometerRecording(from: at(0), duration: 0, source: "iio:accel") }
            // Dropped without close: the requests were written at once.
        }
        let store = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        #expect(try store.accelerometerRecordingEnd(activeAt: at(700), source: "iio:accel") == at(7800))
        #expect(try store.accelerometerRecordingEnd(activeAt: at(300), source: nil) == at(3600))
        #expect(try store.accelerometerRecordingRequests(activeAt: at(700), source: nil).count == 2)
        #expect(try store.accelerometerRecordingEnd(activeAt: at(7800), source: nil) == nil)  // end is exclusive
        #expect(try store.accelerometerRecordingEnd(activeAt: at(700), source: "other") == nil)
        try store.close()
    }
}
