import Foundation

/// Why a phyphox reply was refused: the endpoint and what was wrong. The whole reply is skipped (logged);
/// the poller asks again, so nothing is lost unless the phone's buffer overflows meanwhile.
public struct PhyphoxDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `/get`, `/config`, `/meta`, `/time` or `/control`.
    public var endpoint: String
    public var reason: String

    public init(endpoint: String, reason: String) {
        self.endpoint = endpoint
        self.reason = reason
    }

    public var description: String { "malformed \(endpoint) reply: \(reason)" }
}

/// Which phyphox app answers: the two convert Core Motion's or Android's readings differently
/// (NETWORK.md §2).
public enum PhyphoxPlatform: String, Sendable, Hashable, CaseIterable {
    case android
    case iOS = "ios"

    /// The factor between g and the m/s² phyphox serves: Android's own readings are in m/s² (standard
    /// gravity, 9.80665, when a g is meant); phyphox on iOS multiplies Core Motion's g by −9.81.
    public var gravity: Double {
        switch self {
        case .android: 9.80665
        case .iOS: 9.81
        }
    }
}

private typealias JSON = PhoneJSON

private func parse(_ bytes: some Collection<UInt8>, _ endpoint: String) throws(PhyphoxDecodingError) -> PhoneJSON {
    do {
        return try PhoneJSON.parse(bytes)
    } catch {
        throw PhyphoxDecodingError(endpoint: endpoint, reason: error.description)
    }
}

/// One buffer of a `/get` reply.
public struct PhyphoxBuffer: Sendable, Equatable {
    /// The buffer's declared capacity (0: unbounded); not how many values came.
    public var size: Int
    /// `full`, `partial` or `single`.
    public var updateMode: String
    /// The values; `nil` where phyphox sent `null` (a NaN or infinite value on the phone).
    public var values: [Double?]

    public init(size: Int, updateMode: String, values: [Double?]) {
        self.size = size
        self.updateMode = updateMode
        self.values = values
    }
}

/// The experiment's state in every `/get` reply.
public struct PhyphoxStatus: Sendable, Equatable {
    /// Changes when the user switches experiments: every buffer name and threshold is stale then.
    public var session: String
    /// Whether the experiment is measuring.
    public var measuring: Bool
}

/// A `/get` reply: `{"buffer": {name: {size, updateMode, buffer: [number|null]}}, "status": {session, measuring, …}}`.
public struct PhyphoxGetReply: Sendable, Equatable {
    public var buffers: [String: PhyphoxBuffer]
    public var status: PhyphoxStatus

    /// Decodes a reply. Refused as a whole (never partly used): text that is not JSON, a missing `buffer`
    /// or `status`, a buffer whose values are not numbers or `null`, a number too large for a `Double`, a
    /// missing `session` or `measuring`. Members phyphox may add later are ignored.
    public static func decode(_ bytes: some Collection<UInt8>) throws(PhyphoxDecodingError) -> PhyphoxGetReply {
        let endpoint = "/get"
        func fail(_ reason: String) -> PhyphoxDecodingError { PhyphoxDecodingError(endpoint: endpoint, reason: reason) }
        let root = try parse(bytes, endpoint)
        guard case .object = root else { throw fail("expected an object, found \(root.kindName)") }
        guard let bufferMember = root["buffer"], case .object(let members) = bufferMember else {
            throw fail("expected an object 'buffer'")
        }
        var buffers: [String: PhyphoxBuffer] = [:]
        for (name, value) in members {
            guard case .object = value else { throw fail("buffer '\(name)' is \(value.kindName), not an object") }
            guard let list = value["buffer"]?.array else { throw fail("buffer '\(name)' has no array 'buffer'") }
            var values: [Double?] = []
            values.reserveCapacity(list.count)
            for (i, element) in list.enumerated() {
                switch element {
                case .null: values.append(nil)
                case .number(let v, _):
                    guard v.isFinite else { throw fail("buffer '\(name)' value \(i) is too large for a double") }
                    values.append(v)
                default: throw fail("buffer '\(name)' value \(i) is \(element.kindName), not a number or null")
                }
            }
            var size = 0
            if let s = value["size"], !s.isNull {
                guard let n = s.int64, n >= 0, n <= Int64(Int32.max) else { throw fail("buffer '\(name)' size is not a count") }
                size = Int(n)
            }
            let mode = value["updateMode"]?.string ?? ""
            buffers[name] = PhyphoxBuffer(size: size, updateMode: mode, values: values)
        }
        guard let status = root["status"], case .object = status else { throw fail("expected an object 'status'") }
        let session: String
        switch status["session"] {
        case .string(let s)?: session = s
        case .number(let v, let exact)?: session = exact.map(String.init) ?? String(v)
        default: throw fail("status has no 'session'")
        }
        guard let measuring = status["measuring"]?.bool else { throw fail("status has no boolean 'measuring'") }
        return PhyphoxGetReply(buffers: buffers, status: PhyphoxStatus(session: session, measuring: measuring))
    }
}

