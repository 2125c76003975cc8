import ArgumentParser
import Foundation
import Logging
import MotionAuthorization
import MotionDaemon
import MotionDevices
import MotionHistory
import MotionHistoryPostgres
import MotionIngest
import MotionSamples
import MotionSystemd

/// The parts of starting the daemon that depend on how it was started (systemd or by hand) and on its
/// authorization set-up.
enum DaemonLaunch {
    struct Systemd: Sendable {
        var activatedSocket: (descriptor: Int32, path: String?)?
        var ready: @Sendable (String) -> Void
        var stopping: @Sendable () -> Void
        /// How often to ping systemd's watchdog (`WatchdogSec=`), if the unit sets one.
        var watchdogInterval: Duration?
        var watchdogPing: @Sendable () -> Void
    }

    /// Reads what systemd passed: a listening socket (`LISTEN_FDS`, taken before any other thread reads the
    /// environment) and the notification socket (`NOTIFY_SOCKET`). Without systemd both are absent and the
    /// daemon binds its socket itself.
    static func systemd(logger: Logger) throws -> Systemd {
        let sockets: [ActivatedSocket]
        do {
            sockets = try SocketActivation.listeningSockets()
        } catch {
            logger.critical("socket activation: \(error)")
            throw error
        }
        if sockets.count > 1 {
            logger.warning("systemd passed \(sockets.count) sockets; serving the first (\(sockets[0].path ?? "?")) and ignoring the rest")
        }
        let notifier = SystemdNotifier()
        let activated = sockets.first.map { (descriptor: $0.descriptor, path: $0.path) }
        return Systemd(
            activatedSocket: activated,
            ready: { status in
                do { try notifier.ready(status: status) } catch { logger.warning("sd_notify READY: \(error)") }
            },
            stopping: {
                do { try notifier.stopping(status: "stopping: writing the history") } catch { logger.warning("sd_notify STOPPING: \(error)") }
            },
            watchdogInterval: notifier.watchdogPingInterval,
            watchdogPing: {
                do { try notifier.watchdog() } catch { logger.warning("sd_notify WATCHDOG: \(error)") }
            })
    }

    /// The policy and the decisions store, or everything open with `--no-authorization`. A policy file that
    /// exists but cannot be read stops the daemon: it is never half applied.
    static func authorizer(configuration: DaemonConfiguration, disabled: Bool, logger: Logger) throws -> any ClientAuthorizer {
        if disabled {
            logger.warning("authorization is off (--no-authorization): every client is authorized")
            return OpenAuthorizer()
        }
        let policy: AdminPolicy
        do {
            policy = try AdminPolicy.load(from: configuration.policyPath)
        } catch {
            logger.critical("\(error)")
            throw error
        }
        let store = PermissionStore(file: configuration.permissionsPath.map { URL(fileURLWithPath: $0) }, logger: logger)
        // The system instance's history is the machine's (the policy's history readers read it); a user
        // instance's is its owner's.
        let owner: UInt32? = configuration.instance == .user ? getuid() : nil
        return PolicyAuthorizer(policy: policy, store: store, logger: logger, historyOwnerUID: owner)
    }
}

extension DaemonLaunch {
    /// The ingest nodes `--ingest` asks for, on the daemon's history (which must be a PostgreSQL database:
    /// several nodes share it), each with its own spool folder (`SPOOL/<port>`).
    static func ingestNodes(
        _ specifications: [String], core: DaemonCore, spool: String?, node: String?, phoneEngines: Bool = true, logger: Logger
    ) throws -> [IngestNode] {
        guard !specifications.isEmpty else { return [] }
        let location = try core.configuration.historyLocation()
        guard case .postgres = location else {
            throw ValidationError("--ingest keeps phones' readings in a database several nodes share: give --history postgres://USER@HOST:PORT/DB (not a SQLite file)")
        }
        let storage: any RawPushStorage = try PostgresPushStore(location: location, logger: logger)
        // The phones' engines: one worker per daemon (on its first node), whatever the number of ports; none
        // with --no-phone-engines.
        let engines: (any PhoneEngineStorage)? = phoneEngines ? try PostgresPhoneEngineStore(location: location) : nil
        let spoolRoot = spool ?? "/var/lib/coremotion/spool"
        return try specifications.enumerated().map { index, text in
            let specification: DeviceSpecification
            do {
                specification = try DeviceSpecification.parse(text)
            } catch {
                throw ValidationError("--ingest \(text.logSafe): \(error)")
            }
            guard case .sensorLogger(let configuration) = specification else {
                throw ValidationError("--ingest takes a Sensor Logger receiver address, sensorlogger:HOST:PORT[?token=…], found \(text.logSafe)")
            }
            let folder = URL(fileURLWithPath: spoolRoot, isDirectory: true).appendingPathComponent("\(configuration.port)", isDirectory: true)
            let pushSpool = try PushSpool(folder: folder) { notice in logger.warning("\(notice)") }
            var settings = IngestNode.Settings()
            settings.node = node.map { specifications.count > 1 ? "\($0):\(configuration.port)" : $0 }
            return IngestNode(
                configuration: configuration, database: storage, spool: pushSpool, engines: index == 0 ? engines : nil, settings: settings,
                logger: logger)
        }
    }
}
