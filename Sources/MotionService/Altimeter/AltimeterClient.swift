import Foundation
import MotionEngine

/// A relative/absolute altitude stream for one client: its own altimeter engine fed by the barometer
/// (and by the device's location fixes for absolute altitude from GNSS), so that each client's first
/// update is its own zero.
final class AltimeterClient: @unchecked Sendable {  // @unchecked: `engine` fed only under the service's `lock`; attachments set before the stream returns and at cancel
    private var engine: AltimeterEngine
    private var subscription: SensorSubscription?
    private var locationSubscription: LocationSubscription?
    let receive: @Sendable (AltitudeValue) -> Void

    init(configuration: AltimeterEngine.Configuration, receive: @escaping @Sendable (AltitudeValue) -> Void) {
        engine = AltimeterEngine(configuration: configuration)
        self.receive = receive
    }

    /// Called under the service's lock, in sample order.
    fileprivate func take(_ sample: SensorSample) {
        engine.add(sample)
        while let u = engine.nextUpdate() {
            receive(AltitudeValue(
                time: u.time, relativeAltitude: u.relativeAltitude, pressure: u.pressure,
                absolute: u.absolute.map { AbsoluteAltitudeValue(altitude: $0.altitude, accuracy: $0.accuracy, precision: $0.precision) }))
        }
    }

    /// Called under the service's lock, in time order with the samples.
    fileprivate func take(_ fix: TimedLocation) {
        engine.add(fix)
    }

    fileprivate func attach(_ s: SensorSubscription?) { subscription = s }
    fileprivate var attached: SensorSubscription? { subscription }
    fileprivate func attachLocation(_ s: LocationSubscription?) { locationSubscription = s }
    fileprivate var attachedLocation: LocationSubscription? { locationSubscription }
}

