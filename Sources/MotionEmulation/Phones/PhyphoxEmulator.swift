import Foundation
import MotionNetwork
import MotionSamples
import NIOCore
import NIOHTTP1
import NIOPosix

/// A fake phyphox phone on a local port, for tests and `coremotion phone-emulate phyphox`: serves `/get`,
/// `/config`, `/meta`, `/time` and `/control` as phyphox's remote access does (NETWORK.md §2), with the
/// platforms' quirks, from a ``PhoneEmulationSource`` played in real time from the first START.
///
/// Android: values printed with 8 significant digits, `/meta` with `sensors`. iOS: full doubles, `/meta`
/// with `deviceBrand` Apple and `null`s, accelerations × 9.81, attitude, gravity and linear acceleration
/// inputs, and `full` buffers of one reply one value apart in length (phyphox-ios #22). Both: the threshold
/// nudged one unit in the 8th significant digit, `Connection: close`, unknown buffers skipped, the phone's
/// wall clock ``Options/clockOffset`` seconds off this machine's.
public final class PhyphoxEmulator: @unchecked Sendable {  // @unchecked: every stored var (channel, experiment, run state, buffers) is guarded by `lock`
    /// Which experiment the phone runs.
    public enum Experiment: String, Sendable, CaseIterable {
        /// A custom motion experiment: accelerometer, gyroscope, magnetic field, pressure (and on iOS
        /// attitude, gravity, linear acceleration).
        case motion
        /// phyphox's "Acceleration with g": the accelerometer, buffers `accX accY accZ acc_time`.
        case accelerationWithG
        /// phyphox's "Acceleration without g": linear acceleration, in buffers of the same names.
        case accelerationWithoutG
    }

    public struct Options: Sendable {
        public var platform: PhyphoxPlatform = .android
        public var experiment: Experiment = .motion
        /// Whether the experiment measures from the start (otherwise it waits for `/control?cmd=start`).
        public var measuring = true
        /// The phone's wall clock minus this machine's, seconds.
        public var clockOffset = 37.25
        public init() {}
    }

    public let options: Options
    public let source: PhoneEmulationSource
    private let lock = NSLock()
    private var channel: (any Channel)?
    private var experiment: Experiment
    private var session = 1
    private var measuring = false
    /// Uptime of experiment time 0 plus the pauses, and when the current pause began.
    private var runStart: Double?
    private var pausedTotal = 0.0
    private var pausedAt: Double?
    private var events: [PhyphoxTimeEvent] = []
    private var buffers: [String: [Double?]] = [:]
    private var filledThrough = 0.0
    private var malformed = 0
    private var malformedCounter = 0
    /// Requests served, by path.
    public private(set) var requests: [String: Int] = [:]

    public init(source: PhoneEmulationSource, options: Options = Options()) {
        self.source = source
        self.options = options
        self.experiment = options.experiment
        if options.measuring { start(now: ProcessInfo.processInfo.systemUptime) }
    }

