import Foundation
import MotionHistory
@testable import MotionHistoryPostgres
import Testing

/// What only the PostgreSQL store has: its schema text, its URLs, its devices, its connection.
@Suite("PostgreSQL store")
struct PostgresStoreTests {
    @Test("migration 1 is tools/postgres/schema.sql, word for word")
    func schemaMatchesFile() throws {
        let file = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("tools/postgres/schema.sql")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text == PostgresSchema.version1)
        let statements = PostgresSchema.statements(of: PostgresSchema.version1)
        #expect(statements.first == "CREATE SCHEMA coremotion")
        #expect(statements.last == "INSERT INTO coremotion.schema_migrations (version) VALUES (1)")
        #expect(statements.allSatisfy { !$0.contains("--") })
        #expect(statements.filter { $0.hasPrefix("CREATE TABLE") }.count == 14)
    }

    @Test("URLs: the test server's form, TCP, defaults, percent-encoding")
    func parsesURLs() throws {
        func parse(_ text: String) throws -> PostgresServerAddress {
            guard case .postgres(let url) = try #require(try HistoryLocation.postgres(text)) else { throw PostgresTestServer.Unavailable() }
            return try PostgresServerAddress.parse(url, shown: HistoryLocation.postgres(url).description)
        }
        let socket = try parse("postgres://postgres@localhost/coremotion_test?host=/tmp/cm-pg&port=45678")
        #expect(socket.endpoint == .unixSocket(path: "/tmp/cm-pg/.s.PGSQL.45678"))
        #expect(socket.username == "postgres" && socket.password == nil && socket.database == "coremotion_test")
        let tcp = try parse("postgresql://me:p%40ss%3Aword@db.example.org/history?sslmode=require")
        #expect(tcp.endpoint == .tcp(host: "db.example.org", port: 5432))
        #expect(tcp.password == "p@ss:word" && tcp.sslMode == .require)
        #expect(try parse("postgres://me@10.0.0.5:6543/h?sslmode=disable&connect_timeout=2.5").connectTimeout == 2.5)
        #expect(try parse("postgres://me@10.0.0.5:6543/h").endpoint == .tcp(host: "10.0.0.5", port: 6543))
        #expect(try parse("postgres://me@h/db?host=%2Fvar%2Frun%2Fpostgresql").endpoint == .unixSocket(path: "/var/run/postgresql/.s.PGSQL.5432"))
    }

    @Test("bad URLs are refused, and no message shows the password")
    func refusesBadURLs() throws {
        for text in [
            "postgres://me:secret@h/db?sslmode=verify-everything", "postgres://me:secret@h/db?colour=blue",
            "postgres://me:secret@h/db?port=0", "postgres://me:secret@h/",
        ] {
            var configuration = HistoryConfiguration(location: .inMemory)
            do {
                configuration.location = try #require(try HistoryLocation.postgres(text))
                _ = try PostgresHistoryStore(configuration: configuration)
                Issue.record("\(text) was accepted")
            } catch let error as HistoryError {
                guard case .invalidServerURL = error else { Issue.record("\(text): \(error)"); continue }
                #expect(!"\(error)".contains("secret"))
            }
        }
        #expect(throws: HistoryError.self) { try PostgresHistoryStore(configuration: HistoryConfiguration(location: .inMemory)) }
    }

    @Test("device kinds and this machine's prefix")
    func devices() {
        #expect(PostgresHistoryStore.deviceKind(of: "iio:/sys/bus/iio/devices/iio:device0") == "machine")
        #expect(PostgresHistoryStore.deviceKind(of: "replay:/data/walk.cmrec") == "replay")
        #expect(PostgresHistoryStore.deviceKind(of: "sim:walking") == "simulation")
        #expect(PostgresHistoryStore.deviceKind(of: "phone:abc") == "other")
        let prefix = PostgresHistoryStore.defaultDevicePrefix()
        #expect(prefix.count > 1 && prefix.hasSuffix(":"))
    }

    @Test("no server behind a socket: opening fails at once with serverFailure")
    func noServer() throws {
        let location = try #require(try HistoryLocation.postgres("postgres://me:secret@localhost/db?host=/nonexistent-coremotion&port=5999"))
        let started = ContinuousClock.now
        let error = #expect(throws: HistoryError.self) { try PostgresHistoryStore(configuration: HistoryConfiguration(location: location)) }
        guard case .serverFailure(let shown, _, _) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(!shown.contains("secret"))
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test("a server that never answers: opening gives up within the connect timeout")
    func silentServer() throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let location = try #require(try HistoryLocation.postgres("postgres://me@127.0.0.1:\(listener.port)/db?sslmode=disable"))
        let started = ContinuousClock.now
        let error = #expect(throws: HistoryError.self) {
            try PostgresHistoryStore(configuration: HistoryConfiguration(location: location), options: .init(connectTimeout: 1, queryTimeout: 1))
        }
        guard case .serverFailure = error else { Issue.record("\(String(describing: error))"); return }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .seconds(5), "took \(elapsed)")
    }
}

