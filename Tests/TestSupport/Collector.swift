import Foundation
import MotionSamples

/// Collects what a device delivers, samples and events, from any thread.
public final class Collector: @unchecked Sendable {
    private let lock = NSLock()
    private var samples: [SensorSample] = []
    private var events: [DeviceEvent] = []

    /// An empty collector.
    public init() {}

    /// Keeps a sample.
    public func add(_ sample: SensorSample) { lock.lock(); samples.append(sample); lock.unlock() }

    /// Keeps an event.
    public func add(_ event: DeviceEvent) { lock.lock(); events.append(event); lock.unlock() }

    /// A sink that keeps every sample (for `MotionDevice.run`).
    public var sink: SampleSink { { [self] s in add(s) } }

    /// A sink that keeps every event.
    public var eventSink: DeviceEventSink { { [self] e in add(e) } }

    /// The samples so far, in arrival order.
    public var all: [SensorSample] {
        lock.lock()
        defer { lock.unlock() }
        return samples
    }

    /// The events so far, in arrival order.
    public var allEvents: [DeviceEvent] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }

    /// The samples of one sensor.
    public func of(_ kind: SensorKind) -> [SensorSample] { all.filter { $0.sensor == kind } }
    /// How many samples of one sensor.
    public func count(_ kind: SensorKind) -> Int { of(kind).count }

    /// Forgets the samples (not the events).
    public func clear() {
        lock.lock()
        samples.removeAll()
        lock.unlock()
    }
}
