import Foundation
import Logging
import MotionHistory
import NIOConcurrencyHelpers

/// The one motion service of a process, like Apple's motion daemon: it owns the device, starts only
/// the sensors some client needs at the fastest rate any client asked for, and fans each sample out
/// to the clients, decimated to each client's interval.
///
/// It is the client interface served in process (``MotionProvider``): `CMMotionManager()` and friends talk
/// to one of these directly when the app owns the device (the device `COREMOTION_DEVICE` names, or a
/// test's), and in `coremotiond` the daemon serves every client's streams from one of these. The
/// conformance (``MotionService/subscribe(to:interval:receive:)`` and the other `subscribe…` methods) hands
/// out ``MotionClient/CancellableStream``s; the engines of the service itself use the richer
/// ``subscribe(to:interval:maximumLatency:everySample:receive:)``.
public final class MotionService: @unchecked Sendable {  // @unchecked: `nextID`, `lostSensors`, `reachedEnd`, `deviceStopped`, the tables under `lock`; `historyState` under `historyLock`
    /// The device all samples come from.
    public let device: any MotionDevice
    /// Whether the device is this machine's hardware, whose sensor calibration is kept across processes.
    public let keepsCalibration: Bool
    /// The headphones beside the device, if any (`COREMOTION_HEADPHONE_DEVICE`).
    public let headphones: (any HeadphoneDevice)?
    /// Runs the headphones for every client.
    let headphoneHub: HeadphoneHub?
    /// The clock of the device's timestamps (seconds on the `systemUptime` time base).
    public var clock: any MotionClock { device.clock }

    public let logger = Logger(label: "coremotion.service")

    /// Guards the subscriber lists and everything fed from them.
    private let lock = NSLock()
    /// Serialises device reconfiguration (kept outside `lock` so that a device thread delivering a
    /// sample never waits on a reconfiguration that waits on it).
    private let configurationLock = NSLock()
    /// Subscribers per sensor, indexed by `SensorKind.index` (an array, not a dictionary: the lookup
    /// runs once per sample), guarded by `lock`. The device's sink captures it and `lock` strongly
    /// instead of the service weakly: a weakly referenced object's every retain and release takes the
    /// runtime's slow path, once per sample (measured: half of the API's per-sample delivery cost).
    private let subscriberTable = SubscriberTable()
    /// Subscribers to the device's location fixes, and the last fix, guarded by `lock`.
    private let locationTable = LocationSubscriberTable()
    private var nextID = 0
    private var lostSensors: Set<SensorKind> = []
    private var reachedEnd = false
    /// The delivery streams of the API on this service (for the virtual-clock harness).
    public let deliveries = DeliveryTracker()

    /// Where the history lives; `nil` for the location `COREMOTION_HISTORY` chooses.
    let historyLocation: HistoryLocation?
    /// How the history is opened.
    let historySettings: HistorySettings
    let historyLock = NSLock()
    var historyState = HistoryState.closed
    /// Background recorders (accelerometer for the sensor recorder; pedometer and activity history),
    /// made on first use.
    let recorders = Recorders()

