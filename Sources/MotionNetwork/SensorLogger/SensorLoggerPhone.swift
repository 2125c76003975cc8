import Foundation
import MotionRecordings
import MotionSamples

/// What the server answers one push (an HTTP status and a text for the phone).
public struct SensorLoggerReply: Sendable, Hashable {
    /// 200 accepted (also duplicates), 400 malformed, 401 missing or wrong token, 413 too large, 499 a
    /// message for the user (Sensor Logger shows its text once per recording).
    public var status: Int
    /// The text, shown by Sensor Logger for a 499.
    public var text: String

    /// A reply of `status` saying `text`.
    public init(status: Int, text: String) {
        self.status = status
        self.text = text
    }

    /// 200 "ok".
    public static let ok = SensorLoggerReply(status: 200, text: "ok")
    /// A push taken but whose readings were left out: its time is far from the phone's clock (``PhoneClock``).
    public static let heldByClock = SensorLoggerReply(status: 200, text: "ok (readings left out: their time is far from this phone's clock)")
}

/// One phone (one `deviceId`) pushing to a Sensor Logger server: its convention, clock, duplicates,
/// the conversion of its readings, and its ``LiveDevice``.
///
/// Readings become (NETWORK.md §1, conventions in `SensorLoggerConvention`):
///
/// | reading | becomes |
/// |---|---|
/// | `accelerometeruncalibrated` (else `totalacceleration`, else `gravity` + `accelerometer` of the same instant) | the raw accelerometer, g |
/// | `gyroscopeuncalibrated` (else `gyroscope`) | the raw gyroscope, rad/s |
/// | `magnetometeruncalibrated` (else `magnetometer`) | the raw magnetometer, µT |
/// | `barometer` `pressure` | the barometer, kPa (hPa ÷ 10) |
/// | `location` | location fixes (altitude above mean sea level when sent, vertical accuracy) |
/// | `headphone` | ``HeadphoneMotionSample`` (``LiveDevice/subscribeHeadphone(_:)``) |
/// | `orientation`, `gravity`, `accelerometer`, `gyroscope`, `magnetometer`, `compass`, `pedometer`, `barometer` `relativeAltitude`, `activity` | reference data (``referenceData(from:to:)``), never delivered as results |
///
/// The source of each raw sensor is chosen by the first message that has one (the uncalibrated reading
/// when present) and kept for the recording, so two sources never interleave.
public final class SensorLoggerPhone: @unchecked Sendable {  // @unchecked: all ingest state (`clock`, `detector`, `summary`, seen ids, `rawSources`) is guarded by `lock`
    /// The phone's `deviceId`.
    public let deviceId: String
    /// Its live device (the ``MotionSamples/MotionDevice`` an app may use).
    public let device: LiveDevice
    /// A convention forced by the receiver (`&platform=`), else decided from the data.
    public let platformOverride: SensorLoggerPlatform?
    /// Most distinct reading names counted in ``Summary/readingCounts`` (the rest under "(other names)").
    public static let maximumReadingNames = 64

    private let lock = NSLock()
    private var clock = PhoneClock()
    private var detector = SensorLoggerConventionDetector()
    private var sessionId: String?
    private var seenMessages = Set<Int64>()
    private var seenOrder: [Int64] = []
    private var rawSources = SensorLoggerRawSources()
    private var readingNames: [String: Int] = [:]
    private var summary: Summary
    private var undecidedMessages = 0

    /// What a phone did, for listings (`coremotion devices --network`).
    public struct Summary: Sendable, Hashable {
        /// The phone's `deviceId`.
        public var deviceId: String
        /// The recording now (its `sessionId`).
        public var sessionId: String?
        /// The study's `userId`, if any.
        public var userId: String?
        /// Messages taken (duplicates aside).
        public var messages = 0
        /// Messages dropped as duplicates (a `messageId` seen in the recording).
        public var duplicates = 0
        /// Readings in the messages taken.
        public var readings = 0
        /// Readings left out: incomplete values, a time before 1970, accelerations while the convention is undecided.
        public var skippedReadings = 0
        /// Reading names and how many of each.
        public var readingCounts: [String: Int] = [:]
        /// The convention in force and why, once decided.
        public var decision: SensorLoggerConventionDecision?
        /// The source chosen for each raw sensor (the reading's name).
        public var sources: [String: String] = [:]
        /// The last push, on the device's clock.
        public var lastArrival: TimeInterval?
        /// How often the phone clock's offset was stepped (a new estimate taken at once).
        public var clockSteps = 0
        /// Messages whose time was far from this phone's clock (a spoofed or garbled time, or the first
        /// messages after the phone's clock was set) and whose readings were left out.
        public var clockRejections = 0
    }

