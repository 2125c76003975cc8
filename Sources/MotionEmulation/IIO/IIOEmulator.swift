import Foundation
import MotionIIO
import MotionSamples
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Plays a stream of Apple-frame samples into a fake IIO tree the way drivers would present them.
///
/// For each device it behaves like the hardware: it samples the latest value of each sensor at the
/// rate in the device's rate attribute (as the capture code wrote it, re-read every 20 ms), turns
/// it into raw counts through the device's own scale, offset and mount matrix (the inverse of what
/// discovery derives from the tree), writes the `_raw` (or `_input`) attributes, and — while
/// `buffer/enable` is 1 — appends scans laid out from the `_en` attributes as the kernel lays them
/// out, stamped on the clock named in `current_timestamp_clock`, to `ROOT/dev/iio:deviceN`.
/// Like the kernel's buffer, which wakes a reader only when `buffer/watermark` scans wait
/// (`iio_buffer_poll`), it holds scans and writes them in groups of `watermark` (read when the buffer
/// is enabled, when the kernel takes it too): a reader polling the node wakes once per group. (The
/// kernel also hands over fewer scans to a non-blocking read; through a FIFO that cannot be emulated,
/// so scans held when the buffer is disabled are dropped.)
/// A device whose directory is gone (unplugged) is skipped until it is back.
public final class IIOEmulator: @unchecked Sendable {  // @unchecked: `running`, `stats` under `lock`; `finished` under `finishedCondition`; `source` only on its thread
    // An NSLock plus an NSCondition, not Mutex: Mutex has no condition variable.
    /// How the emulator behaves.
    public struct Options: Sendable {
        /// Rate used when a device has no rate attribute (or it reads 0), Hz.
        public var defaultRate: Double
        /// Write the `_raw`/`_input` attributes on every sample (polled readers need them).
        public var writeAttributes: Bool
        /// Start the source over at its end.
        public var loop: Bool

        /// Options; see each property.
        public init(defaultRate: Double = 100, writeAttributes: Bool = true, loop: Bool = true) {
            self.defaultRate = defaultRate
            self.writeAttributes = writeAttributes
            self.loop = loop
        }
    }

    /// What the emulator has done.
    public struct Statistics: Sendable, Hashable {
        /// Samples taken (device ticks while present).
        public var ticks = 0
        /// Scans written to buffer nodes.
        public var scansWritten = 0
        /// Writes to buffer nodes (groups of `buffer/watermark` scans, split only where a FIFO needs it).
        public var writes = 0
        /// Scans lost because the reader did not keep up (the FIFO was full).
        public var scansDropped = 0
    }

    /// The tree fed.
    public let tree: IIOFakeTree
    /// The devices fed (`iio:deviceN`); a name may appear later (a re-plugged device).
    public let deviceNames: [String]
    /// The settings in force.
    public let options: Options

    private let lock = NSLock()
    private var running = false
    private var finished = true
    private let finishedCondition = NSCondition()
    private var stats = Statistics()
    private var source: any SampleSource

    /// An emulator feeding `devices` of `tree` with `source`, an Apple-frame sample stream.
    public init(tree: IIOFakeTree, devices: [String], source: some SampleSource, options: Options = Options()) {
        self.tree = tree
        self.deviceNames = devices
        self.source = source
        self.options = options
    }

    /// What has been done so far.
    public var statistics: Statistics {
        lock.lock()
        defer { lock.unlock() }
        return stats
    }

    /// Starts the emulation thread (sample time 0 of the source is now).
    public func start() {
        signal(SIGPIPE, SIG_IGN)
        lock.lock()
        running = true
        lock.unlock()
        finishedCondition.lock()
        finished = false
        finishedCondition.unlock()
        let t = Thread { [self] in
            IIOCaptureSession.nameCurrentThread("cm.iio-emulator")
            self.main()
        }
        t.name = "cm.iio-emulator"  // at most 15 bytes (Linux)
        t.qualityOfService = .userInteractive
        t.start()
    }

    /// Stops the thread and waits until it has closed its nodes.
    public func stop() {
        lock.lock()
        running = false
        lock.unlock()
        finishedCondition.lock()
        while !finished { finishedCondition.wait() }
        finishedCondition.unlock()
    }

    private var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    // MARK: - Per device state

