import Foundation
import MotionIngest
import Testing

/// A store that keeps pushes in memory, recognises repeats by (device, session, message id) and can be made
/// to fail, as a database that went away.
final class MemoryPushStore: RawPushStorage {
    private let state = Locked<(pushes: [String: RawPush], failAfter: Int?, refused: Set<Int64>)>(([:], nil, []))
    /// Pushes with these message ids are refused for their contents (``RawPushRefused``).
    func refuse(messages: Set<Int64>) { state.withLock { $0.refused = messages } }
    var stored: [RawPush] { state.withLock { Array($0.pushes.values) }.sorted { $0.messageID < $1.messageID } }
    func fail(after count: Int?) { state.withLock { $0.failAfter = count } }

    func isReachable() -> Bool { state.withLock { $0.failAfter.map { $0 > 0 } ?? true } }

    func store(_ push: RawPush, node: String) throws -> Bool {
        try state.withLock { s in
            if let left = s.failAfter {
                guard left > 0 else { throw SpoolTestError.databaseDown }
                s.failAfter = left - 1
            }
            if s.refused.contains(push.messageID) { throw RawPushRefused(reason: "SQLSTATE 22021: invalid byte sequence") }
            let key = "\(push.device)/\(push.session)/\(push.messageID)"
            if s.pushes[key] != nil { return false }
            s.pushes[key] = push
            return true
        }
    }
}

enum SpoolTestError: Error { case databaseDown }

/// A value behind an `NSLock` (the thread sanitizer follows pthread locks, not `Mutex`).
final class Locked<Value>: @unchecked Sendable {  // @unchecked: `value` is only reached under `lock`
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

func samplePush(_ message: Int64, readings: Int = 100) -> RawPush {
    let t0 = Int64(1_700_000_000_000_000) + message * 1_000_000
    let times = (0..<readings).map { t0 + Int64($0) * 10_000 }
    return RawPush(
        device: "phone-1", session: "session-a", messageID: message,
        receivedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(message)),
        series: [
            RawSeries(sensor: "accelerometer", fields: ["x", "y", "z"], microseconds: times,
                      values: (0..<(3 * readings)).map { Double($0) * 0.001 - 0.1 }),
            RawSeries(sensor: "barometer", fields: ["pressure", "relativeAltitude"], microseconds: [t0], values: [1013.25, -0.5]),
        ])
}

@Suite("Push spool: pushes kept on disk while the database is away")
struct PushSpoolTests {
    @Test func recordsRoundTripBitForBit() throws {
        var push = samplePush(7)
        push.series[0].values[3] = -.infinity
        push.series[0].values[4] = .nan
        let decoded = try PushSpoolRecord.decode(PushSpoolRecord.encode(push))
        #expect(decoded.device == push.device && decoded.session == push.session && decoded.messageID == 7)
        #expect(decoded.receivedAt == push.receivedAt)
        #expect(decoded.series.count == 2)
        #expect(decoded.series[0].microseconds == push.series[0].microseconds)
        #expect(zip(decoded.series[0].values, push.series[0].values).allSatisfy { $0.bitPattern == $1.bitPattern })
        #expect(decoded.series[1] == push.series[1])
    }

    @Test func damagedRecordsNameTheFieldAndByte() {
        let good = PushSpoolRecord.encode(samplePush(1))
        #expect(throws: PushSpoolRecordError.self) { try PushSpoolRecord.decode(Array(good.dropLast())) }
        #expect(throws: PushSpoolRecordError.self) { try PushSpoolRecord.decode(good + [0]) }
        #expect(throws: PushSpoolRecordError.self) { try PushSpoolRecord.decode([]) }
        var huge = good
        // The accelerometer's reading count (after version, device, session, ids, series count, sensor, fields).
        let countOffset = 1 + 2 + 7 + 2 + 9 + 8 + 8 + 2 + 1 + 13 + 1 + 3 * 2
        huge[countOffset + 3] = 0x7F
        do {
            _ = try PushSpoolRecord.decode(huge)
            Issue.record("a reading count past the payload decoded")
        } catch {
            #expect(error.field == "reading count")
            #expect(error.offset == countOffset)
        }
    }

    @Test func drainsInOrderAndDeletesItsFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let spool = try PushSpool(folder: folder, limits: .init(maximumBytes: 1 << 24, fileBytes: 20_000))
        for m in 1...12 { try spool.append(samplePush(Int64(m))) }
        #expect(spool.depth.pushes == 12)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count > 1)
        let store = MemoryPushStore()
        let result = spool.drain(into: store, node: "test")
        #expect(result.stored == 12 && result.duplicates == 0 && result.stoppedBy == nil)
        #expect(store.stored.map(\.messageID) == Array(1...12))
        #expect(spool.depth.pushes == 0 && spool.depth.bytes == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func aDrainCutShortResumesAndStoresEachPushOnce() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let spool = try PushSpool(folder: folder)
        for m in 1...10 { try spool.append(samplePush(Int64(m))) }
        let store = MemoryPushStore()
        store.fail(after: 4)
        let first = spool.drain(into: store, node: "test")
        #expect(first.stored == 4 && first.stoppedBy != nil)
        #expect(spool.depth.pushes == 10)   // the file stays whole until all its records are stored
        store.fail(after: nil)
        let second = spool.drain(into: store, node: "test")
        #expect(second.stored == 10 && second.duplicates == 4)
        #expect(store.stored.map(\.messageID) == Array(1...10))
        #expect(spool.depth.pushes == 0)
    }

    /// A push the store refuses for its contents would fail every drain: it is skipped with a notice, and the
    /// pushes after it are stored.
    @Test func aPushTheStoreRefusesIsSkippedNotKept() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let notices = Locked<[String]>([])
        let spool = try PushSpool(folder: folder) { message in notices.withLock { $0.append(message) } }
        for m in 1...5 { try spool.append(samplePush(Int64(m))) }
        let store = MemoryPushStore()
        store.refuse(messages: [2])
        let result = spool.drain(into: store, node: "test")
        #expect(result.stored == 4 && result.skipped == 1 && result.stoppedBy == nil)
        #expect(store.stored.map(\.messageID) == [1, 3, 4, 5])
        #expect(spool.depth.pushes == 0)
        #expect(notices.withLock { $0 }.contains { $0.contains("record 2") && $0.contains("refused by the store") && $0.contains("22021") })
    }

    @Test func aFullSpoolRefusesAndKeepsWhatItHas() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let one = PushSpoolRecord.encode(samplePush(1)).count + 12
        let spool = try PushSpool(folder: folder, limits: .init(maximumBytes: 3 * one + 10, fileBytes: 1 << 20))
        for m in 1...3 { try spool.append(samplePush(Int64(m))) }
        #expect(throws: PushSpoolError.self) { try spool.append(samplePush(4)) }
        #expect(spool.depth.pushes == 3)
        let store = MemoryPushStore()
        _ = spool.drain(into: store, node: "test")
        #expect(store.stored.map(\.messageID) == [1, 2, 3])
        try spool.append(samplePush(4))   // room again
        #expect(spool.depth.pushes == 1)
    }

    @Test func reopenedAfterACrashItDropsOnlyATornTailAndSkipsDamage() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let spool = try PushSpool(folder: folder)
            for m in 1...5 { try spool.append(samplePush(Int64(m))) }
        }
        let file = folder.appendingPathComponent(try FileManager.default.contentsOfDirectory(atPath: folder.path)[0])
        var bytes = [UInt8](try Data(contentsOf: file))
        let recordBytes = bytes.count / 5
        bytes[2 * recordBytes + 40] ^= 0xFF                 // damage inside record 3
        bytes += Array(bytes[0..<(recordBytes / 2)])       // half a record: a write cut short by the crash
        try Data(bytes).write(to: file)
        let notices = Locked<[String]>([])
        let spool = try PushSpool(folder: folder, notify: { n in notices.withLock { $0.append(n) } })
        #expect(spool.depth.pushes == 4)
        let store = MemoryPushStore()
        let result = spool.drain(into: store, node: "test")
        #expect(store.stored.map(\.messageID) == [1, 2, 4, 5])
        #expect(result.skipped == 1)
        let said = notices.withLock { $0 }
        #expect(said.contains { $0.contains("checksum") })
        #expect(said.contains { $0.contains("cut short") })
    }
}
