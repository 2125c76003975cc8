import Foundation
@testable import MotionDaemon
import MotionHistory
@testable import MotionHistoryPostgres
import MotionIngest
import MotionNetwork
import MotionService
import NIOConcurrencyHelpers
import TestSupport
import Testing

/// The PostgreSQL server of these tests (`COREMOTION_TEST_POSTGRES`), or `nil` with one notice line.
enum EngineTestServer {
    static let location: HistoryLocation? = {
        let value = ProcessInfo.processInfo.environment["COREMOTION_TEST_POSTGRES"] ?? ""
        if !value.isEmpty, let location = try? HistoryLocation.postgres(value) { return location }
        print("PhoneEngineWorkerTests: skipped: set COREMOTION_TEST_POSTGRES=postgres://… (tools/postgres/test-server.sh start DIR prints one)")
        return nil
    }()

    /// Two push stores (two simulated nodes), made once and kept for the process, as a node keeps its own: a
    /// push store must outlive its connection pool's work. Generous time per push: the whole suite runs
    /// beside it.
    static func pushStores() throws -> (PostgresPushStore, PostgresPushStore) {
        try stores.withLockedValue { stores in
            if let stores { return stores }
            guard let location else { throw PostgresTestServerMissing() }
            let made = (try PostgresPushStore(location: location, timeout: 60), try PostgresPushStore(location: location, timeout: 60))
            stores = made
            return made
        }
    }

    private static let stores = NIOLockedValueBox<(PostgresPushStore, PostgresPushStore)?>(nil)

    struct PostgresTestServerMissing: Error {}
}

/// The Sensor Logger walk of an iPhone 13 (92 s, `$COREMOTION_DATA/iphone13-walk-sensorlogger`) as the pushes
/// a phone sends: one a second, with the uncalibrated accelerometer (g), the uncalibrated gyroscope and the
/// barometer, values and field order as in the app's files.
struct RecordedWalk {
    static let name = "iphone13-walk-sensorlogger"
    /// Per sensor: the wire name, the fields, times (µs since 1970) and values.
    var series: [RawSeries] = []

    init() throws {
        let folder = TestData.url(Self.name)
        for (file, sensor) in [
            ("AccelerometerUncalibrated.csv", "accelerometeruncalibrated"), ("GyroscopeUncalibrated.csv", "gyroscopeuncalibrated"),
            ("Barometer.csv", "barometer"),
        ] {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            var lines = text.split(whereSeparator: \.isNewline).map(String.init)
            let header = lines.removeFirst().split(separator: ",").map(String.init)
            let fields = Array(header.dropFirst(2))
            var s = RawSeries(sensor: sensor, fields: fields, microseconds: [], values: [])
            for line in lines {
                let cells = line.split(separator: ",", omittingEmptySubsequences: false)
                guard cells.count == header.count, let ns = Int64(cells[0]) else { continue }
                let values = cells.dropFirst(2).compactMap { Double($0) }
                guard values.count == fields.count else { continue }
                s.microseconds.append(ns / 1000)
                s.values.append(contentsOf: values)
            }
            series.append(s)
        }
    }

    /// The first reading, µs since 1970.
    var start: Int64 { series.compactMap(\.microseconds.first).min() ?? 0 }
    /// The last accelerometer reading, µs since 1970 (where a finished phone's records end).
    var end: Int64 { series.first { $0.sensor == "accelerometeruncalibrated" }?.microseconds.last ?? 0 }

    /// The walk moved in time by `shift` µs.
    func shifted(by shift: Int64) -> RecordedWalk {
        var copy = self
        for i in copy.series.indices { copy.series[i].microseconds = copy.series[i].microseconds.map { $0 + shift } }
        return copy
    }

    /// One push per second of readings, numbered from 1.
    func pushes(device: String) -> [RawPush] {
        let t0 = start
        var bySecond: [Int64: [RawSeries]] = [:]
        for s in series {
            var parts: [Int64: RawSeries] = [:]
            let width = s.fields.count
            for i in 0..<s.count {
                let second = (s.microseconds[i] - t0) / 1_000_000
                parts[second, default: RawSeries(sensor: s.sensor, fields: s.fields, microseconds: [], values: [])].microseconds.append(s.microseconds[i])
                parts[second]!.values.append(contentsOf: s.values[(i * width)..<((i + 1) * width)])
            }
            for (second, part) in parts { bySecond[second, default: []].append(part) }
        }
        return bySecond.keys.sorted().map { second in
            RawPush(device: device, session: "walk", messageID: second + 1, receivedAt: Date(), series: bySecond[second]!)
        }
    }