    init(deviceId: String, device: LiveDevice, platform: SensorLoggerPlatform?) {
        self.deviceId = deviceId
        self.device = device
        self.platformOverride = platform
        self.summary = Summary(deviceId: deviceId)
        if let platform {
            summary.decision = SensorLoggerConventionDecision(convention: platform.convention, platform: platform, reason: "set by the receiver (&platform=\(platform))")
        }
    }

    /// The current summary.
    public var currentSummary: Summary {
        lock.lock()
        defer { lock.unlock() }
        var s = summary
        s.readingCounts = readingNames
        s.clockSteps = clock.steps
        s.clockRejections = clock.rejections
        return s
    }

    /// The convention in force, if decided.
    public var decision: SensorLoggerConventionDecision? {
        lock.lock()
        defer { lock.unlock() }
        return summary.decision
    }

    /// Apple's outputs the phone sent, times on the device's clock, between `from` and `to` (inclusive):
    /// ``LiveDevice/referenceData(from:to:)`` of its device.
    public func referenceData(from: TimeInterval = -.infinity, to: TimeInterval = .infinity) -> ReferenceData {
        device.referenceData(from: from, to: to)
    }

    // MARK: Ingest

    /// Takes one decoded message that arrived at `arrival` (device clock); returns the reply.
    func ingest(_ message: SensorLoggerMessage, arrival: TimeInterval) -> SensorLoggerReply {
        lock.lock()
        summary.lastArrival = arrival
        if let userId = message.userId { summary.userId = userId }
        // A new recording starts over: convention, clock, sources, duplicates.
        if let session = message.sessionId, session != sessionId {
            if sessionId != nil {
                detector = SensorLoggerConventionDetector()
                if platformOverride == nil { summary.decision = nil }
                clock.reset()
                rawSources = SensorLoggerRawSources()
                seenMessages = []
                seenOrder = []
                undecidedMessages = 0
            }
            sessionId = session
            summary.sessionId = session
        }
        // Duplicates by messageId (the last 4,096 ids seen in the recording). An id far below the highest is
        // not refused as such: one spoofed push with a huge messageId would otherwise make every later push
        // of the real phone a "duplicate"; a genuinely old retransmission is late for the clock and the
        // jitter buffer instead.
        if let id = message.messageId {
            if seenMessages.contains(id) {
                summary.duplicates += 1
                lock.unlock()
                return .ok
            }
            seenMessages.insert(id)
            seenOrder.append(id)
            if seenOrder.count > 4096 { seenMessages.remove(seenOrder.removeFirst()) }
        }
        summary.messages += 1
        summary.readings += message.readings.count
        for r in message.readings {
            // At most 64 distinct names (Sensor Logger has about 30): a peer's made-up names share one entry.
            let name = r.sensor.name
            if readingNames[name] != nil || readingNames.count < Self.maximumReadingNames {
                readingNames[name, default: 0] += 1
            } else {
                readingNames["(other names)", default: 0] += 1
            }
        }

        if platformOverride == nil, summary.decision == nil, let decision = detector.observe(message) {
            summary.decision = decision
        }
        let decision = summary.decision
        // The phone's clock: the newest reading of the message waited least.
        var newest: Int64?
        for r in message.readings where r.time > 0 && r.sensor != .test { newest = max(newest ?? r.time, r.time) }
        guard let newest else {
            lock.unlock()
            return .ok  // the test push, or nothing timed
        }
        guard clock.observe(newestSample: newest, arrival: arrival, mayStepBack: !device.hasDelivered) else {
            // Far from this phone's clock: one such message (a spoof with the phone's deviceId) must not move
            // it, nor place readings at a time the clock does not vouch for.
            summary.skippedReadings += message.readings.count
            lock.unlock()
            return .heldByClock
        }
        chooseSources(message)
        var reference = ReferenceData()
        var items: [LiveItem] = []
        items.reserveCapacity(message.readings.count)
        var pairs: [Int64: (gravity: Vector3?, user: Vector3?)] = [:]
        var undecided = 0
        var skipped = 0
        for (index, r) in message.readings.enumerated() {
            guard r.time > 0, let t = clock.hostTime(r.time) else { skipped += 1; continue }
            switch r.sensor {
            case .accelerometerUncalibrated, .totalAcceleration, .accelerometer, .gravity,
                 .gyroscopeUncalibrated, .gyroscope, .magnetometerUncalibrated, .magnetometer:
                switch rawSources.convert(r, in: message, time: t, decision: decision) {
                case .malformed:
                    skipped += 1
                    continue
                case .undecided:
                    undecided += 1
                    continue
                case .sample(let sample):
                    items.append(.sample(sample))
                case .motionPart(let g):
                    let pairing = rawSources.accelerometer == .gravity
                    if r.sensor == .gravity {
                        reference.gravity.append(TimedVector(time: t, value: g))
                        if pairing { pairs[r.time, default: (nil, nil)].gravity = g }
                    } else {
                        reference.userAcceleration.append(TimedVector(time: t, value: g))
                        if pairing { pairs[r.time, default: (nil, nil)].user = g }
                    }
                case .notSource, .other:
                    break
                }
                // Reference data: the calibrated readings as the phone sent them.
                if r.sensor == .gyroscope, let v = message.vector(in: r) { reference.rotationRate.append(TimedVector(time: t, value: v)) }
                if r.sensor == .magnetometer, let v = message.vector(in: r) { reference.calibratedMagneticField.append(TimedVector(time: t, value: v)) }
            case .barometer:
                if case .sample(let sample) = rawSources.convert(r, in: message, time: t, decision: decision) { items.append(.sample(sample)) }
                if let h = message.number(.relativeAltitude, in: r), h.isFinite { reference.relativeAltitude.append(TimedScalar(time: t, value: h)) }
            case .orientation:
                guard let w = message.number(.qw, in: r), let v = message.vector(.qx, .qy, .qz, in: r), w.isFinite else { skipped += 1; continue }
                guard let decision else { continue }
                let q = Quaternion(w: w, x: v.x, y: v.y, z: v.z)
                let mapped = decision.orientationIsAndroid ? AndroidConventions.appleAttitude(fromENU: q) : q
                reference.attitude.append(TimedQuaternion(time: t, value: mapped))
            case .compass:
                if let b = message.number(.magneticBearing, in: r), b.isFinite { reference.heading.append(TimedScalar(time: t, value: b)) }
            case .pedometer:
                if let s = message.number(.steps, in: r), s.isFinite { reference.cumulativeSteps.append(TimedScalar(time: t, value: s)) }
            case .activity:
                if let label = message.string(.activity, inReadingAt: index), label.utf8.count <= PhoneSampleLimits.labelBytes {
                    reference.activity.append(TimedLabel(time: t, label: label))
                } else {
                    skipped += 1
                }
            case .location:
                guard let lat = message.number(.latitude, in: r), let lon = message.number(.longitude, in: r) else { skipped += 1; continue }
                let msl = message.number(.altitudeAboveMeanSeaLevel, in: r)
                let vertical = message.number(.verticalAccuracy, in: r).flatMap { $0 > 0 ? $0 : nil }
                let ellipsoidal = message.number(.altitude, in: r)
                items.append(.location(TimedLocation(
                    time: t, latitude: lat, longitude: lon, altitude: msl, verticalAccuracy: vertical,
                    ellipsoidalAltitude: ellipsoidal)))
            case .headphone:
                if let h = headphone(message, r, time: t, decision: decision) { items.append(.headphone(h)) } else { skipped += 1 }
            default:
                break
            }
        }
        for (time, pair) in pairs {
            // Apple: the raw sample of that instant is gravity + user acceleration.
            guard let g = pair.gravity, let u = pair.user, let t = clock.hostTime(time) else { continue }
            items.append(.sample(.accelerometer(TimedVector(time: t, value: SensorLoggerRawSources.rawAcceleration(gravity: g, user: u)))))
        }
        summary.skippedReadings += skipped + undecided
        let reply = replyFor(message, undecided: undecided, items: items)
        lock.unlock()
        device.ingest(items, reference: reference, arrival: arrival)
        return reply
    }

