import Foundation
import Logging
import MotionIngest
import MotionNetwork
import MotionSamples
import NIOConcurrencyHelpers
import NIOPosix

/// An ingest node: receives Sensor Logger pushes from many phones and keeps every reading durably in a shared
/// database, for studies and fleets (`coremotiond --ingest 'sensorlogger:0.0.0.0:8000?token=T'`).
///
/// A push is answered 200 only once it is durable: committed in the database, or, while the database cannot
/// take it, written and synced to the node's local ``PushSpool``. A full spool answers 503, so the phone keeps
/// the push and sends it again; nothing is dropped silently. A drain thread moves spooled pushes into the
/// database, oldest first, once it answers again. Several nodes may write into one database: a push carries
/// its phone's `deviceId`, session and message id, and the database keeps each push once whichever node (or
/// how many times a node) received it.
///
/// Bounds: the receiver's (``SensorLoggerLimits``: connections, body size, phones), at most
/// ``Settings/writers`` pushes written at once, the spool's ``PushSpool/Limits``.
public final class IngestNode: Sendable {
    /// How the node runs.
    public struct Settings: Sendable {
        /// This node's name in the database's receipts (default: host name and port).
        public var node: String?
        /// Pushes written to the database or the spool at once (threads).
        public var writers: Int = 4
        /// Phones kept at once by the receiver.
        public var maximumPhones: Int = 1024
        /// How often the drain thread looks at the spool, seconds.
        public var drainInterval: TimeInterval = 0.5
        /// How the phones' engines run (when the node has a ``PhoneEngineStorage``).
        public var engines = PhoneEngineWorker.Settings()

        public init() {}
    }

    /// What the node did, for `coremotion service status`.
    public struct Figures: Sendable, Hashable, Codable {
        /// Pushes kept: written to the database directly, or spooled.
        public var committed = 0
        public var spooled = 0
        /// Pushes the database already had (retries, a phone that moved between nodes).
        public var duplicates = 0
        /// Pushes answered 503 (spool full or unwritable) and 400 (ids too long, or contents the database
        /// refuses: ``MotionIngest/RawPushRefused``).
        public var refused = 0
        /// Readings kept.
        public var readings = 0
        /// Pushes moved from the spool into the database.
        public var drained = 0
        /// Pushes waiting in the spool, and their bytes.
        public var spoolPushes = 0
        public var spoolBytes = 0
        /// Whether the last write reached the database.
        public var databaseReachable = true
        /// Seconds since the oldest push still in the spool was received (the database's lag), or 0.
        public var lagSeconds: Double = 0
        /// Time from a push's arrival to its answer: median and 99th percentile, milliseconds (last 4,096).
        public var latencyP50Milliseconds: Double = 0
        public var latencyP99Milliseconds: Double = 0
        /// Phones seen by this node.
        public var phones = 0
        /// The phones' engines on this node (`nil` when it runs none): phones derived, windows and steps
        /// written, the lag behind the newest reading.
        public var engines: PhoneEngineWorker.Figures?
    }

    public let configuration: SensorLoggerConfiguration
    public let settings: Settings
    /// The receiver (its phones and statistics).
    public let receiver: SensorLoggerServer
    private let database: any RawPushStorage
    /// The phones' engines, when the node runs them.
    public let engineWorker: PhoneEngineWorker?
    private let spool: PushSpool
    private let logger: Logger
    private let writers: NIOThreadPool
    private let state = NIOLockedValueBox(State())
    private let stopping = NIOLockedValueBox(false)

    private struct State {
        var figures = Figures()
        var databaseDown = false
        var oldestSpooled: Date?
        var latencies: [Double] = []
        var latencyIndex = 0
        var reportedDown = false
        /// Pushes the database refused for their contents (logged at the 1st, 2nd, 4th … time).
        var storeRefusals = 0
    }

