import Foundation
import Logging
import MotionIngest
import MotionNetwork
import MotionSamples
import MotionService

/// Runs phones' engines on an ingest node: every few seconds it finds phones whose stored readings extend
/// past their derived records, takes each one's lease in turn (``MotionIngest/PhoneEngineStorage``), runs the
/// service's pedometer and activity engines (``MotionService/HistoryEngines``) over the stored readings and
/// writes the steps, floors, pauses and activity states in one transaction per window.
///
/// - **Restart margin**: the engines start ``Settings/warmUpSeconds`` before the phone's `derivedUntil` and
///   only records after it are written, so a restart (another node, a crash, the next window) neither
///   double-counts nor starts cold.
/// - **Horizon**: readings within ``Settings/horizonSeconds`` of the phone's newest stored reading wait: a
///   late push (a resend, a spool drained) may still fill them. Records within ``Settings/settleSeconds`` of
///   the horizon wait too: the pedometer confirms steps up to 4 s late and pauses 3 s after the last step.
///   A phone quiet for ``Settings/quietSeconds`` is finished: its engines are run to the newest reading and
///   closed (the last steps decided, a walk in progress paused).
/// - **Bounds**: one phone at a time, at most ``Settings/windowSeconds`` of readings (and
///   ``Settings/maximumChunks`` stored chunks) in memory at once.
/// - Malformed stored readings are skipped and logged; a phone whose convention cannot be told (no
///   uncalibrated accelerometer nor orientation with gravity, and no `&platform=`) is passed over with a notice,
///   as a live receiver would drop its accelerations.
public final class PhoneEngineWorker: @unchecked Sendable {  // @unchecked: `thread`, `stopping` and `figures` are guarded by `condition`; the rest is immutable
    /// How the worker runs.
    public struct Settings: Sendable, Hashable {
        /// Seconds between looks for phones behind.
        public var interval: TimeInterval = 5
        /// Length of a lease, seconds (renewed with every window written).
        public var leaseSeconds: Double = 30
        /// Readings this close to a phone's newest reading, seconds, wait for late pushes.
        public var horizonSeconds: Double = 10
        /// Records this close to the horizon, seconds, wait for the next pass (the engines' latency).
        public var settleSeconds: Double = 6
        /// The engines restart this long before the derived records' end, seconds.
        public var warmUpSeconds: Double = 30
        /// A phone still pushing is derived once this many seconds of its readings wait past the horizon
        /// and the settling time: fewer, longer windows, each paying the warm-up once (with 0, every pass
        /// derived about 5 s of a busy phone after 30 s of warm-up, 7 times the readings; measured at 200
        /// phones in BENCHMARKS.md §11). A quiet phone is finished whatever it has waiting.
        public var batchSeconds: Double = 30
        /// Readings processed at once, seconds.
        public var windowSeconds: Double = 600
        /// Stored chunks read at once at most (a window with more is cut short).
        public var maximumChunks = 8192
        /// A phone without a new reading for this long, seconds, is derived to its newest reading.
        public var quietSeconds: Double = 120
        /// Phones looked at per pass at most.
        public var phonesPerPass = 64
        /// The phones' convention when the data cannot tell it (`&platform=` of the receiver).
        public var platform: SensorLoggerPlatform?
        /// Only phones whose device name starts with this (`""`: every phone).
        public var namePrefix = ""

        public init() {}
    }

    /// What the worker did, for `coremotion service status`.
    public struct Figures: Sendable, Hashable, Codable {
        /// Phones whose records this node moved forward.
        public var phones = 0
        /// Windows written.
        public var windows = 0
        /// Steps written.
        public var steps = 0
        /// Windows not written because another node took the lease meanwhile.
        public var lostLeases = 0
        /// Stored chunks and readings skipped as malformed.
        public var skipped = 0
        /// Seconds from the derived records' end to the newest reading, for the phone furthest behind after
        /// the last pass (readings within the horizon always wait).
        public var lagSeconds: Double = 0
        /// Passes that failed (the database unreachable).
        public var failedPasses = 0
    }

    public let settings: Settings
    /// This node's name in leases.
    public let node: String
    private let storage: any PhoneEngineStorage
    private let logger: Logger
    private let condition = NSCondition()
    private var stopping = false
    private var running = false
    private var counters = Figures()
    private var derivedPhones = Set<Int64>()
    private var undecidedReported = Set<Int64>()

