import Foundation
import Testing

@Suite("History figures")
struct HistoryFiguresTests {
    /// The documented figures: `COREMOTION_HISTORY_FIGURES=1 swift test --filter HistoryFiguresTests`
    /// (takes a minute; `docs/history.md` quotes a release build of the same code).
    @Test(.enabled(
        if: ProcessInfo.processInfo.environment["COREMOTION_HISTORY_FIGURES"] == "1",
        Comment(rawValue: "set COREMOTION_HISTORY_FIGURES=1 to measure the figures of docs/history.md")))
    func fullStore() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let report = try HistoryFigures.run(folder: folder.url)
        #expect(report.steps == 7 * 86_400 + 1200)
        #expect(report.accelerometerSamples == 12 * 3600 * 50)
    }

    /// The same measurement on a small store, so that the figures code keeps working.
    @Test("the figures program fills and reads back a small store")
    func smallStore() throws {
        let folder = try HistoryFolder()
        defer { folder.cleanUp() }
        let report = try HistoryFigures.run(folder: folder.url, days: 1, accelerometerHours: 0.05, printing: false)
        #expect(report.steps == 86_400 + 1200)
        #expect(report.accelerometerSamples == 180 * 50)
        #expect(report.lines.count == 13)
    }
}
