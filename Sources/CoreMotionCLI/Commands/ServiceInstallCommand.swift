import ArgumentParser
import Foundation
import MotionSystemd

/// `coremotion service install`: writes the systemd units of `coremotiond`, then enables and starts them.
struct ServiceInstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Install coremotiond as a systemd service (socket-activated, Type=notify).",
        discussion: """
            System install (needs root): coremotiond.socket and coremotiond.service in
            /etc/systemd/system and /etc/sysusers.d/coremotion.conf for the 'coremotion'
            group, whose members may use /run/coremotion/coremotiond.sock (mode 0660); then
            systemctl daemon-reload and
            systemctl enable --now coremotiond.socket coremotiond.service.

            --user installs a daemon for the current user instead, in
            $XDG_CONFIG_HOME/systemd/user (by default ~/.config/systemd/user), listening
            on $XDG_RUNTIME_DIR/coremotion/coremotiond.sock (mode 0600).

            Without systemd the files are still written and the command says how to run
            the daemon by hand: coremotiond --socket PATH, in the foreground.
            See docs/service-lifecycle.md.

            Examples:
              sudo coremotion service install
              coremotion service install --user
              coremotion service install --print --executable /usr/bin/coremotiond
              coremotion service install --root /tmp/image --no-start
            """
    )

    @Flag(help: "Install a per-user service (systemctl --user) instead of the system service.")
    var user = false

    @Flag(name: .customLong("print"), help: "Print every file under a header naming its destination; write nothing.")
    var printOnly = false

    @Option(help: "Path of coremotiond named in ExecStart= (default: the coremotiond beside this tool, else /usr/local/bin/coremotiond).")
    var executable: String?

    @Option(help: "Stage the files under this folder instead of / (no systemctl, no group creation).")
    var root: String?

    @Flag(help: "Write the files and reload systemd, but do not enable or start the units.")
    var noStart = false

    func validate() throws {
        if let executable, let problem = SystemdUnits.executableProblem(executable) {
            throw ValidationError("--executable: \(problem)")
        }
        if let root, root.isEmpty { throw ValidationError("--root must name a folder") }
    }

    func run() throws {
        let installer = UnitInstaller(
            scope: user ? .user : .system,
            executable: executable ?? UnitInstaller.defaultExecutable(),
            destinationRoot: root ?? "/",
            start: !noStart)
        if printOnly {
            print(Self.listing(installer), terminator: "")
            return
        }
        if let problem = UnitInstaller.privilegeProblem(scope: installer.scope, destinationRoot: installer.destinationRoot) {
            Output.note("error: \(problem)")
            throw ExitCode.failure
        }
        do {
            let report = try installer.install { print($0) }
            for note in report.notes { print(note) }
            if report.started {
                let socket = installer.scope == .system
                    ? SystemdUnits.systemSocketPath
                    : SystemdUnits.userSocketPath() ?? "$XDG_RUNTIME_DIR/coremotion/coremotiond.sock"
                print("coremotiond is enabled and listening on \(socket).")
                if installer.scope == .system {
                    print("Users in the '\(SystemdUnits.groupName)' group may connect: usermod -aG \(SystemdUnits.groupName) USER (then log in again).")
                }
            }
        } catch {
            Output.note("error: \(error)")
            throw ExitCode.failure
        }
    }

    /// Every file under a `==> PATH <==` header line, separated by blank lines.
    static func listing(_ installer: UnitInstaller) -> String {
        installer.files.map { file in
            "==> \(installer.installedPath(of: file)) <==\n" + file.contents
        }.joined(separator: "\n")
    }
}
