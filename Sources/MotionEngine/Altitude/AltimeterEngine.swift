import Foundation

/// One altimeter update, as `CMAltitudeData` (and `CMAbsoluteAltitudeData` when a reference is set).
public struct AltitudeUpdate: Sendable, Hashable, Codable {
    /// Time of the update, s: the time of the barometer sample it was made at (`CMLogItem.timestamp`,
    /// when the measurement was taken).
    public var time: Double
    /// Altitude change since the first update, m (0 on the first update).
    public var relativeAltitude: Double
    /// Pressure at ``time``, kPa: the sample's own when the barometer runs at the update cadence,
    /// otherwise the window's line fit at ``time`` (``relativeAltitude`` is always this pressure's altitude).
    public var pressure: Double
    /// Absolute altitude, when a reference is configured and known; `nil` means "unavailable".
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
/// - **Cadence and timestamps**: every update is made at a barometer sample and carries that sample's
///   time. A barometer at or below the update cadence (an iPhone's, about one sample per 1.06 s, or
///   the simulator's 1 Hz) gives one update per sample; a faster one gives one update every
///   `round(updateInterval / sample period)` samples (``Configuration/samplePeriod``, or the period
///   measured as the samples come). The first update has relative altitude 0 and is the reference:
///   the first sample, or for a faster barometer with a known period the end of the first window.
///   No sample, no update.
/// - **No lag**: the relative altitude of an update is the altitude of the pressure at its own
///   timestamp: the sample's pressure (as an iPhone reports it: its `relativeAltitude` is the
///   altitude of the `pressure` of the same update, to 3 mm on the iPhone 13 walk), or, for a faster
///   barometer, the least-squares line through the samples of the last two update windows evaluated
///   at the update's sample, which is unbiased on a steady climb. The vertical speed an app computes
///   from two consecutive updates is therefore not delayed (docs/altimeter.md has the measured lag).
/// - **Weather drift**: when accelerometer samples are fed too, pressure change while the device lies
///   still (accelerometer deviation under 0.01 g for 10 s) *and* changes slowly (under 0.02 m/s,
///   weather is ≈ 0.0003 m/s, a lift 1–5 m/s; judged on an internal 1.5 s low-pass of the altitude)
///   is absorbed: the relative altitude of a phone on a desk does not wander with the weather.
/// - **Absolute altitude**: from the sea-level pressure (QNH), from a known altitude at a known time,
///   or from GNSS fixes fused with the barometer (``AltitudeFusion``; fixes come through
///   `add(_:)` with a `TimedLocation`). Precision: max(0.1 m, ⅔ · 2σ of the barometer's altitude noise).
public struct AltimeterEngine: Sendable {
    /// Where absolute altitude comes from.
    public enum Reference: Sendable, Hashable, Codable {
        /// No reference: absolute altitude is unavailable.
        case none
        /// The sea-level pressure of the day (QNH), kPa, with its uncertainty (1 σ), kPa.
        case seaLevelPressure(kilopascals: Double, uncertainty: Double)
        /// A known altitude (m, 1 σ m) at a known time (s on the samples' clock).
        case knownAltitude(metres: Double, accuracy: Double, time: Double)
        /// GNSS fixes (altitude above mean sea level with a vertical accuracy), fed with
        /// `AltimeterEngine.add(_:)` with a `TimedLocation` and fused with the barometer (``AltitudeFusion``):
        /// unavailable until the first fix.
        case locationFixes
    }

    /// The interval between an iPhone 13's altimeter updates, s: median of the 84 intervals of the
    /// iPhone 13 walk in the shared data (Sensor Logger's `Barometer.csv`, which are `CMAltitudeData`).
    public static let iPhoneUpdateInterval = 1.0628

    /// How the altimeter reports: the update interval, the absolute reference and the barometer's
    /// period.
    public struct Configuration: Sendable, Hashable, Codable {
        /// Interval between updates for a barometer faster than that, s (a slower barometer gives one
        /// update per sample).
        public var updateInterval: Double = AltimeterEngine.iPhoneUpdateInterval
        /// Absolute altitude reference.
        public var reference: Reference = .none
        /// The barometer's nominal sample period, s, when known (the service gives the device's); `nil`
        /// measures it from the samples (then the first update is always the first sample).
        public var samplePeriod: Double?
        /// An iPhone's update interval, no absolute reference and a measured sample period unless given;
        /// an interval that is not a positive number means the iPhone's.
        public init(updateInterval: Double = AltimeterEngine.iPhoneUpdateInterval, reference: Reference = .none, samplePeriod: Double? = nil) {
            self.updateInterval = updateInterval.isFinite && updateInterval > 0 ? updateInterval : AltimeterEngine.iPhoneUpdateInterval
            self.reference = reference
            self.samplePeriod = samplePeriod.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        }
    }

    /// Time constant of the internal low-pass the drift rule and the noise estimate look at, s.
    static let driftSmoothingTime = 1.5

