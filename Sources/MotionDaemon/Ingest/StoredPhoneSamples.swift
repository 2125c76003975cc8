import Foundation
import MotionIngest
import MotionNetwork
import MotionSamples

/// A phone's stored Sensor Logger readings as raw samples, converted exactly as a live phone's pushes are
/// (``MotionNetwork/SensorLoggerRawSources``, ``MotionNetwork/SensorLoggerConventionDetector``): Apple's units
/// and axes, the source of each raw sensor chosen as the live receiver chooses it.
///
/// Times are phone times (microseconds since 1970) made relative to an origin, in seconds.
struct StoredPhoneSamples {
    /// The sensors whose readings become samples.
    static let sampleSensors: [String] = names([
        .accelerometerUncalibrated, .totalAcceleration, .accelerometer, .gravity, .gyroscopeUncalibrated, .gyroscope, .barometer,
    ])
    /// The sensors that tell the phone's convention besides those (rules 1 and 4 of the detector).
    static let conventionSensors: [String] = names([.orientation, .light, .wifi, .batteryTemperature, .battery, .headphone, .wristMotion])
    /// The sensors whose newest reading says how far a phone's readings go (any accelerometer source).
    static let accelerometerSensors: [String] = names([.accelerometerUncalibrated, .totalAcceleration, .accelerometer])

    private static func names(_ sensors: [SensorLoggerSensor]) -> [String] { sensors.map(\.name) }

    /// Samples in time order (each sensor's strictly increasing), seconds since the origin.
    var samples: [SensorSample] = []
    /// The sample period of each sensor, seconds (the median interval), when it has at least two samples.
    var periods: [SensorKind: Double] = [:]
    /// Readings left out: malformed values, or a time already taken by an earlier reading of the sensor.
    var skipped = 0

    /// A Sensor Logger message holding the readings of `series` (fields the decoder does not keep are
    /// dropped, as the decoder drops them).
    static func message(of series: [RawSeries]) -> SensorLoggerMessage {
        var message = SensorLoggerMessage()
        message.readings.reserveCapacity(series.reduce(0) { $0 + $1.count })
        for s in series where s.isWellFormed {
            let sensor = SensorLoggerSensor(name: s.sensor)
            let keyed = s.fields.map(SensorLoggerField.init(key:))
            let width = s.fields.count
            for i in 0..<s.count {
                let first = message.fields.count
                for (j, field) in keyed.enumerated() {
                    guard let field else { continue }
                    message.fields.append(field)
                    message.numbers.append(s.values[i * width + j])
                }
                let (nanoseconds, overflow) = s.microseconds[i].multipliedReportingOverflow(by: 1000)
                message.readings.append(SensorLoggerReading(sensor: sensor, time: overflow ? 0 : nanoseconds, values: first..<message.fields.count))
            }
        }
        return message
    }

    /// The phone's convention from its readings, as the live receiver decides it: the detector observes one
    /// message per push (chunks that start in the same second), in time order, until a rule decides.
    static func decide(_ series: [RawSeries]) -> SensorLoggerConventionDecision? {
        var detector = SensorLoggerConventionDetector()
        var groups: [Int64: [RawSeries]] = [:]
        for s in series where s.count > 0 {
            groups[s.microseconds[0] / 1_000_000, default: []].append(s)
        }
        for second in groups.keys.sorted() {
            if let decision = detector.observe(message(of: groups[second]!)) { return decision }
        }
        return nil
    }

    /// Converts the readings between `from` and `through` (microseconds since 1970, inclusive), times in
    /// seconds since `origin` (microseconds since 1970).
    init(_ series: [RawSeries], decision: SensorLoggerConventionDecision, origin: Int64, from: Int64, through: Int64) {
        var sources = SensorLoggerRawSources()
        sources.choose(present: Set(series.filter { $0.count > 0 }.map(\.sensor)))
        var timed: [(Int64, Int, SensorSample)] = []
        var pairs: [Int64: (gravity: Vector3?, user: Vector3?)] = [:]
        var order = 0
        for s in series where s.isWellFormed {
            let message = Self.message(of: [s])
            for (i, reading) in message.readings.enumerated() {
                let microseconds = s.microseconds[i]
                guard microseconds >= from, microseconds <= through, reading.time > 0 else { continue }
                let t = Double(microseconds - origin) / 1e6
                switch sources.convert(reading, in: message, time: t, decision: decision) {
                case .sample(let sample):
                    timed.append((microseconds, order, sample))
                    order += 1
                case .motionPart(let g) where sources.accelerometer == .gravity:
                    if reading.sensor == .gravity { pairs[microseconds, default: (nil, nil)].gravity = g } else { pairs[microseconds, default: (nil, nil)].user = g }
                case .malformed:
                    skipped += 1
                default:
                    break
                }
            }
        }
        for (microseconds, pair) in pairs {
            guard let g = pair.gravity, let u = pair.user else { continue }
            let t = Double(microseconds - origin) / 1e6
            timed.append((microseconds, order, .accelerometer(TimedVector(time: t, value: SensorLoggerRawSources.rawAcceleration(gravity: g, user: u)))))
            order += 1
        }
        timed.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        // Each sensor strictly increasing: a reading stored twice (two overlapping pushes) is taken once.
        var last: [SensorKind: Int64] = [:]
        var intervals: [SensorKind: [Double]] = [:]
        samples.reserveCapacity(timed.count)
        for (microseconds, _, sample) in timed {
            let kind = sample.sensor
            if let previous = last[kind] {
                guard microseconds > previous else { skipped += 1; continue }
                if intervals[kind, default: []].count < 256 { intervals[kind, default: []].append(Double(microseconds - previous) / 1e6) }
            }
            last[kind] = microseconds
            samples.append(sample)
        }
        for (kind, list) in intervals where !list.isEmpty {
            periods[kind] = list.sorted()[list.count / 2]
        }
    }
}
