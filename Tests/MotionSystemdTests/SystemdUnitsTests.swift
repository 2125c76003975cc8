import Foundation
import Testing

@testable import MotionSystemd

/// The generated unit files: their content, their syntax, and the copies committed under `systemd/`.
@Suite struct SystemdUnitsTests {
    /// The repository's root, from this file's path (Tests/MotionSystemdTests/this file).
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Where the committed copy of `file` lives: `systemd/system/`, `systemd/user/` or `systemd/sysusers.d/`.
    static func committedURL(of file: UnitFile, scope: UnitScope) -> URL {
        let folder = file.destinationDirectory.hasSuffix("sysusers.d") ? "sysusers.d" : scope.rawValue
        return repositoryRoot.appendingPathComponent("systemd/\(folder)/\(file.name)")
    }

    /// The committed files equal what the generator makes for /usr/local/bin/coremotiond.
    /// After changing the generator, regenerate them with `COREMOTION_UPDATE_UNITS=1 swift test --filter SystemdUnitsTests`.
    @Test(arguments: UnitScope.allCases)
    func committedFilesMatchTheGenerator(scope: UnitScope) throws {
        let update = ProcessInfo.processInfo.environment["COREMOTION_UPDATE_UNITS"] == "1"
        for file in SystemdUnits.files(for: scope, executable: SystemdUnits.defaultExecutable) {
            let url = Self.committedURL(of: file, scope: scope)
            if update {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(file.contents.utf8).write(to: url)
            }
            let committed = try? String(contentsOf: url, encoding: .utf8)
            #expect(committed == file.contents,
                    "\(url.path) differs from the generator; run COREMOTION_UPDATE_UNITS=1 swift test --filter SystemdUnitsTests")
        }
    }

    @Test func systemUnits() throws {
        let files = SystemdUnits.files(for: .system, executable: "/opt/coremotion/bin/coremotiond")
        #expect(files.map(\.name) == ["coremotiond.socket", "coremotiond.service", "coremotion.conf"])
        #expect(files.map(\.destinationPath) == [
            "/etc/systemd/system/coremotiond.socket", "/etc/systemd/system/coremotiond.service", "/etc/sysusers.d/coremotion.conf",
        ])
        let socket = try Self.parse(files[0].contents)
        #expect(socket["Socket", "ListenStream"] == ["/run/coremotion/coremotiond.sock"])
        #expect(socket["Socket", "SocketMode"] == ["0660"])
        #expect(socket["Socket", "SocketGroup"] == ["coremotion"])
        #expect(socket["Socket", "SocketUser"] == ["root"])
        #expect(socket["Socket", "DirectoryMode"] == ["0755"])
        #expect(socket["Install", "WantedBy"] == ["sockets.target"])

        let service = try Self.parse(files[1].contents)
        #expect(service["Service", "Type"] == ["notify"])
        #expect(service["Service", "ExecStart"] == ["/opt/coremotion/bin/coremotiond --system"])
        #expect(service["Unit", "Requires"] == ["coremotiond.socket"])
        #expect(service["Unit", "After"] == ["coremotiond.socket"])
        #expect(service["Service", "Restart"] == ["on-failure"])
        #expect(service["Service", "RestartSec"] == ["2"])
        #expect(service["Service", "TimeoutStopSec"] == ["10"])
        #expect(service["Service", "KillSignal"] == ["SIGTERM"])
        #expect(service["Service", "StateDirectory"] == ["coremotion"])
        #expect(service["Service", "ReadWritePaths"] == ["/var/lib/coremotion", "-/sys/devices"])
        #expect(service["Service", "DeviceAllow"] == ["char-iio rw"])
        for key in ["NoNewPrivileges", "ProtectHome", "PrivateTmp"] {
            #expect(service["Service", key] == ["yes"], "\(key)")
        }
        #expect(service["Service", "ProtectSystem"] == ["strict"])
        // /sys read-only but for the device tree, where the daemon writes IIO attributes.
        #expect(service["Service", "ProtectKernelTunables"] == ["yes"])
        #expect(service["Service", "PrivateDevices"] == nil)
        // The socket unit owns /run/coremotion; a RuntimeDirectory= would delete it when the service stops.
        #expect(service["Service", "RuntimeDirectory"] == nil)
        #expect(service["Service", "WatchdogSec"] == ["30s"])
        // Hostile-clients hardening: its own user, one capability, no namespaces, only the address families it uses.
        #expect(service["Service", "User"] == ["coremotion"])
        #expect(service["Service", "Group"] == ["coremotion"])
        #expect(service["Service", "CapabilityBoundingSet"] == ["CAP_SYS_PTRACE"])
        #expect(service["Service", "AmbientCapabilities"] == ["CAP_SYS_PTRACE"])
        // No network for the system daemon (a phone device needs a drop-in: docs/service-lifecycle.md).
        #expect(service["Service", "RestrictAddressFamilies"] == ["AF_UNIX"])
        #expect(service["Service", "PrivateNetwork"] == ["yes"])
        #expect(service["Service", "IPAddressDeny"] == ["any"])
        #expect(service["Service", "SystemCallFilter"]?.first == "@system-service")
        for key in ["RestrictNamespaces", "MemoryDenyWriteExecute", "RestrictSUIDSGID", "LockPersonality"] {
            #expect(service["Service", key] == ["yes"], "\(key)")
        }
        #expect(service["Service", "UMask"] == ["0077"])
        #expect(service["Install", "WantedBy"] == ["multi-user.target"])
        #expect(service["Install", "Also"] == ["coremotiond.socket"])

        let sysusers = files[2].contents.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
        #expect(sysusers == ["u coremotion - \"Core Motion service\" /var/lib/coremotion", "g coremotion-history -"])
    }

    @Test func userUnits() throws {
        let files = SystemdUnits.files(
            for: .user, executable: "/home/ada/.local/bin/coremotiond", environment: ["HOME": "/home/ada"])
        #expect(files.map(\.destinationPath) == [
            "/home/ada/.config/systemd/user/coremotiond.socket", "/home/ada/.config/systemd/user/coremotiond.service",
        ])
        let socket = try Self.parse(files[0].contents)
        #expect(socket["Socket", "ListenStream"] == ["%t/coremotion/coremotiond.sock"])
        #expect(socket["Socket", "SocketMode"] == ["0600"])
        #expect(socket["Socket", "SocketGroup"] == nil)
        #expect(socket["Install", "WantedBy"] == ["sockets.target"])
        let service = try Self.parse(files[1].contents)
        #expect(service["Service", "Type"] == ["notify"])
        #expect(service["Service", "ExecStart"] == ["/home/ada/.local/bin/coremotiond --user"])
        #expect(service["Install", "WantedBy"] == ["default.target"])
    }

    @Test func userUnitDirectory() {
        #expect(SystemdUnits.userUnitDirectory(environment: ["XDG_CONFIG_HOME": "/srv/cfg/", "HOME": "/home/ada"]) == "/srv/cfg/systemd/user")
        // A relative XDG_CONFIG_HOME is ignored, as the XDG specification says.
        #expect(SystemdUnits.userUnitDirectory(environment: ["XDG_CONFIG_HOME": "cfg", "HOME": "/home/ada"]) == "/home/ada/.config/systemd/user")
        #expect(SystemdUnits.userUnitDirectory(environment: ["HOME": "/"]) == "/.config/systemd/user")
        #expect(SystemdUnits.userUnitDirectory(environment: [:]).hasSuffix("/.config/systemd/user"))
        #expect(SystemdUnits.userSocketPath(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"]) == "/run/user/1000/coremotion/coremotiond.sock")
        #expect(SystemdUnits.userSocketPath(environment: [:]) == nil)
    }

    @Test func executablePathsAreEscapedForExecStart() throws {
        #expect(SystemdUnits.execArgument("/usr/local/bin/coremotiond") == "/usr/local/bin/coremotiond")
        #expect(SystemdUnits.execArgument("/opt/100%/coremotiond") == "/opt/100%%/coremotiond")
        #expect(SystemdUnits.execArgument("/opt/$HOME/coremotiond") == "/opt/$$HOME/coremotiond")
        #expect(SystemdUnits.execArgument("/opt/Core Motion/coremotiond") == "\"/opt/Core Motion/coremotiond\"")
        #expect(SystemdUnits.execArgument("/opt/a\"b\\c") == "\"/opt/a\\\"b\\\\c\"")
        let service = try Self.parse(SystemdUnits.serviceUnit(for: .system, executable: "/opt/Core Motion/coremotiond"))
        #expect(service["Service", "ExecStart"] == ["\"/opt/Core Motion/coremotiond\" --system"])

        #expect(SystemdUnits.executableProblem("/usr/bin/coremotiond") == nil)
        #expect(SystemdUnits.executableProblem("coremotiond")?.contains("absolute") == true)
        #expect(SystemdUnits.executableProblem("/usr/bin/core\nmotiond")?.contains("control") == true)
    }

    /// Every generated file is well-formed: `[Section]` headers, `Key=Value` lines and comments only.
    @Test(arguments: UnitScope.allCases)
    func unitSyntax(scope: UnitScope) throws {
        for file in SystemdUnits.files(for: scope, executable: SystemdUnits.defaultExecutable) where file.name.hasPrefix("coremotiond.") {
            let unit = try Self.parse(file.contents)
            #expect(unit.sections.first == "Unit", "\(file.name)")
            #expect(unit.sections.contains("Install"), "\(file.name)")
            #expect(file.contents.hasSuffix("\n") && !file.contents.hasSuffix("\n\n\n"))
        }
    }

    /// A unit file as `section → key → values` (a key may repeat).
    struct ParsedUnit {
        var sections: [String] = []
        var values: [String: [String: [String]]] = [:]

        subscript(section: String, key: String) -> [String]? { values[section]?[key] }
    }

    /// Parses systemd's INI syntax strictly enough to catch a malformed line.
    static func parse(_ text: String) throws -> ParsedUnit {
        var unit = ParsedUnit()
        var section: String?
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(line)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                try #require(line.hasSuffix("]"), "line \(number + 1): \(line)")
                let name = String(line.dropFirst().dropLast())
                unit.sections.append(name)
                section = name
                continue
            }
            let section = try #require(section, "line \(number + 1) is outside a section: \(line)")
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            try #require(parts.count == 2 && !parts[0].isEmpty && !parts[0].contains(" "), "line \(number + 1) is not Key=Value: \(line)")
            unit.values[section, default: [:]][String(parts[0]), default: []].append(String(parts[1]))
        }
        return unit
    }
}
