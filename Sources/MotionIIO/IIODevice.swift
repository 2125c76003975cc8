import Foundation
import Logging

/// The Linux IIO motion sensors of this machine (or of a fake tree) as a ``MotionDevice``.
///
/// Made by ``discover(root:options:)``. For each sensor kind one IIO device provides it (see
/// ``preferredOrder(_:_:kind:)``); each IIO device in use gets one capture thread, buffered through
/// `/dev/iio:deviceN` when the driver offers a buffer for every channel, polled through the `_raw`
/// attributes otherwise. Samples are converted once to Apple's axes and units and stamped on
/// CLOCK_MONOTONIC, the clock of `ProcessInfo.processInfo.systemUptime`.
///
/// A sensor whose device vanishes (driver unbound, board unplugged) stops delivering, is reported
/// with ``DeviceEvent/sensorLost(_:reason:)``, disappears from ``sensors``, and comes back with
/// ``DeviceEvent/sensorReturned(_:)`` when a device with the same name, label and sensors appears
/// again (possibly as another `iio:deviceN`). A failing read is logged and skipped, never delivered
/// as a zero sample.
///
/// A sensor kind that no device provided at discovery is picked up when a device providing it appears
/// later (a driver loaded or an I²C device instantiated after the start): while some kind has no
/// provider, the devices directory is listed about once a second (``appearanceCheckInterval``, while
/// ``run(_:maximumLatency:sink:events:)`` has been called, and on demand when ``sensors`` is read); a
/// change is scanned once it has held for one more check, the new kinds are bound with the same
/// preference (``preferredOrder(_:_:kind:)``), appear in ``sensors``, are announced with
/// ``DeviceEvent/sensorReturned(_:)`` and start capturing when the last `run` asked for them. A kind
/// already bound keeps its device. ``watching(root:options:)`` makes a device that may start with no
/// sensor at all.
public final class IIODevice: MotionDevice, IIOCaptureOwner, @unchecked Sendable {  // @unchecked: every stored var is guarded by `lock`; the rest are `let`s (`root`, `options`, `watchQueue`)
    // NSLock, not Mutex: the thread sanitizer CI runs cannot see Mutex's contended (futex) path.
    /// How samples are captured.
    public enum CaptureMode: String, Sendable, Hashable, CaseIterable {
        /// Buffered when the driver offers it for every channel (and the buffer can be set up), polled otherwise.
        case automatic = "auto"
        /// Always read the `_raw` attributes at the requested rate.
        case polled
        /// Always use the buffer; a device without one reports its sensors lost.
        case buffered
    }

    /// Settings of the device layer.
    public struct Options: Sendable, Hashable {
        /// How samples are captured (default ``CaptureMode/automatic``).
        public var capture: CaptureMode

        /// Settings with `capture` mode.
        public init(capture: CaptureMode = .automatic) {
            self.capture = capture
        }

        /// From the environment: `COREMOTION_IIO_CAPTURE=auto|polled|buffered` (default `auto`).
        public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(IIOError) -> Options {
            guard let text = environment["COREMOTION_IIO_CAPTURE"], !text.isEmpty else { return Options() }
            guard let mode = CaptureMode(rawValue: text.lowercased()) else {
                throw IIOError.malformedAttribute(path: "COREMOTION_IIO_CAPTURE", value: text, expected: "auto, polled or buffered")
            }
            return Options(capture: mode)
        }
    }

    /// Where the sensors were found.
    public let root: IIORoot
    /// The settings in force.
    public let options: Options
    public let clock: any MotionClock = SystemClock.shared
    /// Problems found at discovery (skipped devices or sensors), for tools to show.
    public let discoveryProblems: [String]

