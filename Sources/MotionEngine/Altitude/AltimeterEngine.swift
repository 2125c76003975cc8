import Foundation

/// One altimeter update, as `CMAltitudeData` (and `CMAbsoluteAltitudeData` when a reference is set).
public struct AltitudeUpdate: Sendable, Hashable, Codable {
    /// Time of the update, s (on the grid `start + n · updateInterval`).
    public var time: Double
    /// Altitude change since the first update, m (0 on the first update).
    public var relativeAltitude: Double
    /// Pressure of the newest sample at or before `time`, kPa (as measured, unsmoothed).
    public var pressure: Double
    /// Absolute altitude, when a reference is configured; `nil` means "unavailable".
    public var absolute: AbsoluteAltitude?
}

/// Altitude above mean sea level, as `CMAbsoluteAltitudeData`.
public struct AbsoluteAltitude: Sendable, Hashable, Codable {
    /// Altitude above sea level, m.
    public var altitude: Double
    /// Estimated uncertainty (1 σ), m.
    public var accuracy: Double
    /// Recommended display resolution, m.
    public var precision: Double
}

/// The engine behind `CMAltimeter`: relative altitude from pressure, and absolute altitude when a
/// reference is known. Pure: no threads, no I/O, no allocation per sample.
///
/// - **Formula**: ``BarometricFormula`` (ISA troposphere).
/// - **Noise**: altitude is smoothed by a one-pole low-pass (``Configuration/smoothingTime``, 1.5 s
///   by default: a few cm of noise left on an iPhone 13 barometer, 1.5 s of lag).
/// - **Cadence**: updates fall on a regular grid (``Configuration/updateInterval``, 1 s by default,
///   which is what an iPhone 13 delivers) starting at the first pressure sample, whether or not the
///   altitude changed; the first update has relative altitude 0 and is the reference.
///   ``advance(to:)`` produces the updates due when samples stop coming.
/// - **Weather drift**: when accelerometer samples are fed too, pressure change while the device lies
///   still (accelerometer deviation under 0.01 g for 10 s) *and* changes slowly (under 0.02 m/s,
///   weather is ≈ 0.0003 m/s, a lift 1–5 m/s) is absorbed: the relative altitude of a phone on a desk
///   does not wander with the weather. Changes while carried are kept.
/// - **Absolute altitude**: from the sea-level pressure (QNH) or from a known altitude at a known
///   time; accuracy (1 σ) combines the reference's own, 3 % of the height difference (ISA versus the
///   day's temperature), and 0.8 m per hour since the reference (typical weather drift of 0.1 hPa/h).
public struct AltimeterEngine: Sendable {
    /// Where absolute altitude comes from.
    public enum Reference: Sendable, Hashable, Codable {
        /// No reference: absolute altitude is unavailable.
        case none
        /// The sea-level pressure of the day (QNH), kPa, with its uncertainty (1 σ), kPa.
        case seaLevelPressure(kilopascals: Double, uncertainty: Double)
        /// A known altitude (m, 1 σ m) at a known time (s on the samples' clock).
        case knownAltitude(metres: Double, accuracy: Double, time: Double)
    }

    public struct Configuration: Sendable, Hashable, Codable {
        /// Interval between updates, s.
        public var updateInterval: Double = 1
        /// Time constant of the altitude smoothing, s.
        public var smoothingTime: Double = 1.5
        /// Absolute altitude reference.
        public var reference: Reference = .none
        public init(updateInterval: Double = 1, smoothingTime: Double = 1.5, reference: Reference = .none) {
            self.updateInterval = updateInterval.isFinite && updateInterval > 0 ? updateInterval : 1
            self.smoothingTime = smoothingTime.isFinite && smoothingTime >= 0 ? smoothingTime : 1.5
            self.reference = reference
        }
    }

    public private(set) var configuration: Configuration
    private var updates: FixedRing<AltitudeUpdate>
    /// Updates dropped because ``nextUpdate()`` was not called often enough (the queue holds 256).
    public private(set) var droppedUpdates = 0
    /// Barometer samples ignored (not finite, not positive, or not later than the previous one).
    public private(set) var rejectedSamples = 0