    /// What the service's engines make of the same readings in one run: the in-process reference.
    func inProcess() throws -> HistoryEngines.Records {
        let decision = try #require(StoredPhoneSamples.decide(series))
        let converted = StoredPhoneSamples(series, decision: decision, origin: start, from: .min, through: .max)
        var engines = try HistoryEngines(origin: Date(timeIntervalSince1970: Double(start) / 1e6))
        for sample in converted.samples { engines.add(sample) }
        engines.finish()
        return engines.takeRecords()
    }
}

/// What the database holds for one phone.
struct StoredPhone {
    var steps: [Int64: Int] = [:]  // minute → steps
    var transitions: [(Int64, Int)] = []
    var derivedUntil: Int64?
    var node: String?

    var totalSteps: Int { steps.values.reduce(0, +) }

    static func read(_ name: String, location: HistoryLocation) throws -> StoredPhone {
        let store = try PostgresPhoneEngineStore(location: location)
        defer { store.disconnect() }
        var phone = StoredPhone()
        let session = store.session
        let operation = "test"
        guard let id = try session.query("SELECT id FROM coremotion.device WHERE name = \(name)", operation: operation).rows.first?
            .decode(Int64.self)
        else { return phone }
        for row in try session.query(
            "SELECT minute, step_count FROM coremotion.step_minute WHERE device = \(id) ORDER BY minute", operation: operation
        ).rows {
            let (minute, count) = try row.decode((PostgresTimestamp, Int32).self)
            phone.steps[minute.minute] = Int(count)
        }
        for row in try session.query(
            "SELECT date, transition FROM coremotion.pedometer_transition WHERE device = \(id) ORDER BY date", operation: operation
        ).rows {
            let (date, value) = try row.decode((PostgresTimestamp, Int16).self)
            phone.transitions.append((date.microseconds, Int(value)))
        }
        if let row = try session.query(
            "SELECT derived_until, node FROM coremotion.device_engine WHERE device = \(id)", operation: operation
        ).rows.first {
            let (until, node) = try row.decode((PostgresTimestamp, String).self)
            phone.derivedUntil = until.microseconds
            phone.node = node
        }
        return phone
    }

    /// Pauses and resumes alternate, starting with a resume (a window written twice would repeat one).
    var transitionsAlternate: Bool {
        transitions.enumerated().allSatisfy { i, t in t.1 == (i % 2 == 0 ? 1 : 0) }
    }
}

@Suite(
    "Phone engines on ingest nodes: one writer per phone, no double count",
    .enabled(if: EngineTestServer.location != nil, "no PostgreSQL server: set COREMOTION_TEST_POSTGRES=postgres://…"),
    .enabled(if: TestData.has(RecordedWalk.name), Comment(rawValue: TestData.skipNotice(RecordedWalk.name))))
struct PhoneEngineWorkerTests {
    static func settings(prefix: String, window: Double = 20, lease: Double = 30, quiet: Double = 0) -> PhoneEngineWorker.Settings {
        var settings = PhoneEngineWorker.Settings()
        settings.namePrefix = prefix
        settings.interval = 0.1
        settings.windowSeconds = window
        settings.leaseSeconds = lease
        settings.quietSeconds = quiet
        // Every pass derives what passed the horizon (the lease tests count on it).
        settings.batchSeconds = 0
        return settings
    }

    /// Stores the pushes through two simulated nodes, alternating every 5 pushes (a phone behind a load
    /// balancer), each seventh push sent to the other node too (a resend); returns the pushes stored and the
    /// resends refused as duplicates. Awaited: the push store's blocking call would hold a thread of the
    /// cooperative pool its own work needs.
    static func store(_ pushes: [RawPush], location: HistoryLocation) async throws -> (stored: Int, duplicates: Int) {
        // The push store expects the schema (a node's history store creates it): any call of the engine store
        // creates or checks it.
        _ = try PostgresPhoneEngineStore(location: location).phonesBehind(
            sensors: [], namePrefix: "-", node: "-", lagMicroseconds: 0, quietSeconds: 0, limit: 1)
        let (a, b) = try EngineTestServer.pushStores()
        var stored = 0
        var duplicates = 0
        for (i, push) in pushes.enumerated() {
            let (first, second) = (i / 5) % 2 == 0 ? (a, b) : (b, a)
            if try await first.storeAwaiting(push, node: first === a ? "A" : "B") { stored += 1 }
            if i % 7 == 3, try await !second.storeAwaiting(push, node: "resend") { duplicates += 1 }
        }
        return (stored, duplicates)
    }

    /// Stores the pushes and checks that each was stored once.
    static func storeChecked(_ pushes: [RawPush], location: HistoryLocation) async throws {
        let (stored, duplicates) = try await store(pushes, location: location)
        #expect(stored == pushes.count)
        #expect(duplicates == pushes.indices.filter { $0 % 7 == 3 }.count)
    }

