import Foundation
import Logging
import MotionHistory
import NIOCore
import NIOPosix
import PostgresNIO

/// The store's one connection to the server, used synchronously from the store's serial queue.
///
/// The connection is a single `PostgresConnection` on a private one-thread event-loop group (never the
/// shared singleton: a caller running on some other NIO event loop cannot block the loop its own answer
/// needs). It is opened on first use and opened again after it was lost (the server restarted, the
/// network dropped, a call timed out). Every wait is bounded: connecting by the connect timeout, each
/// query by the query timeout (and the server is asked to give up at the same time, `statement_timeout`);
/// a call that runs out of time closes the connection and throws ``HistoryError/serverFailure(location:operation:reason:)``.
///
/// Why not `PostgresClient` (postgres-nio's pool): its API is `async` and its `run()` needs a task, whose
/// work would run on the cooperative thread pool while a synchronous caller, itself possibly on that pool,
/// blocks waiting for it. One connection used from one serial queue needs neither, and the store's work
/// (a flush a second, a few queries) does not need a pool.
final class PostgresSession: Sendable {
    let group: MultiThreadedEventLoopGroup
    private let configuration: PostgresConnection.Configuration
    private let connectTimeout: TimeInterval
    private let queryTimeout: TimeInterval
    private let logger: Logger
    /// The location without its password, for errors.
    let location: String
    private let current = LockedState<PostgresConnection?>(nil)
    private let nextConnectionID = LockedState<Int>(1)
    /// Between `BEGIN` and its end (only the store's queue sends statements).
    private let inTransaction = LockedState(false)

    init(configuration: PostgresConnection.Configuration, connectTimeout: TimeInterval, queryTimeout: TimeInterval, logger: Logger, location: String) {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.configuration = configuration
        self.connectTimeout = connectTimeout
        self.queryTimeout = queryTimeout
        self.logger = logger
        self.location = location
    }

    /// Closes the connection and stops the event-loop thread. Never call it on that thread.
    func shutdown() {
        closeConnection()
        try? group.syncShutdownGracefully()
    }

    /// Stops the event-loop thread without waiting (from `deinit`, which may run anywhere).
    func shutdownInBackground() {
        if let connection = current.withLock({ $0 }) { Self.closeInBackground(connection) }
        group.shutdownGracefully(queue: .global()) { _ in }
    }

    /// Drops the connection (the next call opens a new one).
    func closeConnection() {
        let connection = current.withLock { value -> PostgresConnection? in
            defer { value = nil }
            return value
        }
        guard let connection else { return }
        let closed: EventLoopFuture<Void> = connection.close()
        closed.whenComplete { _ in withExtendedLifetime(connection) {} }
        _ = try? wait(closed, timeout: min(connectTimeout, 2), what: "closing the connection")
    }

