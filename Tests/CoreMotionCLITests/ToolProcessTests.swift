import Foundation
import Testing
import TestSupport

/// `coremotion` and `coremotiond` run as processes, as a person or a script runs them: what a misspelt
/// device string prints and the exit status, and progress output into a pipe.
@Suite("coremotion and coremotiond as processes: misspelt devices, progress into a pipe", .serialized)
struct ToolProcessTests {
    static let tool = TestData.builtExecutable("coremotion")
    static let daemon = TestData.builtExecutable("coremotiond")

    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Collects a pipe's bytes on another thread, so that a full pipe never blocks the child.
    final class Drain: @unchecked Sendable {
        private let handle: FileHandle
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)

        init(_ pipe: Pipe) {
            handle = pipe.fileHandleForReading
            Thread.detachNewThread { [self] in
                data = handle.readDataToEndOfFile()
                done.signal()
            }
        }

        var text: String {
            done.wait()
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// Runs `executable` with stdout and stderr piped, in an environment without a device or a daemon of
    /// this machine (plus `environment`); stops it after `timeout` seconds.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:], timeout: Double = 60) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for key in ["COREMOTION_DEVICE", "LISTEN_FDS", "LISTEN_PID", "NOTIFY_SOCKET"] { env.removeValue(forKey: key) }
        env["COREMOTION_HISTORY"] = "memory"
        env["COREMOTION_SOCKET"] = "/nonexistent/coremotiond.sock"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = Drain(out)
        let stderr = Drain(err)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: stdout.text, stderr: stderr.text)
    }

    static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0 == "\r" || $0 == "\u{1B}" }
    }

    // MARK: Item: device strings forgive

    @Test("a misspelt COREMOTION_DEVICE stops coremotion with a did-you-mean on stderr and exit status 64", arguments: [
        ("sim:walking", "COREMOTION_DEVICE=\"sim:walking\": unknown scene 'walking'; did you mean 'walking-in-hand'? scenes: still-face-up, "),
        ("replya:/data/walk.zip", "unknown device kind 'replya:'; did you mean 'replay:'?"),
        ("replay:/data/walk.zip?sped=2", "unknown option 'sped'; did you mean 'speed'?"),
    ])
    func toolRefusesAMisspeltDevice(_ value: String, _ phrase: String) throws {
        let tool = try #require(Self.tool, "coremotion is not built")
        let folder = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("never.cmrec")
        let outcome = try Self.run(tool, ["record", "--output", file.path, "--duration", "1"], environment: ["COREMOTION_DEVICE": value])
        #expect(outcome.status == 64, "exit status \(outcome.status); stderr: \(outcome.stderr)")
        #expect(outcome.stderr.contains(phrase), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("accepted forms of COREMOTION_DEVICE"))
        #expect(outcome.stdout.isEmpty)
        // Nothing was recorded from another device instead.
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test("coremotiond --device and COREMOTION_DEVICE give the same messages and never start", arguments: [
        ("sim:walking", "unknown scene 'walking'; did you mean 'walking-in-hand'? scenes: "),
        ("replya:/data/walk.zip", "unknown device kind 'replya:'; did you mean 'replay:'?"),
        ("sim:car?sede=3", "unknown option 'sede'; did you mean 'seed'?"),
    ])
    func daemonRefusesAMisspeltDevice(_ value: String, _ phrase: String) throws {
        let daemon = try #require(Self.daemon, "coremotiond is not built")
        let folder = try TestData.temporaryDirectory("cmd")
        defer { try? FileManager.default.removeItem(at: folder) }
        let common = [
            "--socket", folder.appendingPathComponent("d.sock").path, "--history", folder.appendingPathComponent("h.sqlite").path,
            "--no-authorization",
        ]
        let byOption = try Self.run(daemon, common + ["--device", value], timeout: 30)
        let byEnvironment = try Self.run(daemon, common, environment: ["COREMOTION_DEVICE": value], timeout: 30)
        for outcome in [byOption, byEnvironment] {
            #expect(outcome.status == 64, "exit status \(outcome.status); stderr: \(outcome.stderr)")
            #expect(outcome.stderr.contains(phrase), "\(outcome.stderr)")
            #expect(outcome.stderr.contains("COREMOTION_DEVICE=\"\(value)\": "), "\(outcome.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("d.sock").path))
    }

    @Test("coremotion simulate with a misspelt scene: the closest scene and the list, exit status 1")
    func simulateRefusesAMisspeltScene() throws {
        let tool = try #require(Self.tool, "coremotion is not built")
        let outcome = try Self.run(tool, ["simulate", "walking", "--duration", "1"])
        #expect(outcome.status == 1, "exit status \(outcome.status); stderr: \(outcome.stderr)")
        #expect(outcome.stderr.contains("unknown scene 'walking'; did you mean 'walking-in-hand'? scenes: still-face-up, "), "\(outcome.stderr)")
        #expect(outcome.stdout.isEmpty)
    }

    // MARK: Item: progress output

    @Test("coremotion demo with stdout and stderr piped: plain lines, no carriage returns or escapes, a bounded count")
    func demoIntoAPipe() throws {
        let tool = try #require(Self.tool, "coremotion is not built")
        let outcome = try Self.run(tool, ["demo", "--duration", "3", "--device", "sim:still-face-up"])
        #expect(outcome.status == 0, "exit status \(outcome.status); stderr: \(outcome.stderr)")
        #expect(!Self.hasControl(outcome.stdout), "\(outcome.stdout.debugDescription)")
        #expect(!Self.hasControl(outcome.stderr), "\(outcome.stderr.debugDescription)")
        // Results on stdout: the summary of what the handlers received.
        let summary = outcome.stdout.split(separator: "\n")
        #expect(summary.count == 1 && summary[0].contains("samples delivered to handlers in"), "\(outcome.stdout)")
        let accelerometer = summary.first.flatMap { Int($0.split(separator: " ").first ?? "") } ?? 0
        #expect(accelerometer > 50, "\(outcome.stdout)")  // 3 s at 50 Hz: about 150
        // Progress on stderr: the note and the one final line (3 s is shorter than the 5 s between lines),
        // where a terminal would have had about 30 redraws.
        let lines = outcome.stderr.split(separator: "\n")
        #expect(lines.count <= 3, "\(lines.count) lines:\n\(outcome.stderr)")
        #expect(lines.first?.hasPrefix("Showing sim:still-face-up through CMMotionManager") == true, "\(outcome.stderr)")
        #expect(lines.filter { $0.hasPrefix("demo: ") }.count == 1, "\(outcome.stderr)")
        #expect(lines.last?.hasPrefix("demo: 100% ") == true && lines.last?.contains("acc[g]") == true, "\(outcome.stderr)")
    }
}
