import Foundation
import MotionSamples

/// Where the values of one phyphox input go.
public enum PhyphoxTarget: Sendable, Hashable, CustomStringConvertible {
    /// A raw sensor, delivered to apps.
    case raw(SensorKind)
    /// Android's or Core Motion's gravity: reference data.
    case gravity
    /// Linear acceleration (Core Motion's user acceleration): reference data.
    case userAcceleration
    /// The phone's attitude: reference data.
    case attitude

    public var description: String {
        switch self {
        case .raw(let k): k.rawValue
        case .gravity: "gravity (reference)"
        case .userAcceleration: "user acceleration (reference)"
        case .attitude: "attitude (reference)"
        }
    }
}

/// One input of the running experiment that this device reads: its time buffer and its component buffers.
public struct PhyphoxChannel: Sendable, Hashable {
    /// The input's `source` in `/config`.
    public var source: String
    public var target: PhyphoxTarget
    /// The buffer of its sample times (experiment seconds).
    public var time: String
    /// The buffers of its components, in order: x, y, z (attitude: x, y, z and w when given); pressure: one.
    public var components: [String]

    public init(source: String, target: PhyphoxTarget, time: String, components: [String]) {
        self.source = source
        self.target = target
        self.time = time
        self.components = components
    }
}

/// Maps an experiment's `/config` inputs to sensors (NETWORK.md §2).
///
/// Inputs are recognised by their `source`, never by buffer names: phyphox's *Acceleration with g* and
/// *Acceleration without g* experiments both name their buffers `accX accY accZ acc_time`, but the first
/// reads `accelerometer` (a raw sensor) and the second `linear_acceleration` (reference data only).
///
/// | `source` | becomes | components |
/// |---|---|---|
/// | `accelerometer` | raw accelerometer | `x y z t` |
/// | `gyroscope` | raw gyroscope | `x y z t` |
/// | `magnetic_field` | raw magnetometer | `x y z t` |
/// | `pressure` | barometer | `x` (or `abs`) and `t` |
/// | `linear_acceleration` | reference user acceleration | `x y z t` |
/// | `gravity` | reference gravity | `x y z t` |
/// | `attitude` | reference attitude | `x y z t`, and `w` (or `abs`) when given |
///
/// Other sources (`location`, `audio`, `light`, `bluetooth`…) are left out with a note; so is a second input
/// of a target already mapped, and an input lacking a component.
public enum PhyphoxExperimentMap {
    public static func channels(of config: PhyphoxConfig) -> (channels: [PhyphoxChannel], notes: [String]) {
        var channels: [PhyphoxChannel] = []
        var notes: [String] = []
        var seen: Set<PhyphoxTarget> = []
        for input in config.inputs {
            let target: PhyphoxTarget
            var names = ["x", "y", "z"]
            switch input.source {
            case "accelerometer": target = .raw(.accelerometer)
            case "gyroscope": target = .raw(.gyroscope)
            case "magnetic_field": target = .raw(.magnetometer)
            case "pressure":
                target = .raw(.barometer)
                names = [input.outputs["x"] != nil ? "x" : "abs"]
            case "linear_acceleration": target = .userAcceleration
            case "gravity": target = .gravity
            case "attitude":
                target = .attitude
                if input.outputs["w"] != nil { names.append("w") } else if input.outputs["abs"] != nil { names.append("abs") }
            default:
                notes.append("input '\(input.source)' is not a motion sensor: left out")
                continue
            }
            guard !seen.contains(target) else {
                notes.append("a second '\(input.source)' input: left out (the first one is read)")
                continue
            }
            guard let time = input.outputs["t"] else {
                notes.append("input '\(input.source)' has no time output 't': left out")
                continue
            }
            let components = names.compactMap { input.outputs[$0] }
            guard components.count == names.count else {
                notes.append("input '\(input.source)' lacks one of the outputs \(names.joined(separator: ", ")): left out")
                continue
            }
            seen.insert(target)
            channels.append(PhyphoxChannel(source: input.source, target: target, time: time, components: components))
        }
        return (channels, notes)
    }
}

/// The incremental polling of `/get` (NETWORK.md §2): the first request for an input asks for its buffers
/// `full`, every later one only for the values after the last time received, `t=T&x=T|t…`.
///
/// - T is the last time received, as the phone printed it (phyphox nudges it up one unit in the 8th
///   significant digit before comparing, so nothing repeats). A negative T is never sent (Android would
///   answer with the last value, iOS with nothing): the input keeps asking for `full` until a time ≥ 0
///   came. Starting from T = 0 would lose a sample at 0, hence `full` first.
/// - The buffers of one input are paired by position and cut to the shortest (iOS may send one more value
///   in one of them, phyphox-ios #22); what was cut comes again in the next reply, since T is the last
///   time kept.
/// - A row with a `null` time or value (NaN on the phone) is skipped and counted; so is a row whose time
///   is not after T (a repeat).
public struct PhyphoxPoll: Sendable {
    public private(set) var channels: [PhyphoxChannel]
    /// Per channel, the last time received (`nil`: ask for `full`).
    public private(set) var thresholds: [Double?]

