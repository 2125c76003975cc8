/// What the server tells a page at the start of a connection.
public struct LiveViewHello: Sendable, Equatable {
    /// What is shown (`sim:walking-in-hand`, a file name).
    public var source: String
    /// A recording's time span, seconds, when the page may scrub it; `nil` for a live device.
    public var timeline: ClosedRange<Double>?
    /// The reference frame of the attitude now.
    public var referenceFrame: String
    /// The reference frames the source offers.
    public var referenceFrames: [String]
    /// The most samples per second and channel the server sends.
    public var sampleRate: Double

    /// A hello with every field.
    public init(source: String, timeline: ClosedRange<Double>?, referenceFrame: String, referenceFrames: [String], sampleRate: Double) {
        self.source = source
        self.timeline = timeline
        self.referenceFrame = referenceFrame
        self.referenceFrames = referenceFrames
        self.sampleRate = sampleRate
    }
}

/// The play head of a recording, sent with every batch (a live device: its clock, always playing).
public struct LiveClock: Sendable, Equatable {
    /// Seconds on the source's clock.
    public var time: Double
    /// Whether the play head runs.
    public var playing: Bool
    /// The multiple of real time it runs at.
    public var speed: Double

    /// A clock reading.
    public init(time: Double, playing: Bool, speed: Double) {
        self.time = time
        self.playing = playing
        self.speed = speed
    }
}

/// Writes the server's JSON text messages. Numbers are written with at most 5 significant decimals (a
/// page draws pixels); non-finite numbers become `null`.
///
/// | type | fields |
/// |---|---|
/// | `hello` | `version`, `source`, `timeline` (`[start, end]` or null), `frame`, `frames`, `rate` |
/// | `samples` | `seq`, `clock` `[time, playing 0/1, speed]`, `ch` (key → flat array `t, v…, t, v…`), `ev` (events) |
/// | `reset` | `time`, `frame`: the page clears its plots (after a seek or a frame switch) |
/// | `error` | `message`: a command the page sent was refused |
/// | `pong` | `id` |
public enum ServerMessageWriter {
    /// The hello message.
    public static func hello(_ hello: LiveViewHello) -> String {
        var s = "{\"type\":\"hello\",\"version\":\(LiveViewProtocol.version),\"source\":"
        appendString(hello.source, to: &s)
        s += ",\"timeline\":"
        if let t = hello.timeline { s += "["; appendNumber(t.lowerBound, to: &s); s += ","; appendNumber(t.upperBound, to: &s); s += "]" } else { s += "null" }
        s += ",\"frame\":"
        appendString(hello.referenceFrame, to: &s)
        s += ",\"frames\":["
        for (i, f) in hello.referenceFrames.enumerated() {
            if i > 0 { s += "," }
            appendString(f, to: &s)
        }
        s += "],\"rate\":"
        appendNumber(hello.sampleRate, to: &s)
        s += "}"
        return s
    }

    /// A batch of samples and events (samples grouped by channel, in the order given).
    public static func samples(sequence: Int, clock: LiveClock, samples: [LiveSample], events: [LiveEvent]) -> String {
        var s = "{\"type\":\"samples\",\"seq\":\(sequence),\"clock\":["
        appendNumber(clock.time, to: &s)
        s += clock.playing ? ",1," : ",0,"
        appendNumber(clock.speed, to: &s)
        s += "],\"ch\":{"
        var order: [LiveChannel] = []
        var groups: [LiveChannel: [LiveSample]] = [:]
        for sample in samples {
            if groups[sample.channel] == nil { order.append(sample.channel) }
            groups[sample.channel, default: []].append(sample)
        }
        for (i, channel) in order.enumerated() {
            if i > 0 { s += "," }
            appendString(channel.key, to: &s)
            s += ":["
            for (j, sample) in groups[channel]!.enumerated() {
                if j > 0 { s += "," }
                appendNumber(sample.time, to: &s)
                for k in 0..<channel.components {
                    s += ","
                    appendNumber(sample.values[k], to: &s)
                }
            }
            s += "]"
        }
        s += "},\"ev\":["
        for (i, event) in events.enumerated() {
            if i > 0 { s += "," }
            switch event {
            case .step(let t):
                s += "[\"step\","; appendNumber(t, to: &s); s += "]"
            case .activity(let t, let label, let confidence):
                s += "[\"activity\","; appendNumber(t, to: &s); s += ","; appendString(label, to: &s); s += ",\(confidence)]"
            case .appleActivity(let t, let label):
                s += "[\"apple.activity\","; appendNumber(t, to: &s); s += ","; appendString(label, to: &s); s += "]"
            }
        }
        s += "]}"
        return s
    }

    /// The page clears what it drew: the play head jumped or the frame changed.
    public static func reset(time: Double, referenceFrame: String) -> String {
        var s = "{\"type\":\"reset\",\"time\":"
        appendNumber(time, to: &s)
        s += ",\"frame\":"
        appendString(referenceFrame, to: &s)
        return s + "}"
    }

    /// A refused command.
    public static func error(_ message: String) -> String {
        var s = "{\"type\":\"error\",\"message\":"
        appendString(message, to: &s)
        return s + "}"
    }

    /// The answer to a ping.
    public static func pong(id: Int) -> String { "{\"type\":\"pong\",\"id\":\(id)}" }

    /// Appends `value` rounded to 5 decimals (or `null`).
    static func appendNumber(_ value: Double, to s: inout String) {
        guard value.isFinite else { s += "null"; return }
        if value == value.rounded(), abs(value) < 1e15 {
            s += String(Int64(value))
            return
        }
        let scaled = (value * 100_000).rounded()
        guard abs(scaled) < 9e15 else { s += "\(value)"; return }
        var n = Int64(scaled)
        if n < 0 { s += "-"; n = -n }
        let whole = n / 100_000
        var fraction = n % 100_000
        s += String(whole)
        if fraction == 0 { return }
        var digits = 5
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        let text = String(fraction)
        s += "."
        s += String(repeating: "0", count: digits - text.count)
        s += text
    }

    /// Appends a JSON string literal.
    static func appendString(_ value: String, to s: inout String) {
        s += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": s += "\\\""
            case "\\": s += "\\\\"
            case "\n": s += "\\n"
            case "\r": s += "\\r"
            case "\t": s += "\\t"
            case "\u{2028}": s += "\\u2028"
            case "\u{2029}": s += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    s += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    s.unicodeScalars.append(scalar)
                }
            }
        }
        s += "\""
    }
}