    /// The configuration in effect.
    public private(set) var configuration: Configuration
    private var updates: FixedRing<AltitudeUpdate>
    /// Updates dropped because ``nextUpdate()`` was not called often enough (the queue holds 256).
    public private(set) var droppedUpdates = 0
    /// Barometer samples ignored (not finite, not positive, or not later than the previous one).
    public private(set) var rejectedSamples = 0
    /// Location fixes ignored (no usable altitude, not finite, or the queue of fixes waiting for the
    /// barometer was full).
    public private(set) var rejectedFixes = 0

    private var lastTime = -Double.infinity
    /// Measured sample period, s (exponential average of the intervals).
    private var period: Double?
    // The samples since the last update (a window), for a barometer faster than the cadence:
    // sums for a least-squares line of altitude on time, relative to the window's first sample;
    // and the previous window's, relative to its own first sample.
    private var window = LineSums()
    private var previousWindow = LineSums()
    /// Altitude level (pressure altitude less the drift) of the first update, m.
    private var firstLevel: Double?
    private var lastRelative: Double?
    // Drift rule and noise, on an internal low-pass of the pressure altitude.
    private var smoothed: Double?
    private var driftOffset = 0.0
    private var noiseVariance = 0.0
    private var rateSmoothed = 0.0
    // Stillness from the accelerometer.
    private var accelMean = 1.0
    private var accelVariance = 1.0
    private var lastAccelTime = -Double.infinity
    private var stillSince: Double?
    // Absolute reference.
    private var knownOffset: (offset: Double, accuracy: Double, time: Double, altitude: Double)?
    private var fusion = AltitudeFusion()
    /// Recent (time s, pressure altitude m) samples, to place fixes on the barometer's time axis.
    private var recent: FixedRing<TimedScalar>
    /// Fixes newer than the newest barometer sample, waiting for it.
    private var waitingFixes: FixedRing<TimedLocation>

    /// An engine before the first barometer sample.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        period = configuration.samplePeriod
        updates = FixedRing(capacity: 256, filler: AltitudeUpdate(time: 0, relativeAltitude: 0, pressure: 0, absolute: nil))
        recent = FixedRing(capacity: 64, filler: TimedScalar(time: 0, value: 0))
        waitingFixes = FixedRing(capacity: 16, filler: TimedLocation(time: 0, latitude: 0, longitude: 0))
    }

    /// Changes the absolute reference (e.g. when the service learns the QNH); a new reference starts
    /// over (GNSS fusion forgets its fixes).
    public mutating func setReference(_ reference: Reference) {
        configuration.reference = reference
        knownOffset = nil
        fusion = AltitudeFusion()
        waitingFixes.removeAll()
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

    /// Feeds a location fix (with reference ``Reference/locationFixes``; ignored otherwise). A fix is
    /// fused at its own time, against the barometer's altitude then (interpolated between samples, or
    /// waiting for the next sample when it is newer than the newest), so fixes may come late or early.
    public mutating func add(_ fix: TimedLocation) {
        guard case .locationFixes = configuration.reference else { return }
        guard fix.time.isFinite, fix.fusableAltitude != nil else {
            rejectedFixes += 1
            return
        }
        if let newest = recent.last, fix.time <= newest.time {
            fuse(fix)
        } else {
            if waitingFixes.count == waitingFixes.capacity { rejectedFixes += 1 }
            waitingFixes.append(fix)
        }
    }

    /// The next update, oldest first, or `nil`.
    public mutating func nextUpdate() -> AltitudeUpdate? { updates.popFirst() }

    /// The relative altitude of the last update, m, or `nil` before the first update.
    public var relativeAltitude: Double? { lastRelative }

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
        let h = BarometricFormula.altitude(pressure: kilopascals)
        if let s = smoothed, lastTime.isFinite {
            let dt = time - lastTime
            if configuration.samplePeriod == nil { period = period.map { $0 + 0.2 * (dt - $0) } ?? dt }
            let alpha = 1 - exp(-dt / Self.driftSmoothingTime)
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
        }
        lastTime = time
        recent.append(TimedScalar(time: time, value: h))
        // Fixes up to this sample are fused first, so that this update sees them.
        while let fix = waitingFixes.first, fix.time <= time {
            _ = waitingFixes.popFirst()
            fuse(fix)
        }

        // The window of samples since the last update.
        window.add(time: time, altitude: h)
        let samplesPerUpdate = period.map { max(1, Int(min(1e6, (configuration.updateInterval / $0).rounded()))) } ?? 1
        // The first update: at the first sample, unless a known period says the barometer is faster
        // than the cadence (then at the end of the first window, like every other update).
        let due = firstLevel == nil && configuration.samplePeriod == nil ? 1 : samplesPerUpdate
        guard window.count >= due else { return }

        var altitude = h
        var pressure = kilopascals
        if samplesPerUpdate > 1 {
            // Least-squares line through this window and the previous one, at this sample: no lag on
            // a steady climb, and less noise than one window's line.
            var both = window
            both.merge(previousWindow)
            if both.count >= 3, let fitted = both.value(at: time) {
                altitude = fitted
                pressure = BarometricFormula.pressure(altitude: altitude)
            }
        }
        previousWindow = window
        window = LineSums()
        emit(time: time, altitude: altitude, pressure: pressure)
    }

