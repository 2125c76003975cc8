import Foundation

/// A recording of a real device, converted at the reader into Apple's axes and units.
///
/// Times are seconds from the recording's time origin (``RecordingMetadata/startDate`` is the wall
/// clock of time 0 when known). Each sensor's samples are strictly increasing in time and finite:
/// readers enforce this with the policy in ``RecordingNotice``.
public struct Recording: Sendable {
    public var metadata: RecordingMetadata
    /// Raw acceleration including gravity, g, Apple's sign.
    public var accelerometer: [TimedVector]
    /// Raw rotation rate, rad/s (bias not removed).
    public var gyroscope: [TimedVector]
    /// Raw (uncalibrated) magnetic field, µT.
    public var magnetometer: [TimedVector]
    /// Pressure, kPa.
    public var barometer: [PressureReading]
    /// Location fixes of the device's satellite receiver (GNSS), time-ordered: a side channel beside the
    /// four sensors, replayed to the service (absolute altitude) like a sensor's samples.
    public var location: [TimedLocation]
    /// Apple's own processed outputs and ground truth found in the file: evaluation data, never replayed.
    public var reference: ReferenceData
    /// What the reader skipped or noticed, by the documented policy.
    public var notices: [RecordingNotice]

    public init(
        metadata: RecordingMetadata,
        accelerometer: [TimedVector] = [],
        gyroscope: [TimedVector] = [],
        magnetometer: [TimedVector] = [],
        barometer: [PressureReading] = [],
        location: [TimedLocation] = [],
        reference: ReferenceData = ReferenceData(),
        notices: [RecordingNotice] = []
    ) {
        self.metadata = metadata
        self.accelerometer = accelerometer
        self.gyroscope = gyroscope
        self.magnetometer = magnetometer
        self.barometer = barometer
        self.location = location
        self.reference = reference
        self.notices = notices
    }

    /// The sensors with at least one sample.
    public var sensors: [SensorKind] {
        SensorKind.allCases.filter { count(of: $0) > 0 }
    }

    /// Number of samples of `sensor`.
    public func count(of sensor: SensorKind) -> Int {
        switch sensor {
        case .accelerometer: accelerometer.count
        case .gyroscope: gyroscope.count
        case .magnetometer: magnetometer.count
        case .barometer: barometer.count
        }
    }

    /// Times of the samples of `sensor`.
    public func times(of sensor: SensorKind) -> [Double] {
        switch sensor {
        case .accelerometer: accelerometer.map(\.time)
        case .gyroscope: gyroscope.map(\.time)
        case .magnetometer: magnetometer.map(\.time)
        case .barometer: barometer.map(\.time)
        }
    }

    /// Samples of `sensor` as ``SensorSample`` values.
    public func samples(of sensor: SensorKind) -> [SensorSample] {
        switch sensor {
        case .accelerometer: accelerometer.map { .accelerometer($0) }
        case .gyroscope: gyroscope.map { .gyroscope($0) }
        case .magnetometer: magnetometer.map { .magnetometer($0) }
        case .barometer: barometer.map { .barometer($0) }
        }
    }

    /// Earliest and latest sample time over all raw sensors, or `nil` for an empty recording.
    public var timeRange: ClosedRange<Double>? {
        var lo = Double.infinity
        var hi = -Double.infinity
        for sensor in SensorKind.allCases {
            let t = times(of: sensor)
            if let f = t.first { lo = min(lo, f) }
            if let l = t.last { hi = max(hi, l) }
        }
        return lo <= hi ? lo...hi : nil
    }

    /// Duration from the first to the last raw sample, seconds.
    public var duration: Double { timeRange.map { $0.upperBound - $0.lowerBound } ?? 0 }
}

/// Where a recording came from and how to place it in wall-clock time.
public struct RecordingMetadata: Sendable, Hashable, Codable {
    /// Format name, e.g. `"Sensor Logger"`, `"BROAD"`.
    public var format: String
    /// File or folder it was read from.
    public var source: String
    /// Device model when the file says (e.g. `"iPhone 13"`).
    public var deviceName: String?
    /// Wall-clock date of time 0, when the file says.
    public var startDate: Date?
    /// Licence and attribution of the data, when known.
    public var licence: String?
    /// Free-form key/value pairs the format carries (app version, subject, carry position…).
    public var properties: [String: String]

    public init(
        format: String, source: String, deviceName: String? = nil, startDate: Date? = nil,
        licence: String? = nil, properties: [String: String] = [:]
    ) {
        self.format = format
        self.source = source
        self.deviceName = deviceName
        self.startDate = startDate
        self.licence = licence
        self.properties = properties
    }
}

