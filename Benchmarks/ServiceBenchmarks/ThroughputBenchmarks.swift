import Benchmark
import Foundation
import Logging
import MotionDaemon
import MotionDaemonClient
import MotionService
import NIOPosix

/// Counts from any thread.
final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var count = 0
    func add(_ n: Int = 1) { lock.lock(); count += n; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

/// Runs a raw accelerometer subscription of `provider` for `seconds` after a warm-up second; returns
/// samples received per second.
func receiveRate(_ provider: any MotionProvider, seconds: Double) -> Double {
    let tally = Tally()
    let stream = provider.subscribe(to: .accelerometer, interval: 0) { _ in tally.add() }
    Thread.sleep(forTimeInterval: 1)
    let before = tally.value
    let start = ProcessInfo.processInfo.systemUptime
    Thread.sleep(forTimeInterval: seconds)
    let received = tally.value - before
    let elapsed = ProcessInfo.processInfo.systemUptime - start
    stream?.cancel()
    return Double(received) / elapsed
}

func registerThroughputBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.cpuTotal, samplesPerSecond, droppedSamples], scalingFactor: .one, maxDuration: .seconds(30), maxIterations: 3)
    // The source runs at 1.5 M samples/s; a client that keeps up receives all of them.
    let sourceRate = 1_500_000.0

    Benchmark("Service: in-process delivery, raw accelerometer, source 1.5 M/s", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            let service = MotionService(device: BurstDevice(rate: sourceRate), history: .inMemory)
            let provider = service  // the service is the in-process provider
            benchmark.measurement(samplesPerSecond, Int(receiveRate(provider, seconds: 2)))
            benchmark.measurement(droppedSamples, 0)
        }
    }

    Benchmark("Service: coremotiond over the socket, one client, raw accelerometer, source 1.5 M/s", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cm-bench-\(UUID().uuidString.prefix(8))")
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let configuration = DaemonConfiguration(
                instance: .user, device: .none, socketPath: folder.appendingPathComponent("d.sock").path,
                historyPath: folder.appendingPathComponent("h.sqlite").path, permissionsPath: nil, socketMode: 0o600)
            var logger = Logger(label: "bench")
            logger.logLevel = .error
            let core = DaemonCore(configuration: configuration, device: BurstDevice(rate: sourceRate), authorizer: OpenAuthorizer(), logger: logger)
            // The daemon's own event loop, apart from the client's (as in two processes).
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let server = DaemonServer(core: core, group: group)
            try server.bind()
            let client = try DaemonConnection.connect(socketPath: configuration.socketPath, appHint: "bench")
            benchmark.measurement(samplesPerSecond, Int(receiveRate(client, seconds: 2)))
            benchmark.measurement(droppedSamples, Int(client.droppedCount))
            client.close()
            server.close()
            core.shutDown()
            try? group.syncShutdownGracefully()
        }
    }
}