    /// A node receiving on `configuration`'s address, storing into `database` (else `spool`); with `engines`
    /// (the PostgreSQL history), it also runs the phones' engines (``PhoneEngineWorker``) from ``start()`` to
    /// ``stop()``.
    public init(
        configuration: SensorLoggerConfiguration, database: any RawPushStorage, spool: PushSpool,
        engines: (any PhoneEngineStorage)? = nil, settings: Settings = Settings(), logger: Logger = Logger(label: "coremotion.ingest")
    ) {
        self.configuration = configuration
        self.settings = settings
        self.database = database
        self.spool = spool
        self.logger = logger
        self.receiver = SensorLoggerServer(configuration: configuration, maximumPhones: settings.maximumPhones, logger: logger)
        self.writers = NIOThreadPool(numberOfThreads: max(1, settings.writers))
        if let engines {
            var workerSettings = settings.engines
            if workerSettings.platform == nil { workerSettings.platform = configuration.platform }
            let name = settings.node ?? "\(ProcessInfo.processInfo.hostName):\(configuration.port)"
            engineWorker = PhoneEngineWorker(storage: engines, node: name, settings: workerSettings, logger: logger)
        } else {
            engineWorker = nil
        }
        if spool.depth.pushes > 0 { state.withLockedValue { $0.oldestSpooled = Date() } }
    }

    /// This node's name in receipts.
    public var nodeName: String {
        settings.node ?? "\(ProcessInfo.processInfo.hostName):\(configuration.port)"
    }

    /// Starts receiving; returns the port listened on.
    @discardableResult
    public func start() throws -> Int {
        writers.start()
        receiver.keepPushes { [weak self] message, _ in
            guard let self else { return SensorLoggerReply(status: 503, text: "the ingest node is stopping; send again") }
            return await self.keep(message)
        }
        let port = try receiver.start()
        let thread = Thread { [weak self] in self?.drainLoop() }
        thread.name = "coremotion-ingest-drain"
        thread.start()
        engineWorker?.start()
        logger.notice("ingest node \(nodeName.logSafe) receives Sensor Logger pushes on \(configuration.description.logSafe); spool \(spool.folder.path.logSafe) holds \(spool.depth.pushes) push(es)")
        return port
    }

    /// Stops receiving, drains what it can, stops the writers.
    public func stop() {
        stopping.withLockedValue { $0 = true }
        engineWorker?.stop()
        receiver.stop()
        _ = spool.drain(into: database, node: nodeName)
        try? writers.syncShutdownGracefully()
    }