    private var lastTime = -Double.infinity
    private var lastPressure = 0.0
    private var smoothed: Double?          // ISA altitude for p0 = standard, m
    private var firstUpdateAltitude: Double?
    private var gridStart: Double?
    private var gridIndex = 0
    private var driftOffset = 0.0
    private var noiseVariance = 0.0
    // Stillness from the accelerometer.
    private var accelMean = 1.0
    private var accelVariance = 1.0
    private var lastAccelTime = -Double.infinity
    private var stillSince: Double?
    private var rateSmoothed = 0.0
    // Absolute reference resolved to a pressure-altitude offset.
    private var knownOffset: (offset: Double, accuracy: Double, time: Double, altitude: Double)?

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        updates = FixedRing(capacity: 256, filler: AltitudeUpdate(time: 0, relativeAltitude: 0, pressure: 0, absolute: nil))
    }

    /// Changes the absolute reference (e.g. when the service learns the QNH or a GPS altitude).
    public mutating func setReference(_ reference: Reference) {
        configuration.reference = reference
        knownOffset = nil
    }

    /// Feeds a barometer sample (kPa) or an accelerometer sample (g, for the drift rule); other
    /// samples are ignored.
    public mutating func add(_ sample: SensorSample) {
        switch sample {
        case .barometer(let p): addPressure(time: p.time, kilopascals: p.kilopascals)
        case .accelerometer(let v): addAcceleration(time: v.time, value: v.value)
        default: break
        }
    }

    /// Emits the updates due up to `time` s using the newest pressure (for a silent sensor).
    public mutating func advance(to time: Double) {
        emitUpdates(upTo: time)
    }

    /// The next update, oldest first, or `nil`.
    public mutating func nextUpdate() -> AltitudeUpdate? { updates.popFirst() }

    /// The current relative altitude, m, or `nil` before the first update.
    public var relativeAltitude: Double? {
        guard let s = smoothed, let f = firstUpdateAltitude else { return nil }
        return s - f - driftOffset
    }

    // MARK: - Internals

    private mutating func addAcceleration(time: Double, value: Vector3) {
        guard time.isFinite, time > lastAccelTime, value.x.isFinite, value.y.isFinite, value.z.isFinite else { return }
        let dt = lastAccelTime.isFinite ? min(time - lastAccelTime, 1) : 0.01
        lastAccelTime = time
        let m = value.norm
        let alpha = 1 - exp(-dt / 2)
        let d = m - accelMean
        accelMean += alpha * d
        accelVariance += alpha * (d * d - accelVariance)
        if accelVariance.squareRoot() < 0.01 {
            if stillSince == nil { stillSince = time }
        } else {
            stillSince = nil
        }
    }

    private mutating func addPressure(time: Double, kilopascals: Double) {
        guard time.isFinite, kilopascals.isFinite, kilopascals > 0, time > lastTime else {
            rejectedSamples += 1
            return
        }
        // Updates due before this sample use the previous pressure.
        if gridStart != nil { emitUpdates(upTo: time - 1e-9) }
        let h = BarometricFormula.altitude(pressure: kilopascals)
        if let s = smoothed, lastTime.isFinite {
            let dt = time - lastTime
            let alpha = configuration.smoothingTime > 0 ? 1 - exp(-dt / configuration.smoothingTime) : 1
            let next = s + (h - s) * alpha
            let rate = (next - s) / max(dt, 1e-3)
            rateSmoothed += min(1, dt / 10) * (rate - rateSmoothed)
            noiseVariance += min(1, dt / 30) * ((h - next) * (h - next) - noiseVariance)
            if let since = stillSince, lastAccelTime - since >= 10, abs(rateSmoothed) < 0.02 {
                driftOffset += next - s
            }
            smoothed = next
        } else {
            smoothed = h
            gridStart = time
            gridIndex = 0
        }
        lastTime = time
        lastPressure = kilopascals
        emitUpdates(upTo: time)
    }

    private mutating func emitUpdates(upTo time: Double) {
        guard let start = gridStart, let s = smoothed else { return }
        while true {
            let t = start + Double(gridIndex) * configuration.updateInterval
            guard t <= time else { break }
            gridIndex += 1
            if firstUpdateAltitude == nil { firstUpdateAltitude = s - driftOffset }
            let relative = s - driftOffset - (firstUpdateAltitude ?? s)
            let update = AltitudeUpdate(time: t, relativeAltitude: relative, pressure: lastPressure,
                                        absolute: absolute(at: t, smoothedAltitude: s))
            if updates.count == updates.capacity { droppedUpdates += 1 }
            updates.append(update)
        }
    }

    private mutating func absolute(at time: Double, smoothedAltitude s: Double) -> AbsoluteAltitude? {
        let precision = max(0.1, 2 * noiseVariance.squareRoot() / 3)
        switch configuration.reference {
        case .none:
            return nil
        case .seaLevelPressure(let qnh, let uncertainty):
            guard qnh.isFinite, qnh > 0 else { return nil }
            let p = BarometricFormula.pressure(altitude: s)   // smoothed pressure, kPa
            let h = BarometricFormula.altitude(pressure: p, seaLevel: qnh)
            let fromQNH = uncertainty * BarometricFormula.metresPerKilopascal(near: p)
            let accuracy = (fromQNH * fromQNH + (0.03 * h) * (0.03 * h) + 0.3 * 0.3).squareRoot()
            return AbsoluteAltitude(altitude: h, accuracy: accuracy, precision: precision)
        case .knownAltitude(let metres, let accuracy, let refTime):
            guard metres.isFinite, accuracy.isFinite else { return nil }
            if knownOffset == nil {
                guard time >= refTime else { return nil }
                knownOffset = (metres - s, accuracy, refTime, metres)
            }
            guard let k = knownOffset else { return nil }
            let h = s + k.offset
            let hours = max(0, time - k.time) / 3600
            let sigma = (k.accuracy * k.accuracy + (0.03 * (h - k.altitude)) * (0.03 * (h - k.altitude))
                         + (0.8 * hours) * (0.8 * hours)).squareRoot()
            return AbsoluteAltitude(altitude: h, accuracy: sigma, precision: precision)
        }
    }
}