    private final class DeviceState {
        let name: String
        var sensors: [IIOSensorInfo] = []
        var described = false
        var describeAttempts = 0
        var present = false
        var rate: Double
        var next: Double
        var lastBufferCheck = -Double.infinity
        var enabled = false
        var layout: IIOScanLayout?
        var fd: Int32 = -1
        var isFIFO = false
        var clock = IIOTimestampClock.realtime
        var scan: [UInt8] = []
        /// Scans per write (`buffer/watermark` when the buffer was enabled).
        var watermark = 1
        /// Scans sampled but not yet written (fewer than `watermark`).
        var held: [UInt8] = []
        var heldScans = 0
        /// The buffer set-up the layout was taken from (while enabled).
        fileprivate var setup: BufferSetup?
        /// A different set-up seen while enabled, taken only when the next check sees it again: a reader
        /// rewriting an attribute file leaves it empty for an instant, which must not read as a new set-up.
        fileprivate var candidateSetup: BufferSetup?
        /// Channel values of the latest tick, written to the attributes once per loop.
        var attributeCounts: [String: Double]?

        init(name: String, rate: Double, start: Double) {
            self.name = name
            self.rate = rate
            self.next = start
        }

        /// Forgets scans not yet written (the buffer was disabled or the device unplugged).
        func dropHeld() {
            held.removeAll(keepingCapacity: true)
            heldScans = 0
        }
    }

    // MARK: - Thread

    private func main() {
        let start = IIOTimestampClock.monotonicNow()
        var states = deviceNames.map { DeviceState(name: $0, rate: options.defaultRate, start: start) }
        var latest: [SensorKind: SensorSample] = [:]
        var pending: SensorSample? = source.next()
        let sourceStart = pending?.time ?? 0
        var loopOffset = 0.0
        var lastSourceTime = sourceStart

        /// Moves the source up to emulation time `t` (seconds since start): zero-order hold of each
        /// sensor's latest value, as a sensor sampling a continuous signal sees it.
        func advanceSource(to t: Double) {
            while let s = pending, s.time - sourceStart + loopOffset <= t {
                latest[s.sensor] = s
                lastSourceTime = s.time
                pending = source.next()
                if pending == nil, options.loop {
                    loopOffset += lastSourceTime - sourceStart + 1 / options.defaultRate
                    source.rewind()
                    pending = source.next()
                }
            }
        }

        while isRunning {
            let now = IIOTimestampClock.monotonicNow()
            for state in states { refresh(state, now: now) }
            // Every tick that fell due, in time order across devices, each with the motion as it was
            // at its own time. A loaded machine may wake late: the backlog is written like a
            // hardware FIFO would deliver it (up to a second of it).
            var done = 0
            while done < 10_000, let state = states.filter({ $0.next <= now }).min(by: { $0.next < $1.next }) {
                if state.present {
                    advanceSource(to: state.next - start)
                    tick(state, at: state.next, latest: latest)
                }
                state.next += 1 / state.rate
                if state.next < now - 1 { state.next = now + 1 / state.rate }
                done += 1
            }
            for state in states { writeAttributes(state) }
            let wake = states.map(\.next).min() ?? (now + 0.01)
            let left = wake - IIOTimestampClock.monotonicNow()
            if left > 0 { IIOCaptureSession.sleep(min(left, 0.005)) }
        }
        for state in states where state.fd >= 0 { close(state.fd) }
        states.removeAll()
        finishedCondition.lock()
        finished = true
        finishedCondition.broadcast()
        finishedCondition.unlock()
    }

    /// Follows what the reader set: presence, the rate and the buffer, every 20 ms of wall time
    /// (not of ticks, so that a device left at 1 Hz notices a new rate at once).
    private func refresh(_ state: DeviceState, now: Double) {
        guard now - state.lastBufferCheck >= 0.02 || (state.enabled && state.fd < 0) else { return }
        state.lastBufferCheck = now
        let dir = tree.rootPath + "/" + state.name
        guard SysfsFile.exists(dir + "/name"), let layoutInfo = tree.device(state.name) else {
            // Unplugged: forget the buffer; describe again when back.
            if state.fd >= 0 { close(state.fd) }
            state.fd = -1
            state.dropHeld()
            state.enabled = false
            state.described = false
            state.describeAttempts = 0
            state.present = false
            return
        }
        state.present = true
        if !state.described {
            // Described again until every sensor the fake device has is found: a reader rewriting an
            // attribute leaves it empty for an instant, and a description read then lacks that sensor (the
            // emulator then wrote all-zero scans for it: a CI run saw median |a| 0.0 g). Given up after
            // 1 s (50 checks) for a tree a test made broken on purpose.
            var problems: [String] = []
            state.sensors = (try? IIODiscovery(root: tree.iioRoot).describe(state.name, problems: &problems))?.sensors ?? []
            state.describeAttempts += 1
            let expected = Set(layoutInfo.channels.compactMap(\.kind))
            state.described = expected.isSubset(of: Set(state.sensors.map(\.kind))) || state.describeAttempts >= 50
        }
        do {
            var rate = options.defaultRate
            if let attribute = layoutInfo.rateAttribute, let text = tree.get(state.name, attribute), let r = SysfsNumber.double(text), r > 0 {
                rate = r
            }
            if rate != state.rate {
                state.rate = rate
                state.next = min(state.next, now + 1 / rate)
            }
        }
        updateBuffer(state, layoutInfo: layoutInfo)
    }

