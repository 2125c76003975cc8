import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Readiness and status notification to systemd (`sd_notify(3)`) without libsystemd.
///
/// A `Type=notify` service tells the manager that it is ready, reloading or stopping, what it is doing, and
/// that it is alive (the watchdog) by sending one datagram of newline-separated `KEY=VALUE` assignments to
/// the `AF_UNIX` address in `NOTIFY_SOCKET`: an absolute path, or `@name` for Linux's abstract namespace.
/// When `NOTIFY_SOCKET` is unset (or empty) every call does nothing, so the daemon can call it unconditionally
/// (under OpenRC, in a terminal, in tests).
///
/// ```swift
/// let notifier = SystemdNotifier()
/// try notifier.ready(status: "serving 3 sensors")   // after the socket is adopted and the device runs
/// if let ping = notifier.watchdogPingInterval {       // WatchdogSec= in the unit
///     // every `ping`: try notifier.watchdog()
/// }
/// try notifier.stopping()                             // first thing on SIGTERM
/// ```
///
/// Each call opens a datagram socket, sends and closes it: nothing is kept open between calls, so the value is
/// freely shareable between tasks.
public struct SystemdNotifier: Sendable {
    /// The value of `NOTIFY_SOCKET`, or nil when it is unset or empty.
    public let socketAddress: String?

    /// `WATCHDOG_USEC` as read, when it applies to this process.
    private let watchdogMicroseconds: UInt64?