/// One data source of the experiment (`/config` `inputs`).
public struct PhyphoxInput: Sendable, Equatable {
    /// `accelerometer`, `linear_acceleration`, `gravity`, `gyroscope`, `magnetic_field`, `pressure`,
    /// `attitude`, `location`, `audio`…
    public var source: String
    /// Component (`x`, `y`, `z`, `abs`, `t`, …) → buffer name.
    public var outputs: [String: String]

    public init(source: String, outputs: [String: String]) {
        self.source = source
        self.outputs = outputs
    }
}

/// A `/config` reply (phyphox 1.1.6 and later): what experiment runs and which buffers its inputs fill.
public struct PhyphoxConfig: Sendable, Equatable {
    /// CRC32 of the experiment file (lowercase hex): identifies a custom experiment exactly.
    public var crc32: String
    public var title: String
    /// Buffer name → declared capacity.
    public var buffers: [String: Int]
    public var inputs: [PhyphoxInput]

    /// Longest buffer name accepted, bytes.
    public static let maximumNameLength = 256

    /// Decodes a reply. Refused as a whole: text that is not JSON, no `inputs` array, an input without a
    /// string `source`, an output that does not map a component to a buffer name (a non-empty string of
    /// at most ``maximumNameLength`` bytes). `title`, `crc32` and `buffers` may be missing; `export` and
    /// other members are ignored.
    public static func decode(_ bytes: some Collection<UInt8>) throws(PhyphoxDecodingError) -> PhyphoxConfig {
        let endpoint = "/config"
        func fail(_ reason: String) -> PhyphoxDecodingError { PhyphoxDecodingError(endpoint: endpoint, reason: reason) }
        let root = try parse(bytes, endpoint)
        guard case .object = root else { throw fail("expected an object, found \(root.kindName)") }
        func name(_ value: PhoneJSON, _ what: String) throws(PhyphoxDecodingError) -> String {
            guard let s = value.string, !s.isEmpty, s.utf8.count <= maximumNameLength else {
                throw fail("\(what) is not a buffer name (a non-empty string of at most \(maximumNameLength) bytes)")
            }
            return s
        }
        var buffers: [String: Int] = [:]
        for (i, entry) in (root["buffers"]?.array ?? []).enumerated() {
            guard case .object = entry, let n = entry["name"] else { throw fail("buffers[\(i)] has no name") }
            let size = entry["size"]?.int64.map { Int(clamping: $0) } ?? 0
            buffers[try name(n, "buffers[\(i)].name")] = max(0, size)
        }
        guard let inputList = root["inputs"]?.array else { throw fail("expected an array 'inputs'") }
        var inputs: [PhyphoxInput] = []
        for (i, entry) in inputList.enumerated() {
            guard case .object = entry, let source = entry["source"]?.string else { throw fail("inputs[\(i)] has no string 'source'") }
            var outputs: [String: String] = [:]
            switch entry["outputs"] {
            case .array(let list)?:
                for (j, item) in list.enumerated() {
                    guard case .object(let pairs) = item else { throw fail("inputs[\(i)].outputs[\(j)] is \(item.kindName), not an object") }
                    for (component, buffer) in pairs {
                        outputs[component.lowercased()] = try name(buffer, "inputs[\(i)].outputs[\(j)].\(component)")
                    }
                }
            case .object(let pairs)?:
                for (component, buffer) in pairs {
                    outputs[component.lowercased()] = try name(buffer, "inputs[\(i)].outputs.\(component)")
                }
            case nil, .null?:
                break  // bluetooth inputs have none
            case let other?:
                throw fail("inputs[\(i)].outputs is \(other.kindName)")
            }
            inputs.append(PhyphoxInput(source: source.lowercased(), outputs: outputs))
        }
        return PhyphoxConfig(
            crc32: root["crc32"]?.string ?? "", title: root["title"]?.string ?? "", buffers: buffers, inputs: inputs)
    }
}