    private let logger = Logger(label: "coremotion.iio")
    private let lock = NSLock()
    /// Chosen provider of each kind.
    private var bindings: [SensorKind: IIOSensorInfo]
    /// Devices in use, by group (directory name at discovery).
    private var devices: [String: IIODeviceInfo]
    /// Group of each kind.
    private var groupOfKind: [SensorKind: String]
    private var lost: [SensorKind: String] = [:]
    private var sessions: [String: IIOCaptureSession] = [:]
    private var retired: [IIOCaptureSession] = []
    private var sink: SampleSink?
    private var events: DeviceEventSink?
    private var active: Set<SensorKind> = []
    private var lastPresenceCheck = -Double.infinity
    private var stoppedStatistics: [IIOCaptureStatistics] = []
    /// What the last `run` asked for (kinds not bound yet included: they start when they appear).
    private var requestedRates: [SensorKind: Double] = [:]
    private var requestedLatency: [SensorKind: TimeInterval] = [:]
    /// The `iio:deviceN` entries of the last appearance check, and those the last scan was made on
    /// (`nil`: not known, e.g. a device made from a caller's discovery result).
    private var listedEntries: Set<String>?
    private var scannedEntries: Set<String>?
    private var lastAppearanceCheck = -Double.infinity
    private var checkingAppearance = false
    /// `sensorReturned` events of kinds that appeared, not yet sent (sent on `watchQueue`, never under `lock`).
    private var announcements: [DeviceEvent] = []
    /// Lists the devices directory while some kind has no provider and someone listens for events.
    private var watchTimer: (any DispatchSourceTimer)?
    private let watchQueue = DispatchQueue(label: "coremotion.iio.watch", qos: .utility)

    /// How often the devices directory is listed for sensors that appear after the start, seconds
    /// (only while some sensor kind has no provider; see the type's documentation).
    public static let appearanceCheckInterval = 1.0

    // MARK: - Making

    /// Finds the IIO motion sensors under `root` (`nil`: `/sys/bus/iio/devices`).
    ///
    /// - Returns: the device, or `nil` when there is no motion sensor (for `COREMOTION_DEVICE=auto`:
    ///   fall back to no device). A missing system root (no IIO subsystem) also gives `nil`.
    /// - Throws: ``IIOError/rootNotFound(path:)`` for an explicit root that does not exist;
    ///   ``IIOError/noUsableSensors(root:problems:)`` when IIO devices with motion channels exist but
    ///   none is usable (each problem names its file); errors listing the root.
    public static func discover(root: URL? = nil, options: Options? = nil) throws -> IIODevice? {
        let r = IIORoot(path: root?.path)
        if root == nil && !SysfsFile.isDirectory(r.devicesDirectory) { return nil }
        let opts = try options ?? Options.fromEnvironment()
        // Listed before the scan: a device appearing in between changes the next listing.
        let entries = IIODevice.deviceEntries(r)
        let result = try IIODiscovery(root: r).scan()
        if result.devices.isEmpty {
            if !result.problems.isEmpty { throw IIOError.noUsableSensors(root: r.devicesDirectory, problems: result.problems) }
            return nil
        }
        return IIODevice(root: r, discovery: result, options: opts, entries: entries)
    }

    /// The IIO motion sensors under `root` (`nil`: `/sys/bus/iio/devices`) now and later: like
    /// ``discover(root:options:)``, but a root without any motion sensor gives a device with no
    /// sensors instead of `nil`, which picks sensors up when their devices appear (a driver loaded,
    /// `new_device` written, a board plugged in after the start; see ``appearanceCheckInterval``).
    /// For `COREMOTION_DEVICE=iio` and `iio:ROOT`, where IIO was asked for explicitly.
    ///
    /// A missing `/sys/bus/iio/devices` (no IIO driver loaded yet) is watched too: it is looked for
    /// at every check.
    ///
    /// - Throws: ``IIOError/rootNotFound(path:)`` for an explicit root that does not exist;
    ///   ``IIOError/noUsableSensors(root:problems:)`` when IIO devices with motion channels exist but
    ///   none is usable; errors listing the root; a bad `COREMOTION_IIO_CAPTURE` when `options` is `nil`.
    public static func watching(root: URL? = nil, options: Options? = nil) throws -> IIODevice {
        let r = IIORoot(path: root?.path)
        let opts = try options ?? Options.fromEnvironment()
        let entries = IIODevice.deviceEntries(r)
        var result = IIODiscovery.Result(devices: [], problems: [])
        if root != nil || SysfsFile.isDirectory(r.devicesDirectory) {
            result = try IIODiscovery(root: r).scan()
            if result.devices.isEmpty && !result.problems.isEmpty {
                throw IIOError.noUsableSensors(root: r.devicesDirectory, problems: result.problems)
            }
        }
        let device = IIODevice(root: r, discovery: result, options: opts, entries: entries)
        if result.devices.isEmpty {
            device.logger.notice("no IIO motion sensor under \(r.devicesDirectory) yet; watching for one")
        }
        return device
    }

