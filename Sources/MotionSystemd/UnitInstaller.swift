import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Installs the `coremotiond` units (``SystemdUnits``) and, on a live system, enables and starts them.
///
/// - System scope: the units go to `/etc/systemd/system`, the group snippet to `/etc/sysusers.d/coremotion.conf`;
///   the `coremotion` group is created with `systemd-sysusers` (or `groupadd --system` where that is missing).
/// - User scope: the units go to `$XDG_CONFIG_HOME/systemd/user` (by default `~/.config/systemd/user`).
///
/// Then `systemctl [--user] daemon-reload` and, unless ``start`` is false,
/// `systemctl [--user] enable --now coremotiond.socket coremotiond.service`.
///
/// With a ``destinationRoot`` other than `/` the files are staged under that folder (for a package or an image,
/// or a test) and no command runs. Where `systemctl` is missing or systemd is not running, the files are
/// written and the report's notes say how to run the daemon by hand.
public struct UnitInstaller: Sendable {
    /// System or user units.
    public var scope: UnitScope
    /// The absolute path of `coremotiond` named in `ExecStart=`.
    public var executable: String
    /// The folder the destinations are relative to: `/` on a live system, another folder to stage the files.
    public var destinationRoot: String
    /// When false, files are written and no command runs (no group creation, no `systemctl`).
    public var runCommands: Bool
    /// When false, `systemctl daemon-reload` runs but the units are not enabled or started.
    public var start: Bool
    /// Where `XDG_CONFIG_HOME`, `HOME`, `XDG_RUNTIME_DIR` and `PATH` are read.
    public var environment: [String: String]

    /// An installer of `scope`'s units naming `executable`.
    public init(
        scope: UnitScope,
        executable: String = SystemdUnits.defaultExecutable,
        destinationRoot: String = "/",
        runCommands: Bool = true,
        start: Bool = true,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.scope = scope
        self.executable = executable
        self.destinationRoot = destinationRoot
        self.runCommands = runCommands
        self.start = start
        self.environment = environment
    }

    /// The files this installer writes (destinations without ``destinationRoot``).
    public var files: [UnitFile] {
        SystemdUnits.files(for: scope, executable: executable, environment: environment)
    }

    /// Where `file` is written: its destination under ``destinationRoot``.
    public func installedPath(of file: UnitFile) -> String {
        let root = destinationRoot.hasSuffix("/") ? String(destinationRoot.dropLast()) : destinationRoot
        return root + file.destinationPath
    }

    /// True when the files go to the live system (``destinationRoot`` is `/`), where commands may run.
    public var isLiveSystem: Bool {
        URL(fileURLWithPath: destinationRoot).standardizedFileURL.path == "/"
    }

    /// Writes the files, then (on a live system, with ``runCommands``) creates the group and runs `systemctl`.
    ///
    /// - Parameter log: called with one line per step (file written, command run), as they happen.
    /// - Returns: what was written, what ran, and notes for the user (next steps, warnings).
    /// - Throws: ``UnitInstallerError`` when the executable path is unusable, a system install lacks root, a
    ///   file cannot be written, or a command fails (the files written so far stay).
    @discardableResult
    public func install(log: (String) -> Void = { _ in }) throws(UnitInstallerError) -> UnitInstallReport {
        if let problem = SystemdUnits.executableProblem(executable) {
            throw UnitInstallerError(.invalidExecutable, problem)
        }
        if let problem = Self.privilegeProblem(scope: scope, destinationRoot: destinationRoot) {
            throw UnitInstallerError(.needsRoot, problem)
        }
        var report = UnitInstallReport()
        for file in files {
            let path = installedPath(of: file)
            let change = try write(file.contents, to: path)
            report.files.append(.init(path: path, change: change))
            log("\(change.rawValue) \(path)")
        }

        guard runCommands else { return report }
        guard isLiveSystem else {
            report.notes.append("The files are staged under \(destinationRoot); no command was run.")
            return report
        }
        if !FileManager.default.isExecutableFile(atPath: executable) {
            report.notes.append(
                "warning: \(executable) is not an executable file yet; the service fails to start until it is "
                    + "(install coremotiond there, or pass --executable).")
        }
        if scope == .system {
            try createGroup(&report, log: log)
        }
        guard let systemctl = Self.findTool("systemctl", environment: environment),
            FileManager.default.fileExists(atPath: "/run/systemd/system")
        else {
            report.notes.append(manualStartNote(reason: Self.findTool("systemctl", environment: environment) == nil
                ? "systemctl was not found" : "systemd is not running on this machine (no /run/systemd/system)"))
            return report
        }
        let user = scope == .user ? ["--user"] : []
        try run([systemctl] + user + ["daemon-reload"], &report, log: log)
        let units = [SystemdUnits.socketUnitName, SystemdUnits.serviceUnitName]
        if start {
            try run([systemctl] + user + ["enable", "--now"] + units, &report, log: log)
            report.started = true
        } else {
            report.notes.append(
                "Not started. Enable and start with: systemctl \(user.map { $0 + " " }.joined())enable --now \(units.joined(separator: " "))")
        }
        return report
    }