    private func tick(_ state: DeviceState, at time: Double, latest: [SensorKind: SensorSample]) {
        guard let layoutInfo = tree.device(state.name) else { return }
        lock.lock()
        stats.ticks += 1
        lock.unlock()

        // Raw counts of every channel for this instant.
        var counts: [String: Double] = [:]
        for sensor in state.sensors {
            guard let sample = latest[sensor.kind] else { continue }
            if let vector = sample.vector, let conversion = sensor.vectorConversion, let raw = conversion.rawCounts(for: vector) {
                for (i, c) in sensor.channels.enumerated() { counts[c.name] = raw[i] }
            } else if case .barometer(let p) = sample, let conversion = sensor.pressureConversion,
                      let raw = conversion.rawCount(for: p.kilopascals) {
                counts[sensor.channels[0].name] = raw
                if let t = sensor.temperature, let tc = sensor.temperatureConversion, let raw = tc.rawCount(for: p.celsius ?? 24) {
                    counts[t.name] = raw
                }
            }
        }
        for c in layoutInfo.channels where c.kind == nil && counts[c.name] == nil {
            counts[c.name] = temperatureCount(state.name, c, layoutInfo: layoutInfo)
        }
        if options.writeAttributes { state.attributeCounts = counts }
        if state.enabled, let layout = state.layout, state.fd >= 0 {
            writeScan(state, layout: layout, time: time, counts: counts)
        }
    }

    /// Writes the latest tick's values to the `_raw`/`_input` attributes (once per loop: an
    /// attribute holds the current value, not a history).
    private func writeAttributes(_ state: DeviceState) {
        guard let counts = state.attributeCounts, state.present, let layoutInfo = tree.device(state.name) else { return }
        state.attributeCounts = nil
        for c in layoutInfo.channels {
            guard let value = counts[c.name] else { continue }
            if c.processed {
                try? tree.set(state.name, c.name + "_input", IIOEmulator.formatProcessed(value, kind: c.kind))
            } else {
                try? tree.setRaw(state.name, c.name, Int64(value.rounded()))
            }
        }
    }

    /// Raw count of a device temperature channel for 25 °C (m°C = (raw + offset) × scale).
    private func temperatureCount(_ name: String, _ c: IIOFakeChannel, layoutInfo: IIOFakeDevice) -> Double {
        let scale = tree.get(name, c.name + "_scale").flatMap(SysfsNumber.double) ?? 1
        let offset = tree.get(name, c.name + "_offset").flatMap(SysfsNumber.double) ?? 0
        return c.processed ? 25_000 : 25_000 / scale - offset
    }

    static func formatProcessed(_ value: Double, kind: SensorKind?) -> String {
        // bmp280 prints kPa as "%d.%09u" (IIO_VAL_FRACTIONAL) and m°C as an integer.
        if kind == .barometer { return String(format: "%.9f", locale: Locale(identifier: "en_US_POSIX"), value) }
        return String(Int64(value.rounded()))
    }

    /// What a reader sets up while the buffer is disabled: the scan elements, the watermark and the
    /// clock. The kernel refuses changes while enabled (EBUSY), so a change seen while enabled means the
    /// reader disabled and re-enabled the buffer between two checks.
    private struct BufferSetup: Equatable {
        var channels: [String]
        var watermark: Int
        var clock: String
    }

    private func bufferSetup(_ state: DeviceState, layoutInfo: IIOFakeDevice) -> BufferSetup {
        var channels = layoutInfo.channels.filter { c in
            c.scanIndex != nil && c.scanType != nil && tree.get(state.name, "scan_elements/\(c.name)_en") == "1"
        }.map(\.name)
        if layoutInfo.timestampIndex != nil, tree.get(state.name, "scan_elements/in_timestamp_en") == "1" { channels.append("in_timestamp") }
        // The kernel refuses a watermark above the length (EINVAL).
        let length = tree.get(state.name, "buffer/length").flatMap(SysfsNumber.integer).map(Int.init) ?? 1
        let watermark = tree.get(state.name, "buffer/watermark").flatMap(SysfsNumber.integer).map(Int.init) ?? 1
        return BufferSetup(
            channels: channels, watermark: max(1, min(watermark, max(length, 1))),
            clock: tree.get(state.name, "current_timestamp_clock") ?? "realtime")
    }

