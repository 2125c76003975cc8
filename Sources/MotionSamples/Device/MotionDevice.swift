import Foundation

/// What a device offers for one sensor.
public struct SensorDescription: Sendable, Hashable, Codable {
    public var kind: SensorKind
    /// Human-readable name (driver, file or scene).
    public var name: String
    /// Slowest rate the hardware runs at, Hz.
    public var minimumRate: Double
    /// Fastest rate the hardware runs at, Hz.
    public var maximumRate: Double
    /// Rates the hardware offers, when it only offers a discrete set (IIO `sampling_frequency_available`).
    public var availableRates: [Double]?

    public init(kind: SensorKind, name: String, minimumRate: Double, maximumRate: Double, availableRates: [Double]? = nil) {
        self.kind = kind
        self.name = name
        self.minimumRate = minimumRate
        self.maximumRate = maximumRate
        self.availableRates = availableRates
    }

    /// The shortest sample interval the sensor can deliver, seconds.
    public var minimumInterval: TimeInterval { 1 / maximumRate }
}

/// Receives the samples of a device, in time order per sensor, on the device's thread (or, on a
/// virtual clock, on the thread that advances it).
public typealias SampleSink = @Sendable (SensorSample) -> Void

/// A device state change that is not a sample.
public enum DeviceEvent: Sendable, Hashable {
    /// A sensor stopped delivering (unplugged, unbound, read error); it is unavailable until
    /// ``sensorReturned(_:)``.
    case sensorLost(SensorKind, reason: String)
    /// A sensor that was lost delivers again. Also sent when a sensor first appears after the device
    /// was made (a phone that starts sending it, an IIO device that appears after the start): the
    /// sensor is in ``MotionDevice/sensors`` from then on.
    case sensorReturned(SensorKind)
    /// A recording reached its end (without `loop`).
    case endOfData
}

/// Receives device events.
public typealias DeviceEventSink = @Sendable (DeviceEvent) -> Void

/// What a device's location receiver (a phone's GNSS) offers.
public struct LocationDescription: Sendable, Hashable, Codable {
    /// Human-readable name (the file the fixes come from).
    public var name: String
    /// Whether its fixes carry an altitude above mean sea level with a vertical accuracy (what the
    /// altimeter fuses into absolute altitude).
    public var hasAltitude: Bool
    /// Typical interval between fixes, seconds.
    public var typicalInterval: Double

    public init(name: String, hasAltitude: Bool, typicalInterval: Double) {
        self.name = name
        self.hasAltitude = hasAltitude
        self.typicalInterval = typicalInterval
    }
}

/// Receives a device's location fixes, in time order with its samples, on the device's thread (or,
/// on a virtual clock, on the thread that advances it).
public typealias LocationSink = @Sendable (TimedLocation) -> Void

/// A source of raw motion samples: Linux IIO hardware, a replayed recording, the simulator, or none.
///
/// The service owns exactly one device per process. It asks for the sensors some client needs, at
/// the fastest rate any client asked for (already clamped to the device's range); the device
/// delivers every sample of those sensors to the sink, converted to Apple's axes and units, with
/// timestamps on the service's ``MotionClock``.
public protocol MotionDevice: AnyObject, Sendable {
    /// Short description, e.g. `replay:/data/walk (Sensor Logger, iPhone 13)`.
    var name: String { get }
    /// The sensors this device has now. A lost sensor is absent until it returns.
    var sensors: [SensorKind: SensorDescription] { get }
    /// The clock the device stamps its samples on.
    var clock: any MotionClock { get }
    /// Sets which sensors run and at what rate (Hz). An empty dictionary stops everything.
    /// Samples go to `sink`, events to `events`; a later call replaces both. Every sample is
    /// delivered as soon as the device has it (no batching).
    func run(_ rates: [SensorKind: Double], sink: @escaping SampleSink, events: @escaping DeviceEventSink)

    /// Like ``run(_:sink:events:)``, and says per sensor how late its samples may reach `sink`,
    /// seconds after they were sampled (a sensor absent from `maximumLatency`, or 0: as soon as
    /// possible).
    ///
    /// A device may use the latency to hold samples and hand them over in batches, so that it wakes
    /// less often (Linux IIO: the buffer's watermark); it never delivers a sample later than asked
    /// (up to scheduling), never drops one for it, and keeps sample times as sampled. A later call
    /// replaces the latencies too: when one drops, the device delivers sooner from then on.
    ///
    /// The default implementation ignores the latencies and calls ``run(_:sink:events:)``: devices
    /// whose delivery costs no wake-ups (replay, simulator, none) need nothing more.
    func run(
        _ rates: [SensorKind: Double], maximumLatency: [SensorKind: TimeInterval],
        sink: @escaping SampleSink, events: @escaping DeviceEventSink
    )

    /// The hardware model the device is or recorded (e.g. `"iPhone 13"` for a recording of one), when
    /// known; `nil` for Linux hardware, the simulator and recordings that do not say.
    var model: String? { get }
    /// The device's location receiver, or `nil` without one (the default).
    var locationDescription: LocationDescription? { get }
    /// Starts location fixes to `sink`, or stops them with `nil`; a later call replaces the sink.
    ///
    /// Fixes are stamped on ``clock`` and delivered in time order with the samples. When fixes start,
    /// the device first delivers its last known fix, if any (as Core Location does), whose time is
    /// then in the past. Without a location receiver nothing is delivered (the default).
    func runLocation(_ sink: LocationSink?)
}

extension MotionDevice {
    public func run(
        _ rates: [SensorKind: Double], maximumLatency: [SensorKind: TimeInterval],
        sink: @escaping SampleSink, events: @escaping DeviceEventSink
    ) {
        run(rates, sink: sink, events: events)
    }

    /// True when the device has `sensor` now.
    public func has(_ sensor: SensorKind) -> Bool { sensors[sensor] != nil }

    public var model: String? { nil }
    public var locationDescription: LocationDescription? { nil }
    public func runLocation(_ sink: LocationSink?) {}
}

/// A device without sensors (`COREMOTION_DEVICE=none`): nothing is available, nothing is delivered.
public final class NoDevice: MotionDevice {
    public let clock: any MotionClock
    public init(clock: any MotionClock = SystemClock.shared) { self.clock = clock }
    public var name: String { "none" }
    public var sensors: [SensorKind: SensorDescription] { [:] }
    public func run(_ rates: [SensorKind: Double], sink: @escaping SampleSink, events: @escaping DeviceEventSink) {}
}