    public init(channels: [PhyphoxChannel]) {
        self.channels = channels
        self.thresholds = Array(repeating: nil, count: channels.count)
    }

    /// Asks for every buffer in full again (a new measurement after a clear).
    public mutating func restart() {
        thresholds = Array(repeating: nil, count: channels.count)
    }

    /// The query of the next `/get`, without the `?`.
    public var query: String {
        var parts: [String] = []
        var used: Set<String> = []
        func add(_ name: String, _ value: String) {
            guard used.insert(name).inserted else { return }
            parts.append(Self.percentEncoded(name) + "=" + value)
        }
        for (channel, threshold) in zip(channels, thresholds) {
            if let t = threshold, t >= 0 {
                let text = Self.format(t)
                add(channel.time, text)
                for c in channel.components { add(c, text + "%7C" + Self.percentEncoded(channel.time)) }
            } else {
                add(channel.time, "full")
                for c in channel.components { add(c, "full") }
            }
        }
        return parts.joined(separator: "&")
    }

    /// A threshold as text: the shortest decimal that reads back as the same double (the phone's own
    /// 8-digit rendering for Android, the full double for iOS).
    public static func format(_ t: Double) -> String {
        "\(t)"
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    public static func percentEncoded(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out += "%" + String(format: "%02X", b)
            }
        }
        return out
    }

    /// The rows of one channel in a reply.
    public struct Batch: Sendable, Equatable {
        public var channel: Int
        /// Experiment times, increasing.
        public var times: [Double]
        /// One row of component values per time.
        public var rows: [[Double]]
    }

    /// What a reply gave, and what was wrong with parts of it.
    public struct Outcome: Sendable, Equatable {
        public var batches: [Batch] = []
        /// Rows skipped (a `null` time or value, a repeat).
        public var skippedRows = 0
        /// Problems to log (a buffer missing from the reply, buffers of very different lengths).
        public var problems: [String] = []
    }

    /// Takes a reply: pairs each channel's buffers, moves its threshold on.
    public mutating func consume(_ reply: PhyphoxGetReply) -> Outcome {
        var outcome = Outcome()
        for (index, channel) in channels.enumerated() {
            guard let time = reply.buffers[channel.time] else {
                outcome.problems.append("the reply lacks the buffer '\(channel.time)' of \(channel.source)")
                continue
            }
            var columns: [[Double?]] = []
            var missing: String?
            for c in channel.components {
                guard let b = reply.buffers[c] else {
                    missing = c
                    break
                }
                columns.append(b.values)
            }
            if let missing {
                outcome.problems.append("the reply lacks the buffer '\(missing)' of \(channel.source)")
                continue
            }
            let lengths = [time.values.count] + columns.map(\.count)
            let n = lengths.min() ?? 0
            if let longest = lengths.max(), longest - n > 1 {
                outcome.problems.append(
                    "\(channel.source): buffers of \(lengths.map(String.init).joined(separator: ", ")) values; paired by position up to \(n)")
            }
            var batch = Batch(channel: index, times: [], rows: [])
            var last = thresholds[index] ?? -.infinity
            for i in 0..<n {
                guard let t = time.values[i], t > last else {
                    outcome.skippedRows += 1
                    continue
                }
                var row: [Double] = []
                row.reserveCapacity(columns.count)
                for column in columns {
                    guard let v = column[i] else { break }
                    row.append(v)
                }
                guard row.count == columns.count else {
                    outcome.skippedRows += 1
                    continue
                }
                batch.times.append(t)
                batch.rows.append(row)
                last = t
            }
            if last > (thresholds[index] ?? -.infinity), last >= 0 { thresholds[index] = last }
            if !batch.times.isEmpty { outcome.batches.append(batch) }
        }
        return outcome
    }
}

/// Places experiment time on the phone's wall clock from `/time` (NETWORK.md §2): for a time t in the
/// measuring run that began at START k, `systemTime_k + (t − experimentTime_k)`; pauses are excluded from
/// experiment time, so each run has its own offset.
public struct PhyphoxTimeline: Sendable, Equatable {
    public var events: [PhyphoxTimeEvent]

    public init(events: [PhyphoxTimeEvent] = []) {
        self.events = events
    }

    /// Whether a START is known (without one, experiment time itself is the phone's time axis).
    public var hasStart: Bool { events.contains { $0.kind == .start } }

    /// The first START's wall-clock time: a different one means a new measurement (after a clear).
    public var firstStart: Double? { events.first { $0.kind == .start }?.systemTime }

    /// The phone's wall-clock time of experiment time `t`, seconds since 1970; `t` itself without a START.
    public func phoneTime(of t: Double) -> Double {
        var chosen: PhyphoxTimeEvent?
        for e in events where e.kind == .start {
            // A millisecond of slack: the sample read at a START may carry the same experiment time.
            if chosen == nil || e.experimentTime <= t + 0.001 { chosen = e } else { break }
        }
        guard let k = chosen else { return t }
        return k.systemTime + (t - k.experimentTime)
    }
}
