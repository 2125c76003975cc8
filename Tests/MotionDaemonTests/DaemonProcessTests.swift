import Foundation
import MotionDaemonClient
import MotionProtocol
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `coremotiond` started the way users start it: a separate process, by hand or with a socket from
/// systemd, stopped with SIGTERM or killed.
@Suite("coremotiond as a process: history that never sleeps, durability, activation", .serialized)
struct DaemonProcessTests {
    static let daemonBinary = TestData.builtExecutable("coremotiond")
    static let toolBinary = TestData.builtExecutable("coremotion")

    /// A walking simulation in real time (faster would be a cadence no person walks at): 113 steps in 66 s.
    static let walking = "sim:walking-in-hand"

    final class Daemon {
        let process: Process
        let socket: String
        let log: URL

        init(folder: URL, device: String, extra: [String] = [], prefix: [String] = [], environment: [String: String] = [:]) throws {
            let binary = try #require(DaemonProcessTests.daemonBinary)
            socket = folder.appendingPathComponent("d.sock").path
            log = folder.appendingPathComponent("daemon-\(UUID().uuidString.prefix(6)).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            process = Process()
            let arguments = [
                "--socket", socket, "--device", device, "--history", folder.appendingPathComponent("history.sqlite").path,
                "--permissions", folder.appendingPathComponent("permissions.json").path,
                "--policy", folder.appendingPathComponent("no-policy.json").path, "--no-authorization", "--log-level", "info",
            ] + extra
            if prefix.isEmpty {
                process.executableURL = binary
                process.arguments = arguments
            } else {
                process.executableURL = URL(fileURLWithPath: prefix[0])
                process.arguments = Array(prefix.dropFirst()) + [binary.path] + arguments
            }
            var env = ProcessInfo.processInfo.environment
            env.removeValue(forKey: "NOTIFY_SOCKET")
            for (k, v) in environment { env[k] = v }
            process.environment = env
            process.standardError = try FileHandle(forWritingTo: log)
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let socket = self.socket
            guard eventually(timeout: 20, { (try? DaemonConnection.connect(socketPath: socket, quiet: true))?.close() != nil }) else {
                process.terminate()
                throw DaemonFailed(log: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
            }
        }

        var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

        func kill9() {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        /// SIGTERM; returns the exit status.
        func terminate() -> Int32 {
            Glibc.kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    struct DaemonFailed: Error, CustomStringConvertible {
        var log: String
        var description: String { "coremotiond did not start:\n\(log)" }
    }

    @Test("steps walked while no app ran are returned by a later query, and still after kill -9 and a restart",
          .enabled(if: DaemonProcessTests.daemonBinary != nil))
    func stepsWithoutApps() throws {
        let folder = try TestData.temporaryDirectory("coremotiond-steps")
        defer { try? FileManager.default.removeItem(at: folder) }
        let start = Date()
        let daemon = try Daemon(folder: folder, device: Self.walking)
        // Nobody connected: the daemon walks on its own for 12 s.
        Thread.sleep(forTimeInterval: 12)
        let end = Date()
        let client = try DaemonConnection.connect(socketPath: daemon.socket)
        let before = try client.pedometerTotals(from: start, to: end)
        let activities = try client.activityHistory(from: start, to: end)
        client.close()
        // Measured: 15 steps in 12 s (the pedometer confirms a walk after a few steps).
        #expect(before.steps >= 8, "\(before.steps) steps recorded while no app ran")
        #expect(activities.contains { $0.flags.contains(.walking) }, "no walking in the activity history: \(activities)")
        // The query wrote everything before it; kill -9 loses nothing of that.
        daemon.kill9()
        let again = try Daemon(folder: folder, device: Self.walking)
        defer { _ = again.terminate() }
        let after = try DaemonConnection.connect(socketPath: again.socket)
        defer { after.close() }
        let totals = try after.pedometerTotals(from: start, to: end)
        #expect(totals.steps == before.steps, "after kill -9: \(totals.steps) steps, before: \(before.steps)")
    }

    @Test("SIGTERM: clients are told, the history is written, exit status 0", .enabled(if: DaemonProcessTests.daemonBinary != nil))
    func sigterm() throws {
        let folder = try TestData.temporaryDirectory("coremotiond-term")
        defer { try? FileManager.default.removeItem(at: folder) }
        let start = Date()
        let daemon = try Daemon(folder: folder, device: Self.walking)
        Thread.sleep(forTimeInterval: 8)
        let end = Date()
        let status = daemon.terminate()
        #expect(status == 0, "exit status \(status)\n\(daemon.logText)")
        #expect(daemon.logText.contains("stopped"))
        #expect(!FileManager.default.fileExists(atPath: daemon.socket), "the socket file was left behind")
        // Everything counted before SIGTERM is in the file.
        let next = try Daemon(folder: folder, device: "none")
        defer { _ = next.terminate() }
        let client = try DaemonConnection.connect(socketPath: next.socket)
        defer { client.close() }
        #expect(try client.pedometerTotals(from: start, to: end).steps > 5)
    }

    @Test("a damaged history file is moved aside with a log line and a new one started", .enabled(if: DaemonProcessTests.daemonBinary != nil))
    func damagedHistory() throws {
        let folder = try TestData.temporaryDirectory("coremotiond-damaged")
        defer { try? FileManager.default.removeItem(at: folder) }
        let history = folder.appendingPathComponent("history.sqlite")
        try Data(repeating: 0xA5, count: 8192).write(to: history)
        let daemon = try Daemon(folder: folder, device: Self.walking)
        defer { _ = daemon.terminate() }
        let aside = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("history.sqlite.damaged-") }
        let listing = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        #expect(!aside.isEmpty, "nothing moved aside: \(listing)")
        #expect(daemon.logText.contains("damaged"), "\(daemon.logText)")
        Thread.sleep(forTimeInterval: 8)
        let client = try DaemonConnection.connect(socketPath: daemon.socket)
        defer { client.close() }
        #expect(try client.pedometerTotals(from: Date().addingTimeInterval(-60), to: Date()).steps > 0)
    }

    @Test("a full disk is reported, nothing counted meanwhile is lost, recording resumes when space returns",
          .enabled(if: DaemonProcessTests.daemonBinary != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")))
    func fullDisk() throws {
        let folder = try TestData.temporaryDirectory("coremotiond-full")
        defer { try? FileManager.default.removeItem(at: folder) }
        let start = Date()
        let daemon = try Daemon(folder: folder, device: Self.walking)
        defer { _ = daemon.terminate() }
        let pid = daemon.process.processIdentifier
        Thread.sleep(forTimeInterval: 3)
        // The disk is "full": no file of the daemon may grow past 4 KiB (writes fail with EFBIG; the soft limit, so
        // that it can be raised again without privileges).
        try Self.run("/usr/bin/prlimit", ["--pid", "\(pid)", "--fsize=4096:"])
        Thread.sleep(forTimeInterval: 8)
        let tool = try DaemonConnection.connect(socketPath: daemon.socket)
        defer { tool.close() }
        let status = try tool.statusDocument()
        #expect(status.contains("flush") || status.contains("failed"), "no problem reported:\n\(status)")
        let middle = Date()
        // Space returns.
        try Self.run("/usr/bin/prlimit", ["--pid", "\(pid)", "--fsize=unlimited:"])
        Thread.sleep(forTimeInterval: 2.5)
        let during = try tool.pedometerTotals(from: start.addingTimeInterval(3), to: middle)
        #expect(during.steps > 5, "\(during.steps) steps from the time the disk was full")
        // Written for good: a restart reads them back.
        let before = during.steps
        daemon.kill9()
        let again = try Daemon(folder: folder, device: "none")
        defer { _ = again.terminate() }
        let reader = try DaemonConnection.connect(socketPath: again.socket)
        defer { reader.close() }
        #expect(try reader.pedometerTotals(from: start.addingTimeInterval(3), to: middle).steps == before)
    }

    @Test("socket activation: a listening socket on fd 3 with LISTEN_FDS=1, as systemd passes it",
          .enabled(if: DaemonProcessTests.daemonBinary != nil))
    func socketActivation() throws {
        let folder = try TestData.temporaryDirectory("coremotiond-activation")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("activated.sock").path
        let listener = try Self.listeningSocket(path)
        defer { Glibc.close(listener) }
        let binary = try #require(Self.daemonBinary)
        let log = folder.appendingPathComponent("log").path
        // sh sets LISTEN_PID to its own pid, then execs the daemon (same pid), as systemd does after fork.
        let script = "LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=coremotiond.socket exec \"$0\" \"$@\" 2>\(log)"
        let pid = try Self.spawn(
            "/bin/sh",
            ["-c", script, binary.path, "--socket", folder.appendingPathComponent("unused.sock").path, "--device", "sim:still-face-up",
             "--history", folder.appendingPathComponent("h.sqlite").path, "--no-authorization"],
            descriptor3: listener)
        defer {
            Glibc.kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        #expect(eventually(timeout: 20) { (try? DaemonConnection.connect(socketPath: path, quiet: true))?.close() != nil },
                "the daemon did not serve the passed socket: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("unused.sock").path))
        // The log line follows the first accepted connection closely; give a slow (sanitized) build time.
        #expect(eventually(timeout: 10) { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("socket from systemd") },
                "\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    @Test("the units install into a root folder; coremotiond starts from the installed service's command line",
          .enabled(if: DaemonProcessTests.daemonBinary != nil && DaemonProcessTests.toolBinary != nil))
    func installedUnits() throws {
        let folder = try TestData.temporaryDirectory("coremotiond-units")
        defer { try? FileManager.default.removeItem(at: folder) }
        let tool = try #require(Self.toolBinary)
        let daemonPath = try #require(Self.daemonBinary).path
        try Self.run(tool.path, ["service", "install", "--user", "--root", folder.path, "--executable", daemonPath, "--no-start"],
                     environment: ["XDG_CONFIG_HOME": "/cfg", "HOME": "/home/u"])
        let units = try FileManager.default.subpathsOfDirectory(atPath: folder.path)
        let service = try #require(units.first { $0.hasSuffix("coremotiond.service") })
        let socketUnit = try #require(units.first { $0.hasSuffix("coremotiond.socket") })
        let serviceText = try String(contentsOfFile: folder.appendingPathComponent(service).path, encoding: .utf8)
        #expect(serviceText.contains("Type=notify"))
        #expect(try String(contentsOfFile: folder.appendingPathComponent(socketUnit).path, encoding: .utf8).contains("ListenStream="))
        // Start what ExecStart= says, with the socket passed on fd 3 as systemd would, and a notify socket.
        let exec = try #require(serviceText.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let command = exec.dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
        #expect(command.first == daemonPath)
        let notifyPath = folder.appendingPathComponent("notify.sock").path
        let notify = try Self.datagramSocket(notifyPath)
        defer { Glibc.close(notify) }
        let path = folder.appendingPathComponent("run.sock").path
        let listener = try Self.listeningSocket(path)
        defer { Glibc.close(listener) }
        let args = Array(command.dropFirst()) + ["--device", "sim:still-face-up", "--history", folder.appendingPathComponent("h.sqlite").path,
                                                  "--permissions", folder.appendingPathComponent("p.json").path,
                                                  "--policy", folder.appendingPathComponent("none.json").path]
        let script = "LISTEN_PID=$$ LISTEN_FDS=1 NOTIFY_SOCKET=\(notifyPath) exec \"$0\" \"$@\" 2>/dev/null"
        let pid = try Self.spawn("/bin/sh", ["-c", script, command[0]] + args, descriptor3: listener)
        defer {
            Glibc.kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        // READY=1 arrives once it serves; then it answers on the socket.
        let ready = Self.receiveDatagram(notify, timeout: 20)
        #expect(ready?.contains("READY=1") == true, "no READY=1: \(ready ?? "nothing")")
        let client = try DaemonConnection.connect(socketPath: path)
        #expect(client.has(.accelerometer))
        client.close()
        Glibc.kill(pid, SIGTERM)
        let stopping = Self.receiveDatagram(notify, timeout: 10)
        #expect(stopping?.contains("STOPPING=1") == true, "no STOPPING=1: \(stopping ?? "nothing")")
    }

    // MARK: Helpers

    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw DaemonFailed(log: "\(executable) \(arguments) exited with \(process.terminationStatus)")
        }
    }

    static func socketAddress(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        return address
    }

    static func listeningSocket(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = socketAddress(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        return fd
    }

    static func datagramSocket(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = socketAddress(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0 else { throw POSIXError(.EADDRINUSE) }
        return fd
    }

    static func receiveDatagram(_ fd: Int32, timeout: TimeInterval) -> String? {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(timeout * 1000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
    }

    /// Starts `executable` with `descriptor3` as its fd 3 (and stdin/stdout/stderr inherited).
    static func spawn(_ executable: String, _ arguments: [String], descriptor3: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, descriptor3, 3)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LISTEN_") && $0.key != "NOTIFY_SOCKET" }
            .map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in env { free(p) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, env)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        return pid
    }
}

extension DaemonProcessTests {
    @Test("two processes read the same buffered IIO device at once, through the daemon (IIO emulator)",
          .enabled(if: DaemonProcessTests.daemonBinary != nil && DaemonProcessTests.toolBinary != nil))
    func twoProcessesShareBufferedIIO() throws {
        let folder = try TestData.temporaryDirectory("coremotiond-iio")
        defer { try? FileManager.default.removeItem(at: folder) }
        let tool = try #require(Self.toolBinary)
        let tree = folder.appendingPathComponent("tree")
        let ready = folder.appendingPathComponent("ready")
        let emulator = Process()
        emulator.executableURL = tool
        emulator.arguments = ["iio-emulate", "--root", tree.path, "--driver", "mpu6050", "--driver", "lis3mdl", "--max-rate", "100",
                              "--ready-file", ready.path]
        emulator.standardOutput = FileHandle.nullDevice
        emulator.standardError = FileHandle.nullDevice
        try emulator.run()
        defer {
            emulator.terminate()
            emulator.waitUntilExit()
        }
        #expect(eventually(timeout: 20) { FileManager.default.fileExists(atPath: ready.path) })
        let daemon = try Daemon(folder: folder, device: "iio:\(tree.path)", environment: ["COREMOTION_IIO_CAPTURE": "buffered"])
        defer { _ = daemon.terminate() }
        // Two apps at once, each its own process.
        let outputs = (0..<2).map { _ in Pipe() }
        let apps = try outputs.map { pipe -> Process in
            let p = Process()
            p.executableURL = tool
            p.arguments = ["demo", "--device", "service:\(daemon.socket)", "--duration", "3", "--interval", "0.01", "--json"]
            p.standardOutput = pipe
            p.standardError = FileHandle.nullDevice
            try p.run()
            return p
        }
        struct Summary: Decodable { var accelerometerSamples: Int; var gyroSamples: Int }
        for (app, pipe) in zip(apps, outputs) {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            app.waitUntilExit()
            let summary = try JSONDecoder().decode(Summary.self, from: data)
            // 3 s at 100 Hz: about 300 each (measured 290–300).
            #expect(summary.accelerometerSamples > 150 && summary.gyroSamples > 150, "\(summary)")
        }
        #expect(daemon.logText.contains("buffered capture") && !daemon.logText.contains("polling"), "\(daemon.logText)")
    }
}
