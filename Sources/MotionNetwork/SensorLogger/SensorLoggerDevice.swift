import Foundation
import MotionSamples

/// The device of `COREMOTION_DEVICE=sensorlogger:HOST:PORT[?…]`: a Sensor Logger receiver and the phone
/// it follows (``SensorLoggerConfiguration/deviceId``, or the first to push).
///
/// Availability follows what the phone sends: ``open(_:clock:)`` waits up to
/// ``SensorLoggerConfiguration/wait`` seconds (default 10) for the first push, then listens
/// ``SensorLoggerConfiguration/settle`` seconds more (default 1.5) so that slow sensors are seen too, and
/// returns; a sensor exists from its first sample on. Without any push within `wait`, the device has no
/// sensors until a phone pushes (then they appear, announced with `sensorReturned`).
public final class SensorLoggerDevice: MotionDevice, @unchecked Sendable {
    /// The receiver (every phone that pushes to it, statistics).
    public let server: SensorLoggerServer

    /// The followed phone's live device: samples, headphone stream, statistics.
    public var live: LiveDevice { server.device }

    public init(server: SensorLoggerServer) {
        self.server = server
    }

    /// Starts a receiver for `configuration` (or takes the one this process already runs on that address:
    /// ``SensorLoggerReceivers``, shared with the headphones), waits for the first push as configured, and
    /// returns the device.
    ///
    /// - Throws: ``SensorLoggerConfigurationError`` when the server cannot listen (address in use, a
    ///   non-loopback address without a token).
    public static func open(_ configuration: SensorLoggerConfiguration, clock: any MotionClock = SystemClock.shared) throws(SensorLoggerConfigurationError) -> SensorLoggerDevice {
        let server = try SensorLoggerReceivers.shared.server(for: configuration, clock: clock)
        if configuration.wait > 0, server.waitForPhone(timeout: configuration.wait) != nil, configuration.settle > 0 {
            Thread.sleep(forTimeInterval: configuration.settle)
        }
        return SensorLoggerDevice(server: server)
    }

    /// The followed phone, once it pushed.
    public var phone: SensorLoggerPhone? { server.chosenPhone }

    /// Apple's outputs the followed phone sent (attitude, gravity, user acceleration, pedometer, activity,
    /// relative altitude…), times on the device clock: reference data, never delivered as results.
    public func referenceData(from: TimeInterval = -.infinity, to: TimeInterval = .infinity) -> ReferenceData {
        phone?.referenceData(from: from, to: to) ?? ReferenceData()
    }

    /// The followed phone's headphone stream (``LiveDevice/subscribeHeadphone(_:)``).
    public func subscribeHeadphone(_ receive: @escaping @Sendable (HeadphoneMotionEvent) -> Void) -> Int {
        live.subscribeHeadphone(receive)
    }

    /// Ends a headphone subscription.
    public func cancelHeadphone(_ token: Int) { live.cancelHeadphone(token) }

    // MARK: MotionDevice

    public var name: String { live.name }
    public var sensors: [SensorKind: SensorDescription] { live.sensors }
    public var clock: any MotionClock { live.clock }
    public var model: String? { live.model }
    public var locationDescription: LocationDescription? { live.locationDescription }

    public func run(_ rates: [SensorKind: Double], sink: @escaping SampleSink, events: @escaping DeviceEventSink) {
        live.run(rates, sink: sink, events: events)
    }

    public func run(
        _ rates: [SensorKind: Double], maximumLatency: [SensorKind: TimeInterval],
        sink: @escaping SampleSink, events: @escaping DeviceEventSink
    ) {
        live.run(rates, sink: sink, events: events)
    }

    public func runLocation(_ sink: LocationSink?) { live.runLocation(sink) }
}
