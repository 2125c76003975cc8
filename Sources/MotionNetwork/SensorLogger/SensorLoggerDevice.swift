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
public final class SensorLoggerDevice: MotionDevice, Sendable {
    /// The receiver (every phone that pushes to it, statistics).
    public let server: SensorLoggerServer

    /// The followed phone's live device: samples, headphone stream, statistics.
    public let live: LiveDevice
    /// The `deviceId` this device follows; `nil`: the server's default (its configured one, or the first to push).
    public let deviceId: String?

    /// The device of the phone `deviceId` on `server` (`nil`: the phone the server follows by default).
    public init(server: SensorLoggerServer, deviceId: String? = nil) {
        self.server = server
        self.deviceId = deviceId
        self.live = server.device(following: deviceId)
    }

    /// Takes the process's receiver for `configuration`'s address (``SensorLoggerReceivers/shared``; started
    /// now if this is its first user), waits for the followed phone's first push as configured, and returns
    /// the device.
    ///
    /// - Throws: ``SensorLoggerConfigurationError`` when the server cannot listen (address in use, a
    ///   non-loopback address without a token), or the address has a receiver with another token.
    public static func open(
        _ configuration: SensorLoggerConfiguration, clock: any MotionClock = SystemClock.shared,
        receivers: SensorLoggerReceivers = .shared
    ) throws(SensorLoggerConfigurationError) -> SensorLoggerDevice {
        let server = try receivers.receiver(for: configuration, clock: clock)
        let followed = configuration.deviceId == server.configuration.deviceId ? nil : configuration.deviceId
        let device = SensorLoggerDevice(server: server, deviceId: followed)
        if configuration.wait > 0, server.waitForPhone(deviceId: followed, timeout: configuration.wait) != nil, configuration.settle > 0 {
            Thread.sleep(forTimeInterval: configuration.settle)
        }
        return device
    }

    /// The followed phone, once it pushed.
    public var phone: SensorLoggerPhone? {
        if let deviceId { return server.phone(deviceId) }
        return server.chosenPhone
    }

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