    /// Why a `scope` install into `destinationRoot` needs privileges this process lacks; nil when it does not.
    ///
    /// A system install into `/` needs root (effective uid 0); a user install or a staged one does not.
    public static func privilegeProblem(scope: UnitScope, destinationRoot: String, effectiveUserID: UInt32 = geteuid()) -> String? {
        guard scope == .system, URL(fileURLWithPath: destinationRoot).standardizedFileURL.path == "/", effectiveUserID != 0 else {
            return nil
        }
        return "installing the system service needs root: run it with sudo, or use --user for a per-user service, "
            + "--print to see the files, or --root DIR to stage them in a folder"
    }

    /// The `coremotiond` to name by default: the one beside `runningExecutable` (this tool, resolved through
    /// `/proc/self/exe`) when it exists and is executable, else ``SystemdUnits/defaultExecutable``.
    public static func defaultExecutable(runningExecutable: String? = currentExecutablePath()) -> String {
        if let running = runningExecutable, running.hasPrefix("/") {
            let sibling = URL(fileURLWithPath: running).deletingLastPathComponent().appendingPathComponent("coremotiond").path
            if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        }
        return SystemdUnits.defaultExecutable
    }

    /// The running executable's absolute path, from `/proc/self/exe`; nil when that cannot be read.
    public static func currentExecutablePath() -> String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).flatMap { $0.hasPrefix("/") ? $0 : nil }
    }

    /// The first executable `name` in `PATH`, then in the usual system folders (`groupadd` lives in `/usr/sbin`).
    static func findTool(_ name: String, environment: [String: String]) -> String? {
        let path = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let folders = path + ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        for folder in folders where folder.hasPrefix("/") {
            let candidate = folder + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// What to do without systemd: where the files are and how to run the daemon in the foreground.
    private func manualStartNote(reason: String) -> String {
        let socket = scope == .system
            ? SystemdUnits.systemSocketPath
            : (SystemdUnits.userSocketPath(environment: environment) ?? "$XDG_RUNTIME_DIR/coremotion/coremotiond.sock")
        let folders = Set(files.map(\.destinationDirectory)).sorted()
        return "\(reason): the files were written to \(folders.joined(separator: " and ")), but nothing was enabled or started. "
            + "Without systemd, run the daemon in the foreground (or from your init system's service script, e.g. OpenRC): "
            + "\(executable) --socket \(socket)"
    }

    /// Creates the `coremotion` group: `systemd-sysusers` on the snippet, else `groupadd --system` when missing.
    private func createGroup(_ report: inout UnitInstallReport, log: (String) -> Void) throws(UnitInstallerError) {
        if let sysusers = Self.findTool("systemd-sysusers", environment: environment) {
            let snippet = SystemdUnits.sysusersDirectory + "/" + SystemdUnits.sysusersFileName
            try run([sysusers, snippet], &report, log: log)
            return
        }
        if getgrnam(SystemdUnits.groupName) == nil {
            guard let groupadd = Self.findTool("groupadd", environment: environment) else {
                report.notes.append(
                    "warning: neither systemd-sysusers nor groupadd was found: create the system group "
                        + "'\(SystemdUnits.groupName)' and user '\(SystemdUnits.userName)' yourself, or the units fail to start.")
                return
            }
            try run([groupadd, "--system", SystemdUnits.groupName], &report, log: log)
        }
        // The system instance runs as its own user (User= in coremotiond.service).
        guard getpwnam(SystemdUnits.userName) == nil else { return }
        guard let useradd = Self.findTool("useradd", environment: environment) else {
            report.notes.append(
                "warning: useradd was not found: create the system user '\(SystemdUnits.userName)' (group "
                    + "'\(SystemdUnits.groupName)') yourself, or coremotiond.service fails to start.")
            return
        }
        try run(
            [useradd, "--system", "--gid", SystemdUnits.groupName, "--home-dir", SystemdUnits.systemStateDirectory, "--no-create-home",
             "--shell", "/usr/sbin/nologin", SystemdUnits.userName], &report, log: log)
    }

    /// Writes `contents` to `path` (creating folders), unless it already holds exactly that.
    private func write(_ contents: String, to path: String) throws(UnitInstallerError) -> UnitInstallReport.Change {
        let fileManager = FileManager.default
        let data = Data(contents.utf8)
        let existing = fileManager.contents(atPath: path)
        if existing == data { return .unchanged }
        do {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            try fileManager.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            try fileManager.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        } catch {
            throw UnitInstallerError(.writeFailed, "could not write \(path): \(error.localizedDescription)")
        }
        return existing == nil ? .created : .replaced
    }

    /// Runs `arguments` (the first is an absolute executable), records it, and throws when it fails.
    private func run(_ arguments: [String], _ report: inout UnitInstallReport, log: (String) -> Void) throws(UnitInstallerError) {
        let line = arguments.joined(separator: " ")
        log("running \(line)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do {
            try process.run()
        } catch {
            throw UnitInstallerError(.commandFailed, "could not run \(line): \(error.localizedDescription)\(writtenNote)")
        }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        process.waitUntilExit()
        let status = process.terminationStatus
        report.commands.append(.init(command: arguments, status: status, output: output))
        guard process.terminationReason == .exit, status == 0 else {
            let how = process.terminationReason == .exit ? "exited with status \(status)" : "was killed by signal \(status)"
            throw UnitInstallerError(.commandFailed, "\(line) \(how)\(output.isEmpty ? "" : ": " + output)\(writtenNote)")
        }
    }

    private var writtenNote: String {
        ". The files were written (\(files.map { installedPath(of: $0) }.joined(separator: ", ")))."
    }
}

/// What ``UnitInstaller/install(log:)`` did.
public struct UnitInstallReport: Sendable, Hashable {
    /// How a file changed.
    public enum Change: String, Sendable, Hashable {
        /// The file did not exist.
        case created
        /// The file existed with other contents.
        case replaced
        /// The file already held exactly these contents.
        case unchanged
    }

    /// One file written (or found up to date).
    public struct WrittenFile: Sendable, Hashable {
        /// The file's path, under the destination root.
        public let path: String
        /// Whether it was created, replaced or already up to date.
        public let change: Change
    }

    /// One command run.
    public struct CommandRun: Sendable, Hashable {
        /// The executable's path and the arguments.
        public let command: [String]
        /// The exit status.
        public let status: Int32
        /// Its standard output and error, trimmed.
        public let output: String
    }

    /// The files, in the order written.
    public var files: [WrittenFile] = []
    /// The commands, in the order run.
    public var commands: [CommandRun] = []
    /// Next steps and warnings for the user.
    public var notes: [String] = []
    /// True when `systemctl enable --now` ran successfully.
    public var started = false
}

/// Why the units could not be installed.
public struct UnitInstallerError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The kinds of failure.
    public enum Kind: Sendable, Hashable {
        /// The executable path cannot go in `ExecStart=`.
        case invalidExecutable
        /// A system install into `/` by a user other than root.
        case needsRoot
        /// A file or folder could not be written.
        case writeFailed
        /// A command (`systemd-sysusers`, `groupadd`, `systemctl`) could not run or failed.
        case commandFailed
    }

    /// What failed.
    public let kind: Kind
    /// A sentence saying what failed and what to do.
    public let description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