    /// - Parameters:
    ///   - device: the device all samples come from.
    ///   - keepsCalibration: whether `device` is this machine's hardware (IIO sensors), whose gyroscope bias
    ///     and magnetometer calibration are kept in a file between processes; recordings, the simulator and
    ///     phones start fresh.
    ///   - history: where pedometer, activity and recorded-accelerometer history lives; `nil` for the
    ///     location `COREMOTION_HISTORY` chooses (tests pass `.inMemory`).
    ///   - location: where the device is, for true north (``GeographicLocation``); `nil` leaves
    ///     `.xTrueNorthZVertical` unavailable.
    ///   - historySettings: how the history file is opened and what its notices do (a daemon moves a damaged
    ///     file aside and keeps going; the default fails and logs).
    ///   - headphones: the headphone source beside the device (`COREMOTION_HEADPHONE_DEVICE`), or `nil` for none;
    ///     it must stamp its events on the device's clock.
    ///   - authorization: what ``authorizationStatus()`` reports; `nil` reads `COREMOTION_AUTHORIZATION` from
    ///     the environment each time (default `.authorized`). `coremotiond` passes `.authorized`: it decides
    ///     per client before a request reaches the service.
    public init(
        device: any MotionDevice, keepsCalibration: Bool = false, history: HistoryLocation? = nil,
        location: GeographicLocation? = nil, historySettings: HistorySettings = HistorySettings(),
        headphones: (any HeadphoneDevice)? = nil, authorization: AuthorizationStatus? = nil
    ) {
        self.authorizationOverride = authorization
        self.device = device
        self.keepsCalibration = keepsCalibration
        self.headphones = headphones
        self.headphoneHub = headphones.map { HeadphoneHub(device: $0, logger: Logger(label: "coremotion.headphones")) }
        self.historyLocation = history
        self.historySettings = historySettings
        self.storedLocation = NIOLockedValueBox(location)
        // Only real hardware keeps its calibration across processes (see SensorCalibrationState).
        let calibrationLogger = Logger(label: "coremotion.service")
        self.calibrationMemory = SensorCalibrationMemory(
            keeping: keepsCalibration ? SensorCalibrationMemory.keeping(for: device.name, history: history) : .process,
            report: { calibrationLogger.warning("\($0)") }
        )
        // A database-kept calibration is read in the background from the history, opened on first use.
        calibrationMemory.attach { [weak self] in self?.history }
    }

    /// The fixed answer of ``authorizationStatus()``, or `nil` for the environment's.
    let authorizationOverride: AuthorizationStatus?

    /// The gyroscope bias and magnetometer calibration kept between runs of the fusion.
    let calibrationMemory: SensorCalibrationMemory

    /// The sensor calibration the fusion last saved (when device motion stopped), if any.
    public var savedSensorCalibration: SensorCalibrationState? { calibrationMemory.load() }

    /// Waits until a calibration kept in the history's database has been read and the last one saved has
    /// been written (nothing to wait for with a file or in memory). ``shutDown()`` calls it.
    public func waitUntilSensorCalibrationKept() { calibrationMemory.waitUntilKept() }

    private let storedLocation: NIOLockedValueBox<GeographicLocation?>

    /// Where the device is, for the magnetic declination of the true-north frame; `nil` when unknown
    /// (then `.xTrueNorthZVertical` is not available). From `COREMOTION_LOCATION` for the process-wide
    /// service; tests set it directly. A change applies to device-motion updates started afterwards.
    public var location: GeographicLocation? {
        get { storedLocation.withLockedValue { $0 } }
        set { storedLocation.withLockedValue { $0 = newValue } }
    }

    /// Sets ``location`` from `COREMOTION_LOCATION`. A value that cannot be used is reported on standard error
    /// and leaves true north unavailable: only `.xTrueNorthZVertical` depends on it.
    public func takeLocation(fromEnvironment environment: [String: String] = ProcessInfo.processInfo.environment) {
        do {
            location = try GeographicLocation.fromEnvironment(environment)
        } catch {
            FileHandle.standardError.write(Data("coremotion: \(error); true north is unavailable\n".utf8))
        }
    }

    // MARK: Sensors

    /// What the device offers for `sensor` now, or `nil` when it has no such sensor (or lost it).
    /// (``MotionProvider/has(_:)``, ``MotionProvider/intervalRange(_:)`` and
    /// ``MotionProvider/clampInterval(_:for:)`` follow from it.)
    public func sensorDescription(_ sensor: SensorKind) -> SensorDescription? {
        device.sensors[sensor]
    }

    /// How late the background engines accept their samples, seconds: the pedometer, activity
    /// recognition and the accelerometer recorder (`CMSensorRecorder`) subscribe with it.
    ///
    /// They feed the history, which is written once a second (``HistoryConfiguration/flushInterval``),
    /// and live pedometer sessions, which report at most once a second: samples a second late change
    /// nothing a client sees, while letting the device deliver them in batches of a second instead of
    /// one by one (Linux IIO: one wake-up a second instead of one per sample; see docs/iio.md). Apple's
    /// own history is later still: `CMSensorRecorder` data and `CMPedometer` queries lag by minutes.
    /// Live streams of apps (raw sensors, device motion, altitude) keep latency 0, and any such
    /// subscriber brings the sensor's latency down to 0 at once.
    public static let backgroundLatency: TimeInterval = 1