/// Tests that need the server.
@Suite(
    "PostgreSQL store on a server",
    .enabled(if: PostgresTestServer.url != nil, "no PostgreSQL server: set COREMOTION_TEST_POSTGRES=postgres://…"))
struct PostgresServerTests {
    func open(prefix: String) throws -> PostgresHistoryStore {
        let url = try #require(PostgresTestServer.url)
        var configuration = HistoryConfiguration(location: .postgres(url))
        configuration.flushInterval = 3600
        configuration.now = { at(86_400) }
        return try PostgresHistoryStore(configuration: configuration, options: .init(devicePrefix: prefix, connectTimeout: 5, queryTimeout: 20))
    }

    @Test("stores of two prefixes never see each other's records; device names are prefix + source")
    func prefixes() throws {
        let one = try open(prefix: "test-\(UUID().uuidString):")
        let two = try open(prefix: "test-\(UUID().uuidString):")
        defer { try? one.close(); try? two.close() }
        try one.append(StepRecord(date: at(1), strideLength: 0.7), source: "iio:x")
        try two.append(contentsOf: [StepRecord(date: at(1), strideLength: 0.7), StepRecord(date: at(2), strideLength: 0.7)], source: "iio:x")
        #expect(try one.pedometerSummary(from: at(0), to: at(10), source: nil).steps == 1)
        #expect(try two.pedometerSummary(from: at(0), to: at(10), source: "iio:x").steps == 2)
        let row = try one.session.query(
            "SELECT kind FROM coremotion.device WHERE name = \(one.devicePrefix + "iio:x")", operation: "test").rows.first
        #expect(try row?.decode(String.self) == "machine")
    }

    @Test("a lost connection is opened again by the next call")
    func reconnects() throws {
        let store = try open(prefix: "test-\(UUID().uuidString):")
        defer { try? store.close() }
        try store.append(StepRecord(date: at(1), strideLength: 0.7), source: "s")
        #expect(try store.pedometerSummary(from: at(0), to: at(10), source: "s").steps == 1)
        // The server ends this session's backend, as a restart would.
        #expect(throws: HistoryError.self) { try store.session.query("SELECT pg_terminate_backend(pg_backend_pid())", operation: "test") }
        try store.append(StepRecord(date: at(2), strideLength: 0.7), source: "s")
        #expect(try store.pedometerSummary(from: at(0), to: at(10), source: "s").steps == 2)
    }

    @Test("opening again does not migrate again; many stores open at once")
    func concurrentOpen() async throws {
        let prefix = "test-\(UUID().uuidString):"
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<4 {
                group.addTask {
                    let store = try open(prefix: prefix)
                    try store.append(StepRecord(date: at(Double(index)), strideLength: 0.7), source: "s")
                    try store.close()
                }
            }
            try await group.waitForAll()
        }
        let store = try open(prefix: prefix)
        defer { try? store.close() }
        #expect(try store.pedometerSummary(from: at(0), to: at(10), source: "s").steps == 4)
        let versions = try store.session.query("SELECT version FROM coremotion.schema_migrations", operation: "test").rows
            .map { try $0.decode(Int64.self) }
        #expect(versions == [1])
    }
}

/// A TCP listener that accepts connections (the kernel does, into its backlog) and never answers.
final class SilentListener: Sendable {
    let descriptor: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 8) == 0 else {
            _ = Glibc.close(fd)
            throw PostgresTestServer.Unavailable()
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(descriptor) }
}