extension MotionService {
    /// The reference for absolute altitude from the environment: `COREMOTION_SEA_LEVEL_PRESSURE=kPa`
    /// (today's sea-level pressure, e.g. from a weather report) or `COREMOTION_ALTITUDE=metres` (the
    /// altitude where the device is when updates start). `nil` when neither is set.
    ///
    /// - Throws: ``AltitudeReferenceError`` for a value that is not a finite number in a plausible range.
    public static func altitudeReference(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> AltitudeReferenceSetting? {
        if let text = environment["COREMOTION_SEA_LEVEL_PRESSURE"], !text.isEmpty {
            guard let kPa = Double(text.trimmingCharacters(in: .whitespaces)), kPa.isFinite, kPa > 80, kPa < 110 else {
                throw AltitudeReferenceError(variable: "COREMOTION_SEA_LEVEL_PRESSURE", value: text, reason: "must be a sea-level pressure in kPa between 80 and 110")
            }
            return .seaLevelPressure(kilopascals: kPa)
        }
        if let text = environment["COREMOTION_ALTITUDE"], !text.isEmpty {
            guard let metres = Double(text.trimmingCharacters(in: .whitespaces)), metres.isFinite, metres > -500, metres < 9000 else {
                throw AltitudeReferenceError(variable: "COREMOTION_ALTITUDE", value: text, reason: "must be an altitude in metres between -500 and 9000")
            }
            return .knownAltitude(metres: metres)
        }
        return nil
    }

    /// Whether absolute altitude is available; it follows the device:
    ///
    /// - without a barometer, never;
    /// - a device whose ``MotionDevice/model`` is an Apple model (a recording of an iPhone) has it as
    ///   that model does (``AbsoluteAltitudeSupport``: iPhone 12 and later, Apple Watch Series 6, SE and
    ///   later);
    /// - any other device (Linux hardware, the simulator, an Android recording) has it when it knows a
    ///   reference: location fixes with altitude, or `COREMOTION_SEA_LEVEL_PRESSURE` /
    ///   `COREMOTION_ALTITUDE`.
    public var isAbsoluteAltitudeAvailable: Bool {
        guard has(.barometer) else { return false }
        if let model = device.model, let supported = AbsoluteAltitudeSupport.supports(model: model) {
            return supported
        }
        return device.locationDescription?.hasAltitude == true || ((try? MotionService.altitudeReference()) ?? nil) != nil
    }

    /// The reference absolute altitude updates would use now: the device's GNSS fixes when it has
    /// some with altitude, otherwise the environment's; `.none` when absolute altitude is unavailable.
    func absoluteAltitudeReference() -> AltimeterEngine.Reference {
        guard isAbsoluteAltitudeAvailable else { return .none }
        if device.locationDescription?.hasAltitude == true { return .locationFixes }
        switch (try? MotionService.altitudeReference()) ?? nil {
        // A sea-level pressure from a weather report: ±0.1 kPa (about ±8 m).
        case .seaLevelPressure(let kPa)?: return .seaLevelPressure(kilopascals: kPa, uncertainty: 0.1)
        // A known altitude where updates start: ±1 m.
        case .knownAltitude(let metres)?: return .knownAltitude(metres: metres, accuracy: 1, time: clock.now)
        case nil: return .none
        }
    }

    /// Altitude updates from the barometer (one per barometer sample at the iPhone's cadence,
    /// stamped with the sample's time); `receive` runs under the service's lock. With `absolute`, the
    /// updates carry absolute altitude from ``absoluteAltitudeReference()`` (GNSS fixes fused with the
    /// barometer, or the environment's reference) once it is known. Each stream has its own zero (its first
    /// update). Returns `nil` without a barometer.
    public func subscribeAltitude(
        absolute: Bool, receive: @escaping @Sendable (AltitudeValue) -> Void
    ) -> (any MotionSubscription)? {
        guard has(.barometer) else { return nil }
        let reference = absolute ? absoluteAltitudeReference() : .none
        // The barometer runs at its fastest (interval 0): its period is known. A recording or scene
        // played faster keeps one update per recorded sample (the cadence scales with the speed).
        let speed = (device as? ScheduledDevice)?.speed ?? 1
        let configuration = AltimeterEngine.Configuration(
            updateInterval: AltimeterEngine.iPhoneUpdateInterval / speed, reference: reference,
            samplePeriod: sensorDescription(.barometer).map { 1 / $0.maximumRate })
        let client = AltimeterClient(configuration: configuration, receive: receive)
        if case .locationFixes = reference {
            // Fixes first: the last known one waits in the engine for the first barometer sample.
            client.attachLocation(subscribeLocation { [weak client] fix in client?.take(fix) })
        }
        let s = subscribe(to: .barometer, interval: 0, maximumLatency: 0, everySample: true) { [weak client] sample in client?.take(sample) }
        client.attach(s)
        return CancellableStream(interval: 0) { [self] in stopAltitudeUpdates(client) }
    }

    private func stopAltitudeUpdates(_ client: AltimeterClient) {
        if let s = client.attached { cancel(s) }
        if let l = client.attachedLocation { cancel(l) }
        client.attach(nil)
        client.attachLocation(nil)
    }
}

/// The configured reference for absolute altitude.
public enum AltitudeReferenceSetting: Sendable, Hashable {
    /// Today's sea-level pressure (QNH), kPa.
    case seaLevelPressure(kilopascals: Double)
    /// The altitude of the device when updates start, metres.
    case knownAltitude(metres: Double)
}

/// A `COREMOTION_SEA_LEVEL_PRESSURE` or `COREMOTION_ALTITUDE` value that cannot be used.
public struct AltitudeReferenceError: Error, Sendable, CustomStringConvertible {
    /// The variable it was given in.
    public var variable: String
    /// The value that was given.
    public var value: String
    /// What is wrong with it.
    public var reason: String

    public var description: String { "\(variable)=\"\(value)\": \(reason)" }
}