    /// Subscribes to every sample of `sensor`, thinned to `interval` seconds (clamped), delivered to
    /// `receive` on the device's thread. Returns `nil` when the device has no such sensor.
    ///
    /// `maximumLatency` says how late the samples may arrive, seconds after they were sampled: 0 (the
    /// default, an app's live stream) asks for each sample as soon as the device has it; background
    /// engines pass ``backgroundLatency``. The device is given, per sensor, the smallest latency of its
    /// subscribers (``MotionDevice/run(_:maximumLatency:sink:events:)``).
    ///
    /// `receive` runs under the service's lock: it must be quick and must not call back into the
    /// service (hand the sample to a ``QueueDelivery`` instead). An app's stream is
    /// ``subscribe(to:interval:receive:)``, the same with latency 0.
    ///
    /// - Parameter everySample: pass every sample the device delivers, even one closer to the previous
    ///   than the device's period (the engines that follow a sensor's own cadence, such as the
    ///   altimeter, whose updates are the barometer's samples); the device runs at the rate `interval` asks.
    public func subscribe(
        to sensor: SensorKind, interval: TimeInterval, maximumLatency: TimeInterval, everySample: Bool = false,
        receive: @escaping @Sendable (SensorSample) -> Void
    ) -> SensorSubscription? {
        guard let description = device.sensors[sensor] else { return nil }
        let clamped = clampInterval(interval, for: sensor)
        lock.lock()
        nextID += 1
        let subscription = SensorSubscription(
            id: nextID, sensor: sensor, interval: clamped, maximumLatency: maximumLatency,
            devicePeriod: 1 / description.maximumRate, receive: receive
        )
        if everySample { subscription.decimator = Decimator(interval: 0, devicePeriod: 0) }
        subscriberTable.lists[sensor.index].append(subscription)
        lock.unlock()
        reconfigure()
        return subscription
    }

    /// Ends a subscription; the sensor stops when no one else needs it.
    public func cancel(_ subscription: SensorSubscription) {
        lock.lock()
        subscriberTable.lists[subscription.sensor.index].removeAll { $0 === subscription }
        lock.unlock()
        reconfigure()
    }

    /// The rate the device runs `sensor` at now (Hz), or `nil` when it is off.
    public func activeRate(_ sensor: SensorKind) -> Double? {
        lock.lock()
        defer { lock.unlock() }
        return rates()[sensor]
    }

    /// How late the device may deliver `sensor`'s samples now (the smallest ``SensorSubscription/maximumLatency``
    /// of its subscribers), seconds, or `nil` when it is off.
    public func activeMaximumLatency(_ sensor: SensorKind) -> TimeInterval? {
        lock.lock()
        defer { lock.unlock() }
        return latencies()[sensor]
    }

    /// Whether the device reached the end of its data (a replay without `loop`).
    public var hasReachedEnd: Bool {
        lock.lock()
        defer { lock.unlock() }
        return reachedEnd
    }

    /// Rates wanted now: per sensor, the fastest rate any subscriber asked for. Caller holds `lock`.
    private func rates() -> [SensorKind: Double] {
        var rates: [SensorKind: Double] = [:]
        for (sensor, list) in zip(SensorKind.allCases, subscriberTable.lists) where !list.isEmpty {
            guard let d = device.sensors[sensor] else { continue }
            let fastestWanted = list.map { $0.interval > 0 ? 1 / $0.interval : d.maximumRate }.max() ?? d.minimumRate
            rates[sensor] = min(d.maximumRate, max(d.minimumRate, fastestWanted))
        }
        return rates
    }

