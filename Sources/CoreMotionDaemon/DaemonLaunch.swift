import Foundation
import Logging
import MotionAuthorization
import MotionDaemon
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
