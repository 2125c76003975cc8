import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Which systemd manager runs `coremotiond`.
public enum UnitScope: String, Sendable, Hashable, CaseIterable {
    /// The system manager (PID 1): one daemon for the machine, running as root, socket group `coremotion`.
    case system
    /// A user's manager (`systemctl --user`): a daemon for that user only, socket in `$XDG_RUNTIME_DIR`.
    case user
}

/// One file to install: its name, its text and the folder it belongs in.
public struct UnitFile: Sendable, Hashable {
    /// The file name, e.g. `coremotiond.socket`.
    public let name: String
    /// The whole text of the file.
    public let contents: String
    /// The absolute folder it is installed in, e.g. `/etc/systemd/system` (before any staging root prefix).
    public let destinationDirectory: String

    /// A file named `name` with `contents`, installed in `destinationDirectory`.
    public init(name: String, contents: String, destinationDirectory: String) {
        self.name = name
        self.contents = contents
        self.destinationDirectory = destinationDirectory
    }

    /// `destinationDirectory/name`.
    public var destinationPath: String {
        destinationDirectory.hasSuffix("/") ? destinationDirectory + name : destinationDirectory + "/" + name
    }
}

/// The unit files that run `coremotiond` under systemd, generated for a scope and an executable.
///
/// - System scope: `coremotiond.socket` (listens on ``systemSocketPath``, mode 0660, group ``groupName``),
///   `coremotiond.service` (`Type=notify`, hardened, history in `/var/lib/coremotion`) and the `sysusers.d`
///   snippet `coremotion.conf` that creates the group.
/// - User scope: `coremotiond.socket` (listens on `%t/coremotion/coremotiond.sock`, i.e. in
///   `$XDG_RUNTIME_DIR`, mode 0600) and `coremotiond.service` (`Type=notify`, history in `~/.local/state/coremotion`).
///
/// The service starts at boot (or login) as well as on the first connection: pedometer and activity
/// history is recorded whether or not an app is connected.
///
/// The repository holds these files for ``defaultExecutable`` under `systemd/`; a test checks they match.
public enum SystemdUnits {
    /// The executable the committed unit files name.
    public static let defaultExecutable = "/usr/local/bin/coremotiond"
    /// The socket unit's file name.
    public static let socketUnitName = "coremotiond.socket"
    /// The service unit's file name.
    public static let serviceUnitName = "coremotiond.service"
    /// The `sysusers.d` snippet's file name (system scope).
    public static let sysusersFileName = "coremotion.conf"
    /// The group whose members may connect to the system socket.
    public static let groupName = "coremotion"
    /// The system user the system instance runs as (its primary group is ``groupName``).
    public static let userName = "coremotion"
    /// The system socket's path.
    public static let systemSocketPath = "/run/coremotion/coremotiond.sock"
    /// The user socket's path in unit syntax (`%t` is `$XDG_RUNTIME_DIR`).
    public static let userSocketPathSpecifier = "%t/coremotion/coremotiond.sock"
    /// Where the system daemon keeps its history (`StateDirectory=coremotion`).
    public static let systemStateDirectory = "/var/lib/coremotion"
    /// Where system units are installed.
    public static let systemUnitDirectory = "/etc/systemd/system"
    /// Where `sysusers.d` snippets are installed.
    public static let sysusersDirectory = "/etc/sysusers.d"