    /// Latencies allowed now: per sensor with subscribers, the smallest any of them accepts (a live
    /// stream's 0 wins over the background engines'). Caller holds `lock`.
    private func latencies() -> [SensorKind: TimeInterval] {
        var latencies: [SensorKind: TimeInterval] = [:]
        for (sensor, list) in zip(SensorKind.allCases, subscriberTable.lists) where !list.isEmpty {
            latencies[sensor] = list.map(\.maximumLatency).min() ?? 0
        }
        return latencies
    }

    /// Set by ``stopDevice()``: nothing runs any more, whatever subscribers remain.
    private var deviceStopped = false

    /// Runs `body` under the lock the device's samples reach the subscribers under, so that it never
    /// overlaps a delivery (an engine finished at shutdown while the device's last batch still arrives).
    func withDeliveryLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Returns once no delivery is in progress: takes and releases the lock the device's samples reach the
    /// subscribers under. A watchdog calls it to prove that the device's thread is not stuck holding it
    /// (`coremotiond`'s systemd watchdog pings only after this returns).
    public func awaitDeliveryLock() {
        lock.lock()
        lock.unlock()
    }

    /// Stops every sensor for good; what the device still holds (an IIO buffer's last batch) is delivered to
    /// the subscribers first. Used when the service shuts down.
    func stopDevice() {
        lock.lock()
        deviceStopped = true
        lock.unlock()
        reconfigure()
    }

    private func reconfigure() {
        configurationLock.lock()
        defer { configurationLock.unlock() }
        lock.lock()
        let wanted = deviceStopped ? [:] : rates()
        let latency = latencies().filter { wanted[$0.key] != nil }
        lock.unlock()
        device.run(
            wanted,
            maximumLatency: latency,
            sink: { [lock, subscriberTable] sample in
                lock.lock()
                defer { lock.unlock() }
                for subscription in subscriberTable.lists[sample.sensor.index] where subscription.decimator.admit(sample.time) {
                    subscription.receive(sample)
                }
            },
            events: { [weak self] event in self?.handle(event) }
        )
    }

    // MARK: Location

    /// What the device's location receiver offers, or `nil` without one (a replayed recording with
    /// location fixes has one; Linux hardware and the simulator do not).
    public var locationDescription: LocationDescription? { device.locationDescription }

    /// Subscribes to the device's location fixes, delivered to `receive` on the device's thread under
    /// the service's lock, in time order with the samples. A new subscriber first gets the last known
    /// fix, if any (its time is then in the past). Returns `nil` when the device has no location receiver.
    public func subscribeLocation(receive: @escaping @Sendable (TimedLocation) -> Void) -> LocationSubscription? {
        guard device.locationDescription != nil else { return nil }
        lock.lock()
        nextID += 1
        let subscription = LocationSubscription(id: nextID, receive: receive)
        locationTable.subscribers.append(subscription)
        let first = locationTable.subscribers.count == 1
        if let fix = locationTable.lastFix { receive(fix) }
        lock.unlock()
        if first { reconfigureLocation() }
        return subscription
    }

    /// Ends a location subscription; fixes stop when no one else needs them.
    public func cancel(_ subscription: LocationSubscription) {
        lock.lock()
        locationTable.subscribers.removeAll { $0 === subscription }
        let last = locationTable.subscribers.isEmpty
        lock.unlock()
        if last { reconfigureLocation() }
    }

    private func reconfigureLocation() {
        configurationLock.lock()
        defer { configurationLock.unlock() }
        lock.lock()
        let wanted = !locationTable.subscribers.isEmpty
        if !wanted { locationTable.lastFix = nil }
        lock.unlock()
        guard wanted else {
            device.runLocation(nil)
            return
        }
        let sink: LocationSink = { [lock, locationTable] fix in
            lock.lock()
            defer { lock.unlock() }
            locationTable.lastFix = fix
            for subscription in locationTable.subscribers { subscription.receive(fix) }
        }
        device.runLocation(sink)
    }

    private let eventObservers = NIOLockedValueBox<[@Sendable (DeviceEvent) -> Void]>([])

