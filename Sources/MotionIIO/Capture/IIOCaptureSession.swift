import Foundation
import Logging
import MotionSamples
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a capture stopped delivering.
enum IIOCaptureFailure: Error {
    /// The device or one of its files vanished (ENOENT/ENODEV): unbound or unplugged.
    case gone(String)
    /// Reads keep failing while the device is still there (EIO, garbage values, …).
    case readFailure(String)
    /// Buffered capture cannot be set up (permissions, busy buffer, no trigger): polling may work.
    case bufferUnavailable(String)
    /// Polling cannot read the attributes (permissions).
    case permission(String)
}

/// The part of ``IIODevice`` a capture session talks to.
protocol IIOCaptureOwner: AnyObject, Sendable {
    /// Delivers samples of the active sensors (called on the capture thread).
    func deliver(_ samples: UnsafeBufferPointer<SensorSample>)
    /// The sensors `kinds` stopped delivering.
    func captureLost(group: String, kinds: [SensorKind], reason: String)
    /// The sensors `kinds` deliver again, from `device`.
    func captureReturned(group: String, kinds: [SensorKind], device: IIODeviceInfo)
    /// The device matching `identity`, if it is present now.
    func findDevice(_ identity: IIODeviceIdentity) -> IIODeviceInfo?
}

/// What makes a device "the same device" when it comes back (possibly as another `iio:deviceN`).
struct IIODeviceIdentity: Sendable, Hashable {
    let name: String
    let label: String?
    let kinds: Set<SensorKind>
    let directoryName: String

    init(_ device: IIODeviceInfo) {
        name = device.name
        label = device.label
        kinds = Set(device.sensors.map(\.kind))
        directoryName = device.directoryName
    }

    func matches(_ device: IIODeviceInfo) -> Bool {
        device.name == name && device.label == label && kinds.isSubset(of: Set(device.sensors.map(\.kind)))
    }
}

