import Foundation
import MotionSystemd
import Testing

/// Installs into a temporary root, where no command runs.
@Suite struct UnitInstallerTests {
    @Test func systemInstallWritesTheUnitsAndTheGroupSnippet() throws {
        let root = try SocketSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let installer = UnitInstaller(scope: .system, executable: "/usr/bin/coremotiond", destinationRoot: root, runCommands: false)
        let report = try installer.install()
        let expected = [
            root + "/etc/systemd/system/coremotiond.socket",
            root + "/etc/systemd/system/coremotiond.service",
            root + "/etc/sysusers.d/coremotion.conf",
        ]
        #expect(report.files.map(\.path) == expected)
        #expect(report.files.map(\.change) == [.created, .created, .created])
        #expect(report.commands.isEmpty)
        for (path, file) in zip(expected, installer.files) {
            #expect(FileManager.default.contents(atPath: path) == Data(file.contents.utf8))
            let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(permissions == 0o644, "\(path)")
        }
        let service = try #require(FileManager.default.contents(atPath: expected[1]))
        #expect(String(decoding: service, as: UTF8.self).contains("ExecStart=/usr/bin/coremotiond --system"))

        // Again: nothing changes. With another executable: the service is replaced.
        #expect(try installer.install().files.map(\.change) == [.unchanged, .unchanged, .unchanged])
        var moved = installer
        moved.executable = "/opt/bin/coremotiond"
        #expect(try moved.install().files.map(\.change) == [.unchanged, .replaced, .unchanged])
    }

    @Test func userInstallGoesToTheConfigFolder() throws {
        let root = try SocketSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let installer = UnitInstaller(
            scope: .user, executable: "/home/ada/bin/coremotiond", destinationRoot: root + "/", runCommands: false,
            environment: ["HOME": "/home/ada", "XDG_CONFIG_HOME": "/home/ada/.config"])
        let report = try installer.install()
        #expect(report.files.map(\.path) == [
            root + "/home/ada/.config/systemd/user/coremotiond.socket",
            root + "/home/ada/.config/systemd/user/coremotiond.service",
        ])
        for file in report.files { #expect(FileManager.default.fileExists(atPath: file.path)) }
    }

    /// A staged install never runs systemctl, even when asked to run commands.
    @Test func stagedInstallRunsNoCommand() throws {
        let root = try SocketSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        var lines: [String] = []
        let report = try UnitInstaller(scope: .system, destinationRoot: root, runCommands: true).install { lines.append($0) }
        #expect(report.commands.isEmpty)
        #expect(!report.started)
        #expect(report.notes.contains { $0.contains("staged under \(root)") })
        #expect(lines.count == 3 && lines.allSatisfy { $0.hasPrefix("created ") })
    }

    @Test func relativeExecutableIsRefused() throws {
        let root = try SocketSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let error = #expect(throws: UnitInstallerError.self) {
            try UnitInstaller(scope: .system, executable: "coremotiond", destinationRoot: root, runCommands: false).install()
        }
        #expect(error?.kind == .invalidExecutable)
        #expect(FileManager.default.subpaths(atPath: root)?.isEmpty == true)
    }

    @Test func unwritableRootIsAnError() throws {
        let root = try SocketSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // A file where a folder should be: fails for root too.
        #expect(FileManager.default.createFile(atPath: root + "/etc", contents: Data()))
        let error = #expect(throws: UnitInstallerError.self) {
            try UnitInstaller(scope: .system, destinationRoot: root, runCommands: false).install()
        }
        #expect(error?.kind == .writeFailed)
        #expect(error?.description.contains(root + "/etc/systemd/system/coremotiond.socket") == true)
    }

    @Test func systemInstallNeedsRootOnTheLiveSystemOnly() {
        let problem = UnitInstaller.privilegeProblem(scope: .system, destinationRoot: "/", effectiveUserID: 1000)
        #expect(problem?.contains("needs root") == true)
        #expect(UnitInstaller.privilegeProblem(scope: .system, destinationRoot: "/", effectiveUserID: 0) == nil)
        #expect(UnitInstaller.privilegeProblem(scope: .system, destinationRoot: "/tmp/stage", effectiveUserID: 1000) == nil)
        #expect(UnitInstaller.privilegeProblem(scope: .user, destinationRoot: "/", effectiveUserID: 1000) == nil)
    }

    @Test func defaultExecutableIsTheOneBesideTheTool() throws {
        let folder = try SocketSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tool = folder + "/coremotion"
        #expect(UnitInstaller.defaultExecutable(runningExecutable: tool) == "/usr/local/bin/coremotiond")
        #expect(FileManager.default.createFile(atPath: folder + "/coremotiond", contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755]))
        #expect(UnitInstaller.defaultExecutable(runningExecutable: tool) == folder + "/coremotiond")
        #expect(UnitInstaller.defaultExecutable(runningExecutable: nil) == "/usr/local/bin/coremotiond")
        #expect(UnitInstaller.currentExecutablePath()?.hasPrefix("/") == true)
    }
}
