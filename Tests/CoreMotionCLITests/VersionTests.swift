@testable import CoreMotionCLI
import Foundation
import MotionSamples
import Testing
import TestSupport

/// One version for the release: `coremotion --version`, `coremotiond --version` and the daemon's status
/// report all print `CoreMotionVersion.string` (the Debian package, tools/package/build-deb.sh, reads it from
/// the built tool).
@Suite("--version: coremotion, coremotiond and the status report carry CoreMotionVersion", .serialized)
struct VersionTests {
    @Test("the version is MAJOR.MINOR.PATCH")
    func versionIsSemantic() {
        let parts = CoreMotionVersion.string.split(separator: ".", omittingEmptySubsequences: false)
        let numeric = parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
        #expect(parts.count == 3 && numeric, "\(CoreMotionVersion.string)")
    }

    @Test("coremotion's command configuration carries the version")
    func toolConfiguration() {
        #expect(CoreMotionCommand.configuration.version == CoreMotionVersion.string)
    }

    @Test("coremotion --version and coremotiond --version print the version alone, exit status 0", arguments: ["coremotion", "coremotiond"])
    func versionFlag(_ name: String) throws {
        let executable = try #require(TestData.builtExecutable(name), "\(name) is not built")
        let outcome = try ToolProcessTests.run(executable, ["--version"], timeout: 30)
        #expect(outcome.status == 0, "exit status \(outcome.status); stderr: \(outcome.stderr)")
        #expect(outcome.stdout == CoreMotionVersion.string + "\n", "\(outcome.stdout.debugDescription)")
    }

    @Test("a running coremotiond reports the version in `coremotion service status --json`")
    func statusReportVersion() throws {
        let daemon = try #require(TestData.builtExecutable("coremotiond"), "coremotiond is not built")
        let tool = try #require(TestData.builtExecutable("coremotion"), "coremotion is not built")
        // A short folder: Unix socket paths are limited to 107 bytes.
        let folder = URL(fileURLWithPath: "/tmp/cmv-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let socket = folder.appendingPathComponent("d.sock").path

        let process = Process()
        process.executableURL = daemon
        process.arguments = [
            "--socket", socket, "--history", folder.appendingPathComponent("h.sqlite").path, "--device", "sim:still-face-up",
            "--permissions", folder.appendingPathComponent("permissions.json").path,
            "--policy", folder.appendingPathComponent("policy.json").path, "--no-authorization",
        ]
        var env = ProcessInfo.processInfo.environment
        for key in ["COREMOTION_DEVICE", "COREMOTION_HEADPHONE_DEVICE", "LISTEN_FDS", "LISTEN_PID", "NOTIFY_SOCKET"] { env.removeValue(forKey: key) }
        process.environment = env
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: socket) && process.isRunning && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        try #require(FileManager.default.fileExists(atPath: socket), "coremotiond did not listen on \(socket)")

        let outcome = try ToolProcessTests.run(tool, ["service", "status", "--json", "--socket", socket], timeout: 30)
        #expect(outcome.status == 0, "exit status \(outcome.status); stderr: \(outcome.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any]
        #expect(document?["version"] as? String == CoreMotionVersion.string, "\(outcome.stdout)")
    }
}
