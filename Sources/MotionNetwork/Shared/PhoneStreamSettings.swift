import Foundation
import Logging
import MotionSamples

/// Settings of the polled and streamed phone sources, phyphox and SensorServer (`COREMOTION_DEVICE` options
/// `wait`, `silence`, `delay`); what the device does with them is docs/network.md, "What every phone
/// device does".
public struct PhoneStreamSettings: Sendable, Hashable {
    /// How long making the device waits for the phone's first data, seconds: it returns as soon as every
    /// sensor the phone announced has sent two samples, or after this long with the sensors that have.
    public var wait: Double
    /// How long the phone may send nothing before its sensors are lost (`sensorLost`), seconds
    /// (``LiveDevice/Configuration/silence``).
    public var silence: Double
    /// The least time samples are held to release them merge-sorted and evenly paced, seconds after their
    /// time; the jitter buffer raises it to what the network needs (``JitterBuffer``).
    public var delay: Double

    /// - Parameters: see the properties.
    public init(wait: Double = 5, silence: Double = 2, delay: Double) {
        self.wait = wait
        self.silence = silence
        self.delay = delay
    }

    /// The option names these settings read.
    public static let optionNames = ["wait", "silence", "delay"]

    /// Reads `wait`, `silence` and `delay` from `options` (seconds), over `defaults`.
    public init(options: [String: String], defaults: PhoneStreamSettings) throws(PhoneOptionError) {
        self = defaults
        wait = try PhoneOptionError.seconds(options, "wait", defaults.wait, allowZero: true)
        silence = try PhoneOptionError.seconds(options, "silence", defaults.silence, allowZero: false)
        delay = try PhoneOptionError.seconds(options, "delay", defaults.delay, allowZero: true)
    }
}

/// A malformed option of a phone device (the message names the option and what it takes).
public struct PhoneOptionError: Error, Sendable, CustomStringConvertible {
    /// The problem, in words.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }

    static func seconds(_ options: [String: String], _ key: String, _ value: Double, allowZero: Bool) throws(PhoneOptionError) -> Double {
        guard let text = options[key] else { return value }
        guard let v = Double(text), v.isFinite, allowZero ? v >= 0 : v > 0, v <= 3600 else {
            throw PhoneOptionError("\(key) must be a number of seconds \(allowZero ? "from 0" : "above 0") to 3600, found '\(text)'")
        }
        return v
    }
}

/// What a polled or streamed phone source is called, in device names, threads, logs and errors.
public struct PhoneSourceNames: Sendable, Hashable {
    /// The device's name before the address (`phyphox`), also its thread's (`coremotion.phyphox`) and
    /// its default logger's label.
    public let scheme: String
    /// The app's name, for messages (`SensorServer`).
    public let app: String
    /// What to check when the phone does not answer, for the error.
    public let advice: String

    /// A source called `scheme` in device names, `app` in messages, with `advice` when it does not answer.
    public init(scheme: String, app: String, advice: String) {
        (self.scheme, self.app, self.advice) = (scheme, app, advice)
    }
}

/// The settings of a polled or streamed phone source (phyphox, SensorServer): where the phone is, its
/// ``PhoneStreamSettings``, and the loop that feeds a ``LiveDevice``.
public protocol PhoneSourceSettings: Sendable, Hashable {
    /// The source's names and advice.
    static var source: PhoneSourceNames { get }
    /// The phone's address as given (`http://192.168.1.5:8080`).
    var url: String { get }
    /// Start, silence and delay.
    var stream: PhoneStreamSettings { get }
    /// The source's polling or receiving loop for `device`, run on a thread of its own until the device
    /// closes.
    func loop(for device: LiveDevice) -> @Sendable () -> Void
}

/// A polled or streamed phone source (``PhyphoxDevice``, ``SensorServerDevice``): its ``connect(_:clock:logger:)``.
public protocol PhoneSource {
    /// Its settings.
    associatedtype Settings: PhoneSourceSettings
}

extension PhoneSource {
    /// Connects: makes the ``LiveDevice``, starts the source's loop on a thread of its own, waits for the
    /// first data (``PhoneStreamSettings/wait``) and returns the device.
    ///
    /// - Parameter logger: where problems go (default: label `coremotion.SCHEME`).
    /// - Throws: ``PhoneRequestError`` when the phone did not answer at all during the wait; the device is
    ///   closed then.
    public static func connect(
        _ settings: Settings, clock: any MotionClock = SystemClock.shared, logger: Logger? = nil
    ) throws(PhoneRequestError) -> LiveDevice {
        let names = Settings.source, scheme = names.scheme
        let device = LiveDevice(
            name: "\(scheme):\(settings.url)", clock: clock, configuration: LiveDevice.Configuration(settings.stream),
            logger: logger ?? Logger(label: "coremotion.\(scheme)"))
        try device.start(thread: "coremotion.\(scheme)", wait: settings.stream.wait, loop: settings.loop(for: device)) { wait, problem in
            "\(names.app) at \(settings.url) did not answer within \(wait) s\(problem); \(names.advice)"
        }
        return device
    }
}

extension LiveDevice {
    /// Sleeps `seconds` (wall clock), or less when the device closes meanwhile.
    func pause(_ seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        while !isClosed, Date() < end {
            Thread.sleep(forTimeInterval: min(0.05, max(0, end.timeIntervalSinceNow)))
        }
    }
}