/// A `/meta` reply (phyphox 1.1.8 and later): string values, absent (Android) or `null` (iOS) when unknown;
/// Android adds `sensors`.
public struct PhyphoxMeta: Sendable, Equatable {
    /// The string members (`version`, `deviceModel`, `deviceBrand`…); `null`s left out.
    public var values: [String: String]
    /// Whether the reply has a `sensors` object (Android only).
    public var hasSensors: Bool

    /// iOS when `deviceBrand` is `Apple`; Android when `sensors` is present; otherwise unknown.
    public var platform: PhyphoxPlatform? {
        if values["deviceBrand"]?.caseInsensitiveCompare("Apple") == .orderedSame { return .iOS }
        if hasSensors { return .android }
        return nil
    }

    public static func decode(_ bytes: some Collection<UInt8>) throws(PhyphoxDecodingError) -> PhyphoxMeta {
        let root = try parse(bytes, "/meta")
        guard case .object(let members) = root else {
            throw PhyphoxDecodingError(endpoint: "/meta", reason: "expected an object, found \(root.kindName)")
        }
        var values: [String: String] = [:]
        var sensors = false
        for (key, value) in members {
            switch value {
            case .string(let s): values[key] = s
            case .number(let v, let exact): values[key] = exact.map(String.init) ?? String(v)
            case .object where key == "sensors": sensors = true
            default: break
            }
        }
        return PhyphoxMeta(values: values, hasSensors: sensors)
    }
}

/// One entry of a `/time` reply (phyphox 1.1.8 and later): both clocks read back to back at a start or pause.
public struct PhyphoxTimeEvent: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case start = "START"
        case pause = "PAUSE"
    }

    public var kind: Kind
    /// Experiment time, seconds since the measurement first started, pauses excluded.
    public var experimentTime: Double
    /// The phone's wall clock, seconds since 1970.
    public var systemTime: Double

    public init(kind: Kind, experimentTime: Double, systemTime: Double) {
        self.kind = kind
        self.experimentTime = experimentTime
        self.systemTime = systemTime
    }

    /// Decodes a reply: an array of `{event, experimentTime, systemTime}`. Refused as a whole when it is not
    /// an array or an entry lacks finite times; an entry with another `event` (phyphox keeps `CLEAR`
    /// internally) is skipped.
    public static func decodeList(_ bytes: some Collection<UInt8>) throws(PhyphoxDecodingError) -> [PhyphoxTimeEvent] {
        func fail(_ reason: String) -> PhyphoxDecodingError { PhyphoxDecodingError(endpoint: "/time", reason: reason) }
        let root = try parse(bytes, "/time")
        guard let list = root.array else { throw fail("expected an array, found \(root.kindName)") }
        var events: [PhyphoxTimeEvent] = []
        for (i, entry) in list.enumerated() {
            guard case .object = entry,
                  let e = entry["experimentTime"]?.double, e.isFinite,
                  let s = entry["systemTime"]?.double, s.isFinite
            else { throw fail("entry \(i) lacks a finite experimentTime and systemTime") }
            guard let kind = entry["event"]?.string.flatMap(Kind.init(rawValue:)) else { continue }
            events.append(PhyphoxTimeEvent(kind: kind, experimentTime: e, systemTime: s))
        }
        return events
    }
}

/// A `/control` reply: `{"result": bool}` (HTTP 200 even when refused).
public enum PhyphoxControlReply {
    public static func decode(_ bytes: some Collection<UInt8>) throws(PhyphoxDecodingError) -> Bool {
        let root = try parse(bytes, "/control")
        guard let result = root["result"]?.bool else {
            throw PhyphoxDecodingError(endpoint: "/control", reason: "expected {\"result\": true|false}")
        }
        return result
    }
}