    /// Listens on `host:port` (0: any free port); returns the port.
    public func listen(host: String = "127.0.0.1", port: Int = 0) throws -> Int {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: false)
                    try channel.pipeline.syncOperations.addHandler(PhyphoxRequestHandler(emulator: self))
                }
            }
        let channel = try bootstrap.bind(host: host, port: port).wait()
        lock.lock()
        self.channel = channel
        lock.unlock()
        return channel.localAddress?.port ?? port
    }

    /// Stops listening.
    public func stop() {
        lock.lock()
        let c = channel
        channel = nil
        lock.unlock()
        try? c?.close().wait()
    }

    // MARK: Controls for tests

    /// The user switches experiments: a new session, empty buffers, measuring again from 0.
    public func switchExperiment(to experiment: Experiment) {
        lock.lock()
        defer { lock.unlock() }
        self.experiment = experiment
        session += 1
        resetData()
        start(now: ProcessInfo.processInfo.systemUptime)
    }

    /// The user pauses (`true`) or resumes measuring.
    public func setMeasuring(_ on: Bool) {
        lock.lock()
        defer { lock.unlock() }
        let now = ProcessInfo.processInfo.systemUptime
        if on { start(now: now) } else { pause(now: now) }
    }

    /// The next `count` `/get` replies are malformed (each a different kind of damage).
    public func sendMalformedReplies(_ count: Int) {
        lock.lock()
        malformed += count
        lock.unlock()
    }

    /// Whether the experiment measures.
    public var isMeasuring: Bool {
        lock.lock()
        defer { lock.unlock() }
        return measuring
    }

    // MARK: The phone

    private func resetData() {
        buffers = [:]
        events = []
        filledThrough = 0
        runStart = nil
        pausedTotal = 0
        pausedAt = nil
        measuring = false
    }

    private func start(now: Double) {
        guard !measuring else { return }
        if runStart == nil { runStart = now }
        if let p = pausedAt { pausedTotal += now - p }
        pausedAt = nil
        measuring = true
        events.append(PhyphoxTimeEvent(kind: .start, experimentTime: experimentTime(now), systemTime: wallClock(now)))
    }

    private func pause(now: Double) {
        guard measuring else { return }
        fill(now: now)
        measuring = false
        pausedAt = now
        events.append(PhyphoxTimeEvent(kind: .pause, experimentTime: experimentTime(now), systemTime: wallClock(now)))
    }

    private func wallClock(_ uptime: Double) -> Double {
        Date().timeIntervalSince1970 - (ProcessInfo.processInfo.systemUptime - uptime) + options.clockOffset
    }

    private func experimentTime(_ now: Double) -> Double {
        guard let s = runStart else { return 0 }
        return now - s - pausedTotal - (pausedAt.map { now - $0 } ?? 0)
    }

    /// The inputs of the running experiment: source, time buffer, component buffers, and what fills them.
    private struct Input {
        var source: String
        var time: String
        var components: [(String, String)]  // (component, buffer)
        var stream: PhoneEmulationSource.Stream?
        var convert: @Sendable ([Double], PhyphoxPlatform) -> [Double]
    }

    private var inputs: [Input] {
        let acc: @Sendable ([Double], PhyphoxPlatform) -> [Double] = { v, p in v.map { $0 * -p.gravity } }
        let same: @Sendable ([Double], PhyphoxPlatform) -> [Double] = { v, _ in v }
        let xyz = { (p: String) in [("x", p + "X"), ("y", p + "Y"), ("z", p + "Z")] }
        switch experiment {
        case .accelerationWithG:
            return [Input(source: "accelerometer", time: "acc_time", components: xyz("acc"), stream: source.sensors[.accelerometer], convert: acc)]
        case .accelerationWithoutG:
            return [Input(source: "linear_acceleration", time: "acc_time", components: xyz("acc"), stream: source.userAcceleration, convert: acc)]
        case .motion:
            var list = [
                Input(source: "accelerometer", time: "acc_time", components: xyz("acc"), stream: source.sensors[.accelerometer], convert: acc),
                Input(source: "gyroscope", time: "gyr_time", components: xyz("gyr"), stream: source.sensors[.gyroscope], convert: same),
                Input(source: "magnetic_field", time: "mag_time", components: xyz("mag"), stream: source.sensors[.magnetometer], convert: same),
                Input(source: "pressure", time: "p_time", components: [("x", "pressure")], stream: source.sensors[.barometer], convert: { v, _ in [v[0] * 10] }),
            ]
            if options.platform == .iOS {
                list += [
                    Input(source: "linear_acceleration", time: "lin_time", components: xyz("lin"), stream: source.userAcceleration, convert: acc),
                    Input(source: "gravity", time: "grav_time", components: xyz("grav"), stream: source.gravity, convert: acc),
                    Input(source: "attitude", time: "att_time", components: [("x", "attX"), ("y", "attY"), ("z", "attZ"), ("abs", "attW")],
                          stream: source.attitude,
                          convert: { v, _ in
                              // Apple's x-north quaternion turned to y-north, as phyphox on iOS does.
                              let q = Quaternion.aboutZ(.pi / 2) * Quaternion(w: v[0], x: v[1], y: v[2], z: v[3])
                              return [q.x, q.y, q.z, q.w]
                          }),
                ]
            }
            return list.filter { $0.stream != nil }
        }
    }

    /// Rounds as the platform prints: 8 significant digits on Android, the full double on iOS.
    private func printed(_ v: Double) -> Double {
        options.platform == .android ? (Double(String(format: "%.8g", v)) ?? v) : v
    }

    private func text(_ v: Double?) -> String {
        guard let v, v.isFinite else { return "null" }
        return options.platform == .android ? String(format: "%.8g", v) : "\(v)"
    }

    /// Appends what was measured up to `now`.
    private func fill(now: Double) {
        guard measuring else { return }
        let until = experimentTime(now)
        guard until > filledThrough else { return }
        for input in inputs {
            guard let stream = input.stream else { continue }
            for (t, values) in source.readings(stream, from: filledThrough, through: until) {
                buffers[input.time, default: []].append(printed(t))
                let converted = input.convert(values, options.platform)
                for (k, (_, name)) in input.components.enumerated() {
                    buffers[name, default: []].append(printed(converted[k]))
                }
            }
        }
        filledThrough = until
    }

    /// One unit in the 8th significant digit of `t`, added (phyphox's nudge of a threshold).
    private static func nudged(_ t: Double) -> Double {
        guard t != 0, t.isFinite else { return t }
        return t + pow(10, (log10(abs(t))).rounded(.down) - 7)
    }

    /// Answers one request: (status, content type, body).
    func respond(path: String, query: [(String, String)]) -> (Int, String, String) {
        lock.lock()
        defer { lock.unlock() }
        requests[path, default: 0] += 1
        let now = ProcessInfo.processInfo.systemUptime
        fill(now: now)
        let status = "{\"session\":\"s\(session)\",\"measuring\":\(measuring),\"timedRun\":false,\"countDown\":0}"
        switch path {
        case "/get":
            if malformed > 0 {
                malformed -= 1
                malformedCounter += 1
                let damaged = [
                    "{\"buffer\": {\"acc_time\": {\"size\": 0, \"updateMode\": \"full\", \"buffer\": [1.0, \"2.0\"]}}, \"status\": \(status)}",
                    "{\"buffer\": {\"acc_time\": {\"size\": 0, \"updateMode\": \"full\", \"buffer\": [1e999]}}, \"status\": \(status)}",
                    "{\"buffer\": ",
                    "<html><body>500 Internal Server Error</body></html>",
                    "{\"buffer\": {}, \"status\": {\"measuring\": true}}",
                    "[1, 2, 3]",
                ]
                return (200, "application/json", damaged[(malformedCounter - 1) % damaged.count])
            }
            var parts: [String] = []
            var seen: Set<String> = []
            for (name, spec) in query where seen.insert(name).inserted {
                guard let values = buffers[name] ?? (inputs.contains { i in i.time == name || i.components.contains { $0.1 == name } } ? [] : nil) else {
                    continue  // unknown buffers are skipped
                }
                var mode = "partial"
                var out: [Double?]
                if spec.isEmpty {
                    mode = "single"
                    out = values.last.map { [$0] } ?? []
                } else if spec == "full" {
                    mode = "full"
                    out = values
                    // iOS: one buffer of a full reply can be one value short (phyphox-ios #22).
                    if options.platform == .iOS, name.hasSuffix("X"), !out.isEmpty { out.removeLast() }
                } else {
                    let pieces = spec.split(separator: "|", maxSplits: 1).map(String.init)
                    guard let threshold = Double(pieces[0]) else {
                        return (400, "application/json", "{\"error\":\"threshold is not a number\"}")
                    }
                    let t = Self.nudged(threshold)
                    if pieces.count == 2 {
                        guard let reference = buffers[pieces[1]] ?? (inputs.contains { $0.time == pieces[1] } ? [] : nil) else {
                            return (400, "application/json", "{\"error\":\"unknown reference buffer\"}")
                        }
                        out = []
                        for (i, r) in reference.enumerated() where i < values.count {
                            if let r, r > t { out.append(values[i]) }
                        }
                    } else {
                        let first = values.firstIndex { ($0 ?? -.infinity) > t } ?? values.count
                        out = Array(values[first...])
                    }
                }
                parts.append("\"\(name)\":{\"size\":0,\"updateMode\":\"\(mode)\",\"buffer\":[\(out.map(text).joined(separator: ","))]}")
            }
            return (200, "application/json", "{\"buffer\":{\(parts.joined(separator: ","))},\"status\":\(status)}")
        case "/config":
            let list = inputs
            let bufferList = list.flatMap { [$0.time] + $0.components.map(\.1) }.map { "{\"name\":\"\($0)\",\"size\":0}" }
            let inputList = list.map { i in
                let outputs = i.components.map { "{\"\($0.0)\":\"\($0.1)\"}" } + ["{\"t\":\"\(i.time)\"}"]
                return "{\"source\":\"\(i.source)\",\"outputs\":[\(outputs.joined(separator: ","))]}"
            }
            let title = switch experiment {
            case .motion: "Motion (coremotion)"
            case .accelerationWithG: "Acceleration with g"
            case .accelerationWithoutG: "Acceleration without g"
            }
            let crc = String(UInt32(truncatingIfNeeded: title.hashValue & 0xFFFF_FFFF), radix: 16)
            return (200, "application/json", """
                {"crc32":"\(crc)","title":"\(title)","localTitle":"\(title)","category":"Raw Sensors","localCategory":"Raw Sensors",\
                "buffers":[\(bufferList.joined(separator: ","))],"inputs":[\(inputList.joined(separator: ","))],"export":[]}
                """)
        case "/meta":
            if options.platform == .iOS {
                return (200, "application/json", """
                    {"version":"1.2.0","build":"17272","fileFormat":"1.19","deviceModel":"iPhone14,5","deviceBrand":"Apple",\
                    "deviceBoard":null,"deviceManufacturer":"Apple","deviceBaseOS":null,"deviceCodename":null,"deviceRelease":"18.1"}
                    """)
            }
            return (200, "application/json", """
                {"version":"1.2.1","build":"1020102","fileFormat":"1.19","deviceModel":"Pixel 7","deviceBrand":"google",\
                "deviceBoard":"panther","deviceManufacturer":"Google","deviceRelease":"15",\
                "sensors":{"accelerometer":{"Name":"LSM6DSO Accelerometer","Vendor":"STMicro","Range":"78.45","Resolution":"0.0023","MinDelay":"2404","MaxDelay":"1000000","Power":"0.17","Version":"1"}}}
                """)
        case "/time":
            let list = events.map {
                "{\"event\":\"\($0.kind.rawValue)\",\"experimentTime\":\($0.experimentTime),\"systemTime\":\(String(format: "%.3f", $0.systemTime))}"
            }
            return (200, "application/json", "[\(list.joined(separator: ","))]")
        case "/control":
            let cmd = query.first { $0.0 == "cmd" }?.1 ?? ""
            switch cmd {
            case "start": start(now: now)
            case "stop": pause(now: now)
            case "clear":
                let keep = session
                resetData()
                session = keep
            default: return (200, "application/json", "{\"result\":false}")
            }
            return (200, "application/json", "{\"result\":true}")
        default:
            return (404, "application/json", "{\"error\":\"unknown path\"}")
        }
    }
}

/// Serves one HTTP request per connection.
private final class PhyphoxRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let emulator: PhyphoxEmulator
    var uri = ""

    init(emulator: PhyphoxEmulator) {
        self.emulator = emulator
    }

    static func decode(_ s: Substring) -> String {
        let plus = s.replacingOccurrences(of: "+", with: " ")
        return plus.removingPercentEncoding ?? plus
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): uri = head.uri
        case .body: break
        case .end:
            let split = uri.split(separator: "?", maxSplits: 1)
            let path = split.first.map(String.init) ?? "/"
            var query: [(String, String)] = []
            if split.count == 2 {
                for pair in split[1].split(separator: "&", omittingEmptySubsequences: true) {
                    let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    query.append((Self.decode(kv[0]), kv.count > 1 ? Self.decode(kv[1]) : ""))
                }
            }
            let (status, type, body) = emulator.respond(path: path, query: query)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: type)
            headers.add(name: "Content-Length", value: "\(body.utf8.count)")
            headers.add(name: "Connection", value: "close")
            headers.add(name: "Access-Control-Allow-Origin", value: "*")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
