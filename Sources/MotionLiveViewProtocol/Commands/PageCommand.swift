/// A command the web page sends to the server: one JSON object per WebSocket text message.
///
/// | JSON | command |
/// |---|---|
/// | `{"type":"play"}` / `{"type":"pause"}` | run or stop the recording's play head (a live device: no effect on the server) |
/// | `{"type":"seek","time":12.5}` | move the play head to 12.5 s from the recording's start |
/// | `{"type":"speed","value":2}` | play at twice real time (0.05…64) |
/// | `{"type":"frame","frame":"xArbitraryZVertical"}` | the attitude's reference frame |
/// | `{"type":"ping","id":7}` | asks for a `pong` with the same id (the page measures latency) |
public enum PageCommand: Sendable, Hashable {
    /// Run the play head.
    case play
    /// Stop the play head.
    case pause
    /// Move the play head to `time` seconds from the recording's start (0…1e9).
    case seek(time: Double)
    /// Play at this multiple of real time (``speedRange``).
    case speed(Double)
    /// Show the attitude in this reference frame (one of ``referenceFrames``).
    case referenceFrame(String)
    /// Ask for a `pong` carrying `id` (0…1e9).
    case ping(id: Int)

    /// The slowest and fastest playback speeds accepted.
    public static let speedRange: ClosedRange<Double> = 0.05...64
    /// The reference frames a page may ask for (Apple's names).
    public static let referenceFrames = [
        "xArbitraryZVertical", "xArbitraryCorrectedZVertical", "xMagneticNorthZVertical", "xTrueNorthZVertical",
    ]

    /// Decodes one message's bytes.
    ///
    /// - Throws: ``PageCommandError`` for anything but a well-formed command: too long, not UTF-8, not a
    ///   flat JSON object, an unknown type, a missing or out-of-range field.
    public static func decode(_ bytes: some Collection<UInt8>) throws(PageCommandError) -> PageCommand {
        guard bytes.count <= LiveViewProtocol.maximumCommandSize else { throw .tooLong(bytes.count) }
        let fields = try FlatJSONObject.parse(Array(bytes))
        guard case .string(let type)? = fields["type"] else { throw .missingField("type") }
        switch type {
        case "play": return .play
        case "pause": return .pause
        case "seek":
            let time = try number(fields, "time")
            guard time >= 0, time <= 1e9 else { throw .outOfRange(field: "time", value: time) }
            return .seek(time: time)
        case "speed":
            let value = try number(fields, "value")
            guard speedRange.contains(value) else { throw .outOfRange(field: "value", value: value) }
            return .speed(value)
        case "frame":
            guard case .string(let frame)? = fields["frame"] else { throw .missingField("frame") }
            guard referenceFrames.contains(frame) else { throw .unknownReferenceFrame(String(frame.prefix(64))) }
            return .referenceFrame(frame)
        case "ping":
            let id = try number(fields, "id")
            guard id >= 0, id <= 1e9, id == id.rounded() else { throw .outOfRange(field: "id", value: id) }
            return .ping(id: Int(id))
        default:
            throw .unknownType(String(type.prefix(64)))
        }
    }

    /// The command as the page writes it (decodes to an equal command).
    public var encoded: String {
        switch self {
        case .play: return #"{"type":"play"}"#
        case .pause: return #"{"type":"pause"}"#
        case .seek(let time): return #"{"type":"seek","time":"# + "\(time)}"
        case .speed(let value): return #"{"type":"speed","value":"# + "\(value)}"
        case .referenceFrame(let frame): return #"{"type":"frame","frame":""# + frame + "\"}"
        case .ping(let id): return #"{"type":"ping","id":"# + "\(id)}"
        }
    }

    private static func number(_ fields: [String: FlatJSONValue], _ name: String) throws(PageCommandError) -> Double {
        guard case .number(let value)? = fields[name] else { throw .missingField(name) }
        guard value.isFinite else { throw .outOfRange(field: name, value: value) }
        return value
    }
}

/// Why a page's message is not a command. The server answers the page with this text and goes on.
public enum PageCommandError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The message has this many bytes, more than ``LiveViewProtocol/maximumCommandSize``.
    case tooLong(Int)
    /// Not a flat JSON object: why.
    case malformed(String)
    /// A required field is missing or of the wrong type.
    case missingField(String)
    /// The `type` names no command (cut to 64 characters).
    case unknownType(String)
    /// The frame is not one of ``PageCommand/referenceFrames`` (cut to 64 characters).
    case unknownReferenceFrame(String)
    /// A number outside its range.
    case outOfRange(field: String, value: Double)

    /// The message sent back to the page.
    public var description: String {
        switch self {
        case .tooLong(let n): "message of \(n) bytes is longer than \(LiveViewProtocol.maximumCommandSize)"
        case .malformed(let why): "not a command: \(why)"
        case .missingField(let name): "missing or mistyped field '\(name)'"
        case .unknownType(let type): "unknown command type '\(type)'"
        case .unknownReferenceFrame(let frame): "unknown reference frame '\(frame)'"
        case .outOfRange(let field, let value): "'\(field)' out of range: \(value)"
        }
    }
}
