import Foundation

/// The replay device: a recording played against a clock as if its sensors were live.
///
/// Source time `t` is delivered at `origin + (t − t₀) / speed` on the clock (see
/// ``MotionSamples/ScheduledDevice``): playback starts when the device is made, whether or not
/// anyone listens, as the world does for a real sensor. Only raw sensors are replayed; the
/// recording's ``MotionSamples/ReferenceData`` stays evaluation data.
///
/// ```swift
/// let clock = VirtualClock()
/// let device = try ReplayDevice.make(recording: try RecordingReader.read("walk.zip"), clock: clock, speed: 4)
/// device.run([.accelerometer: 100], sink: { print($0) }, events: { _ in })
/// clock.advance(by: 10)   // delivers 40 s of the recording
/// ```
public enum ReplayDevice {
    /// Where and how to replay: `PATH[?speed=N&loop=true]`, the form of `COREMOTION_DEVICE=replay:…`.
    public struct Specification: Sendable, Hashable {
        /// The recording: a file, folder or zip, with an optional `#MEMBER`.
        public var path: String
        /// Playback speed factor (> 0; 2 plays twice as fast).
        public var speed: Double
        /// Whether playback starts over at the end.
        public var loop: Bool

        public init(path: String, speed: Double = 1, loop: Bool = false) {
            self.path = path
            self.speed = speed
            self.loop = loop
        }

        /// Parses `PATH[?speed=N&loop=true|false]` (a leading `replay:` is accepted).
        ///
        /// - Throws: ``MotionSamples/RecordingError`` naming the option that is not understood.
        public init(parsing text: String) throws {
            var rest = Substring(text)
            if rest.hasPrefix("replay:") { rest = rest.dropFirst("replay:".count) }
            let accepted = "replay:PATH[?speed=N&loop=true|false] with N > 0"
            guard !rest.isEmpty else {
                throw RecordingError(file: text, expected: accepted, found: "no path")
            }
            var path = String(rest)
            var speed = 1.0
            var loop = false
            if let question = rest.lastIndex(of: "?") {
                path = String(rest[..<question])
                for option in rest[rest.index(after: question)...].split(separator: "&") {
                    let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
                    guard parts.count == 2 else {
                        throw RecordingError(file: text, column: String(option), expected: accepted, found: String(option))
                    }
                    switch parts[0] {
                    case "speed":
                        guard let value = Double(parts[1]), value > 0, value.isFinite else {
                            throw RecordingError(file: text, column: "speed", expected: "a positive finite speed factor", found: parts[1])
                        }
                        speed = value
                    case "loop":
                        guard let value = Bool(parts[1]) else {
                            throw RecordingError(file: text, column: "loop", expected: "true or false", found: parts[1])
                        }
                        loop = value
                    default:
                        throw RecordingError(file: text, column: parts[0], expected: "an option of \(accepted)", found: parts[0])
                    }
                }
            }
            guard !path.isEmpty else { throw RecordingError(file: text, expected: accepted, found: "no path") }
            self.init(path: path, speed: speed, loop: loop)
        }
    }

    /// A device that replays `recording` on `clock`.
    ///
    /// - Parameters:
    ///   - speed: playback speed factor, positive and finite.
    ///   - loop: start over at the end (each sensor's nominal rate, measured from the median interval,
    ///     sets the pause between the last and the first sample).
    /// - Throws: ``MotionSamples/RecordingError`` for a speed that is not positive and finite.
    public static func make(recording: Recording, clock: any MotionClock, speed: Double = 1, loop: Bool = false) throws -> ScheduledDevice {
        guard speed > 0 && speed.isFinite else {
            throw RecordingError(file: recording.metadata.source, column: "speed", expected: "a positive finite speed factor", found: "\(speed)")
        }
        let source = RecordingSource(recording, name: name(recording))
        return ScheduledDevice(name: "replay:" + name(recording), source: source, clock: clock, speed: speed, loop: loop)
    }

    /// Reads the recording of `specification` and makes its replay device.
    public static func make(_ specification: Specification, clock: any MotionClock) throws -> ScheduledDevice {
        let recording = try RecordingReader.read(specification.path)
        return try make(recording: recording, clock: clock, speed: specification.speed, loop: specification.loop)
    }

    /// `source (format, device)`.
    static func name(_ recording: Recording) -> String {
        let m = recording.metadata
        return "\(m.source) (\([m.format, m.deviceName].compactMap { $0 }.joined(separator: ", ")))"
    }
}