    /// The reply: 499 with advice when the accelerometer cannot be delivered.
    private func replyFor(_ message: SensorLoggerMessage, undecided: Int, items: [LiveItem]) -> SensorLoggerReply {
        // Advice only once it is clear (a second of pushes): a recording's first batch may hold a reading or two.
        if undecided > 0 { undecidedMessages += 1 }
        if undecided > 0 && undecidedMessages >= 4 {
            return SensorLoggerReply(status: 499, text: "coremotion cannot tell whether this phone standardises units: enable the Uncalibrated Accelerometer (or Orientation with Gravity) in Sensor Logger, or start the receiver with &platform=ios|android|ios-standardised")
        }
        if rawSources.accelerometer == nil && summary.messages >= 8 && message.readings.contains(where: { $0.sensor != .test }) {
            return SensorLoggerReply(status: 499, text: "coremotion needs the raw motion sensors: enable the Uncalibrated Accelerometer, Gyroscope and Magnetometer in Sensor Logger")
        }
        return .ok
    }

    /// Chooses each raw sensor's source from the first message that has one (``SensorLoggerRawSources``).
    /// Caller holds `lock`.
    private func chooseSources(_ message: SensorLoggerMessage) {
        guard rawSources.sources.count < 3 else { return }
        rawSources.choose(from: message)
        summary.sources = rawSources.summary
    }