    /// A device over the sensors of a discovery result. Kinds the result lacks are bound when a later
    /// check finds a device providing them (see the type's documentation).
    public convenience init(root: IIORoot, discovery: IIODiscovery.Result, options: Options = Options()) {
        self.init(root: root, discovery: discovery, options: options, entries: nil)
    }

    /// `entries`: the `iio:deviceN` entries listed just before `discovery` was scanned, if known.
    init(root: IIORoot, discovery: IIODiscovery.Result, options: Options, entries: Set<String>?) {
        self.root = root
        self.options = options
        self.discoveryProblems = discovery.problems
        var bindings: [SensorKind: IIOSensorInfo] = [:]
        var devices: [String: IIODeviceInfo] = [:]
        var groups: [SensorKind: String] = [:]
        for kind in SensorKind.allCases {
            let candidates = discovery.devices.filter { d in d.sensors.contains { $0.kind == kind } }
            guard let best = candidates.sorted(by: { IIODevice.preferredOrder($0, $1, kind: kind) }).first,
                  let sensor = best.sensors.first(where: { $0.kind == kind })
            else { continue }
            bindings[kind] = sensor
            devices[best.directoryName] = best
            groups[kind] = best.directoryName
        }
        self.bindings = bindings
        self.devices = devices
        self.groupOfKind = groups
        self.listedEntries = entries
        self.scannedEntries = entries
        for problem in discovery.problems { logger.warning("\(problem)") }
    }

    deinit {
        watchTimer?.cancel()
        for s in sessions.values { s.stop() }
    }

    /// The order in which devices providing `kind` are preferred:
    /// 1. a device labelled as being in the display (`accel-display`) before an unlabelled one,
    ///    and both before one in the base (`accel-base`): Apple's axes are the screen's;
    /// 2. for the accelerometer and gyroscope, a device with both (an IMU: one chip frame, one clock);
    /// 3. the lowest `iio:deviceN`.
    public static func preferredOrder(_ a: IIODeviceInfo, _ b: IIODeviceInfo, kind: SensorKind) -> Bool {
        func placement(_ d: IIODeviceInfo) -> Int {
            guard let label = d.label?.lowercased() else { return 1 }
            if label.contains("display") { return 0 }
            if label.contains("base") { return 2 }
            return 1
        }
        func imu(_ d: IIODeviceInfo) -> Int {
            let kinds = Set(d.sensors.map(\.kind))
            return kinds.contains(.accelerometer) && kinds.contains(.gyroscope) ? 0 : 1
        }
        if placement(a) != placement(b) { return placement(a) < placement(b) }
        if kind == .accelerometer || kind == .gyroscope, imu(a) != imu(b) { return imu(a) < imu(b) }
        return a.index < b.index
    }

    // MARK: - MotionDevice

    public var name: String {
        lock.lock()
        defer { lock.unlock() }
        let parts = devices.values.sorted { $0.index < $1.index }.map { "\($0.name)@\($0.directoryName)" }
        return "iio:\(root.devicesDirectory) (\(parts.isEmpty ? "no sensors yet" : parts.joined(separator: ", ")))"
    }

    public var sensors: [SensorKind: SensorDescription] {
        refreshPresenceIfIdle()
        if checkForNewSensors() { watchQueue.async { [weak self] in self?.sendAnnouncements() } }
        lock.lock()
        defer { lock.unlock() }
        var result: [SensorKind: SensorDescription] = [:]
        for (kind, info) in bindings where lost[kind] == nil {
            result[kind] = info.description(mode: sessions[groupOfKind[kind] ?? ""]?.statistics.mode)
        }
        return result
    }

    /// The sensor chosen for each kind (lost ones included), with everything discovery found.
    public var sensorInfo: [SensorKind: IIOSensorInfo] {
        lock.lock()
        defer { lock.unlock() }
        return bindings
    }

    /// The IIO devices in use.
    public var deviceInfo: [IIODeviceInfo] {
        lock.lock()
        defer { lock.unlock() }
        return devices.values.sorted { $0.index < $1.index }
    }

    public func run(_ rates: [SensorKind: Double], sink: @escaping SampleSink, events: @escaping DeviceEventSink) {
        run(rates, maximumLatency: [:], sink: sink, events: events)
    }