/// One capture thread for one IIO device: sets rates, captures buffered or polled, converts and
/// delivers, and survives the device going away and coming back.
package final class IIOCaptureSession: @unchecked Sendable {  // @unchecked: `stopping`, `stats` under `lock`; `finished` under `finishedCondition`; `device` etc. on its thread
    // An NSLock plus an NSCondition, not Mutex: Mutex has no condition variable.
    /// Stable name of the device group (its directory at discovery).
    let group: String
    let kinds: [SensorKind]
    let requestedRates: [SensorKind: Double]
    /// How late samples may be delivered, seconds (0: as soon as possible): buffered capture sets the
    /// buffer's watermark from it (``bufferPlan(scanRate:latency:)``).
    let maximumLatency: Double
    let mode: IIODevice.CaptureMode
    private weak var owner: (any IIOCaptureOwner)?
    private let logger: Logger
    private let identity: IIODeviceIdentity
    private var device: IIODeviceInfo
    /// Whether the device had a buffer when the session was made (`device` changes on the thread).
    private let hasBuffer: Bool
    private let startsLost: Bool

    private let lock = NSLock()
    private var stopping = false
    private var finished = false
    private let finishedCondition = NSCondition()
    private var stats: IIOCaptureStatistics
    /// Interrupts the thread's waits when it must stop.
    private let wake = IIOWakePipe()

    /// Read errors tolerated for this long (with no successful read) before the sensor counts as lost.
    static let readFailureGrace = 1.0
    /// How often the device directory is checked while capturing, seconds: on the wake-ups that
    /// deliver data when they come at least this far apart, else by a timeout (buffered: when no data
    /// came for a batch period plus this long).
    static let presenceInterval = 0.25
    /// How often a lost device is looked for, seconds.
    static let returnPollInterval = 0.25

    init(
        group: String, device: IIODeviceInfo, kinds: [SensorKind], requestedRates: [SensorKind: Double], maximumLatency: Double = 0,
        mode: IIODevice.CaptureMode, owner: any IIOCaptureOwner, logger: Logger, startsLost: Bool
    ) {
        self.group = group
        self.device = device
        self.identity = IIODeviceIdentity(device)
        self.hasBuffer = device.buffer != nil
        self.kinds = kinds.sorted { $0.rawValue < $1.rawValue }
        self.requestedRates = requestedRates
        self.maximumLatency = IIOCaptureSession.sanitizedLatency(maximumLatency)
        self.mode = mode
        self.owner = owner
        self.logger = logger
        self.startsLost = startsLost
        self.stats = IIOCaptureStatistics(device: device.directoryName, mode: "starting")
    }

    /// True when this session would do exactly what a new one for these arguments would. The latency
    /// only matters to a device that can be captured buffered (polling reads each sample when due).
    func isEquivalent(kinds: [SensorKind], requestedRates: [SensorKind: Double], maximumLatency: Double = 0, mode: IIODevice.CaptureMode) -> Bool {
        guard Set(kinds) == Set(self.kinds), requestedRates == self.requestedRates, mode == self.mode else { return false }
        let latencyMatters = mode != .polled && hasBuffer
        return !latencyMatters || IIOCaptureSession.sanitizedLatency(maximumLatency) == self.maximumLatency
    }

    /// The longest latency a capture honours, seconds (longer ones are taken as this).
    static let longestLatency = 10.0

    /// `latency` made usable: NaN and negative values are 0, at most ``longestLatency``.
    static func sanitizedLatency(_ latency: Double) -> Double {
        latency > 0 ? min(latency, longestLatency) : 0
    }

    /// The shortest batch of buffered capture, seconds: even a live stream is read about every 5 ms at
    /// high rates (at most 5 ms later, for one wake-up per 5 ms instead of one per scan).
    static let shortestBatch = 0.005
    /// The longest kernel buffer asked for, scans.
    static let longestBuffer = 8192

    /// Buffer length and watermark (scans) for buffered capture at `scanRate` Hz when samples may be
    /// `latency` seconds late.
    ///
    /// The kernel wakes the reader when `watermark` scans wait (`iio_buffer_poll`, industrialio-buffer.c),
    /// so the watermark is the batch: max(1, rate × latency), and at least 5 ms of scans. The length
    /// is about a second of scans (≥ 128) and at least twice the watermark, so that the reader has a
    /// whole batch of slack before the buffer overflows; at most ``longestBuffer``, and the watermark
    /// never above half of it.
    static func bufferPlan(scanRate: Double, latency: Double) -> (length: Int, watermark: Int) {
        let rate = scanRate.isFinite && scanRate > 0 ? scanRate : 1
        let batch = max(sanitizedLatency(latency), shortestBatch)
        let wanted = max(1, Int(min(rate * batch, Double(longestBuffer)).rounded(.down)))
        let length = min(max(128, Int(min(rate, Double(longestBuffer)).rounded(.up)), 2 * wanted), longestBuffer)
        return (length, max(1, min(wanted, length / 2)))
    }

    /// Starts the thread; it first waits for `previous` (the session it replaces) to finish, so that
    /// the old teardown never disables a buffer the new session enabled.
    func start(after previous: IIOCaptureSession?) {
        // Linux keeps 15 bytes of a thread's name (longer ones are refused): "cm.iio:device0" (as
        // `top -H`, `/proc/PID/task/*/comm` and tools/bench/idle-daemon.sh show it).
        let name = String("cm.\(group)".utf8.prefix(15)) ?? "cm.iio"
        let t = Thread { [self] in
            IIOCaptureSession.nameCurrentThread(name)
            previous?.waitUntilFinished(timeout: 10)
            self.main()
        }
        t.name = name
        t.qualityOfService = .userInteractive
        t.stackSize = 1 << 20
        // Not kept: the thread's block holds the session until it returns, and a session holding its
        // thread would never be released (nor its wake pipe closed).
        t.start()
    }

    /// Asks the thread to stop: its wait is interrupted at once; buffered capture delivers the scans
    /// the buffer holds, then tears down.
    func stop() {
        lock.lock()
        stopping = true
        lock.unlock()
        wake.wake()
    }

    var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopping
    }

    /// Blocks until the thread has torn down (or `timeout` seconds pass). Returns true when finished.
    @discardableResult
    func waitUntilFinished(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        finishedCondition.lock()
        defer { finishedCondition.unlock() }
        while !finished {
            if !finishedCondition.wait(until: deadline) { return finished }
        }
        return true
    }

    var statistics: IIOCaptureStatistics {
        lock.lock()
        defer { lock.unlock() }
        return stats
    }

    private func updateStats(_ body: (inout IIOCaptureStatistics) -> Void) {
        lock.lock()
        body(&stats)
        lock.unlock()
    }

    // MARK: - Thread

    private var started = 0.0
    private var lastCPUUpdate = 0.0

    private func main() {
        started = IIOTimestampClock.monotonicNow()
        var lost = startsLost
        var mode = self.mode
        while !isStopping {
            if lost {
                guard let back = owner?.findDevice(identity) else {
                    sleepChecking(IIOCaptureSession.returnPollInterval)
                    continue
                }
                device = back
            }
            do throws(IIOCaptureFailure) {
                let useBuffer: Bool
                switch mode {
                case .buffered: useBuffer = true
                case .polled: useBuffer = false
                case .automatic: useBuffer = device.buffer != nil && selectedSensors.allSatisfy(\.isBufferCapable)
                }
                if useBuffer {
                    try runBuffered(wasLost: lost)
                } else {
                    try runPolled(wasLost: lost)
                }
                lost = false
            } catch {
                switch error {
                case .bufferUnavailable(let reason):
                    if self.mode == .buffered {
                        logger.error("\(device.directoryName): buffered capture impossible: \(reason)")
                        owner?.captureLost(group: group, kinds: kinds, reason: reason)
                        lost = true
                        sleepChecking(1)
                    } else {
                        logger.warning("\(device.directoryName) (\(device.name)): buffered capture unavailable, polling instead: \(reason)")
                        mode = .polled
                    }
                case .gone(let reason), .readFailure(let reason), .permission(let reason):
                    if !lost { logger.warning("\(device.directoryName) (\(device.name)) lost: \(reason)") }
                    owner?.captureLost(group: group, kinds: kinds, reason: reason)
                    lost = true
                    if case .permission = error { sleepChecking(1) }
                }
            }
        }
        refreshCPU(force: true)
        wake.close()
        finishedCondition.lock()
        finished = true
        finishedCondition.broadcast()
        finishedCondition.unlock()
    }

    private var selectedSensors: [IIOSensorInfo] { device.sensors.filter { kinds.contains($0.kind) } }

    /// Sleeps `seconds`, returning at once when asked to stop.
    private func sleepChecking(_ seconds: Double) {
        let end = IIOTimestampClock.monotonicNow() + seconds
        while !isStopping {
            let left = end - IIOTimestampClock.monotonicNow()
            if left <= 0 { return }
            wake.wait(left)
            countWakeup()
        }
    }

    /// Names the calling thread for the kernel (``MotionSamples/KernelThreadName``).
    package static func nameCurrentThread(_ name: String) {
        KernelThreadName.setCurrent(name)
    }

    /// Sleeps `seconds` (nothing when not positive), resumed after a signal.
    package static func sleep(_ seconds: Double) {
        guard seconds > 0 else { return }
        var t = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var rem = timespec()
        while nanosleep(&t, &rem) != 0 && errno == EINTR { t = rem }
    }

    /// Sleeps until CLOCK_MONOTONIC reaches `time` (seconds), or until asked to stop.
    private func sleepUntil(_ time: Double) {
        let left = time - IIOTimestampClock.monotonicNow()
        if left > 0 {
            wake.wait(left)
            countWakeup()
        }
    }

    private func countWakeup() { updateStats { $0.wakeups += 1 } }

    private func refreshCPU(force: Bool = false) {
        let now = IIOTimestampClock.monotonicNow()
        guard force || now - lastCPUUpdate >= 1 else { return }
        lastCPUUpdate = now
        // CPU time of this thread (user + system), as getrusage(RUSAGE_THREAD) reports it.
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        let cpu = Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
        let wall = now - started
        updateStats {
            $0.threadCPUSeconds = cpu
            $0.wallSeconds = wall
        }
    }

    /// True when the device directory is still there with the same driver name.
    private func devicePresent() -> Bool {
        guard let name = try? SysfsFile.readText(device.path + "/name") else { return false }
        return name.trimmingSysfsSpace() == device.name
    }

    // MARK: - Rates

    /// Writes the rate each sensor needs and returns the rate each one runs at (read back).
    ///
    /// Sensors sharing a `sampling_frequency` attribute run at the fastest rate any of them needs.
    /// `common` forces one requested rate for all (buffered capture: one trigger drives the scan).
    private func applyRates(common: Double?) throws(IIOCaptureFailure) -> [SensorKind: Double] {
        var chosen: [SensorKind: Double] = [:]
        var byAttribute: [String: Double] = [:]
        for s in selectedSensors {
            let wanted = common ?? requestedRates[s.kind] ?? s.rate.rates.minimum
            let rate = s.rate.rates.choose(wanted)
            chosen[s.kind] = rate
            if let attribute = s.rate.attributePath { byAttribute[attribute] = max(byAttribute[attribute] ?? 0, rate) }
        }
        var actualByAttribute: [String: Double] = [:]
        for (attribute, rate) in byAttribute.sorted(by: { $0.key < $1.key }) {
            do {
                try SysfsFile.write(attribute, SysfsNumber.format(rate))
            } catch {
                if error.isDeviceGone { throw .gone("\(error)") }
                logger.warning("\(error); running at the current rate")
            }
            if let actual = try? SysfsFile.readDouble(attribute), actual > 0 {
                actualByAttribute[attribute] = actual
                if abs(actual - rate) > 1e-6 * rate {
                    logger.notice("\(attribute): asked \(SysfsNumber.format(rate)) Hz, driver runs \(SysfsNumber.format(actual)) Hz")
                }
            }
        }
        for s in selectedSensors {
            if let attribute = s.rate.attributePath, let actual = actualByAttribute[attribute] {
                // Sensors sharing the attribute all run at its rate.
                chosen[s.kind] = actual
            }
        }
        return chosen
    }

    // MARK: - Polled capture

    private func runPolled(wasLost: Bool) throws(IIOCaptureFailure) {
        let sensors = selectedSensors
        guard !sensors.isEmpty else { throw .gone("no sensor of \(kinds) on \(device.directoryName)") }
        let rates = try applyRates(common: nil)
        updateStats {
            $0.mode = "polled"
            $0.watermark = 0
        }
        logger.info("\(device.directoryName) (\(device.name)): polling \(sensors.map { "\($0.kind) at \(SysfsNumber.format(rates[$0.kind] ?? 0)) Hz" }.joined(separator: ", "))")

        struct Poll {
            let sensor: IIOSensorInfo
            let vector: IIOVectorConversion?
            let pressure: IIOScalarConversion?
            let temperature: IIOScalarConversion?
            let period: Double
            var next: Double
        }
        let now = IIOTimestampClock.monotonicNow()
        var polls = sensors.map { s in
            Poll(sensor: s, vector: s.vectorConversion, pressure: s.pressureConversion, temperature: s.temperatureConversion,
                 period: 1 / max(rates[s.kind] ?? s.rate.rates.minimum, 0.01), next: now)
        }
        var returnedReported = !wasLost
        var lastSuccess = now
        var lastPresenceCheck = now
        var lastErrorLog = -Double.infinity
        var out: [SensorSample] = []
        out.reserveCapacity(4)

        while !isStopping {
            let t0 = IIOTimestampClock.monotonicNow()
            out.removeAll(keepingCapacity: true)
            for i in polls.indices where polls[i].next <= t0 + 0.0002 {
                let p = polls[i]
                do throws(IIOError) {
                    let sample = try p.sensor.read(vector: p.vector, pressure: p.pressure, temperature: p.temperature)
                    out.append(sample)
                    lastSuccess = IIOTimestampClock.monotonicNow()
                } catch {
                    updateStats { $0.readErrors += 1 }
                    if error.isDeviceGone || !devicePresent() { throw .gone("\(error)") }
                    if case .permissionDenied = error { throw .permission("\(error)") }
                    if t0 - lastErrorLog >= 1 {
                        logger.warning("read error (no sample delivered): \(error)")
                        lastErrorLog = t0
                    }
                    if t0 - lastSuccess > IIOCaptureSession.readFailureGrace { throw .readFailure("\(error)") }
                }
                polls[i].next += p.period
                if polls[i].next < t0 - p.period { polls[i].next = t0 + p.period }  // fell behind: skip, don't burst
            }
            if !out.isEmpty {
                if !returnedReported {
                    owner?.captureReturned(group: group, kinds: kinds, device: device)
                    logger.notice("\(device.directoryName) (\(device.name)) delivers again")
                    returnedReported = true
                }
                out.withUnsafeBufferPointer { owner?.deliver($0) }
                let n = out.count
                updateStats {
                    $0.reads += n
                    $0.samples += n
                }
            }
            if t0 - lastPresenceCheck >= IIOCaptureSession.presenceInterval {
                lastPresenceCheck = t0
                if !devicePresent() { throw .gone("\(device.path) vanished") }
                refreshCPU()
            }
            sleepUntil(polls.map(\.next).min() ?? (t0 + 0.02))
        }
    }

    // MARK: - Buffered capture

    private func runBuffered(wasLost: Bool) throws(IIOCaptureFailure) {
        guard let buffer = device.buffer else { throw .bufferUnavailable("\(device.directoryName) has no buffer") }
        let sensors = selectedSensors
        guard sensors.allSatisfy(\.isBufferCapable) else {
            throw .bufferUnavailable("a channel of \(device.directoryName) has no scan element or no _raw attribute")
        }
        func setupError(_ e: IIOError) -> IIOCaptureFailure {
            if e.isDeviceGone { return .gone("\(e)") }
            return .bufferUnavailable("\(e)")
        }

        // 1. Open the node first: the kernel lets one reader open it (`iio_chrdev_open` returns EBUSY
        //    otherwise), so a buffer someone else is reading (iio-sensor-proxy) is left alone and
        //    polled instead; a buffer left enabled without a reader is stale and ours to reset.
        var enabled = false
        let fd = open(buffer.nodePath, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw setupError(IIOError.from(errno: errno, path: buffer.nodePath, operation: "open")) }
        defer {
            close(fd)
            if enabled { try? SysfsFile.write(buffer.enablePath, "0") }
        }
        var st = stat()
        let isRegularFile = fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
        if isRegularFile { lseek(fd, 0, SEEK_END) }  // a fake tree's file: only scans written from now on
        // Scan elements, trigger and clock can only change while the buffer is disabled.
        do { try SysfsFile.write(buffer.enablePath, "0") } catch { throw setupError(error) }

        // 2. Rates: one trigger drives every channel of the scan, so all sensors run at the fastest rate asked.
        let common = kinds.compactMap { requestedRates[$0] }.max() ?? 1
        let rates = try applyRates(common: common)
        let scanRate = rates.values.max() ?? common

        // 3. Scan elements: exactly the channels of the sensors captured, plus the timestamp.
        var wanted = Set(sensors.flatMap { $0.channels.map(\.name) })
        for s in sensors { if let t = s.temperature, t.scan != nil { wanted.insert(t.name) } }
        if buffer.timestamp != nil { wanted.insert("in_timestamp") }
        var enabledElements: [(name: String, index: Int, type: IIOScanType)] = []
        for e in buffer.allElements {
            let on = wanted.contains(e.name)
            do { try SysfsFile.write(e.enablePath, on ? "1" : "0") } catch { throw setupError(error) }
            if on { enabledElements.append((e.name, e.index, e.type)) }
        }

        // 4. Trigger: a triggered buffer needs one; pick the device's own data-ready trigger.
        if let path = buffer.currentTriggerPath {
            let current = (try? SysfsFile.readText(path).trimmingSysfsSpace()) ?? ""
            if current.isEmpty {
                guard let trigger = buffer.preferredTrigger else {
                    throw .bufferUnavailable("\(path) is empty and no trigger named \(device.name)-devN exists")
                }
                do { try SysfsFile.write(path, trigger) } catch { throw setupError(error) }
            }
        }

        // 5. Buffer length and watermark: the kernel wakes the reader when `watermark` scans wait,
        //    so the watermark is the batch the latency allows (length first: the watermark may not
        //    exceed it). What the driver keeps is read back.
        let plan = IIOCaptureSession.bufferPlan(scanRate: scanRate, latency: maximumLatency)
        var length = plan.length
        if let path = buffer.lengthPath {
            try? SysfsFile.write(path, String(plan.length))
            if let actual = try? SysfsFile.readInteger(path), actual > 0 { length = Int(actual) }
        }
        var watermark = 1
        var kernelBatches = false
        if let path = buffer.watermarkPath {
            let wanted = max(1, min(plan.watermark, length / 2))
            try? SysfsFile.write(path, String(wanted))
            if let actual = try? SysfsFile.readInteger(path), actual > 0 {
                watermark = Int(actual)
                kernelBatches = true
            }
        }

        // 6. Timestamps on CLOCK_MONOTONIC when allowed; otherwise convert from the clock set.
        var clock = IIOTimestampClock.realtime
        if let path = device.timestampClockPath {
            if (try? SysfsFile.write(path, IIOTimestampClock.monotonic.rawValue)) == nil {
                logger.notice("\(path): cannot select the monotonic clock; converting timestamps from the clock set")
            }
            if let text = try? SysfsFile.readText(path), let c = IIOTimestampClock(attribute: text) { clock = c }
        }

        // 7. Start.
        let layout = IIOScanLayout(channels: enabledElements)
        let decoder: IIOScanDecoder
        do { decoder = try IIOScanDecoder(layout: layout, sensors: sensors) } catch { throw .bufferUnavailable("\(error)") }
        do { try SysfsFile.write(buffer.enablePath, "1") } catch { throw setupError(error) }
        enabled = true
        let period = 1 / max(scanRate, 0.01)
        // Without a watermark attribute the kernel wakes the reader at every scan: the capture sleeps
        // between reads for the batch itself (the buffer holds the scans meanwhile).
        let batchPeriod = Double(kernelBatches ? watermark : plan.watermark) * period
        let userBatch = kernelBatches ? 0 : (batchPeriod > period ? min(batchPeriod, Double(length / 2) * period) : 0)
        updateStats {
            $0.mode = "buffered"
            $0.watermark = watermark
        }
        logger.info("\(device.directoryName) (\(device.name)): buffered capture of \(kinds.map(\.rawValue).joined(separator: ", ")) at \(SysfsNumber.format(scanRate)) Hz, \(layout.scanBytes)-byte scans, watermark \(kernelBatches ? "\(watermark)" : "none (batches \(SysfsNumber.format(userBatch)) s)") of \(length) (latency \(SysfsNumber.format(maximumLatency)) s), timestamps on \(clock.rawValue)")

        // 8. Wait, read, decode, deliver. The thread wakes when a batch is ready, when asked to stop
        //    (the wake pipe), or when no batch came for a batch period plus the presence interval: then
        //    it checks that the device is still there (the kernel does not wake a poller when a device
        //    goes away; a read would say ENODEV). So an unplugged device is noticed within a batch
        //    period plus 0.25 s of the last wake-up: 0.26 s for a live stream at 100 Hz, 1.25 s for 1 s batches.
        let scanBytes = max(layout.scanBytes, 1)
        let capacityScans = max(512, length)
        let capacity = scanBytes * capacityScans
        let storage = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { storage.deallocate() }
        var carried = 0
        var samples: [SensorSample] = []
        samples.reserveCapacity(capacityScans * 4)
        let watchdog = batchPeriod + userBatch + IIOCaptureSession.presenceInterval
        // A fake tree's file (poll always says readable) or a FIFO whose writer left: wait this long at its end.
        let endOfDataWait = maximumLatency > 0 ? max(batchPeriod, min(period / 2, 0.002)) : min(period / 2, 0.002)
        var returnedReported = !wasLost
        var lastPresenceCheck = IIOTimestampClock.monotonicNow()
        var lastData = lastPresenceCheck
        var lastErrorLog = -Double.infinity
        var pfds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.readDescriptor, events: Int16(POLLIN), revents: 0)]

        /// Decodes and delivers the whole scans among `carried + n` bytes; keeps a partial scan.
        func consume(_ n: Int, now: Double) {
            let total = carried + n
            let count = total / scanBytes
            if count > 0 {
                samples.removeAll(keepingCapacity: true)
                let offset = decoder.hasTimestamp ? clock.offsetToMonotonic() : 0
                decoder.decode(scans: storage, count: count, clockOffset: offset, fallbackEnd: now, period: period) { samples.append($0) }
                if !returnedReported {
                    owner?.captureReturned(group: group, kinds: kinds, device: device)
                    logger.notice("\(device.directoryName) (\(device.name)) delivers again")
                    returnedReported = true
                }
                samples.withUnsafeBufferPointer { owner?.deliver($0) }
                let delivered = samples.count
                updateStats {
                    $0.reads += count
                    $0.samples += delivered
                    $0.bytes += count * scanBytes
                }
            }
            carried = total - count * scanBytes
            if carried > 0 { (storage + count * scanBytes).copyMemory(to: storage, byteCount: carried) }
        }

        while !isStopping {
            let ready = poll(&pfds, 2, wake.pollTimeout(watchdog))
            countWakeup()
            let now = IIOTimestampClock.monotonicNow()
            if now - lastPresenceCheck >= IIOCaptureSession.presenceInterval {
                lastPresenceCheck = now
                if !devicePresent() { throw .gone("\(device.path) vanished") }
                refreshCPU()
            }
            if ready < 0 {
                if errno == EINTR { continue }
                throw .readFailure("\(IIOError.from(errno: errno, path: buffer.nodePath, operation: "poll"))")
            }
            if ready == 0 || pfds[0].revents == 0 { continue }
            let n = read(fd, storage + carried, capacity - carried)
            if n < 0 {
                let code = errno
                if code == EAGAIN || code == EINTR { continue }
                let error = IIOError.from(errno: code, path: buffer.nodePath, operation: "read")
                updateStats { $0.readErrors += 1 }
                if error.isDeviceGone || !devicePresent() { throw .gone("\(error)") }
                if now - lastErrorLog >= 1 {
                    logger.warning("read error (no sample delivered): \(error)")
                    lastErrorLog = now
                }
                if now - lastData > IIOCaptureSession.readFailureGrace { throw .readFailure("\(error)") }
                wake.wait(0.002)
                continue
            }
            if n == 0 {
                // End of a fake tree's file or FIFO with no writer: wait for more. A truncated file
                // (the emulator restarted it) is read again from its start.
                if isRegularFile, fstat(fd, &st) == 0, lseek(fd, 0, SEEK_CUR) > st.st_size { lseek(fd, 0, SEEK_SET) }
                wake.wait(endOfDataWait)
                continue
            }
            lastData = now
            consume(n, now: now)
            if userBatch > 0 {
                let wait = now + userBatch - IIOTimestampClock.monotonicNow()
                if wait > 0 { wake.wait(wait) }
            }
        }

        // Stopping (replaced by a capture with other rates or latency, or stopped): hand over what the
        // buffer holds, so that a reconfiguration loses no batch. A non-blocking read returns whatever
        // is there, below the watermark too (and flushes a hardware FIFO: `iio_buffer_ready`).
        for _ in 0..<4 {
            let n = read(fd, storage + carried, capacity - carried)
            guard n > 0 else { break }
            consume(n, now: IIOTimestampClock.monotonicNow())
        }
    }
}

extension UnsafeMutableRawPointer {
    /// Copies `byteCount` bytes from `self` to `destination` (regions may overlap).
    fileprivate func copyMemory(to destination: UnsafeMutableRawPointer, byteCount: Int) {
        memmove(destination, self, byteCount)
    }
}