/// A scalar at a time.
@frozen
public struct TimedScalar: Sendable, Hashable, Codable {
    public var time: Double
    public var value: Double
    public init(time: Double, value: Double) {
        self.time = time
        self.value = value
    }
}

/// An orientation at a time (device → reference, Hamilton, see ``Quaternion``).
@frozen
public struct TimedQuaternion: Sendable, Hashable, Codable {
    public var time: Double
    public var value: Quaternion
    public init(time: Double, value: Quaternion) {
        self.time = time
        self.value = value
    }
}

/// A label that holds from `time` until the next label (or the end of the recording).
public struct TimedLabel: Sendable, Hashable, Codable {
    public var time: Double
    public var label: String
    public init(time: Double, label: String) {
        self.time = time
        self.label = label
    }
}

/// Processed outputs (Apple's, when the recording holds them) and ground truth, on the recording's
/// time axis. Used to evaluate this library's algorithms; never replayed as results.
public struct ReferenceData: Sendable {
    /// Apple's attitude (device → reference frame), as `CMAttitude.quaternion`.
    public var attitude: [TimedQuaternion] = []
    /// Apple's gravity in device axes, g.
    public var gravity: [TimedVector] = []
    /// Apple's user acceleration in device axes, g.
    public var userAcceleration: [TimedVector] = []
    /// Apple's bias-corrected rotation rate, rad/s.
    public var rotationRate: [TimedVector] = []
    /// Apple's calibrated magnetic field, µT.
    public var calibratedMagneticField: [TimedVector] = []
    /// Apple's compass heading, degrees.
    public var heading: [TimedScalar] = []
    /// Apple's pedometer: cumulative steps since the recording began.
    public var cumulativeSteps: [TimedScalar] = []
    /// Apple's altimeter: relative altitude, m.
    public var relativeAltitude: [TimedScalar] = []
    /// Apple's (or the study's) activity labels.
    public var activity: [TimedLabel] = []
    /// Ground-truth orientation (device → ENU, magnetic north) from optical motion capture; NaN where lost.
    public var truthAttitude: [TimedQuaternion] = []
    /// For each ``truthAttitude`` entry, whether it belongs to the scored movement phase.
    public var truthScored: [Bool] = []
    /// Ground-truth step times (foot strikes), seconds.
    public var stepTimes: [Double] = []
    /// Ground-truth step total for the recording, when the data set gives one.
    public var stepTotal: Int?

    public init() {}
}

/// A location fix of the device's satellite receiver (GNSS), as Core Location's `CLLocation` gives it.
///
/// Readers convert once: ``altitude`` is always the height above mean sea level (Core Location's
/// `altitude`, an orthometric height), never the height above the WGS 84 ellipsoid, which goes to
/// ``ellipsoidalAltitude`` when the file has it.
public struct TimedLocation: Sendable, Hashable, Codable {
    /// Time of the fix, seconds (on the recording's time axis, or on the device's clock once replayed).
    public var time: Double
    /// Latitude, degrees north (WGS 84).
    public var latitude: Double
    /// Longitude, degrees east (WGS 84).
    public var longitude: Double
    /// Altitude above mean sea level, m; `nil` when the fix has none.
    public var altitude: Double?
    /// Uncertainty of ``altitude`` (about one standard deviation, Core Location's `verticalAccuracy`), m;
    /// `nil` when unknown or invalid (Core Location reports a negative value then).
    public var verticalAccuracy: Double?
    /// Height above the WGS 84 ellipsoid (Core Location's `ellipsoidalAltitude`), m, when the file has it
    /// (the World Magnetic Model takes this height).
    public var ellipsoidalAltitude: Double?

    public init(
        time: Double, latitude: Double, longitude: Double, altitude: Double? = nil,
        verticalAccuracy: Double? = nil, ellipsoidalAltitude: Double? = nil
    ) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.verticalAccuracy = verticalAccuracy
        self.ellipsoidalAltitude = ellipsoidalAltitude
    }

    /// The altitude above mean sea level and its uncertainty (m), when both are finite and the
    /// uncertainty is positive: what the altimeter can fuse. `nil` otherwise.
    public var fusableAltitude: (metres: Double, accuracy: Double)? {
        guard let a = altitude, let v = verticalAccuracy, a.isFinite, v.isFinite, v > 0 else { return nil }
        return (a, v)
    }
}
