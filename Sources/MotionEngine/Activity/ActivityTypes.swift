import Foundation

/// The five movement classes the activity classifier tells apart (Core Motion's `CMMotionActivity`
/// flags other than `unknown`).
///
/// Raw values are the column order of the model's class probabilities.
public enum ActivityClass: Int, CaseIterable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Not moving: the device lies still, or is carried by a person who sits or stands.
    case stationary = 0
    /// On a walking person (stairs included, as Apple reports them).
    case walking = 1
    /// On a running or jogging person.
    case running = 2
    /// On a bicycle (pocket, bag or handlebar).
    case cycling = 3
    /// In a car, bus or train that moves.
    case automotive = 4

    /// The number of classes.
    public static let count = 5

    /// Lower-case English name, as in Core Motion's flag names.
    public var description: String {
        switch self {
        case .stationary: "stationary"
        case .walking: "walking"
        case .running: "running"
        case .cycling: "cycling"
        case .automotive: "automotive"
        }
    }

    /// Parses a name as written by ``description`` and by the data sets (`walk`, `run`, `still`, `vehicle`,
    /// `driving`, `jogging`, `sit`, `std`, `ups`, `dws`…). Returns `nil` for an unknown name.
    ///
    /// Stairs (`ups`, `dws`, `upstairs`, `downstairs`) map to ``walking``, as Apple reports stair climbing;
    /// sitting and standing (`sit`, `std`) map to ``stationary``.
    public init?(label: String) {
        let key = label.lowercased().trimmingCharacters(in: .whitespaces)
        switch key {
        case "stationary", "still", "static", "sit", "sitting", "std", "standing", "idle", "lying":
            self = .stationary
        case "walking", "walk", "wlk", "ups", "dws", "upstairs", "downstairs", "stairs":
            self = .walking
        case "running", "run", "jog", "jogging":
            self = .running
        case "cycling", "bike", "bicycle", "cycle", "biking":
            self = .cycling
        case "automotive", "vehicle", "driving", "car", "bus", "train", "in_vehicle", "invehicle":
            self = .automotive
        default:
            return nil
        }
    }
}

/// The engine's confidence rule.
extension ActivityConfidence {
    /// The confidence of a class probability: high from 0.75, medium from 0.5, low below.
    public init(probability: Double) {
        if probability >= 0.75 {
            self = .high
        } else if probability >= 0.5 {
            self = .medium
        } else {
            self = .low
        }
    }
}

/// One probability per ``ActivityClass``, stored inline (no allocation).
@frozen
public struct ActivityProbabilities: Sendable, Hashable, Codable {
    /// Probability of ``ActivityClass/stationary``, in [0, 1].
    public var stationary: Double
    /// Probability of ``ActivityClass/walking``, in [0, 1].
    public var walking: Double
    /// Probability of ``ActivityClass/running``, in [0, 1].
    public var running: Double
    /// Probability of ``ActivityClass/cycling``, in [0, 1].
    public var cycling: Double
    /// Probability of ``ActivityClass/automotive``, in [0, 1].
    public var automotive: Double

    /// Probabilities per class, 0 unless given.
    @inlinable
    public init(stationary: Double = 0, walking: Double = 0, running: Double = 0, cycling: Double = 0, automotive: Double = 0) {
        self.stationary = stationary
        self.walking = walking
        self.running = running
        self.cycling = cycling
        self.automotive = automotive
    }

    /// All zero.
    public static let zero = ActivityProbabilities()

    /// The probability of `activity`, in [0, 1].
    @inlinable
    public subscript(activity: ActivityClass) -> Double {
        get {
            switch activity {
            case .stationary: stationary
            case .walking: walking
            case .running: running
            case .cycling: cycling
            case .automotive: automotive
            }
        }
        set {
            switch activity {
            case .stationary: stationary = newValue
            case .walking: walking = newValue
            case .running: running = newValue
            case .cycling: cycling = newValue
            case .automotive: automotive = newValue
            }
        }
    }

    /// The probability of the class with raw value `index` (0…4).
    @inlinable
    public subscript(index index: Int) -> Double {
        get { self[ActivityClass(rawValue: index) ?? .stationary] }
        set { self[ActivityClass(rawValue: index) ?? .stationary] = newValue }
    }

    /// The most likely class (the first one on ties).
    @inlinable
    public var mostLikely: ActivityClass {
        var best = ActivityClass.stationary
        for c in ActivityClass.allCases where self[c] > self[best] { best = c }
        return best
    }
}

/// Flags from the engine's classes.
extension ActivityFlags {
    /// The flag of `activity`.
    public init(_ activity: ActivityClass) {
        switch activity {
        case .stationary: self = .stationary
        case .walking: self = .walking
        case .running: self = .running
        case .cycling: self = .cycling
        case .automotive: self = .automotive
        }
    }

    /// The class a single-label evaluation counts: automotive wins over stationary (a car stopped at a light
    /// is still a car trip); `nil` when unknown or unclassified.
    public var primaryClass: ActivityClass? {
        if contains(.unknown) { return nil }
        for c in [ActivityClass.automotive, .cycling, .running, .walking, .stationary] where contains(ActivityFlags(c)) {
            return c
        }
        return nil
    }
}

/// The classifier's output for one analysis window.
@frozen
public struct ActivityEstimate: Sendable, Hashable, Codable {
    /// Time of the last sample in the window, seconds on the device clock.
    public var time: Double
    /// Length of the analysis window, seconds (it covers `time - windowDuration … time`).
    public var windowDuration: Double
    /// Class probabilities, summing to 1.
    public var probabilities: ActivityProbabilities

    /// An estimate of `probabilities` for the window ending at `time`.
    public init(time: Double, windowDuration: Double, probabilities: ActivityProbabilities) {
        self.time = time
        self.windowDuration = windowDuration
        self.probabilities = probabilities
    }

    /// The most likely class.
    public var mostLikely: ActivityClass { probabilities.mostLikely }
    /// The probability of the most likely class, in [0, 1].
    public var topProbability: Double { probabilities[mostLikely] }
    /// Middle of the window, seconds.
    public var midTime: Double { time - windowDuration / 2 }
}

/// An Apple-style activity state: what the device is doing since `startTime`.
public struct ActivityState: Sendable, Hashable, Codable {
    /// When this state began, seconds on the device clock (becomes `CMMotionActivity.startDate`).
    public var startTime: Double
    /// Which flags hold (see `ActivityFlags`).
    public var flags: ActivityFlags
    /// How likely the most likely flag is right.
    public var confidence: ActivityConfidence

    /// A state that began at `startTime`.
    public init(startTime: Double, flags: ActivityFlags, confidence: ActivityConfidence) {
        self.startTime = startTime
        self.flags = flags
        self.confidence = confidence
    }

    /// No estimate (`CMMotionActivity.unknown`).
    public var unknown: Bool { flags.contains(.unknown) }
    /// `CMMotionActivity.stationary`.
    public var stationary: Bool { flags.contains(.stationary) }
    /// `CMMotionActivity.walking`.
    public var walking: Bool { flags.contains(.walking) }
    /// `CMMotionActivity.running`.
    public var running: Bool { flags.contains(.running) }
    /// `CMMotionActivity.cycling`.
    public var cycling: Bool { flags.contains(.cycling) }
    /// `CMMotionActivity.automotive`.
    public var automotive: Bool { flags.contains(.automotive) }
}