    /// A notifier for the manager named in `environment`.
    ///
    /// - Parameters:
    ///   - environment: where `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` are read (default: this
    ///     process's environment). The variables are not removed: processes the daemon starts inherit them.
    ///   - processID: the pid `WATCHDOG_PID` must equal when present (default: `getpid()`).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, processID: Int32 = getpid()) {
        let address = environment["NOTIFY_SOCKET"] ?? ""
        socketAddress = address.isEmpty ? nil : address
        watchdogMicroseconds = Self.watchdog(environment, processID: processID)
    }

    /// True when `NOTIFY_SOCKET` names an address, so that notifications are sent.
    public var isEnabled: Bool { socketAddress != nil }

    /// The watchdog period the manager enforces (`WatchdogSec=` in the unit, passed as `WATCHDOG_USEC`); nil when
    /// there is none, when `WATCHDOG_PID` names another process, or when a value is malformed.
    ///
    /// Send ``watchdog()`` at least this often; ``watchdogPingInterval`` (half of it) is the usual period.
    public var watchdogInterval: Duration? {
        watchdogMicroseconds.map { Duration.microseconds(Int64(clamping: $0)) }
    }

    /// Half of ``watchdogInterval``: how often to call ``watchdog()`` (as `sd_watchdog_enabled(3)` recommends).
    public var watchdogPingInterval: Duration? {
        watchdogInterval.map { $0 / 2 }
    }

    /// Sends `assignments` (newline-separated `KEY=VALUE` lines, e.g. `"READY=1\nSTATUS=serving"`) as one datagram.
    ///
    /// Does nothing when ``isEnabled`` is false.
    ///
    /// - Throws: ``SystemdNotifyError`` naming `NOTIFY_SOCKET`'s value when the address is malformed or
    ///   unsupported, when `assignments` is empty, or when the datagram cannot be sent (no such socket, refused).
    public func notify(_ assignments: String) throws(SystemdNotifyError) {
        guard let socketAddress else { return }
        guard !assignments.isEmpty else {
            throw SystemdNotifyError(socket: socketAddress, errno: nil, "nothing to send (empty assignments)")
        }
        if socketAddress.hasPrefix("vsock:") {
            throw SystemdNotifyError(
                socket: socketAddress, errno: nil, "AF_VSOCK addresses are not supported (only a path or an @abstract name)")
        }
        let (address, length): (sockaddr_un, socklen_t)
        switch UnixSupport.address(for: socketAddress) {
        case .success(let value): (address, length) = value
        case .failure(let problem): throw SystemdNotifyError(socket: socketAddress, errno: nil, "not an AF_UNIX address: \(problem.text)")
        }

        let descriptor = socket(AF_UNIX, UnixSupport.datagramType | UnixSupport.closeOnExecFlag, 0)
        guard descriptor >= 0 else {
            let code = errno
            throw SystemdNotifyError(socket: socketAddress, errno: code, "socket(AF_UNIX, SOCK_DGRAM) failed: \(UnixSupport.describe(errno: code))")
        }
        defer { close(descriptor) }

        let payload = Array(assignments.utf8)
        var target = address
        let sent = payload.withUnsafeBytes { bytes in
            withUnsafePointer(to: &target) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
        if sent < 0 {
            let code = errno
            throw SystemdNotifyError(socket: socketAddress, errno: code, "sending failed: \(UnixSupport.describe(errno: code))")
        }
        if sent != payload.count {
            throw SystemdNotifyError(socket: socketAddress, errno: nil, "sent \(sent) of \(payload.count) bytes")
        }
    }

    /// `READY=1`: start-up is finished (the socket is adopted, the service answers). With a status line if given.
    public func ready(status: String? = nil) throws(SystemdNotifyError) {
        try notify(Self.lines(["READY=1"], status: status))
    }

    /// `STOPPING=1`: shutdown has begun (send it first on SIGTERM). With a status line if given.
    public func stopping(status: String? = nil) throws(SystemdNotifyError) {
        try notify(Self.lines(["STOPPING=1"], status: status))
    }

    /// `RELOADING=1` with `MONOTONIC_USEC` (the `CLOCK_MONOTONIC` time, as `Type=notify-reload` requires):
    /// configuration is being reloaded; send ``ready(status:)`` when done.
    public func reloading(status: String? = nil) throws(SystemdNotifyError) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let microseconds = Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
        try notify(Self.lines(["RELOADING=1", "MONOTONIC_USEC=\(microseconds)"], status: status))
    }

    /// `STATUS=…`: a one-line description of what the daemon is doing, shown by `systemctl status`.
    /// Line breaks are replaced by spaces (a newline would start another assignment).
    public func status(_ text: String) throws(SystemdNotifyError) {
        try notify(Self.lines([], status: text))
    }

    /// `WATCHDOG=1`: the daemon is alive (see ``watchdogInterval``).
    public func watchdog() throws(SystemdNotifyError) {
        try notify("WATCHDOG=1")
    }

    /// `MAINPID=…`: the service's main process is `pid` (for a daemon that forks; `coremotiond` does not need it).
    public func mainPID(_ pid: Int32) throws(SystemdNotifyError) {
        try notify("MAINPID=\(pid)")
    }

    /// `EXTEND_TIMEOUT_USEC=…`: start-up or shutdown needs `duration` more (e.g. a long history migration)
    /// than `TimeoutStartSec=`/`TimeoutStopSec=` allow; send it again before it runs out.
    public func extendTimeout(by duration: Duration) throws(SystemdNotifyError) {
        let (seconds, attoseconds) = duration.components
        let microseconds = max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        try notify("EXTEND_TIMEOUT_USEC=\(microseconds)")
    }

    /// `assignments` followed by a sanitized `STATUS=` line when `status` is given.
    private static func lines(_ assignments: [String], status: String?) -> String {
        var lines = assignments
        if let status {
            let oneLine = String(status.map { $0.isNewline ? " " : $0 }).replacingOccurrences(of: "\0", with: "")
            lines.append("STATUS=" + oneLine)
        }
        return lines.joined(separator: "\n")
    }

    /// `WATCHDOG_USEC` when positive, well formed and, if `WATCHDOG_PID` is present, meant for `processID`.
    private static func watchdog(_ environment: [String: String], processID: Int32) -> UInt64? {
        func decimal(_ text: String) -> UInt64? {
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
            return UInt64(text)
        }
        guard let text = environment["WATCHDOG_USEC"], let microseconds = decimal(text), microseconds > 0 else { return nil }
        if let pidText = environment["WATCHDOG_PID"] {
            guard let pid = decimal(pidText), pid == UInt64(clamping: processID) else { return nil }
        }
        return microseconds
    }
}

/// A notification that could not be sent; ``description`` names `NOTIFY_SOCKET`'s value and the cause.
public struct SystemdNotifyError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The value of `NOTIFY_SOCKET`.
    public let socket: String
    /// The `errno` of the failing call, if one failed.
    public let errno: Int32?
    /// A sentence naming `NOTIFY_SOCKET` and the problem.
    public let description: String

    init(socket: String, errno: Int32?, _ problem: String) {
        self.socket = socket
        self.errno = errno
        self.description = "sd_notify to NOTIFY_SOCKET=\(UnixSupport.quoted(socket, limit: 200)): \(problem)"
    }
}