    /// What the node did so far.
    public var figures: Figures {
        let depth = spool.depth
        let phones = receiver.phones.count
        let engines = engineWorker?.figures
        return state.withLockedValue { s in
            var f = s.figures
            f.spoolPushes = depth.pushes
            f.spoolBytes = depth.bytes
            f.databaseReachable = !s.databaseDown
            f.lagSeconds = depth.pushes > 0 ? s.oldestSpooled.map { Date().timeIntervalSince($0) } ?? 0 : 0
            let sorted = s.latencies.sorted()
            if !sorted.isEmpty {
                f.latencyP50Milliseconds = sorted[sorted.count / 2] * 1000
                f.latencyP99Milliseconds = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))] * 1000
            }
            f.phones = phones
            f.engines = engines
            return f
        }
    }

    // MARK: - Keeping a push

    /// Keeps one accepted push: `nil` when it is durable (the phone gets 200), else the reply to send instead.
    func keep(_ message: SensorLoggerMessage) async -> SensorLoggerReply? {
        let arrived = Date()
        let push = RawPush(sensorLogger: message, receivedAt: arrived)
        guard push.isStorable else {
            state.withLockedValue { $0.figures.refused += 1 }
            return SensorLoggerReply(status: 400, text: "deviceId (1…1024 bytes) or sessionId (≤ 256 bytes) too long, or too many readings")
        }
        let reply: SensorLoggerReply?
        do {
            reply = try await writers.runIfActive { self.write(push) }
        } catch {
            reply = SensorLoggerReply(status: 503, text: "the ingest node is stopping; send again")
        }
        let seconds = Date().timeIntervalSince(arrived)
        state.withLockedValue { s in
            if s.latencies.count < 4096 { s.latencies.append(seconds) } else { s.latencies[s.latencyIndex] = seconds }
            s.latencyIndex = (s.latencyIndex + 1) % 4096
        }
        return reply
    }

    /// On a writer thread: the database, else the spool, else 503.
    private func write(_ push: RawPush) -> SensorLoggerReply? {
        let down = state.withLockedValue { $0.databaseDown }
        var databaseError: (any Error)?
        if !down {
            do {
                let isNew = try database.store(push, node: nodeName)
                state.withLockedValue { s in
                    s.figures.committed += 1
                    if isNew { s.figures.readings += push.readingCount } else { s.figures.duplicates += 1 }
                }
                return nil
            } catch let refused as RawPushRefused {
                // The database is fine; this push never will be (a NUL in a name, a value out of range).
                let count = state.withLockedValue { s -> Int in
                    s.figures.refused += 1
                    s.storeRefusals += 1
                    return s.storeRefusals
                }
                if count & (count - 1) == 0 {
                    logger.warning("ingest node \(nodeName.logSafe): a push of \(push.device.logSafe) refused by the database (\(LogSafeText.logSafe(refused.reason, limit: 300))); answered 400 (\(count) so far)")
                }
                return SensorLoggerReply(status: 400, text: "the database cannot store this push: \(refused.reason.prefix(300))")
            } catch {
                databaseError = error
                markDown(error)
            }
        }
        do {
            try spool.append(push)
            state.withLockedValue { s in
                s.figures.spooled += 1
                s.figures.readings += push.readingCount
                if s.oldestSpooled == nil { s.oldestSpooled = push.receivedAt }
            }
            return nil
        } catch {
            state.withLockedValue { $0.figures.refused += 1 }
            logger.error("ingest node \(nodeName.logSafe): a push of \(push.device.logSafe) could not be kept (\(databaseError.map { "database: \($0); " } ?? "")spool: \(error)); answered 503")
            return SensorLoggerReply(status: 503, text: "the ingest node cannot keep pushes right now (database unreachable, spool full); send again")
        }
    }

    private func markDown(_ error: any Error) {
        let first = state.withLockedValue { s -> Bool in
            s.databaseDown = true
            defer { s.reportedDown = true }
            return !s.reportedDown
        }
        if first {
            logger.warning("ingest node \(nodeName.logSafe): the database does not take pushes (\(LogSafeText.logSafe("\(error)", limit: 400))); spooling to \(spool.folder.path.logSafe) until it does")
        }
    }

    // MARK: - Drain

    private func drainLoop() {
        while !stopping.withLockedValue({ $0 }) {
            Thread.sleep(forTimeInterval: settings.drainInterval)
            let down = state.withLockedValue { $0.databaseDown }
            guard spool.depth.pushes > 0 || down else { continue }
            // New pushes go to the database again as soon as it answers, not after the backlog: the spool then
            // stops growing while it drains.
            if down {
                guard probeDatabase() else { continue }
                state.withLockedValue { $0.databaseDown = false }
            }
            let result = spool.drain(into: database, node: nodeName)
            let back = result.stoppedBy == nil
            let wasDown = state.withLockedValue { s -> Bool in
                let was = s.reportedDown
                s.figures.drained += result.stored
                s.figures.duplicates += result.duplicates
                if back {
                    s.databaseDown = false
                    s.reportedDown = false
                    if self.spool.depth.pushes == 0 { s.oldestSpooled = nil }
                } else {
                    s.databaseDown = true
                }
                return was
            }
            if back && wasDown {
                logger.notice("ingest node \(nodeName.logSafe): the database takes pushes again; \(result.stored) spooled push(es) stored")
            }
        }
    }

    /// Whether the database answers, for a node whose spool is empty but that saw it fail: stores nothing.
    private func probeDatabase() -> Bool { database.isReachable() }
}