    /// Waits until every phone of `names` is derived to `end` (µs since 1970).
    static func waitDerived(_ names: [String], end: Int64, location: HistoryLocation, seconds: Double = 120) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let done = try names.allSatisfy { try StoredPhone.read($0, location: location).derivedUntil == end }
            if done { return }
            try await Task.sleep(for: .milliseconds(300))
        }
        Issue.record("phones not derived within \(seconds) s")
    }

    @Test("two nodes derive three phones concurrently; steps match the in-process pedometer")
    func twoNodesConcurrently() async throws {
        let location = try #require(EngineTestServer.location)
        let walk = try RecordedWalk()
        let reference = try walk.inProcess()
        let prefix = "engines-test-\(UUID().uuidString)-"
        let names = (1...3).map { "\(prefix)phone\($0)" }
        for name in names { try await Self.storeChecked(walk.pushes(device: name), location: location) }

        let storeA = try PostgresPhoneEngineStore(location: location)
        let storeB = try PostgresPhoneEngineStore(location: location)
        let a = PhoneEngineWorker(storage: storeA, node: "A", settings: Self.settings(prefix: prefix))
        let b = PhoneEngineWorker(storage: storeB, node: "B", settings: Self.settings(prefix: prefix))
        a.start()
        b.start()
        try await Self.waitDerived(names, end: walk.end, location: location)
        a.stop()
        b.stop()

        let inProcess = reference.steps.count
        var byMinute: [Int64: Int] = [:]
        for step in reference.steps { byMinute[Int64((step.date.timeIntervalSince1970 / 60).rounded(.down)), default: 0] += 1 }
        for name in names {
            let phone = try StoredPhone.read(name, location: location)
            print("phone engines: \(name.suffix(6)): \(phone.totalSteps) steps stored, \(inProcess) in process; by minute \(phone.steps.sorted { $0.key < $1.key }.map(\.value)) vs \(byMinute.sorted { $0.key < $1.key }.map(\.value)); \(phone.transitions.count) transitions; node \(phone.node ?? "-")")
            // Windows of 20 s, engines restarted 30 s before each window: measured 187 stored, 187 in process,
            // every minute equal, on each phone.
            #expect(abs(phone.totalSteps - inProcess) <= 2)
            for (minute, count) in byMinute { #expect(abs((phone.steps[minute] ?? 0) - count) <= 2) }
            #expect(phone.transitionsAlternate)
            #expect(phone.derivedUntil == walk.end)
        }
        let figures = [a.figures, b.figures]
        print("phone engines: node A \(figures[0]), node B \(figures[1])")
        #expect(figures.map(\.windows).reduce(0, +) >= 3 * 4)

        // The readers of the history answer for a phone (the name is its device id, no prefix).
        var configuration = HistoryConfiguration(location: location)
        configuration.flushInterval = 3600
        let now = Date(timeIntervalSince1970: Double(walk.start) / 1e6 + 86_400)
        configuration.now = { now }
        let reader = try PostgresHistoryStore(configuration: configuration, options: .init(devicePrefix: prefix))
        defer { try? reader.close() }
        let source = String(names[0].dropFirst(prefix.count))
        let start = Date(timeIntervalSince1970: Double(walk.start) / 1e6 - 60)
        let summary = try reader.pedometerSummary(from: start, to: start.addingTimeInterval(600), source: source)
        #expect(abs(summary.steps - inProcess) <= 2)
        let activities = try reader.activities(from: start, to: start.addingTimeInterval(600), source: source)
        #expect(!activities.isEmpty)
    }

    @Test("a node whose lease was taken writes nothing; the other continues without a gap or double count")
    func leaseTakenOver() async throws {
        let location = try #require(EngineTestServer.location)
        let name = "engines-test-\(UUID().uuidString)-lease"
        // The walk ending 3 s ago: the phone is not quiet, so the horizon holds back its last seconds.
        let walk0 = try RecordedWalk()
        let end0 = walk0.series.compactMap(\.microseconds.last).max()!
        let now = Int64(Date().timeIntervalSince1970 * 1e6)
        let walk = walk0.shifted(by: now - 3_000_000 - end0)
        let reference = try walk.inProcess()
        let pushes = walk.pushes(device: name)
        try await Self.storeChecked(Array(pushes.prefix(50)), location: location)

        // Node A derives the first part with a short lease, then "dies" (no release).
        let storeA = try PostgresPhoneEngineStore(location: location)
        let a = PhoneEngineWorker(storage: storeA, node: "A", settings: Self.settings(prefix: name, lease: 1, quiet: 3600))
        #expect(a.runPass() >= 1)
        let afterA = try StoredPhone.read(name, location: location)
        let untilA = try #require(afterA.derivedUntil)
        #expect(afterA.node == "A")
        #expect(untilA < walk.start + 50_000_000 - 10_000_000)

        // A stalled copy of A's lease (as if A hung between reading and writing).
        let stale = PhoneEngineLease(device: 0, name: name, node: "A", derivedUntil: untilA)
        try await Self.storeChecked(Array(pushes.dropFirst(50)), location: location)
        try await Task.sleep(for: .milliseconds(1500))

        // Node B takes the expired lease and derives the rest (to the horizon, then finished once quiet).
        let storeB = try PostgresPhoneEngineStore(location: location)
        let b = PhoneEngineWorker(storage: storeB, node: "B", settings: Self.settings(prefix: name, lease: 30, quiet: 3600))
        #expect(b.runPass() >= 1)
        let afterB = try StoredPhone.read(name, location: location)
        #expect(afterB.node == "B")
        #expect(try #require(afterB.derivedUntil) > untilA)

        // A, back: its stale lease writes nothing, and it cannot take B's.
        let phoneID = try #require(try storeB.phonesBehind(
            sensors: StoredPhoneSamples.accelerometerSensors, namePrefix: name, node: "B", lagMicroseconds: 0, quietSeconds: 0, limit: 10
        ).first)
        var staleLease = stale
        staleLease.device = phoneID.device
        let records = DerivedRecords(steps: reference.steps.filter { Int64($0.date.timeIntervalSince1970 * 1e6) > untilA })
        #expect(try !storeA.commit(records, lease: staleLease, derivedUntil: untilA + 20_000_000, leaseSeconds: 30))
        #expect(try storeA.takeLease(phoneID, node: "A", seconds: 30, initialDerivedUntil: 0) == nil)
        #expect(a.runPass() == 0)
        let unchanged = try StoredPhone.read(name, location: location)
        #expect(unchanged.totalSteps == afterB.totalSteps && unchanged.derivedUntil == afterB.derivedUntil)
        #expect(a.figures.lostLeases == 0)

        // Finished once quiet (here: told so), B's records join A's without a gap or a double count.
        let finisher = PhoneEngineWorker(storage: storeB, node: "B", settings: Self.settings(prefix: name, lease: 30, quiet: 0))
        #expect(finisher.runPass() >= 1)
        let done = try StoredPhone.read(name, location: location)
        print("phone engines after a takeover: \(done.totalSteps) steps stored (A to \(Double(untilA - walk.start) / 1e6) s), \(reference.steps.count) in process")
        // Measured: 186 stored (A's part and B's), 187 in process.
        #expect(abs(done.totalSteps - reference.steps.count) <= 2)
        #expect(done.transitionsAlternate)
        #expect(done.derivedUntil == walk.end)
    }

    @Test("a worker that loses its lease between reading and writing writes nothing")
    func guardedUpdate() async throws {
        let location = try #require(EngineTestServer.location)
        let name = "engines-test-\(UUID().uuidString)-guard"
        let walk = try RecordedWalk()
        try await Self.storeChecked(Array(walk.pushes(device: name).prefix(30)), location: location)
        let storeA = try PostgresPhoneEngineStore(location: location)
        let storeB = try PostgresPhoneEngineStore(location: location)
        let phone = try #require(try storeA.phonesBehind(
            sensors: StoredPhoneSamples.accelerometerSensors, namePrefix: name, node: "A", lagMicroseconds: 0, quietSeconds: 0, limit: 10
        ).first)
        let leaseA = try #require(try storeA.takeLease(phone, node: "A", seconds: 0.2, initialDerivedUntil: phone.firstReading - 1))
        #expect(try storeB.takeLease(phone, node: "B", seconds: 30, initialDerivedUntil: 0) == nil)
        try await Task.sleep(for: .milliseconds(500))
        let leaseB = try #require(try storeB.takeLease(phone, node: "B", seconds: 30, initialDerivedUntil: 0))
        #expect(leaseB.derivedUntil == leaseA.derivedUntil)
        let step = StepRecord(date: Date(timeIntervalSince1970: Double(phone.firstReading + 5_000_000) / 1e6), strideLength: 0.7)
        #expect(try !storeA.commit(DerivedRecords(steps: [step]), lease: leaseA, derivedUntil: phone.firstReading + 10_000_000, leaseSeconds: 30))
        #expect(try StoredPhone.read(name, location: location).totalSteps == 0)
        #expect(try storeB.commit(DerivedRecords(steps: [step]), lease: leaseB, derivedUntil: phone.firstReading + 10_000_000, leaseSeconds: 30))
        // Written once: the same window again (a former holder's duplicate) is refused, the step stays one.
        #expect(try !storeB.commit(DerivedRecords(steps: [step]), lease: leaseB, derivedUntil: phone.firstReading + 10_000_000, leaseSeconds: 30))
        let stored = try StoredPhone.read(name, location: location)
        #expect(stored.totalSteps == 1 && stored.derivedUntil == phone.firstReading + 10_000_000)
    }
}