    /// Calls `observer` with every device event (a sensor lost or back, the end of a recording), after the
    /// service has handled it, on the device's thread.
    ///
    /// The device is handed the service's sinks at once (``MotionDevice/run(_:maximumLatency:sink:events:)``
    /// with the sensors running now, none at first), so that events reach `observer` before any sensor
    /// runs: a sensor that appears after the start (Linux IIO hot-plug) is announced with
    /// ``MotionSamples/DeviceEvent/sensorReturned(_:)``.
    public func observeDeviceEvents(_ observer: @escaping @Sendable (DeviceEvent) -> Void) {
        eventObservers.withLockedValue { $0.append(observer) }
        reconfigure()
    }

    private func handle(_ event: DeviceEvent) {
        defer {
            let observers = eventObservers.withLockedValue { $0 }
            for observer in observers { observer(event) }
        }
        switch event {
        case .sensorLost(let sensor, let reason):
            logger.warning("\(sensor) lost: \(reason)")
            lock.lock()
            lostSensors.insert(sensor)
            lock.unlock()
            if sensor == .accelerometer { motionStopped() }
        case .sensorReturned(let sensor):
            logger.notice("\(sensor) is back")
            lock.lock()
            lostSensors.remove(sensor)
            lock.unlock()
            reconfigure()
        case .endOfData:
            logger.debug("\(device.name): end of data")
            lock.lock()
            reachedEnd = true
            lock.unlock()
            motionStopped()
        }
    }

    /// The accelerometer stopped delivering: walks end, the activity becomes unknown.
    private func motionStopped() {
        recorders.lock.lock()
        let pedometer = recorders.pedometer
        let activity = recorders.activity
        recorders.lock.unlock()
        lock.lock()
        defer { lock.unlock() }
        pedometer?.finish()
        activity?.interrupt(at: clock.now)
    }
}

/// A subscription to one sensor's samples (the service's engines; apps get a ``MotionClient/CancellableStream``).
public final class SensorSubscription: @unchecked Sendable {  // @unchecked: `decimator` changes only under the service's `lock`; the rest are `let`s of Sendable types
    public let id: Int
    public let sensor: SensorKind
    /// The clamped interval, seconds.
    public let interval: TimeInterval
    /// How late the samples may arrive, seconds (0: as soon as possible); never negative.
    public let maximumLatency: TimeInterval
    var decimator: Decimator
    let receive: @Sendable (SensorSample) -> Void

    init(
        id: Int, sensor: SensorKind, interval: TimeInterval, maximumLatency: TimeInterval = 0, devicePeriod: Double,
        receive: @escaping @Sendable (SensorSample) -> Void
    ) {
        self.id = id
        self.sensor = sensor
        self.interval = interval
        self.maximumLatency = maximumLatency.isFinite ? max(0, maximumLatency) : (maximumLatency > 0 ? .greatestFiniteMagnitude : 0)
        self.decimator = Decimator(interval: interval, devicePeriod: devicePeriod)
        self.receive = receive
    }
}

extension SensorKind {
    /// Position in `allCases`.
    @inline(__always) var index: Int {
        switch self {
        case .accelerometer: 0
        case .gyroscope: 1
        case .magnetometer: 2
        case .barometer: 3
        }
    }
}

/// A subscription to the device's location fixes.
public final class LocationSubscription: Sendable {
    public let id: Int
    let receive: @Sendable (TimedLocation) -> Void

    init(id: Int, receive: @escaping @Sendable (TimedLocation) -> Void) {
        self.id = id
        self.receive = receive
    }
}

/// The service's location subscribers and the last fix delivered, guarded by the service's lock.
final class LocationSubscriberTable: @unchecked Sendable {  // @unchecked: `subscribers` and `lastFix` are touched only under `MotionService.lock`
    var subscribers: [LocationSubscription] = []
    var lastFix: TimedLocation?
}

/// The service's subscriber lists per sensor (indexed by `SensorKind.index`), guarded by the service's lock.
final class SubscriberTable: @unchecked Sendable {  // @unchecked: `lists` is touched only under `MotionService.lock`
    var lists: [[SensorSubscription]] = Array(repeating: [], count: SensorKind.allCases.count)
}