    /// The user socket's path for an environment: `$XDG_RUNTIME_DIR/coremotion/coremotiond.sock`; nil without
    /// `XDG_RUNTIME_DIR`.
    public static func userSocketPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        return (runtime.hasSuffix("/") ? runtime : runtime + "/") + "coremotion/coremotiond.sock"
    }

    /// Where user units are installed: `$XDG_CONFIG_HOME/systemd/user`, by default `~/.config/systemd/user`.
    ///
    /// `XDG_CONFIG_HOME` counts only when absolute (as the XDG specification says); the home folder is
    /// `$HOME`, else the password database's entry for this user.
    public static func userUnitDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        func trimmed(_ path: String) -> String {
            path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        }
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return trimmed(config) + "/systemd/user"
        }
        var home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        if home == nil, let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir {
            home = String(cString: directory)
        }
        let base = trimmed(home ?? "/root")
        return (base == "/" ? "" : base) + "/.config/systemd/user"
    }

    /// Every file to install for `scope`, naming `executable` in `ExecStart=`.
    ///
    /// - Parameters:
    ///   - scope: system or user manager.
    ///   - executable: the absolute path of `coremotiond` (see ``executableProblem(_:)``).
    ///   - environment: for the user scope, where ``userUnitDirectory(environment:)`` points.
    /// - Returns: socket unit, service unit, and for the system scope the `sysusers.d` snippet.
    public static func files(
        for scope: UnitScope, executable: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [UnitFile] {
        switch scope {
        case .system:
            return [
                UnitFile(name: socketUnitName, contents: socketUnit(for: .system), destinationDirectory: systemUnitDirectory),
                UnitFile(name: serviceUnitName, contents: serviceUnit(for: .system, executable: executable), destinationDirectory: systemUnitDirectory),
                UnitFile(name: sysusersFileName, contents: sysusersSnippet(), destinationDirectory: sysusersDirectory),
            ]
        case .user:
            let directory = userUnitDirectory(environment: environment)
            return [
                UnitFile(name: socketUnitName, contents: socketUnit(for: .user), destinationDirectory: directory),
                UnitFile(name: serviceUnitName, contents: serviceUnit(for: .user, executable: executable), destinationDirectory: directory),
            ]
        }
    }

    /// Why `path` cannot be the service's executable (not absolute, control characters); nil when it can.
    public static func executableProblem(_ path: String) -> String? {
        guard path.hasPrefix("/") else { return "the executable \(UnixSupport.quoted(path)) is not an absolute path" }
        guard !path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return "the executable \(UnixSupport.quoted(path)) contains control characters"
        }
        return nil
    }

    private static let header = """
        # Generated by `coremotion service install` (MotionSystemd.SystemdUnits): change the generator, then
        # regenerate; see docs/service-lifecycle.md.
        """

    /// The text of `coremotiond.socket` for `scope`.
    public static func socketUnit(for scope: UnitScope) -> String {
        switch scope {
        case .system:
            return """
                \(header)
                [Unit]
                Description=Core Motion service socket (motion sensors, fusion, pedometer and activity history)

                [Socket]
                ListenStream=\(systemSocketPath)
                # Members of the coremotion group (see sysusers.d/coremotion.conf) and root may connect; the daemon
                # checks each client's credentials (SO_PEERCRED) on top of this.
                SocketUser=root
                SocketGroup=\(groupName)
                SocketMode=0660
                # systemd creates /run/coremotion for the socket. The service deliberately has no
                # RuntimeDirectory=: that folder would be deleted whenever the service stops, taking the socket,
                # which this unit keeps listening across daemon restarts, with it.
                DirectoryMode=0755
                # Remove the socket file when this unit stops, so that clients fall back at once instead of
                # finding a socket nobody listens on.
                RemoveOnStop=yes

                [Install]
                WantedBy=sockets.target

                """
        case .user:
            return """
                \(header)
                [Unit]
                Description=Core Motion service socket for this user (motion sensors, fusion, pedometer and activity history)

                [Socket]
                # %t is $XDG_RUNTIME_DIR (/run/user/UID).
                ListenStream=\(userSocketPathSpecifier)
                SocketMode=0600
                DirectoryMode=0700
                RemoveOnStop=yes

                [Install]
                WantedBy=sockets.target

                """
        }
    }

    /// The text of `coremotiond.service` for `scope`, running `executable`.
    public static func serviceUnit(for scope: UnitScope, executable: String) -> String {
        let exec = execArgument(executable)
        switch scope {
        case .system:
            return """
                \(header)
                [Unit]
                Description=Core Motion service (motion sensors, fusion, pedometer and activity history)
                Requires=\(socketUnitName)
                After=\(socketUnitName)

                [Service]
                # coremotiond sends READY=1 once it serves the socket passed by coremotiond.socket (fd 3).
                Type=notify
                ExecStart=\(exec) --system
                Restart=on-failure
                RestartSec=2
                # On SIGTERM the daemon sends STOPPING=1, stops the sensors and flushes the history.
                KillSignal=SIGTERM
                TimeoutStopSec=10
                # The daemon pings every 15 s, and only after its delivery lock and every event loop answered:
                # a daemon that hangs is killed and restarted (Restart=on-failure) within 30 s.
                WatchdogSec=30s

                # Its own unprivileged user (sysusers.d/coremotion.conf), not root.
                User=\(userName)
                Group=\(groupName)
                # Reading a client's /proc/PID/exe and /proc/PID/root (who the app is: docs/authorization.md)
                # needs CAP_SYS_PTRACE when the client is another user: measured, without it readlink fails
                # with EACCES. It is the only capability kept; IIO devices are reached through the udev rule
                # (60-coremotion-iio.rules: group coremotion on /dev/iio:* and the attributes it writes).
                AmbientCapabilities=CAP_SYS_PTRACE
                CapabilityBoundingSet=CAP_SYS_PTRACE
                # Files it creates (history, permissions) are the daemon's alone.
                UMask=0077

                # History in /var/lib/coremotion ($STATE_DIRECTORY), readable by the daemon only.
                StateDirectory=coremotion
                StateDirectoryMode=0700
                # At most this many descriptors (docs/security.md: clients, receivers' connections, files).
                LimitNOFILE=4096

                # Hardening.
                NoNewPrivileges=yes
                ProtectSystem=strict
                # StateDirectory= already makes its folder writable under ProtectSystem=strict; listed for clarity.
                ReadWritePaths=\(systemStateDirectory)
                # /sys and /proc/sys read-only, except the device tree: the daemon writes IIO attributes
                # (sampling_frequency, buffer/enable, buffer/length, scan_elements/*_en, trigger/current_trigger),
                # which /sys/bus/iio/devices/iio:deviceN links into /sys/devices. Devices bound later appear there too.
                ProtectKernelTunables=yes
                ReadWritePaths=-/sys/devices
                ProtectHome=yes
                PrivateTmp=yes
                ProtectKernelModules=yes
                ProtectKernelLogs=yes
                ProtectControlGroups=yes
                ProtectClock=yes
                ProtectHostname=yes
                RestrictSUIDSGID=yes
                RestrictRealtime=yes
                RestrictNamespaces=yes
                # Clients come over the Unix socket that systemd passes; the journal and sd_notify are Unix sockets
                # too. No network: its own empty network namespace, no IP sockets at all. A system daemon that
                # owns a phone (COREMOTION_DEVICE=sensorlogger:…, phyphox:…, sensorserver:…) needs a drop-in that
                # gives the network back (docs/service-lifecycle.md, "A phone as the system's device").
                RestrictAddressFamilies=AF_UNIX
                PrivateNetwork=yes
                IPAddressDeny=any
                MemoryDenyWriteExecute=yes
                LockPersonality=yes
                KeyringMode=private
                RemoveIPC=yes
                PrivateMounts=yes
                SystemCallArchitectures=native
                SystemCallFilter=@system-service
                SystemCallFilter=~@privileged @resources @mount @swap @reboot @raw-io @module @obsolete @cpu-emulation @debug
                SystemCallErrorNumber=EPERM
                # Buffered capture reads /dev/iio:deviceN: only IIO character devices (and the standard pseudo
                # devices) are allowed. systemd looks the "iio" major up in /proc/devices when the service starts;
                # if the IIO core loads later, the daemon still captures by polling sysfs until it restarts.
                DevicePolicy=closed
                DeviceAllow=char-iio rw
                # PrivateDevices= stays off: its private /dev has no /dev/iio:deviceN.

                [Install]
                # Runs from boot so that pedometer and activity history is recorded with no app connected;
                # enabling the service enables the socket as well.
                WantedBy=multi-user.target
                Also=\(socketUnitName)

                """
        case .user:
            return """
                \(header)
                [Unit]
                Description=Core Motion service for this user (motion sensors, fusion, pedometer and activity history)
                Requires=\(socketUnitName)
                After=\(socketUnitName)

                [Service]
                # coremotiond sends READY=1 once it serves the socket passed by coremotiond.socket (fd 3).
                Type=notify
                ExecStart=\(exec) --user
                Restart=on-failure
                RestartSec=2
                # On SIGTERM the daemon sends STOPPING=1, stops the sensors and flushes the history.
                KillSignal=SIGTERM
                TimeoutStopSec=10
                # The daemon pings every 15 s while its delivery lock and event loops answer.
                WatchdogSec=30s
                # History in ~/.local/state/coremotion ($STATE_DIRECTORY), the user's alone.
                StateDirectory=coremotion
                StateDirectoryMode=0700
                UMask=0077
                LimitNOFILE=4096
                NoNewPrivileges=yes
                RestrictNamespaces=yes
                RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6
                MemoryDenyWriteExecute=yes
                LockPersonality=yes
                SystemCallArchitectures=native

                [Install]
                # Runs from login so that history is recorded with no app connected.
                WantedBy=default.target
                Also=\(socketUnitName)

                """
        }
    }

    /// The `sysusers.d(5)` snippet that creates the ``groupName`` system group.
    public static func sysusersSnippet() -> String {
        """
        \(header)
        # The system user coremotiond runs as, and its group, whose members may also connect to
        # /run/coremotion/coremotiond.sock (coremotiond.socket, mode 0660).
        # Add a user with: usermod -aG coremotion USER
        u \(userName) - "Core Motion service" \(systemStateDirectory)
        # Members of coremotion-history may read the machine's pedometer, activity and recorded history through
        # the service (the policy's default historyReaderGroups; docs/authorization.md).
        # Add a user with: usermod -aG coremotion-history USER
        g coremotion-history -

        """
    }

    /// `path` as the first word of `ExecStart=`: `%` doubled (specifiers), `$` doubled (variable expansion), and
    /// double-quoted with C escapes when it holds spaces, quotes or backslashes.
    static func execArgument(_ path: String) -> String {
        let escaped = path.replacingOccurrences(of: "%", with: "%%").replacingOccurrences(of: "$", with: "$$")
        let needsQuotes = escaped.contains { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "'" || $0 == "\\" || $0 == ";" }
        guard needsQuotes else { return escaped }
        let quoted = escaped.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\"" + quoted + "\""
    }
}
