import Foundation
import MotionHistory
import PostgresNIO

/// Where a PostgreSQL history lives and how to log in, parsed from its URL.
///
/// The accepted forms (libpq's URL syntax, the subset the store uses):
///
/// ```
/// postgres[ql]://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?PARAMETER=VALUE&...]
/// ```
///
/// with the parameters `host` (a host name, or an absolute path: the folder of the server's Unix socket,
/// which replaces the host of the authority), `port` (replaces the authority's port), `sslmode`
/// (`disable`, `prefer` or `require`), `user`, `password`, `dbname` and `connect_timeout` (seconds).
/// The port defaults to 5432; a Unix socket is `<folder>/.s.PGSQL.<port>`. A URL without a host uses the
/// socket folder `/var/run/postgresql` (else `/tmp`), as libpq does. `USER` and `PASSWORD` may be
/// percent-encoded. `sslmode` applies to TCP only; `require` encrypts without checking the server's
/// certificate, as libpq's `require` does; `prefer` (the default) encrypts when the server offers it.
struct PostgresServerAddress: Sendable, Hashable {
    /// How the connection reaches the server.
    enum Endpoint: Sendable, Hashable {
        case tcp(host: String, port: Int)
        case unixSocket(path: String)
    }

    /// libpq's `sslmode`, the values the store supports.
    enum SSLMode: String, Sendable, Hashable {
        case disable, prefer, require
    }

    var endpoint: Endpoint
    var username: String
    var password: String?
    var database: String
    var sslMode: SSLMode
    /// `connect_timeout`, seconds, when the URL sets one.
    var connectTimeout: TimeInterval?

    static let defaultPort = 5432

    /// Parses a history URL. `shown` is the URL without its password, for errors.
    static func parse(_ url: URL, shown: String) throws -> PostgresServerAddress {
        func invalid(_ reason: String) -> HistoryError { HistoryError.invalidServerURL(shown, reason: reason) }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql"
        else { throw invalid("not a postgres:// or postgresql:// URL") }
        var host = components.host ?? ""
        var port = components.port ?? defaultPort
        var username = components.user ?? ""
        var password = components.password
        var database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = database.removingPercentEncoding ?? database
        var sslMode = SSLMode.prefer
        var connectTimeout: TimeInterval?
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "host": host = value
            case "port":
                guard let number = Int(value), (1...65_535).contains(number) else { throw invalid("port '\(value)' is not 1…65535") }
                port = number
            case "sslmode":
                guard let mode = SSLMode(rawValue: value) else { throw invalid("sslmode '\(value)': use disable, prefer or require") }
                sslMode = mode
            case "user": username = value
            case "password": password = value
            case "dbname": database = value
            case "connect_timeout":
                guard let seconds = TimeInterval(value), seconds.isFinite, seconds > 0 else {
                    throw invalid("connect_timeout '\(value)' is not a positive number of seconds")
                }
                connectTimeout = seconds
            default:
                throw invalid("unknown parameter '\(item.name)' (known: host, port, sslmode, user, password, dbname, connect_timeout)")
            }
        }
        guard !database.isEmpty, !database.contains("/") else {
            throw invalid("no database name (postgres://USER@HOST:PORT/DATABASE)")
        }
        if username.isEmpty { username = NSUserName() }
        guard !username.isEmpty else { throw invalid("no user name (postgres://USER@HOST/DATABASE)") }
        if host.isEmpty {
            host = FileManager.default.fileExists(atPath: "/var/run/postgresql") ? "/var/run/postgresql" : "/tmp"
        }
        let endpoint: Endpoint =
            host.hasPrefix("/")
            ? .unixSocket(path: (host.hasSuffix("/") ? String(host.dropLast()) : host) + "/.s.PGSQL.\(port)")
            : .tcp(host: host, port: port)
        if case .unixSocket(let path) = endpoint, path.utf8.count > 107 {
            throw invalid("the Unix socket path '\(path)' is longer than 107 bytes")
        }
        return PostgresServerAddress(
            endpoint: endpoint, username: username, password: password, database: database, sslMode: sslMode,
            connectTimeout: connectTimeout)
    }

    /// postgres-nio's settings for a connection to this address.
    func connectionConfiguration(connectTimeout: TimeInterval, statementTimeout: TimeInterval) throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        switch endpoint {
        case .unixSocket(let path):
            configuration = .init(unixSocketPath: path, username: username, password: password, database: database)
        case .tcp(let host, let port):
            let tls: PostgresConnection.Configuration.TLS
            switch sslMode {
            case .disable:
                tls = .disable
            case .prefer, .require:
                // libpq's prefer and require encrypt without checking the certificate.
                var settings = TLSConfiguration.makeClientConfiguration()
                settings.certificateVerification = .none
                let context = try NIOSSLContext(configuration: settings)
                tls = sslMode == .require ? .require(context) : .prefer(context)
            }
            configuration = .init(host: host, port: port, username: username, password: password, database: database, tls: tls)
        }
        let seconds = self.connectTimeout ?? connectTimeout
        configuration.options.connectTimeout = .milliseconds(Int64((seconds * 1000).rounded(.up)))
        configuration.options.additionalStartupParameters = [
            ("application_name", "coremotion history"),
            // The server gives up on a statement the client has stopped waiting for.
            ("statement_timeout", "\(Int64((statementTimeout * 1000).rounded(.up)))"),
        ]
        return configuration
    }
}
