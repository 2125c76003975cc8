import Foundation
import MotionHistory
import Testing

/// Environment variable that turns the test process into the crashing writer.
private let childVariable = "COREMOTION_HISTORY_CRASH_CHILD"
private let batchSize = 5000

@Suite("History store: crash safety")
struct CrashSafetyTests {
    #if os(Linux)
    @Test("a writer killed mid-transaction leaves a sound file with whole batches only")
    func killedWriter() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let marker = folder.url.appendingPathComponent("first-flush-done")
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["--testing-library", "swift-testing", "--filter", "crashingWriterChild"]
        var environment = ProcessInfo.processInfo.environment
        environment[childVariable] = folder.file.path
        environment["COREMOTION_HISTORY_CRASH_MARKER"] = marker.path
        child.environment = environment
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        var waited = 0
        while !FileManager.default.fileExists(atPath: marker.path), child.isRunning, waited < 3000 {
            Thread.sleep(forTimeInterval: 0.01)
            waited += 1
        }
        #expect(FileManager.default.fileExists(atPath: marker.path), "the child never flushed")
        Thread.sleep(forTimeInterval: 0.4)  // let it be in the middle of further transactions
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal)

        let store = try HistoryStore(configuration: testConfiguration(.file(folder.file)))
        #expect(try store.integrityCheck() == [])
        let steps = try store.pedometerSummary(from: at(-1), to: at(1e6), source: "crash").steps
        #expect(steps >= batchSize)
        #expect(steps % batchSize == 0, "a transaction was cut: \(steps) steps")
        let samples = try store.accelerometerSamples(from: at(-1), to: at(40_000), source: "crash")
        #expect(samples.count == steps / batchSize * 100, "steps and samples of one flush were split")
        // The unflushed tail is lost; everything committed is there, and writing goes on.
        try store.append(StepRecord(date: at(-0.5), strideLength: 0.7), source: "crash")
        #expect(try store.pedometerSummary(from: at(-1), to: at(1e6), source: "crash").steps == steps + 1)
        try store.close()
    }
    #endif

    /// Runs only inside the child process started above: writes batches until it is killed.
    @Test(.enabled(
        if: ProcessInfo.processInfo.environment[childVariable] != nil,
        Comment(rawValue: "runs only inside the child process of the crash test")))
    func crashingWriterChild() throws {
        let environment = ProcessInfo.processInfo.environment
        let file = URL(fileURLWithPath: try #require(environment[childVariable]))
        let marker = URL(fileURLWithPath: try #require(environment["COREMOTION_HISTORY_CRASH_MARKER"]))
        var configuration = testConfiguration(.file(file))
        configuration.flushThreshold = 1_000_000  // one transaction per loop: steps and samples together
        let store = try HistoryStore(configuration: configuration)
        var batch = 0
        while batch < 10_000 {
            let start = Double(batch * batchSize) * 0.5
            try store.append(contentsOf: (0..<batchSize).map { StepRecord(date: at(start + Double($0) * 0.5), strideLength: 0.7) }, source: "crash")
            try store.append(contentsOf: (0..<100).map { AccelerometerRecord(date: at(Double(batch) + Double($0) / 100), acceleration: .zero) }, source: "crash")
            try store.flush()
            if batch == 0 { try Data().write(to: marker) }
            batch += 1
        }
    }
}
