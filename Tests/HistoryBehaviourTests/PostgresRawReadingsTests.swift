import Foundation
import Logging
import MotionHistory
@testable import MotionHistoryPostgres
import MotionIngest
import NIOPosix
import PostgresNIO
import Testing

/// A phone's raw readings as an ingest node stores them (`PostgresPushStore`) and as `coremotion history
/// samples --sensor` reads them back (`PostgresHistoryStore.rawReadings`).
@Suite(
    "PostgreSQL stored raw readings",
    .enabled(if: PostgresTestServer.url != nil, "no PostgreSQL server: set COREMOTION_TEST_POSTGRES=postgres://…"))
struct PostgresRawReadingsTests {
    /// 2026-09-21 14:13:20 UTC, in microseconds.
    static let t0: Int64 = 1_790_000_000_000_000

    static func date(_ microseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(microseconds) / 1e6) }

    /// `count` accelerometer readings at 100 Hz from `first`, values that float4 cannot hold exactly.
    static func accelerometer(first: Int, count: Int) -> RawSeries {
        let times = (first..<(first + count)).map { t0 + Int64($0) * 10_000 }
        var values: [Double] = []
        for i in first..<(first + count) {
            let x = Double(i)
            values += [0.1 * x, -9.80665 + 0.001 * x, 1.0 / 3.0]
        }
        return RawSeries(sensor: "accelerometer", fields: ["x", "y", "z"], microseconds: times, values: values)
    }

    /// The history read for every device (prefix "", as `coremotion history` reads it); opening it migrates
    /// the schema, which a push store expects.
    func history() throws -> PostgresHistoryStore {
        let url = try #require(PostgresTestServer.url)
        var configuration = HistoryConfiguration(location: .postgres(url))
        configuration.flushInterval = 3600
        return try PostgresHistoryStore(configuration: configuration, options: .init(devicePrefix: "", connectTimeout: 5, queryTimeout: 20))
    }

    @Test("readings come back in time order, as float4 (real) or exactly (location), only inside the span")
    func readsBack() async throws {
        let history = try history()
        defer { try? history.close() }
        // Stored with the awaiting call: a test runs on the cooperative pool, whose threads the push store's
        // connection pool needs (the blocking `store` is for an ingest node's own writer threads).
        let pushes = try PostgresPushStore(location: .postgres(try #require(PostgresTestServer.url)))
        let device = "test-raw-\(UUID().uuidString)"
        // The second second first: the reader orders by time whatever the pushes' order.
        let second = RawPush(device: device, session: "s", messageID: 2, receivedMicroseconds: Self.t0 + 2_100_000,
                             series: [Self.accelerometer(first: 100, count: 100)])
        let location = RawSeries(sensor: "location", fields: ["latitude", "longitude"], microseconds: [Self.t0 + 500_000],
                                 values: [47.376_886_123_456, 8.541_694_987_654])
        let first = RawPush(device: device, session: "s", messageID: 1, receivedMicroseconds: Self.t0 + 1_100_000,
                            series: [Self.accelerometer(first: 0, count: 100), location])
        #expect(try await pushes.storeAwaiting(second, node: "test"))
        #expect(try await pushes.storeAwaiting(first, node: "test"))

        let read = try history.rawReadings(device: device, sensor: "accelerometer", from: Self.date(Self.t0), to: Self.date(Self.t0 + 2_000_000))
        #expect(!read.truncated)
        let all = read.series
        try #require(all.count == 1)
        #expect(all[0].sensor == "accelerometer")
        #expect(all[0].fields == ["x", "y", "z"])
        #expect(all[0].readings.count == 200)
        for (i, reading) in all[0].readings.enumerated() {
            #expect(abs(reading.time.timeIntervalSince1970 - Self.date(Self.t0 + Int64(i) * 10_000).timeIntervalSince1970) < 1e-6)
            let x = Double(i)
            let expected: [Double] = [Double(Float(0.1 * x)), Double(Float(-9.80665 + 0.001 * x)), Double(Float(1.0 / 3.0))]
            #expect(reading.values == expected)
        }

        // [0.5 s, 1.5 s): readings 50…149, across both pushes' chunks.
        let middle = try history.rawReadings(
            device: device, sensor: "accelerometer", from: Self.date(Self.t0 + 500_000), to: Self.date(Self.t0 + 1_500_000)).series
        #expect(middle.first?.readings.count == 100)
        #expect(middle.first?.readings.first.map { abs($0.values[0] - Double(Float(5.0))) < 1e-9 } == true)

        let fix = try history.rawReadings(device: device, sensor: "location", from: Self.date(Self.t0), to: Self.date(Self.t0 + 1_000_000)).series
        #expect(fix.first?.readings.map(\.values) == [[47.376_886_123_456, 8.541_694_987_654]])

        #expect(try history.rawReadings(device: device, sensor: "gyroscope", from: Self.date(Self.t0), to: Self.date(Self.t0 + 1_000_000)).series.isEmpty)
        #expect(try history.rawReadings(device: device + "-none", sensor: "accelerometer", from: Self.date(Self.t0), to: Self.date(Self.t0 + 1_000_000)).series.isEmpty)

        // A limit keeps the first readings and says there were more.
        let limited = try history.rawReadings(
            device: device, sensor: "accelerometer", from: Self.date(Self.t0), to: Self.date(Self.t0 + 2_000_000), limit: 150)
        #expect(limited.truncated)
        #expect(limited.series.first?.readings.count == 150)
    }

    @Test("reading times and a phone's first and newest reading are kept to the microsecond")
    func keepsEveryMicrosecond() async throws {
        let history = try history()
        defer { try? history.close() }
        let url = try #require(PostgresTestServer.url)
        let pushes = try PostgresPushStore(location: .postgres(url))
        let device = "test-raw-µs-\(UUID().uuidString)"
        // Times off the whole millisecond, where a Double product truncated to µs (postgres-nio's own Date
        // coding) loses one in some: measured 1 µs early on a CI run before the store coded times itself.
        let times = (0..<1000).map { Self.t0 + 1 + Int64($0) * 10_007 }
        let series = RawSeries(sensor: "accelerometer", fields: ["x"], microseconds: times, values: times.map { _ in 1 })
        #expect(try await pushes.storeAwaiting(
            RawPush(device: device, session: "s", messageID: 1, receivedMicroseconds: times.last!, series: [series]), node: "test"))
        let read = try history.rawReadings(device: device, sensor: "accelerometer", from: Self.date(Self.t0), to: Self.date(times.last! + 1))
        let got = read.series.first?.readings.map { Int64(($0.time.timeIntervalSince1970 * 1e6).rounded()) }
        #expect(got == times)
        let engines = try PostgresPhoneEngineStore(location: .postgres(url))
        let phone = try #require(try engines.phonesBehind(
            sensors: ["accelerometer"], namePrefix: device, node: "test", lagMicroseconds: 0, quietSeconds: 0, limit: 1).first)
        #expect(phone.firstReading == times.first!)
        #expect(phone.newestReading == times.last!)
    }

    @Test("pushes meeting the same new sensors at once, in different orders, are all stored (no deadlock)")
    func newSensorsAtOnce() async throws {
        let url = try #require(PostgresTestServer.url)
        _ = try history()
        let pushes = try PostgresPushStore(location: .postgres(url))
        let tag = UUID().uuidString.prefix(8)
        let names = (0..<4).map { "test-sensor-\(tag)-\($0)" }
        // Measured before the store ordered a push's sensors: 40P01 (deadlock detected) among 2 nodes' first
        // pushes of 200 phones, each listing its sensors in the order of its first reading. Measured while a
        // push's transaction added the new kinds itself: beside the whole suite on two cores one transaction
        // waited for a thread of the cooperative pool holding a new kind's row, and another push's insert of
        // that kind met the statement timeout (57014, in CI, twice). Kinds are now added outside the
        // transaction, so every push is stored.
        let outcomes = await withTaskGroup(of: String?.self) { group in
            for phone in 0..<16 {
                let order = phone % 2 == 0 ? names : names.reversed()
                let series = order.map { RawSeries(sensor: $0, fields: ["x"], microseconds: [Self.t0 + Int64(phone)], values: [1]) }
                let push = RawPush(device: "test-raw-\(tag)-\(phone)", session: "s", messageID: 1, receivedMicroseconds: Self.t0, series: series)
                group.addTask {
                    do {
                        return try await pushes.storeAwaiting(push, node: "test") ? nil : "stored as a duplicate"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        let failures = outcomes.compactMap { $0 }
        if !failures.isEmpty {
            print("PostgresRawReadingsTests: \(16 - failures.count) of 16 pushes stored; not stored: \(failures.map { String($0.prefix(300)) })")
        }
        #expect(failures.isEmpty)
    }

    @Test("a push waiting inside its transaction holds up no other phone's push of the same new sensor kind")
    func newKindIsNotHeldByAWaitingPush() async throws {
        let url = try #require(PostgresTestServer.url)
        _ = try history()
        let pushes = try PostgresPushStore(location: .postgres(url))
        let tag = UUID().uuidString.prefix(8)
        let (phoneA, phoneB) = ("test-raw-held-\(tag)-a", "test-raw-held-\(tag)-b")
        #expect(try await pushes.storeAwaiting(
            RawPush(device: phoneA, session: "s", messageID: 1, receivedMicroseconds: Self.t0,
                    series: [Self.accelerometer(first: 0, count: 1)]), node: "test"))

        // Phone A's accelerometer counters row, held by a transaction of the test's own.
        let address = try PostgresServerAddress.parse(url, shown: "test")
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(),
            configuration: try address.connectionConfiguration(connectTimeout: 5, statementTimeout: 30),
            id: 1, logger: Logger(label: "test"))
        _ = try await connection.query("BEGIN", logger: Logger(label: "test")).collect()
        _ = try await connection.query("""
            SELECT 1 FROM coremotion.device_sensor ds JOIN coremotion.device d ON d.id = ds.device
            WHERE d.name = \(phoneA) FOR UPDATE OF ds
            """, logger: Logger(label: "test")).collect()

        // A new kind that sorts before "accelerometer": phone A's push meets it, then waits on the held row
        // until the test commits, after phone B's push of that kind has ended. A's store allows a statement
        // 60 s, B's the default 5 s. Measured while a push's transaction added new kinds itself: B waited for
        // A's transaction, which waited for the test, until B failed on the statement timeout (57014).
        let kind = "aaa-held-\(tag)"
        func newKind(_ phone: Int64) -> RawSeries {
            RawSeries(sensor: kind, fields: ["x"], microseconds: [Self.t0 + phone], values: [1])
        }
        let patient = try PostgresPushStore(location: .postgres(url), timeout: 60)
        let first = RawPush(device: phoneA, session: "s", messageID: 2, receivedMicroseconds: Self.t0,
                            series: [newKind(1), Self.accelerometer(first: 1, count: 1)])
        let pushA = Task { try await patient.storeAwaiting(first, node: "test") }
        try await Task.sleep(for: .seconds(1))
        let pushB = RawPush(device: phoneB, session: "s", messageID: 1, receivedMicroseconds: Self.t0, series: [newKind(2)])
        let storedB: Result<Bool, any Error>
        do { storedB = .success(try await pushes.storeAwaiting(pushB, node: "test")) } catch { storedB = .failure(error) }
        _ = try await connection.query("COMMIT", logger: Logger(label: "test")).collect()
        try await connection.close()
        #expect((try? storedB.get()) == true, "phone B's push: \(storedB)")
        #expect(try await pushA.value)
    }

    @Test("past the sensor-kind limit a new kind is not stored; known kinds of the same push are")
    func boundsSensorKinds() async throws {
        let url = try #require(PostgresTestServer.url)
        let history = try history()
        defer { try? history.close() }
        let tag = UUID().uuidString
        let known = try PostgresPushStore(location: .postgres(url))
        #expect(try await known.storeAwaiting(
            RawPush(device: "test-kinds-\(tag)-a", session: "s", messageID: 1, receivedMicroseconds: Self.t0,
                    series: [Self.accelerometer(first: 0, count: 10)]), node: "test"))
        // A limit of 0: every kind the table holds is still taken, no new one (the default is 1,024, far below
        // the smallint ids' 32 767, which names invented by a sender would otherwise use up for every phone).
        let full = try PostgresPushStore(location: .postgres(url), sensorKindLimit: 0)
        let device = "test-kinds-\(tag)-b"
        let invented = RawSeries(sensor: "invented-\(tag)", fields: ["x"], microseconds: [Self.t0 + 5], values: [1])
        #expect(try await full.storeAwaiting(
            RawPush(device: device, session: "s", messageID: 1, receivedMicroseconds: Self.t0,
                    series: [invented, Self.accelerometer(first: 0, count: 10)]), node: "test"))
        let span = (Self.date(Self.t0 - 1), Self.date(Self.t0 + 1_000_000))
        #expect(try history.rawReadings(device: device, sensor: "accelerometer", from: span.0, to: span.1).series.first?.readings.count == 10)
        #expect(try history.rawReadings(device: device, sensor: invented.sensor, from: span.0, to: span.1).series.isEmpty)
        // With room again, the kind is added.
        #expect(try await known.storeAwaiting(
            RawPush(device: device, session: "s", messageID: 2, receivedMicroseconds: Self.t0, series: [invented]), node: "test"))
        #expect(try history.rawReadings(device: device, sensor: invented.sensor, from: span.0, to: span.1).series.first?.readings.count == 1)
    }

    @Test("a push PostgreSQL cannot hold (a NUL in a name) is refused as such, not taken for an outage")
    func refusesWhatItCannotHold() async throws {
        let url = try #require(PostgresTestServer.url)
        _ = try history()
        let pushes = try PostgresPushStore(location: .postgres(url))
        let tag = UUID().uuidString
        for (device, sensor) in [("test-nul-\(tag)\u{0}", "accelerometer"), ("test-nul-\(tag)", "acc\u{0}elerometer")] {
            var series = Self.accelerometer(first: 0, count: 3)
            series.sensor = sensor
            do {
                _ = try await pushes.storeAwaiting(
                    RawPush(device: device, session: "s", messageID: 1, receivedMicroseconds: Self.t0, series: [series]), node: "test")
                Issue.record("a NUL in \(device.debugDescription) / \(sensor.debugDescription) was stored")
            } catch let refused as RawPushRefused {
                #expect(refused.reason.contains("SQLSTATE 22"), "\(refused)")
            }
        }
        // The store goes on: the same phone's next push is stored.
        #expect(try await pushes.storeAwaiting(
            RawPush(device: "test-nul-\(tag)", session: "s", messageID: 2, receivedMicroseconds: Self.t0,
                    series: [Self.accelerometer(first: 0, count: 3)]), node: "test"))
    }

    @Test("a store for every device (what `coremotion history` opens) deletes nothing past retention")
    func everyDeviceStoreKeepsOldRecords() throws {
        let url = try #require(PostgresTestServer.url)
        let prefix = "test-retention-\(UUID().uuidString):"
        let options = PostgresHistoryStore.Options(devicePrefix: prefix, connectTimeout: 5, queryTimeout: 20)
        let old = Date(timeIntervalSince1970: 1_700_000_000)  // 2023: past every retention
        let own = try PostgresHistoryStore(configuration: HistoryConfiguration(location: .postgres(url)), options: options)
        try own.append(contentsOf: [StepRecord(date: old, strideLength: 0.7)], source: "phone")
        try own.flush()
        // Measured before: opening this store deleted every device's steps older than its retention.
        let every = try history()
        try every.close()
        #expect(try own.pedometerSummary(from: old.addingTimeInterval(-60), to: old.addingTimeInterval(60), source: "phone").steps == 1)
        try own.close()
    }

    @Test("a span over an hour is refused with spanTooLong")
    func boundsTheSpan() throws {
        let history = try history()
        defer { try? history.close() }
        #expect(throws: HistoryError.self) {
            _ = try history.rawReadings(device: "any", sensor: "accelerometer", from: Self.date(Self.t0), to: Self.date(Self.t0 + 3_601_000_000))
        }
    }
}
