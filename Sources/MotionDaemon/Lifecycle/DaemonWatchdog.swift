import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Keeps systemd's watchdog (`WatchdogSec=` in the unit) fed only while the daemon really works.
///
/// A ping proves more than "the process runs": before each one, a thread of its own takes the service's
/// delivery lock (the lock the device's thread holds while it hands a sample to the clients: a deadlock
/// there is what froze the daemon) and runs an empty task on every event loop (where clients' sockets are
/// served). If either is stuck, the watchdog thread is stuck with it, no ping is sent, and systemd kills
/// and restarts the daemon after `WatchdogSec`. The thread calls nothing else and holds no lock of its own.
public final class DaemonWatchdog: Sendable {
    private let core: DaemonCore
    private let group: any EventLoopGroup
    private let interval: Duration
    private let ping: @Sendable () -> Void
    private let stopped = NIOLockedValueBox(false)

    /// - Parameters:
    ///   - interval: how often to ping (half of `WatchdogSec`, `SystemdNotifier.watchdogPingInterval`).
    ///   - ping: sends `WATCHDOG=1`.
    public init(
        core: DaemonCore, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, interval: Duration,
        ping: @escaping @Sendable () -> Void
    ) {
        self.core = core
        self.group = group
        self.interval = interval
        self.ping = ping
    }

    /// Starts the watchdog's thread.
    public func start() {
        let thread = Thread { [self] in run() }
        thread.name = "cm-watchdog"
        thread.start()
    }

    /// Ends the thread after its current round.
    public func stop() {
        stopped.withLockedValue { $0 = true }
    }

    private var isStopped: Bool {
        stopped.withLockedValue { $0 }
    }

    private func run() {
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        while !isStopped {
            if probe() { ping() }
            Thread.sleep(forTimeInterval: max(0.1, seconds))
        }
    }

    /// Whether the delivery path and every event loop answer (blocks while they do not).
    func probe() -> Bool {
        core.service.awaitDeliveryLock()
        for loop in group.makeIterator() {
            do {
                try loop.submit {}.wait()
            } catch {
                return false
            }
        }
        return true
    }
}