    /// Closes a connection without waiting, keeping it alive until it is closed (postgres-nio asserts
    /// that a connection is closed before it is released).
    static func closeInBackground(_ connection: PostgresConnection) {
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// The open connection, opening one when there is none or it was lost.
    func connection(operation: String) throws -> PostgresConnection {
        if let connection = current.withLock({ $0 }), !connection.isClosed { return connection }
        current.withLock { $0 = nil }
        let id = nextConnectionID.withLock { value -> Int in
            defer { value += 1 }
            return value
        }
        let future = PostgresConnection.connect(on: group.next(), configuration: configuration, id: id, logger: logger)
        do {
            // postgres-nio bounds the TCP connect itself; the whole login (TLS, authentication) is bounded here.
            let connection = try wait(future, timeout: connectTimeout + 1, what: "connecting")
            current.withLock { $0 = connection }
            return connection
        } catch {
            // A connection that arrives after the timeout is closed unused.
            future.whenSuccess { connection in Self.closeInBackground(connection) }
            throw failure(error, operation: "\(operation): connecting")
        }
    }

    /// Runs one statement and collects its rows.
    @discardableResult
    func query(_ query: PostgresQuery, operation: String) throws -> PostgresQueryResult {
        try queries([query], operation: operation)[0]
    }

    /// Sends several statements at once (postgres-nio queues them on the connection) and collects every
    /// result; the first failure is thrown.
    ///
    /// Outside a transaction, statements that failed because the connection was lost (the server
    /// restarted, or ended the session, while it sat idle) are sent once more on a new connection:
    /// nothing of them can have taken effect on a connection that is gone before they ran, or they ran
    /// in autocommit and are repeated whole (the store sends only reads and `BEGIN` there). Inside a
    /// transaction a lost connection fails the transaction.
    @discardableResult
    func queries(_ queries: [PostgresQuery], operation: String) throws -> [PostgresQueryResult] {
        guard !queries.isEmpty else { return [] }
        do {
            return try send(queries, operation: operation)
        } catch let lost as LostConnection where !inTransaction.withLock({ $0 }) {
            _ = lost
            do { return try send(queries, operation: operation) } catch let again as LostConnection { throw again.error }
        } catch let lost as LostConnection {
            throw lost.error
        }
    }

    private func send(_ queries: [PostgresQuery], operation: String) throws -> [PostgresQueryResult] {
        let connection = try connection(operation: operation)
        let futures = queries.map { connection.query($0, logger: logger) }
        let all = EventLoopFuture.whenAllComplete(futures, on: connection.eventLoop)
        let results: [Result<PostgresQueryResult, any Error>]
        do {
            results = try wait(all, timeout: queryTimeout, what: operation)
        } catch {
            // No answer in time: the connection's state is unknown, so it is not used again.
            closeConnection()
            throw failure(error, operation: operation)
        }
        return try results.map { result in
            switch result {
            case .success(let rows): return rows
            case .failure(let error):
                if connection.isClosed || Self.isConnectionLost(error) {
                    current.withLock { if $0 === connection { $0 = nil } }
                    Self.closeInBackground(connection)
                    throw LostConnection(error: failure(error, operation: operation))
                }
                throw failure(error, operation: operation)
            }
        }
    }

    /// Runs `body` inside `BEGIN` … `COMMIT`; rolls back when it throws. A failed rollback drops the
    /// connection (the server then rolls back on its own).
    func transaction<T>(operation: String, _ body: () throws -> T) throws -> T {
        try query("BEGIN", operation: operation)
        inTransaction.withLock { $0 = true }
        defer { inTransaction.withLock { $0 = false } }
        do {
            let result = try body()
            try query("COMMIT", operation: operation)
            return result
        } catch {
            do { try query("ROLLBACK", operation: operation) } catch { closeConnection() }
            throw error
        }
    }

    /// Whether an error says the connection is gone (rather than a statement failed).
    static func isConnectionLost(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        // A FATAL error ends the session (57P01: the server is shutting down or ended it).
        if let info = error.serverInfo, info[.severity] == "FATAL" || info[.sqlState]?.hasPrefix("57P0") == true { return true }
        return [.serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown].contains(error.code)
    }

    /// Waits for a future at most `timeout` seconds.
    private func wait<T: Sendable>(_ future: EventLoopFuture<T>, timeout: TimeInterval, what: String) throws -> T {
        let loop = future.eventLoop
        let promise = loop.makePromise(of: T.self)
        future.cascade(to: promise)
        let seconds = timeout
        let timer = loop.scheduleTask(in: .milliseconds(Int64((timeout * 1000).rounded(.up)))) {
            promise.fail(SessionTimeout(seconds: seconds))
        }
        promise.futureResult.whenComplete { _ in timer.cancel() }
        return try promise.futureResult.wait()
    }

    /// The error a caller sees: a ``HistoryError`` naming the server (without its password).
    func failure(_ error: any Error, operation: String) -> HistoryError {
        if let error = error as? HistoryError { return error }
        return .serverFailure(location: location, operation: operation, reason: Self.describe(error))
    }

    /// What went wrong, in words: postgres-nio's own description of `PSQLError` is deliberately vague, so
    /// the server's message and SQLSTATE, or the underlying network error, are spelled out.
    static func describe(_ error: any Error) -> String {
        if let timeout = error as? SessionTimeout {
            return "no answer within \(timeout.seconds) s"
        }
        guard let error = error as? PSQLError else { return "\(error)" }
        var parts: [String] = []
        if let info = error.serverInfo {
            if let message = info[.message] { parts.append(message) }
            if let detail = info[.detail] { parts.append(detail) }
            if let state = info[.sqlState] { parts.append("SQLSTATE \(state)") }
        }
        if parts.isEmpty {
            parts.append("\(error.code)")
            if let underlying = error.underlying { parts.append("\(underlying)") }
        }
        return parts.joined(separator: "; ")
    }

    /// The SQLSTATE of a server error, if the error is one.
    static func sqlState(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }
}

/// Statements failed because the connection was lost; `error` is what the caller sees.
struct LostConnection: Error {
    var error: HistoryError
}

/// A wait that ran out of time.
struct SessionTimeout: Error {
    var seconds: TimeInterval
}