    /// Runs the sensors at `rates`; buffered capture delivers each device's samples in batches as late
    /// as the smallest latency of its sensors allows (the buffer's watermark: one wake-up per batch
    /// instead of one per scan, see docs/iio.md). When a latency changes, the capture of that device
    /// is replaced: the old one hands over the scans its buffer holds, the new one starts with the new
    /// watermark. Polled capture reads each sample when due whatever the latency.
    ///
    /// A kind asked for that no device provides yet starts when a device providing it appears (it is
    /// announced with ``DeviceEvent/sensorReturned(_:)``).
    public func run(
        _ rates: [SensorKind: Double], maximumLatency: [SensorKind: TimeInterval],
        sink: @escaping SampleSink, events: @escaping DeviceEventSink
    ) {
        lock.lock()
        defer { lock.unlock() }
        self.sink = sink
        self.events = events
        requestedRates = rates
        requestedLatency = maximumLatency
        applyRequestsLocked()
        startWatchingLocked()
    }

    /// Starts, replaces and stops the captures for what the last `run` asked of the kinds bound now.
    /// Caller holds `lock`.
    private func applyRequestsLocked() {
        let maximumLatency = requestedLatency
        let wanted = requestedRates.filter { bindings[$0.key] != nil && $0.value > 0 && $0.value.isFinite }
        active = Set(wanted.keys)
        var wantedByGroup: [String: [SensorKind: Double]] = [:]
        var latencyByGroup: [String: Double] = [:]
        for (kind, rate) in wanted {
            guard let group = groupOfKind[kind] else { continue }
            wantedByGroup[group, default: [:]][kind] = rate
            // One buffer per device: its sensors arrive together, as late as the most pressed allows.
            let latency = IIOCaptureSession.sanitizedLatency(maximumLatency[kind] ?? 0)
            latencyByGroup[group] = min(latencyByGroup[group] ?? latency, latency)
        }
        for (group, session) in sessions where wantedByGroup[group] == nil {
            session.stop()
            retired.append(session)
            sessions[group] = nil
        }
        for (group, groupRates) in wantedByGroup {
            let kinds = Array(groupRates.keys)
            let latency = latencyByGroup[group] ?? 0
            if let existing = sessions[group],
               existing.isEquivalent(kinds: kinds, requestedRates: groupRates, maximumLatency: latency, mode: options.capture) {
                continue
            }
            guard let device = devices[group] else { continue }
            // The new session waits for the last one of this group (running, or stopped but maybe
            // still tearing down), so an old teardown never disables the buffer the new one enabled.
            let previous = sessions[group] ?? retired.last { $0.group == group }
            if let running = sessions[group] {
                running.stop()
                retired.append(running)
            }
            let session = IIOCaptureSession(
                group: group, device: device, kinds: kinds, requestedRates: groupRates, maximumLatency: latency, mode: options.capture,
                owner: self, logger: logger, startsLost: kinds.contains { lost[$0] != nil })
            sessions[group] = session
            session.start(after: previous)
        }
        retired.removeAll { $0.waitUntilFinished(timeout: 0) }
    }

    /// Stops every capture and waits until the threads have disabled their buffers (tests, tools).
    /// Returns false when a thread did not finish within `timeout` seconds. A sensor that appears
    /// afterwards does not start until the next `run`.
    @discardableResult
    public func stopAndWait(timeout: Double = 5) -> Bool {
        lock.lock()
        let running = sessions.values.sorted { $0.group < $1.group }
        let all = running + retired
        sessions.removeAll()
        retired.removeAll()
        active.removeAll()
        requestedRates.removeAll()
        lock.unlock()
        for s in all { s.stop() }
        let finished = all.allSatisfy { $0.waitUntilFinished(timeout: timeout) }
        lock.lock()
        stoppedStatistics = running.map(\.statistics)
        lock.unlock()
        return finished
    }

    /// The final statistics of the captures ended by the last ``stopAndWait(timeout:)``.
    public var finalCaptureStatistics: [IIOCaptureStatistics] {
        lock.lock()
        defer { lock.unlock() }
        return stoppedStatistics
    }

    /// What each running capture thread has done.
    public var captureStatistics: [IIOCaptureStatistics] {
        lock.lock()
        let all = sessions.values.sorted { $0.group < $1.group }
        lock.unlock()
        return all.map(\.statistics)
    }