    private func updateBuffer(_ state: DeviceState, layoutInfo: IIOFakeDevice) {
        guard layoutInfo.hasBuffer else { return }
        let enabled = tree.get(state.name, "buffer/enable") == "1"
        let setup = enabled ? bufferSetup(state, layoutInfo: layoutInfo) : nil
        var changedWhileEnabled = false
        if let setup, state.enabled, state.fd >= 0, setup != state.setup {
            changedWhileEnabled = setup == state.candidateSetup
            state.candidateSetup = changedWhileEnabled ? nil : setup
        } else {
            state.candidateSetup = nil
        }
        if let setup, !state.enabled || state.fd < 0 || changedWhileEnabled {
            // (Re)enabled, or the reader closed the node: take the layout and clock as set now.
            var channels: [(name: String, index: Int, type: IIOScanType)] = []
            for c in layoutInfo.channels where setup.channels.contains(c.name) {
                guard let index = c.scanIndex, let type = c.scanType else { continue }
                channels.append((c.name, index, type))
            }
            if let ts = layoutInfo.timestampIndex, setup.channels.contains("in_timestamp") {
                channels.append(("in_timestamp", ts, IIOFakeDevice.timestampType))
            }
            let layout = IIOScanLayout(channels: channels)
            state.layout = layout
            state.scan = [UInt8](repeating: 0, count: layout.scanBytes)
            state.clock = IIOTimestampClock(attribute: setup.clock) ?? .realtime
            state.watermark = setup.watermark
            state.setup = setup
            state.dropHeld()
            state.enabled = true
        } else if !enabled && state.enabled {
            state.enabled = false
            state.setup = nil
            if state.fd >= 0 { close(state.fd) }
            state.fd = -1
            state.dropHeld()
        }
        if state.enabled && state.fd < 0 {
            let node = tree.rootPath + "/dev/" + state.name
            var st = stat()
            guard stat(node, &st) == 0 else { return }
            state.isFIFO = (st.st_mode & S_IFMT) == S_IFIFO
            // A FIFO opens only once a reader has it open (ENXIO before); retried on the next check.
            state.fd = state.isFIFO ? open(node, O_WRONLY | O_NONBLOCK | O_CLOEXEC) : open(node, O_WRONLY | O_APPEND | O_CLOEXEC)
        }
    }

    private func writeScan(_ state: DeviceState, layout: IIOScanLayout, time: Double, counts: [String: Double]) {
        let stamp = Int64((time * 1e9).rounded()) - state.clock.offsetToMonotonic()
        state.scan.withUnsafeMutableBytes { raw in
            let base = raw.baseAddress!
            memset(base, 0, raw.count)
            for e in layout.elements {
                if e.name == "in_timestamp" {
                    e.type.store(stamp, at: base + e.offset)
                } else if let value = counts[e.name] {
                    if e.type.encoding == .float {
                        e.type.storeFloat(value, at: base + e.offset)
                    } else {
                        e.type.store(Int64(value.rounded()), at: base + e.offset)
                    }
                }
            }
        }
        state.held.append(contentsOf: state.scan)
        state.heldScans += 1
        if state.heldScans >= state.watermark { flushHeld(state) }
    }

    /// Writes the held scans in one go (a FIFO: in pieces of whole scans of at most `PIPE_BUF` bytes,
    /// which the kernel writes whole or not at all, so a full FIFO drops whole scans, never half of one).
    private func flushHeld(_ state: DeviceState) {
        let scanBytes = max(state.scan.count, 1)
        let piece = state.isFIFO ? max(1, Int(PIPE_BUF) / scanBytes) * scanBytes : max(state.held.count, 1)
        var offset = 0
        var written = 0
        var dropped = 0
        var writes = 0
        var closed = false
        state.held.withUnsafeBytes { raw in
            while offset < raw.count {
                let size = min(piece, raw.count - offset)
                let n = write(state.fd, raw.baseAddress! + offset, size)
                let code = errno
                if n > 0 { writes += 1 }
                if n == size {
                    written += size / scanBytes
                } else if n < 0 && code == EAGAIN {
                    dropped += size / scanBytes  // the reader is not keeping up: the FIFO is full
                } else if n < 0 && code == EPIPE {
                    closed = true
                    break
                } else if n >= 0 {
                    written += n / scanBytes  // a regular file on a full disk
                }
                offset += size
            }
        }
        state.held.removeAll(keepingCapacity: true)
        state.heldScans = 0
        lock.lock()
        stats.scansWritten += written
        stats.scansDropped += dropped
        stats.writes += writes
        lock.unlock()
        if closed {
            // The reader closed the node (capture stopped); reopened when it enables the buffer again.
            close(state.fd)
            state.fd = -1
        }
    }
}