    /// A `headphone` reading as a sample (HEADPHONES.md §3), in Core Motion's units. Caller holds `lock`.
    ///
    /// The quaternion is required (else the reading is skipped); the rest may be missing:
    /// - `rotationRate*` (Sensor Logger before 1.30): zero, as the `Headphone.csv` reader does for a single
    ///   reading (a live stream cannot difference attitudes without delaying every sample).
    /// - `gravity*`: derived from the attitude (`−(third row of R(q))`, the identity Apple's headphone stream
    ///   keeps to 1e-7 g).
    /// - `acceleration*`: zero (a still head).
    /// - `devicelocation`: `.unknown` (`.default`).
    ///
    /// With "Standardise Units & Frames" on (``SensorLoggerConventionDecision`` says Android), accelerations
    /// are m/s² with Android's sign (÷ −9.80665 here) and the quaternion is kept as written.
    private func headphone(_ m: SensorLoggerMessage, _ r: SensorLoggerReading, time: TimeInterval, decision: SensorLoggerConventionDecision?) -> HeadphoneMotionSample? {
        guard let w = m.number(.quaternionW, in: r), let v = m.vector(.quaternionX, .quaternionY, .quaternionZ, in: r) else { return nil }
        var attitude = Quaternion(w: w, x: v.x, y: v.y, z: v.z)
        guard attitude.isFinite, attitude.norm > PhoneSampleLimits.minimumQuaternionNorm else { return nil }
        if abs(attitude.norm - 1) > 1e-3 { attitude = attitude.normalized }
        let standardised = decision?.convention == .android
        let gravity = m.vector(.gravityX, .gravityY, .gravityZ, in: r).map { standardised ? $0 / -standardGravity : $0 / standardGravity }
        let user = m.vector(.accelerationX, .accelerationY, .accelerationZ, in: r).map { standardised ? $0 / -standardGravity : $0 }
        let location = m.string(.devicelocation, inReadingAt: m.readings.firstIndex(of: r) ?? -1)
            .flatMap(HeadphoneSensorLocation.init(name:)) ?? .unknown
        let sample = HeadphoneMotionSample(
            time: time, attitude: attitude,
            rotationRate: m.vector(.rotationRateX, .rotationRateY, .rotationRateZ, in: r) ?? .zero,
            userAcceleration: user ?? .zero, gravity: gravity ?? MotionSamples.gravity(of: attitude), location: location)
        return sample.isFinite ? sample : nil
    }
}

extension ReferenceData {
    /// The same data with every time moved by `seconds` (to write a live session relative to its start).
    public func shifted(by seconds: Double) -> ReferenceData {
        var r = self
        r.attitude = attitude.map { TimedQuaternion(time: $0.time + seconds, value: $0.value) }
        r.gravity = gravity.map { TimedVector(time: $0.time + seconds, value: $0.value) }
        r.userAcceleration = userAcceleration.map { TimedVector(time: $0.time + seconds, value: $0.value) }
        r.rotationRate = rotationRate.map { TimedVector(time: $0.time + seconds, value: $0.value) }
        r.calibratedMagneticField = calibratedMagneticField.map { TimedVector(time: $0.time + seconds, value: $0.value) }
        r.heading = heading.map { TimedScalar(time: $0.time + seconds, value: $0.value) }
        r.cumulativeSteps = cumulativeSteps.map { TimedScalar(time: $0.time + seconds, value: $0.value) }
        r.relativeAltitude = relativeAltitude.map { TimedScalar(time: $0.time + seconds, value: $0.value) }
        r.activity = activity.map { TimedLabel(time: $0.time + seconds, label: $0.label) }
        r.truthAttitude = truthAttitude.map { TimedQuaternion(time: $0.time + seconds, value: $0.value) }
        r.stepTimes = stepTimes.map { $0 + seconds }
        return r
    }
}