    // MARK: - Capture owner

    func deliver(_ samples: UnsafeBufferPointer<SensorSample>) {
        lock.lock()
        let sink = self.sink
        let active = self.active
        lock.unlock()
        guard let sink else { return }
        for s in samples where active.contains(s.sensor) { sink(s) }
    }

    func captureLost(group: String, kinds: [SensorKind], reason: String) {
        lock.lock()
        var newlyLost: [SensorKind] = []
        for k in kinds where groupOfKind[k] == group && lost[k] == nil {
            lost[k] = reason
            newlyLost.append(k)
        }
        let events = self.events
        lock.unlock()
        for k in newlyLost {
            logger.warning("\(k) lost: \(reason)")
            events?(.sensorLost(k, reason: reason))
        }
    }

    func captureReturned(group: String, kinds: [SensorKind], device: IIODeviceInfo) {
        lock.lock()
        devices[group] = device
        var returned: [SensorKind] = []
        for s in device.sensors where groupOfKind[s.kind] == group {
            bindings[s.kind] = s
            if lost[s.kind] != nil, kinds.contains(s.kind) {
                lost[s.kind] = nil
                returned.append(s.kind)
            }
        }
        let events = self.events
        lock.unlock()
        for k in returned {
            logger.notice("\(k) returned (\(device.directoryName))")
            events?(.sensorReturned(k))
        }
    }

    func findDevice(_ identity: IIODeviceIdentity) -> IIODeviceInfo? {
        guard let result = try? IIODiscovery(root: root).scan() else { return nil }
        let matches = result.devices.filter { identity.matches($0) }
        return matches.first { $0.directoryName == identity.directoryName } ?? matches.first
    }

    // MARK: - Sensors that appear later

    /// The `iio:deviceN` entries of `root`'s devices directory (empty when it cannot be listed).
    static func deviceEntries(_ root: IIORoot) -> Set<String> {
        guard let names = try? SysfsFile.list(root.devicesDirectory) else { return [] }
        return Set(names.filter { $0.hasPrefix("iio:device") && Int($0.dropFirst("iio:device".count)) != nil })
    }