    private mutating func emit(time: Double, altitude: Double, pressure: Double) {
        let level = altitude - driftOffset
        if firstLevel == nil { firstLevel = level }
        let relative = level - (firstLevel ?? level)
        lastRelative = relative
        let update = AltitudeUpdate(time: time, relativeAltitude: relative, pressure: pressure,
                                    absolute: absolute(at: time, altitude: altitude, pressure: pressure))
        if updates.count == updates.capacity { droppedUpdates += 1 }
        updates.append(update)
    }

    /// Sums for a least-squares line of altitude on time, relative to the first sample's time and
    /// altitude (for conditioning).
    struct LineSums: Sendable {
        var count = 0
        var time0 = 0.0, altitude0 = 0.0
        var t = 0.0, h = 0.0, tt = 0.0, th = 0.0

        mutating func add(time: Double, altitude: Double) {
            if count == 0 { time0 = time; altitude0 = altitude }
            let x = time - time0, y = altitude - altitude0
            count += 1
            t += x; h += y; tt += x * x; th += x * y
        }

        /// Adds `other`'s samples (re-expressed relative to this one's origin).
        mutating func merge(_ other: LineSums) {
            guard other.count > 0 else { return }
            guard count > 0 else { self = other; return }
            let d = other.time0 - time0, e = other.altitude0 - altitude0, n = Double(other.count)
            t += other.t + n * d
            h += other.h + n * e
            tt += other.tt + 2 * d * other.t + n * d * d
            th += other.th + e * other.t + d * other.h + n * d * e
            count += other.count
        }

        /// The line's altitude at `time`, m; `nil` when the times do not determine a line.
        func value(at time: Double) -> Double? {
            let n = Double(count)
            let denominator = n * tt - t * t
            guard count >= 2, denominator > 1e-12 * max(1, n * tt) else { return nil }
            let slope = (n * th - t * h) / denominator
            return altitude0 + h / n + slope * (time - time0 - t / n)
        }
    }

    /// Fuses a fix against the barometer's altitude at its time.
    private mutating func fuse(_ fix: TimedLocation) {
        guard let (z, accuracy) = fix.fusableAltitude, let h = pressureAltitude(at: fix.time) else { return }
        fusion.add(time: fix.time, altitude: z, accuracy: accuracy, pressureAltitude: h)
    }

    /// The pressure altitude at `time` from the recent samples: interpolated between the two around
    /// it, the oldest kept before them, the newest after them.
    private func pressureAltitude(at time: Double) -> Double? {
        guard let newest = recent.last, let oldest = recent.first else { return nil }
        if time >= newest.time { return newest.value }
        if time <= oldest.time { return oldest.value }
        var i = recent.count - 1
        while i > 0 && recent[i - 1].time > time { i -= 1 }
        let a = recent[i - 1], b = recent[i]
        let f = b.time > a.time ? (time - a.time) / (b.time - a.time) : 1
        return a.value + f * (b.value - a.value)
    }

    private mutating func absolute(at time: Double, altitude h: Double, pressure p: Double) -> AbsoluteAltitude? {
        let precision = max(0.1, 2 * noiseVariance.squareRoot() / 3)
        switch configuration.reference {
        case .none:
            return nil
        case .seaLevelPressure(let qnh, let uncertainty):
            guard qnh.isFinite, qnh > 0 else { return nil }
            let altitude = BarometricFormula.altitude(pressure: p, seaLevel: qnh)
            let fromQNH = uncertainty * BarometricFormula.metresPerKilopascal(near: p)
            let accuracy = (fromQNH * fromQNH + (0.03 * altitude) * (0.03 * altitude) + 0.3 * 0.3).squareRoot()
            return AbsoluteAltitude(altitude: altitude, accuracy: accuracy, precision: precision)
        case .knownAltitude(let metres, let accuracy, let refTime):
            guard metres.isFinite, accuracy.isFinite else { return nil }
            if knownOffset == nil {
                guard time >= refTime else { return nil }
                knownOffset = (metres - h, accuracy, refTime, metres)
            }
            guard let k = knownOffset else { return nil }
            let altitude = h + k.offset
            let hours = max(0, time - k.time) / 3600
            let sigma = (k.accuracy * k.accuracy + (0.03 * (altitude - k.altitude)) * (0.03 * (altitude - k.altitude))
                         + (0.8 * hours) * (0.8 * hours)).squareRoot()
            return AbsoluteAltitude(altitude: altitude, accuracy: sigma, precision: precision)
        case .locationFixes:
            guard let estimate = fusion.estimate(at: time, pressureAltitude: h) else { return nil }
            return AbsoluteAltitude(altitude: estimate.altitude, accuracy: estimate.accuracy, precision: precision)
        }
    }
}
