import Foundation

/// A time-ordered stream of samples on its own time axis, from which a ``ScheduledDevice`` is made:
/// a recording being replayed, or the simulator.
///
/// `next()` returns samples of all sensors merged in non-decreasing time order; it returns `nil` at
/// the end of a finite source.
public protocol SampleSource: Sendable {
    /// The sensors the source produces.
    var sensors: [SensorKind: SensorDescription] { get }
    /// The next sample, or `nil` at the end.
    mutating func next() -> SensorSample?
    /// Starts over from the first sample (used by `loop`).
    mutating func rewind()
    /// The source time that plays at the moment the device is made; `nil` means the first sample's.
    var startTime: Double? { get }
    /// Location fixes on the source's time axis, time-ordered (a recording's GNSS); none by default.
    var locations: [TimedLocation] { get }
    /// The hardware model the source recorded, when known; `nil` by default.
    var model: String? { get }
}

extension SampleSource {
    public var startTime: Double? { nil }
    public var locations: [TimedLocation] { [] }
    public var model: String? { nil }
}

/// Merges the per-sensor arrays of a ``Recording`` into one time-ordered stream.
public struct RecordingSource: SampleSource {
    private let streams: [[SensorSample]]
    private var cursors: [Int]
    public let sensors: [SensorKind: SensorDescription]
    /// The first motion-sensor (accelerometer, gyroscope, magnetometer) sample time: a recording starts
    /// playing with its motion data, even when a slower sensor (a barometer) logged earlier.
    public let startTime: Double?
    /// The recording's location fixes (``Recording/location``).
    public let locations: [TimedLocation]
    /// The recording's device model (``RecordingMetadata/deviceName``).
    public let model: String?

    /// - Parameter recording: the recording; its sensors' nominal rates are measured from the
    ///   median sample interval.
    public init(_ recording: Recording, name: String? = nil) {
        var streams: [[SensorSample]] = []
        var sensors: [SensorKind: SensorDescription] = [:]
        for kind in SensorKind.allCases where recording.count(of: kind) > 0 {
            let samples = recording.samples(of: kind)
            streams.append(samples)
            let rate = RecordingSource.nominalRate(recording.times(of: kind))
            sensors[kind] = SensorDescription(
                kind: kind, name: name ?? recording.metadata.source, minimumRate: rate, maximumRate: rate
            )
        }
        self.streams = streams
        self.cursors = Array(repeating: 0, count: streams.count)
        self.sensors = sensors
        let motionStarts = [SensorKind.accelerometer, .gyroscope, .magnetometer].compactMap { recording.times(of: $0).first }
        self.startTime = motionStarts.min()
        self.locations = recording.location
        self.model = recording.metadata.deviceName
    }

    /// Rate from the median interval of `times` (Hz); 1 Hz for fewer than two samples.
    public static func nominalRate(_ times: [Double]) -> Double {
        guard times.count > 1 else { return 1 }
        var d: [Double] = []
        d.reserveCapacity(times.count - 1)
        for i in 1..<times.count { d.append(times[i] - times[i - 1]) }
        d.sort()
        let median = d[d.count / 2]
        return median > 0 ? 1 / median : 1
    }

    public mutating func next() -> SensorSample? {
        var best = -1
        var bestTime = Double.infinity
        for i in 0..<streams.count where cursors[i] < streams[i].count {
            let t = streams[i][cursors[i]].time
            if t < bestTime {
                bestTime = t
                best = i
            }
        }
        guard best >= 0 else { return nil }
        defer { cursors[best] += 1 }
        return streams[best][cursors[best]]
    }

    public mutating func rewind() {
        for i in cursors.indices { cursors[i] = 0 }
    }
}
