import Foundation
import MotionHistory
import Testing

/// The behaviours on the SQLite store, in memory and in a file.
@Suite("History behaviour: SQLite")
struct SQLiteHistoryBehaviourTests {
    @Test("behaviour", arguments: Behaviour.cases(on: [.sqliteMemory, .sqliteFile]))
    func behaviour(_ behaviour: Behaviour, on store: StoreKind) throws {
        try HistoryFixture.run(store, behaviour.body)
    }
}

/// The same behaviours on PostgreSQL, when `COREMOTION_TEST_POSTGRES` names a server
/// (`tools/postgres/test-server.sh start DIR` starts one and prints the URL).
@Suite(
    "History behaviour: PostgreSQL",
    .enabled(if: PostgresTestServer.url != nil, "no PostgreSQL server: set COREMOTION_TEST_POSTGRES=postgres://…"))
struct PostgresHistoryBehaviourTests {
    @Test("behaviour", arguments: Behaviour.cases(on: [.postgres]))
    func behaviour(_ behaviour: Behaviour, on store: StoreKind) throws {
        try HistoryFixture.run(store, behaviour.body)
    }
}
