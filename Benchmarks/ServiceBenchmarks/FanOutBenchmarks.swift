import Benchmark
import CoreMotion
import Foundation
import MotionClient
import MotionDaemonClient
import MotionDevices
import MotionService

/// Latencies (s) from sample timestamp to handler, from many queues.
final class LatencyLog: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Double] = []
    private var times: [Double] = []
    func add(_ timestamp: Double) {
        let now = ProcessInfo.processInfo.systemUptime
        lock.lock()
        values.append(now - timestamp)
        times.append(timestamp)
        lock.unlock()
    }
    var latencies: [Double] { lock.lock(); defer { lock.unlock() }; return values }
    var timestamps: [Double] { lock.lock(); defer { lock.unlock() }; return times }
    func reset() { lock.lock(); values = []; times = []; lock.unlock() }
}

/// The scenario: 10 device-motion managers at 100 Hz and one raw accelerometer manager at 1 kHz, each on
/// its own provider (`providers[i]`, one connection each through the daemon: as 11 apps) and its own queue.
/// Returns the latencies of the raw client and of the device-motion clients, and the samples the clients
/// lost (gaps in their expected cadence).
func fanOut(providers: [any MotionProvider], seconds: Double) -> (raw: [Double], motion: [Double], lost: Int) {
    precondition(providers.count == 11)
    var managers: [CMMotionManager] = []
    let motionLogs = (0..<10).map { _ in LatencyLog() }
    let rawLog = LatencyLog()
    for (i, provider) in providers.enumerated() {
        let manager = MotionProviderOverride.with(provider) { CMMotionManager() }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        if i < 10 {
            manager.deviceMotionUpdateInterval = 0.01
            let log = motionLogs[i]
            manager.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: queue) { m, _ in if let m { log.add(m.timestamp) } }
        } else {
            manager.accelerometerUpdateInterval = 0.001
            manager.startAccelerometerUpdates(to: queue) { a, _ in if let a { rawLog.add(a.timestamp) } }
        }
        managers.append(manager)
    }
    Thread.sleep(forTimeInterval: 1.5)  // warm-up: fusion start, connections, caches
    for log in motionLogs + [rawLog] { log.reset() }
    Thread.sleep(forTimeInterval: seconds)
    for (i, m) in managers.enumerated() {
        if i < 10 { m.stopDeviceMotionUpdates() } else { m.stopAccelerometerUpdates() }
    }
    var lost = 0
    func gaps(_ t: [Double], period: Double) -> Int {
        zip(t.dropFirst(), t).reduce(0) { $0 + max(0, Int(($1.0 - $1.1) / period + 0.5) - 1) }
    }
    for log in motionLogs { lost += gaps(log.timestamps, period: 0.01) }
    lost += gaps(rawLog.timestamps, period: 0.001)
    return (rawLog.latencies, motionLogs.flatMap(\.latencies), lost)
}

/// CPU time (s) of process `pid` so far (user + system, all threads).
func cpuSeconds(of pid: Int32) -> Double? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// The `coremotiond` to start: COREMOTIOND, else the repository's release or debug build.
func daemonExecutable() -> String? {
    if let path = ProcessInfo.processInfo.environment["COREMOTIOND"] { return path }
    let here = FileManager.default.currentDirectoryPath
    for candidate in ["../.build/release/coremotiond", "../.build/debug/coremotiond", ".build/release/coremotiond"] {
        let path = (here as NSString).appendingPathComponent(candidate)
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}

/// The 1 kHz device: the simulator's still phone ten times faster (100 Hz scene → 1 kHz on the clock).
let fanOutDevice = "sim:still-face-up?speed=10"

func registerFanOutBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [rawLatency, motionLatency, lostSamples, daemonCPU], scalingFactor: .one, maxDuration: .seconds(60), maxIterations: 1)
    let seconds = 10.0

    Benchmark("Fan-out: in-process, 10 device motion @100 Hz + raw @1 kHz from a 1 kHz device", configuration: configuration) { benchmark in
        let device = try DeviceFactory.makeDevice(DeviceSpecification.parse(fanOutDevice), clock: SystemClock.shared)
        let provider = MotionService(device: device, history: .inMemory)
        let start = cpuSeconds(of: getpid()) ?? 0
        let result = fanOut(providers: Array(repeating: provider, count: 11), seconds: seconds)
        let cpu = (cpuSeconds(of: getpid()) ?? 0) - start
        for l in result.raw { benchmark.measurement(rawLatency, Int(l * 1e6)) }
        for l in result.motion { benchmark.measurement(motionLatency, Int(l * 1e6)) }
        benchmark.measurement(lostSamples, result.lost)
        // In process, the "daemon" is the app itself: its whole CPU time.
        benchmark.measurement(daemonCPU, Int(cpu / (seconds + 1.5) * 1000))
    }

    Benchmark("Fan-out: coremotiond, 11 connections, 10 device motion @100 Hz + raw @1 kHz from a 1 kHz device", configuration: configuration) { benchmark in
        guard let executable = daemonExecutable() else {
            print("coremotiond not found: build it (swift build -c release --product coremotiond) or set COREMOTIOND")
            return
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cm-fanout-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let socket = folder.appendingPathComponent("d.sock").path
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: executable)
        daemon.arguments = ["--socket", socket, "--device", fanOutDevice, "--history", folder.appendingPathComponent("h.sqlite").path,
                            "--no-authorization", "--log-level", "error"]
        try daemon.run()
        defer {
            daemon.terminate()
            daemon.waitUntilExit()
        }
        var connections: [DaemonConnection] = []
        for _ in 0..<200 where connections.isEmpty {
            if let c = try? DaemonConnection.connect(socketPath: socket, appHint: "bench", quiet: true) { connections.append(c) }
            else { Thread.sleep(forTimeInterval: 0.05) }
        }
        for _ in 1..<11 { connections.append(try DaemonConnection.connect(socketPath: socket, appHint: "bench")) }
        let start = cpuSeconds(of: daemon.processIdentifier) ?? 0
        let result = fanOut(providers: connections, seconds: seconds)
        let cpu = (cpuSeconds(of: daemon.processIdentifier) ?? 0) - start
        for l in result.raw { benchmark.measurement(rawLatency, Int(l * 1e6)) }
        for l in result.motion { benchmark.measurement(motionLatency, Int(l * 1e6)) }
        benchmark.measurement(lostSamples, result.lost)
        benchmark.measurement(daemonCPU, Int(cpu / (seconds + 1.5) * 1000))
        for c in connections { c.close() }
    }
}
