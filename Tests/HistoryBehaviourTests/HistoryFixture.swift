import Foundation
import MotionHistory
import TestSupport
import MotionHistoryPostgres

/// 2023-11-14 22:13:20 UTC: not on a minute boundary, so spans cut minute rows.
let base = Date(timeIntervalSince1970: 1_700_000_000)

func at(_ seconds: Double) -> Date { base.addingTimeInterval(seconds) }

/// A value guarded by a lock (NSLock: the sanitizer understands it).
final class Locked<Value>: @unchecked Sendable {  // @unchecked: `value` is only reached under `lock`
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Collects the notices a store reports.
final class NoticeLog: Sendable {
    private let notices = Locked<[HistoryNotice]>([])
    var all: [HistoryNotice] { notices.withLock { $0 } }
    func record(_ notice: HistoryNotice) { notices.withLock { $0.append(notice) } }
}

/// The stores the behaviour runs on.
enum StoreKind: String, Sendable, CaseIterable, CustomStringConvertible {
    case sqliteMemory = "SQLite in memory"
    case sqliteFile = "SQLite file"
    case postgres = "PostgreSQL"

    var description: String { rawValue }
}

/// One store location for one test: opens stores there (again after closing, except in memory) and removes
/// what it made.
final class HistoryFixture: Sendable {
    let kind: StoreKind
    let notices = NoticeLog()
    /// The wall clock retention uses: a day after `base`, so every record of the tests is kept.
    let now = at(86_400)
    private let location: HistoryLocation
    private let folder: URL?
    /// The device prefix of this fixture's PostgreSQL stores: unique, so tests sharing one database never
    /// see each other's rows.
    let devicePrefix = "test-\(UUID().uuidString):"

    init(_ kind: StoreKind) throws {
        self.kind = kind
        switch kind {
        case .sqliteMemory:
            location = .inMemory
            folder = nil
        case .sqliteFile:
            let folder = try TestData.temporaryDirectory("coremotion-history-behaviour")
            location = .file(folder.appendingPathComponent("history.sqlite"))
            self.folder = folder
        case .postgres:
            guard let url = PostgresTestServer.url else { throw PostgresTestServer.Unavailable() }
            location = .postgres(url)
            folder = nil
        }
    }

    /// Whether a closed store's records can be read by a new one (not in memory).
    var reopens: Bool { kind != .sqliteMemory }

    var configuration: HistoryConfiguration {
        var configuration = HistoryConfiguration(location: location)
        configuration.flushInterval = 3600  // tests flush or query explicitly
        let now = self.now
        configuration.now = { now }
        let notices = self.notices
        configuration.notify = { notices.record($0) }
        return configuration
    }

    /// A store at this fixture's location.
    func open(_ adjust: (inout HistoryConfiguration) -> Void = { _ in }) throws -> any HistoryStorage {
        var configuration = self.configuration
        adjust(&configuration)
        switch kind {
        case .sqliteMemory, .sqliteFile:
            return try HistoryStore(configuration: configuration)
        case .postgres:
            return try PostgresHistoryStore(
                configuration: configuration, options: .init(devicePrefix: devicePrefix, connectTimeout: 5, queryTimeout: 20))
        }
    }

    func cleanUp() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// Runs `body` with a fixture of `kind`, then removes it.
    static func run(_ kind: StoreKind, _ body: (HistoryFixture) throws -> Void) throws {
        let fixture = try HistoryFixture(kind)
        defer { fixture.cleanUp() }
        try body(fixture)
    }
}

/// The PostgreSQL server the tests use: `COREMOTION_TEST_POSTGRES`, as printed by
/// `tools/postgres/test-server.sh start DIR`.
enum PostgresTestServer {
    static let variable = "COREMOTION_TEST_POSTGRES"

    /// The server's URL, or `nil` (with one notice line) when the variable is unset or the build has no
    /// PostgreSQL store.
    static let url: URL? = {
        let value = ProcessInfo.processInfo.environment[variable] ?? ""
        if !value.isEmpty, let location = try? HistoryLocation.postgres(value), case .postgres(let url) = location {
            return url
        }
        print("HistoryBehaviourTests: PostgreSQL suite skipped: set \(variable)=postgres://… (tools/postgres/test-server.sh start DIR prints one)")
        return nil
    }()

    struct Unavailable: Error {}
}
