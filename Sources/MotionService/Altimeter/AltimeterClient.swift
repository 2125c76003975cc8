import Foundation
import MotionEngine

/// A relative/absolute altitude stream for one client: its own altimeter engine fed by the barometer,
/// so that each client's first update is its own zero.
public final class AltimeterClient: @unchecked Sendable {
    private var engine: AltimeterEngine
    private var subscription: SensorSubscription?
    let receive: @Sendable (AltitudeValue) -> Void

    init(reference: AltimeterEngine.Reference, receive: @escaping @Sendable (AltitudeValue) -> Void) {
        engine = AltimeterEngine(configuration: .init(reference: reference))
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

    fileprivate func attach(_ s: SensorSubscription?) { subscription = s }
    fileprivate var attached: SensorSubscription? { subscription }
}

extension MotionService {
    /// The reference for absolute altitude from the environment: `COREMOTION_SEA_LEVEL_PRESSURE=kPa`
    /// (today's sea-level pressure, e.g. from a weather report) or `COREMOTION_ALTITUDE=metres` (the
    /// altitude where the device is when updates start). `nil` when neither is set.
    ///
    /// - Throws: ``DeviceSpecificationError`` for a value that is not a finite number in a plausible range.
    public static func altitudeReference(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> AltitudeReferenceSetting? {
        if let text = environment["COREMOTION_SEA_LEVEL_PRESSURE"], !text.isEmpty {
            guard let kPa = Double(text.trimmingCharacters(in: .whitespaces)), kPa.isFinite, kPa > 80, kPa < 110 else {
                throw DeviceSpecificationError(value: text, reason: "COREMOTION_SEA_LEVEL_PRESSURE must be a sea-level pressure in kPa between 80 and 110")
            }
            return .seaLevelPressure(kilopascals: kPa)
        }
        if let text = environment["COREMOTION_ALTITUDE"], !text.isEmpty {
            guard let metres = Double(text.trimmingCharacters(in: .whitespaces)), metres.isFinite, metres > -500, metres < 9000 else {
                throw DeviceSpecificationError(value: text, reason: "COREMOTION_ALTITUDE must be an altitude in metres between -500 and 9000")
            }
            return .knownAltitude(metres: metres)
        }
        return nil
    }

    /// Whether absolute altitude is available: a barometer and a configured reference.
    public var isAbsoluteAltitudeAvailable: Bool {
        has(.barometer) && ((try? MotionService.altitudeReference()) ?? nil) != nil
    }

    /// Starts altitude updates from the barometer; `receive` runs under the service's lock. Returns `nil`
    /// without a barometer.
    public func startAltitudeUpdates(
        absolute: Bool, receive: @escaping @Sendable (AltitudeValue) -> Void
    ) -> AltimeterClient? {
        guard has(.barometer) else { return nil }
        var reference = AltimeterEngine.Reference.none
        if absolute, let setting = (try? MotionService.altitudeReference()) ?? nil {
            switch setting {
            // A sea-level pressure from a weather report: ±0.1 kPa (about ±8 m).
            case .seaLevelPressure(let kPa): reference = .seaLevelPressure(kilopascals: kPa, uncertainty: 0.1)
            // A known altitude where updates start: ±1 m.
            case .knownAltitude(let metres): reference = .knownAltitude(metres: metres, accuracy: 1, time: clock.now)
            }
        }
        let client = AltimeterClient(reference: reference, receive: receive)
        let s = subscribe(to: .barometer, interval: 0) { [weak client] sample in client?.take(sample) }
        client.attach(s)
        return client
    }

    /// Stops altitude updates.
    public func stopAltitudeUpdates(_ client: AltimeterClient) {
        if let s = client.attached { cancel(s) }
        client.attach(nil)
    }
}

/// The configured reference for absolute altitude.
public enum AltitudeReferenceSetting: Sendable, Hashable {
    /// Today's sea-level pressure (QNH), kPa.
    case seaLevelPressure(kilopascals: Double)
    /// The altitude of the device when updates start, metres.
    case knownAltitude(metres: Double)
}
