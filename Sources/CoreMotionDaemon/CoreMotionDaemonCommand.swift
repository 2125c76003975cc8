import ArgumentParser
import Foundation
import Logging
import MotionDaemon
import MotionDevices
import MotionHistory
import MotionHistoryPostgres
import MotionService
import ServiceLifecycle

/// `coremotiond`: the motion coprocessor as a Linux service.
@main
struct CoreMotionDaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coremotiond",
        abstract: "The Core Motion system service: owns the motion sensors, runs the engines once, keeps history, serves every process.",
        discussion: """
            Clients reach it with COREMOTION_DEVICE=service (or service:PATH), or by default when its socket answers.
            Started by systemd through coremotiond.socket (`coremotion service install`), or in the foreground:
              coremotiond --socket /tmp/cm.sock --device replay:walk.zip?loop=true --history /tmp/cm.sqlite
            With --headphone-device (sim:head-shake, replay:EXPORT.zip, iio:ROOT…) it owns headphones too, for every
            client's CMHeadphoneMotionManager.
            SIGTERM or SIGINT stops it gracefully: clients are told, the history is written to disk.
            """,
        version: CoreMotionVersion.string
    )

    @Flag(name: .customLong("system"), help: "The system instance (default as root): /run/coremotion/coremotiond.sock, /var/lib/coremotion/.")
    var system = false

    @Flag(name: .customLong("user"), help: "A user instance (default otherwise): $XDG_RUNTIME_DIR/coremotion/, history in the XDG data folder.")
    var user = false

    @Option(help: "The device to own, as COREMOTION_DEVICE takes it (default: COREMOTION_DEVICE, else auto).")
    var device: String?

    @Option(help: "The headphones to own, as COREMOTION_HEADPHONE_DEVICE takes them (default: COREMOTION_HEADPHONE_DEVICE, else none).")
    var headphoneDevice: String?

    @Option(help: "The socket to listen on (ignored when systemd passes one).")
    var socket: String?

    @Option(help: "The history: a SQLite file, or a PostgreSQL database shared by many machines (postgres://USER@HOST:PORT/DB, postgres://USER@localhost/DB?host=/run/postgresql).")
    var history: String?

    @Option(help: ArgumentHelp("Also run an ingest node: receive Sensor Logger pushes from many phones and keep every reading in the --history database (PostgreSQL), e.g. 'sensorlogger:0.0.0.0:8000?token-file=/etc/coremotion/token'. Repeatable.", valueName: "sensorlogger:HOST:PORT[?token=…]"))
    var ingest: [String] = []

    @Option(help: "The ingest nodes' spool: pushes kept on disk while the database is unreachable (default: STATE_DIRECTORY/spool, else beside the history file's folder in /var/lib/coremotion/spool).")
    var spool: String?

    @Option(help: "This node's name in the database's push receipts (default: host name and port).")
    var node: String?

    @Flag(help: "Only receive and store: this ingest node runs no phone's pedometer and activity engines (other nodes on the same database derive them).")
    var noPhoneEngines = false

    @Option(help: "The file of per-user, per-app authorization decisions.")
    var permissions: String?

    @Option(help: "The administrator's policy file.")
    var policy: String?

    @Flag(help: "Authorize every client (tests and single-user set-ups).")
    var noAuthorization = false

    @Option(help: "Values that may wait per client while it does not read (default 8192).")
    var clientBuffer: Int?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "notice"

    func validate() throws {
        if system && user { throw ValidationError("--system and --user exclude each other") }
        if let clientBuffer, clientBuffer < 1 || clientBuffer > 1_000_000 {
            throw ValidationError("--client-buffer must be between 1 and 1000000")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .notice
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "coremotiond")
        // A file-size limit (RLIMIT_FSIZE) makes writes fail with EFBIG instead of killing the daemon: the
        // history reports the failure and keeps the records until it can write again, as with a full disk.
        signal(SIGXFSZ, SIG_IGN)
        // First, before any other thread reads the environment: the socket systemd may have passed.
        let launch = try DaemonLaunch.systemd(logger: logger)
        let environment = ProcessInfo.processInfo.environment
        let instance: DaemonConfiguration.Instance = system ? .system : user ? .user : (getuid() == 0 ? .system : .user)
        var configuration = DaemonConfiguration.defaults(for: instance, environment: environment)
        do {
            configuration.device = try DeviceSpecification.parse(device ?? environment[DeviceSpecification.environmentVariable] ?? "auto")
        } catch {
            throw ValidationError("\(error)")
        }
        do {
            configuration.headphoneDevice = try HeadphoneDeviceSpecification.parse(
                headphoneDevice ?? environment[HeadphoneDeviceSpecification.environmentVariable] ?? "none")
        } catch {
            throw ValidationError("\(error)")
        }
        if case .service = configuration.device {
            throw ValidationError("coremotiond cannot own the service device: give it a real device (iio, replay:, sim:, none)")
        }
        if let socket { configuration.socketPath = socket }
        if let history {
            do { _ = try HistoryLocation.postgres(history) } catch { throw ValidationError("--history: \(error)") }
            configuration.historyPath = history
        } else if let state = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !state.isEmpty {
            // systemd's StateDirectory= (the unit's hardening makes everything else read-only).
            configuration.historyPath = (String(state) as NSString).appendingPathComponent("history.sqlite")
            if permissions == nil { configuration.permissionsPath = (String(state) as NSString).appendingPathComponent("permissions.json") }
        }
        if let permissions { configuration.permissionsPath = permissions }
        if let policy { configuration.policyPath = policy }
        if let clientBuffer { configuration.clientBufferCapacity = clientBuffer }

        // `--history postgres://…`: the daemon's history (and its ingest nodes') in PostgreSQL.
        PostgresHistoryStore.register()
        let authorizer: any ClientAuthorizer = try DaemonLaunch.authorizer(
            configuration: configuration, disabled: noAuthorization, logger: logger)
        let core: DaemonCore
        do {
            core = try DaemonCore(configuration: configuration, authorizer: authorizer, logger: logger)
        } catch {
            logger.critical("cannot open the device: \(error)")
            throw ExitCode.failure
        }
        let ingestNodes: [IngestNode]
        do {
            ingestNodes = try DaemonLaunch.ingestNodes(
                ingest, core: core, spool: spool ?? environment["STATE_DIRECTORY"]?.split(separator: ":").first.map { "\($0)/spool" },
                node: node, phoneEngines: !noPhoneEngines, logger: logger)
            for n in ingestNodes { try n.start() }
        } catch {
            logger.critical("\(error)")
            throw ExitCode.failure
        }
        core.ingestNodes = ingestNodes
        defer { for n in ingestNodes { n.stop() } }
        // systemd's watchdog (WatchdogSec= in the unit): pinged only while delivery and the event loops move.
        let watchdog = launch.watchdogInterval.map { DaemonWatchdog(core: core, interval: $0, ping: launch.watchdogPing) }
        let service = DaemonService(
            core: core, server: DaemonServer(core: core), activatedSocket: launch.activatedSocket,
            onReady: { status in
                launch.ready(status)
                watchdog?.start()
            },
            onStopping: {
                watchdog?.stop()
                launch.stopping()
            })
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: service)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            logger.critical("\(error)")
            throw ExitCode.failure
        }
    }
}
