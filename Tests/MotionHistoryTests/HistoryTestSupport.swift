import Foundation
import MotionHistory
import MotionSimulator
import Synchronization
import TestSupport

/// 2023-11-14 22:13:20 UTC: not on a minute boundary, so spans cut minute rows.
let base = Date(timeIntervalSince1970: 1_700_000_000)

func at(_ seconds: Double) -> Date { base.addingTimeInterval(seconds) }

/// A folder of its own per test, removed by `cleanUp()`.
final class HistoryFolder: Sendable {
    let url: URL
    init() throws { url = try TestData.temporaryDirectory("coremotion-history") }
    var file: URL { url.appendingPathComponent("history.sqlite") }
    func cleanUp() {
        try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        try? FileManager.default.removeItem(at: url)
    }
}

/// Collects notices a store reports.
final class NoticeLog: Sendable {
    private let notices = Mutex<[HistoryNotice]>([])
    var all: [HistoryNotice] { notices.withLock { $0 } }
    func record(_ notice: HistoryNotice) { notices.withLock { $0.append(notice) } }

    /// Waits (notices are delivered asynchronously) until `predicate` holds or 5 s pass.
    func wait(until predicate: ([HistoryNotice]) -> Bool) -> [HistoryNotice] {
        for _ in 0..<500 {
            let current = all
            if predicate(current) { return current }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return all
    }
}

/// A wall clock the test moves.
final class TestClock: Sendable {
    private let current: Mutex<Date>
    init(_ date: Date) { current = Mutex(date) }
    var now: Date { current.withLock { $0 } }
    func set(_ date: Date) { current.withLock { $0 = date } }
}

/// Settings for tests: background flushes effectively off (tests flush or query explicitly), notices kept.
func testConfiguration(
    _ location: HistoryLocation, clock: TestClock = TestClock(at(86_400)), notices: NoticeLog = NoticeLog()
) -> HistoryConfiguration {
    var configuration = HistoryConfiguration(location: location)
    configuration.flushInterval = 3600
    configuration.now = { clock.now }
    configuration.notify = { notices.record($0) }
    return configuration
}