    /// Starts the periodic appearance check while some kind has no provider. Caller holds `lock`.
    private func startWatchingLocked() {
        guard watchTimer == nil, bindings.count < SensorKind.allCases.count else { return }
        let timer = DispatchSource.makeTimerSource(queue: watchQueue)
        let interval = IIODevice.appearanceCheckInterval
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.watchTick() }
        watchTimer = timer
        timer.resume()
    }

    /// One periodic check (on `watchQueue`); the timer ends once every kind has a provider.
    private func watchTick() {
        _ = checkForNewSensors()
        sendAnnouncements()
        lock.lock()
        if bindings.count == SensorKind.allCases.count, let timer = watchTimer {
            timer.cancel()
            watchTimer = nil
        }
        lock.unlock()
    }

    /// Sends the pending `sensorReturned` events of kinds that appeared (on `watchQueue`, outside `lock`).
    /// Without an event sink (no `run` yet) they are dropped: whoever runs the device later sees the
    /// kinds in ``sensors``.
    private func sendAnnouncements() {
        lock.lock()
        let pending = announcements
        announcements.removeAll()
        let events = self.events
        lock.unlock()
        guard let events else { return }
        for event in pending { events(event) }
    }

    /// Looks for devices providing kinds that have no provider, at most every 0.8 ×
    /// ``appearanceCheckInterval``: lists the devices directory; when the listing differs from the one
    /// last scanned and has not changed since the previous check (a device directory being populated
    /// settles first), scans it and binds the new kinds. Returns true when events wait to be sent.
    private func checkForNewSensors() -> Bool {
        lock.lock()
        let now = IIOTimestampClock.monotonicNow()
        guard bindings.count < SensorKind.allCases.count, !checkingAppearance,
              now - lastAppearanceCheck >= 0.8 * IIODevice.appearanceCheckInterval
        else {
            let waiting = !announcements.isEmpty
            lock.unlock()
            return waiting
        }
        lastAppearanceCheck = now
        checkingAppearance = true
        let previous = listedEntries
        let scanned = scannedEntries
        lock.unlock()

        let entries = IIODevice.deviceEntries(root)
        var result: IIODiscovery.Result?
        var scanError: IIOError?
        let scan = entries == previous && entries != scanned
        if scan {
            do { result = try IIODiscovery(root: root).scan() } catch { scanError = error }
        }

        lock.lock()
        checkingAppearance = false
        listedEntries = entries
        if scan { scannedEntries = entries }
        var appeared: [(kind: SensorKind, directory: String)] = []
        if let result {
            appeared = bindAppearedLocked(result)
            if !appeared.isEmpty {
                if sink != nil { applyRequestsLocked() }
                announcements += appeared.map { .sensorReturned($0.kind) }
            }
        }
        let waiting = !announcements.isEmpty
        lock.unlock()

        if let scanError { logger.warning("looking for new IIO devices: \(scanError)") }
        for problem in result?.problems ?? [] where !discoveryProblems.contains(problem) { logger.warning("\(problem)") }
        for a in appeared { logger.notice("\(a.kind) appeared (\(a.directory))") }
        return waiting
    }

    /// Binds every kind without a provider that a device of `result` provides, with the usual
    /// preference; returns the kinds bound. A device already in use (same directory and identity, none
    /// of its kinds lost) takes the new kind into its capture; any other gets a group of its own. A
    /// device that may be a lost one coming back (same identity) is left to that one's capture.
    /// Caller holds `lock`.
    private func bindAppearedLocked(_ result: IIODiscovery.Result) -> [(kind: SensorKind, directory: String)] {
        var appeared: [(kind: SensorKind, directory: String)] = []
        let lostGroups = Set(groupOfKind.filter { lost[$0.key] != nil }.values)
        let lostIdentities = lostGroups.compactMap { devices[$0].map(IIODeviceIdentity.init) }
        for kind in SensorKind.allCases where bindings[kind] == nil {
            let candidates = result.devices.filter { d in
                d.sensors.contains { $0.kind == kind } && !lostIdentities.contains { $0.matches(d) }
            }
            guard let best = candidates.sorted(by: { IIODevice.preferredOrder($0, $1, kind: kind) }).first,
                  let sensor = best.sensors.first(where: { $0.kind == kind })
            else { continue }
            let inUse = devices.first { group, device in
                !lostGroups.contains(group) && device.directoryName == best.directoryName && IIODeviceIdentity(device).matches(best)
            }?.key
            var group = inUse ?? best.directoryName
            if inUse == nil {
                var n = 2
                while devices[group] != nil {
                    group = "\(best.directoryName)+\(n)"
                    n += 1
                }
            }
            devices[group] = best
            bindings[kind] = sensor
            groupOfKind[kind] = group
            appeared.append((kind, best.directoryName))
        }
        return appeared
    }

    /// Without a running capture nobody watches the devices: check them when asked for `sensors`
    /// (at most every 0.25 s), so that an unplugged sensor is not reported available and a returned
    /// one is.
    private func refreshPresenceIfIdle() {
        lock.lock()
        let now = IIOTimestampClock.monotonicNow()
        guard now - lastPresenceCheck >= 0.25 else {
            lock.unlock()
            return
        }
        lastPresenceCheck = now
        let idle = devices.filter { sessions[$0.key] == nil }
        lock.unlock()
        guard !idle.isEmpty else { return }
        for (group, device) in idle {
            let present = (try? SysfsFile.readText(device.path + "/name"))?.trimmingSysfsSpace() == device.name
            let kinds = device.sensors.map(\.kind)
            if present {
                lock.lock()
                var back: [SensorKind] = []
                for k in kinds where groupOfKind[k] == group && lost[k] != nil {
                    lost[k] = nil
                    back.append(k)
                }
                lock.unlock()
                for k in back { logger.notice("\(k) present again (\(device.directoryName))") }
            } else if let moved = findDevice(IIODeviceIdentity(device)) {
                lock.lock()
                devices[group] = moved
                for s in moved.sensors where groupOfKind[s.kind] == group {
                    bindings[s.kind] = s
                    lost[s.kind] = nil
                }
                lock.unlock()
            } else {
                lock.lock()
                var gone: [SensorKind] = []
                for k in kinds where groupOfKind[k] == group && lost[k] == nil {
                    lost[k] = "\(device.path) vanished"
                    gone.append(k)
                }
                lock.unlock()
                for k in gone { logger.warning("\(k) lost: \(device.path) vanished") }
            }
        }
    }
}
