import Foundation
import MotionDaemon
import MotionIngest
import MotionNetwork
import TestSupport
import Testing

/// A database for the ingest node that can be switched off: pushes kept by (device, session, message).
final class SwitchableDatabase: RawPushStorage, @unchecked Sendable {  // @unchecked: every var is reached under `lock`
    private let lock = NSLock()
    private var pushes: [String: RawPush] = [:]
    private var up = true
    /// A device whose pushes the database refuses for their contents (as PostgreSQL refuses a NUL in a name).
    private var refusedDevice: String?

    func refuse(device: String) {
        lock.lock()
        refusedDevice = device
        lock.unlock()
    }

    func set(up: Bool) {
        lock.lock()
        self.up = up
        lock.unlock()
    }

    var stored: [RawPush] {
        lock.lock()
        defer { lock.unlock() }
        return pushes.values.sorted { $0.messageID < $1.messageID }
    }

    func isReachable() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return up
    }

    func store(_ push: RawPush, node: String) throws -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard up else { throw CocoaError(.fileReadUnknown) }
        if push.device == refusedDevice { throw RawPushRefused(reason: "SQLSTATE 22021: invalid byte sequence") }
        let key = "\(push.device)|\(push.session)|\(push.messageID)"
        guard pushes[key] == nil else { return false }
        pushes[key] = push
        return true
    }
}

@Suite("Ingest node: a push is answered 200 only once it is durable")
struct IngestNodeTests {
    static func body(_ message: Int, device: String = "phone-a") -> [UInt8] {
        let t = 1_700_000_000_000_000_000 + Int64(message) * 1_000_000_000
        let readings = (0..<3).map { i in
            #"{"name":"accelerometer","time":\#(t + Int64(i) * 10_000_000),"values":{"x":0.1,"y":-9.8,"z":0.2}}"#
        } + [#"{"name":"barometer","time":\#(t),"values":{"pressure":1013.2,"relativeAltitude":0.5}}"#]
        return Array(#"{"messageId":\#(message),"sessionId":"s-1","deviceId":"\#(device)","payload":[\#(readings.joined(separator: ","))]}"#.utf8)
    }

    @Test func commitsSpoolsRefusesAndCatchesUp() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ingest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = SwitchableDatabase()
        let oneRecord = PushSpoolRecord.encode(RawPush(
            device: "phone-a", session: "s-1", messageID: 1, receivedAt: Date(),
            series: [RawSeries(sensor: "accelerometer", fields: ["x", "y", "z"], microseconds: [1, 2, 3], values: Array(repeating: 0, count: 9)),
                     RawSeries(sensor: "barometer", fields: ["pressure", "relativeAltitude"], microseconds: [1], values: [0, 0])])).count + 12
        let spool = try PushSpool(folder: folder, limits: .init(maximumBytes: 2 * oneRecord + 8, fileBytes: 1 << 20))
        var settings = IngestNode.Settings()
        settings.node = "test-node"
        settings.drainInterval = 0.05
        let node = IngestNode(
            configuration: SensorLoggerConfiguration(host: "127.0.0.1", port: 0), database: database, spool: spool, settings: settings)
        let port = try node.start()
        defer { node.stop() }

        // Up: committed.
        #expect(try RawHTTP.post(port: port, body: Self.body(1)).status == 200)
        #expect(database.stored.map(\.messageID) == [1])
        let first = try #require(database.stored.first)
        #expect(first.series.map(\.sensor) == ["accelerometer", "barometer"])
        #expect(first.series[0].fields == ["x", "y", "z"] && first.series[0].count == 3)
        #expect(first.series[0].microseconds[1] - first.series[0].microseconds[0] == 10_000)

        // Down: spooled (two fit), then refused with 503.
        database.set(up: false)
        #expect(try RawHTTP.post(port: port, body: Self.body(2)).status == 200)
        #expect(try RawHTTP.post(port: port, body: Self.body(3)).status == 200)
        let refused = try RawHTTP.post(port: port, body: Self.body(4))
        #expect(refused.status == 503, "\(refused.body)")
        var figures = node.figures
        #expect(figures.spooled == 2 && figures.refused == 1 && figures.spoolPushes == 2)
        #expect(!figures.databaseReachable)

        // Back: the spool drains, the refused push is sent again and committed, a retry stores nothing.
        database.set(up: true)
        for _ in 0..<200 where node.figures.spoolPushes > 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(database.stored.map(\.messageID) == [1, 2, 3])
        for _ in 0..<200 where !node.figures.databaseReachable { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try RawHTTP.post(port: port, body: Self.body(4)).status == 200)
        #expect(try RawHTTP.post(port: port, body: Self.body(2)).status == 200)
        #expect(database.stored.map(\.messageID) == [1, 2, 3, 4])
        figures = node.figures
        #expect(figures.drained == 2 && figures.duplicates >= 1 && figures.spoolPushes == 0 && figures.databaseReachable)
        #expect(figures.latencyP99Milliseconds > 0)
    }

    /// A push the database refuses for its contents is answered 400 and neither spooled nor taken for an
    /// outage: the other phones' pushes go on being committed.
    @Test func aPushTheDatabaseRefusesIsAnswered400() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ingest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = SwitchableDatabase()
        database.refuse(device: "phone-bad")
        var settings = IngestNode.Settings()
        settings.node = "test-node"
        settings.drainInterval = 0.05
        let node = IngestNode(
            configuration: SensorLoggerConfiguration(host: "127.0.0.1", port: 0), database: database,
            spool: try PushSpool(folder: folder), settings: settings)
        let port = try node.start()
        defer { node.stop() }
        let refused = try RawHTTP.post(port: port, body: Self.body(1, device: "phone-bad"))
        #expect(refused.status == 400 && refused.body.contains("SQLSTATE 22021"), "\(refused.status) \(refused.body)")
        #expect(try RawHTTP.post(port: port, body: Self.body(2)).status == 200)
        let figures = node.figures
        #expect(figures.refused == 1 && figures.spooled == 0 && figures.spoolPushes == 0 && figures.databaseReachable)
        #expect(database.stored.map(\.messageID) == [2])
    }
}