    public init(storage: any PhoneEngineStorage, node: String, settings: Settings = Settings(), logger: Logger = Logger(label: "coremotion.ingest.engines")) {
        self.storage = storage
        self.node = node
        self.settings = settings
        self.logger = logger
    }

    /// What the worker did so far.
    public var figures: Figures {
        condition.lock()
        defer { condition.unlock() }
        return counters
    }

    /// Starts the worker's thread (once).
    public func start() {
        condition.lock()
        guard !running, !stopping else {
            condition.unlock()
            return
        }
        running = true
        condition.unlock()
        let thread = Thread { [self] in loop() }
        thread.name = "coremotion-ingest-engines"
        thread.start()
    }

    /// Stops the thread: the window in progress is finished (or abandoned, if its database call fails) and the
    /// phone's lease given up, then the worker returns.
    public func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    private var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopping
    }

    private func loop() {
        while !isStopping {
            runPass()
            condition.lock()
            if !stopping { _ = condition.wait(until: Date().addingTimeInterval(settings.interval)) }
            condition.unlock()
        }
        condition.lock()
        running = false
        condition.broadcast()
        condition.unlock()
    }

    /// One pass: every phone behind (at most ``Settings/phonesPerPass``) is derived as far as it can be.
    /// Returns the windows written. Errors are logged (the next pass tries again).
    @discardableResult
    public func runPass() -> Int {
        let phones: [PhoneEngineStatus]
        do {
            phones = try storage.phonesBehind(
                sensors: StoredPhoneSamples.accelerometerSensors, namePrefix: settings.namePrefix, node: node,
                lagMicroseconds: Self.microseconds(settings.horizonSeconds + settings.settleSeconds + max(0, settings.batchSeconds)),
                quietSeconds: settings.quietSeconds, limit: settings.phonesPerPass)
        } catch {
            failed("listing phones behind", error)
            return 0
        }
        var windows = 0
        var lag = 0.0
        for phone in phones {
            if isStopping { break }
            do {
                let (written, derivedUntil) = try derive(phone)
                windows += written
                lag = max(lag, Double(phone.newestReading - derivedUntil) / 1e6)
            } catch {
                failed("deriving phone \(phone.name.logSafe)", error)
                break
            }
        }
        condition.lock()
        counters.lagSeconds = max(0, lag)
        condition.unlock()
        return windows
    }

    private func failed(_ what: String, _ error: any Error) {
        condition.lock()
        counters.failedPasses += 1
        let first = counters.failedPasses == 1 || counters.failedPasses % 100 == 0
        condition.unlock()
        if first { logger.warning("phone engines on node \(node.logSafe): \(what) failed: \(LogSafeText.logSafe("\(error)", limit: 400))") }
    }

    /// Derives one phone window after window while this node holds its lease; returns the windows written
    /// and how far the phone's records reach.
    func derive(_ phone: PhoneEngineStatus) throws -> (windows: Int, derivedUntil: Int64) {
        guard var lease = try storage.takeLease(
            phone, node: node, seconds: settings.leaseSeconds, initialDerivedUntil: phone.firstReading - 1)
        else { return (0, phone.derivedUntil ?? phone.firstReading) }
        let quiet = phone.quietSeconds >= settings.quietSeconds
        let horizon = quiet ? phone.newestReading : phone.newestReading - Self.microseconds(settings.horizonSeconds)
        let settle = Self.microseconds(settings.settleSeconds)
        let window = max(Self.microseconds(settings.windowSeconds), 2 * settle + 1_000_000)
        var windows = 0
        while !isStopping {
            let start = lease.derivedUntil
            var through = min(horizon, start + window)
            let from = start - Self.microseconds(settings.warmUpSeconds)
            var readings = try storage.readings(
                device: phone.device, sensors: StoredPhoneSamples.sampleSensors, from: from, through: through, limit: settings.maximumChunks)
            if readings.series.count >= settings.maximumChunks, let last = readings.series.last?.microseconds.first, last - 1 > start + settle {
                // Too many chunks for one window: stop before the last one read (the next window starts there).
                through = last - 1
                readings.series.removeAll { ($0.microseconds.first ?? 0) > through }
            }
            let final = quiet && through == phone.newestReading
            let end = final ? through : through - settle
            guard end > start else { break }
            for reason in readings.skipped.prefix(3) { logger.warning("phone engines: skipped \(reason.logSafe)") }
            let records = try self.records(of: phone, readings, from: from, through: through, final: final)
            var derived = records.records
            derived.steps.removeAll { Self.microseconds(of: $0.date) > end }
            derived.floors.removeAll { Self.microseconds(of: $0.date) > end }
            derived.transitions.removeAll { Self.microseconds(of: $0.date) > end }
            derived.activities.removeAll { Self.microseconds(of: $0.startDate) > end }
            let stepsAfter = derived.steps.filter { Self.microseconds(of: $0.date) > start }.count
            guard try storage.commit(derived, lease: lease, derivedUntil: end, leaseSeconds: settings.leaseSeconds) else {
                condition.lock()
                counters.lostLeases += 1
                condition.unlock()
                logger.notice("phone engines on node \(node.logSafe): the lease of \(phone.name.logSafe) was taken over; its window was not written")
                return (windows, lease.derivedUntil)
            }
            lease.derivedUntil = end
            windows += 1
            condition.lock()
            counters.windows += 1
            counters.steps += stepsAfter
            counters.skipped += readings.skipped.count + records.skipped
            if derivedPhones.count < 65_536 { derivedPhones.insert(phone.device) }
            counters.phones = derivedPhones.count
            condition.unlock()
            if final || end >= horizon - settle { break }
        }
        // A node that stops hands the phone over at once rather than when the lease expires.
        if isStopping { try? storage.release(lease) }
        return (windows, lease.derivedUntil)
    }

    /// Runs the engines over one window's readings (a fresh start at `from`).
    private func records(
        of phone: PhoneEngineStatus, _ readings: StoredReadings, from: Int64, through: Int64, final: Bool
    ) throws -> (records: DerivedRecords, skipped: Int) {
        var decision = StoredPhoneSamples.decide(readings.series)
        if decision == nil {
            // The detector's other evidence (orientation with gravity, Android-only readings) over the
            // window's first half minute, read only when the accelerometer alone cannot tell.
            let extra = try storage.readings(
                device: phone.device, sensors: StoredPhoneSamples.conventionSensors, from: from, through: min(through, from + 30_000_000),
                limit: settings.maximumChunks)
            let early = readings.series.filter { ($0.microseconds.first ?? .max) <= from + 30_000_000 }
            decision = StoredPhoneSamples.decide((early + extra.series).sorted { ($0.microseconds.first ?? 0) < ($1.microseconds.first ?? 0) })
        }
        if decision == nil, let platform = settings.platform {
            decision = SensorLoggerConventionDecision(convention: platform.convention, platform: platform, reason: "set by the receiver (&platform=\(platform))")
        }
        guard let decision else {
            condition.lock()
            let report = undecidedReported.count < 65_536 && undecidedReported.insert(phone.device).inserted
            condition.unlock()
            if report {
                logger.warning("phone engines: the convention of \(phone.name.logSafe) cannot be told from its readings (enable the Uncalibrated Accelerometer in Sensor Logger, or give the receiver &platform=); its readings are passed over")
            }
            return (DerivedRecords(), 0)
        }
        let converted = StoredPhoneSamples(readings.series, decision: decision, origin: from, from: from, through: through)
        var engines = try HistoryEngines(
            origin: Date(timeIntervalSince1970: Double(from) / 1e6),
            accelerometerPeriod: converted.periods[.accelerometer] ?? 0.01, gyroscopePeriod: converted.periods[.gyroscope] ?? 0.01,
            barometerPeriod: converted.periods[.barometer] ?? 1)
        for sample in converted.samples { engines.add(sample) }
        if final { engines.finish() }
        let r = engines.takeRecords()
        return (DerivedRecords(steps: r.steps, floors: r.floors, transitions: r.transitions, activities: r.activities), converted.skipped)
    }

    static func microseconds(_ seconds: Double) -> Int64 {
        guard seconds.isFinite else { return 0 }
        return Int64((min(max(seconds, 0), 1e9) * 1e6).rounded())
    }

    static func microseconds(of date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1e6).rounded())
    }
}
