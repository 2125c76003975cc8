import Foundation
import MotionNetwork
import MotionSamples
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A fake SensorServer phone on a local port, for tests and `coremotion phone-emulate sensorserver`: accepts
/// WebSockets on `/sensors/connect?types=[…]` and `/sensor/connect?type=…`, closes them with SensorServer's
/// codes (4001 "sensor of type X not found", 4003, 4006, 4007, 4008, 4002 for other paths), and sends each
/// reading of a ``PhoneEmulationSource`` as `{"values":[…],"timestamp":ns,"accuracy":3,"type":"…"}` in real
/// time, in Android's units (float precision), stamped on an emulated boot clock ``bootOffset`` seconds ahead
/// of this machine's uptime.
public final class SensorServerEmulator: @unchecked Sendable {  // @unchecked: every stored var (listener, connections, counters) is guarded by `lock`
    public let source: PhoneEmulationSource
    /// The phone's boot clock minus this machine's uptime, seconds.
    public let bootOffset: Double
    /// Sensors this phone does not have (answered with 4001).
    public let missing: Set<SensorServerSensor>
    private let start: Double
    private let lock = NSLock()
    private var listener: (any Channel)?
    private var connections: [ObjectIdentifier: any Channel] = [:]
    private var paused = false
    private var malformed = 0
    private var malformedCounter = 0
    /// WebSocket upgrades so far, including those closed at once for a missing sensor or a bad request.
    public var connectionCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return upgrades
    }
    private var upgrades = 0

    public init(source: PhoneEmulationSource, missing: Set<SensorServerSensor> = [], bootOffset: Double = 86_400.5) {
        self.source = source
        self.missing = missing
        self.bootOffset = bootOffset
        self.start = ProcessInfo.processInfo.systemUptime
    }

    /// Listens on `host:port` (0: any free port); returns the port.
    public func listen(host: String = "127.0.0.1", port: Int = 0) throws -> Int {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                let upgrader = NIOWebSocketServerUpgrader(
                    maxFrameSize: 1 << 16,
                    shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
                    upgradePipelineHandler: { [self] channel, head in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(SensorServerStreamHandler(emulator: self, uri: head.uri))
                        }
                    })
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                }
            }
        let channel = try bootstrap.bind(host: host, port: port).wait()
        lock.lock()
        listener = channel
        lock.unlock()
        return channel.localAddress?.port ?? port
    }

    /// Stops listening and closes every connection with 4004 (server stopped).
    public func stop() {
        lock.lock()
        let l = listener
        listener = nil
        lock.unlock()
        try? l?.close().wait()
        closeConnections(code: SensorServerCloseCode.serverStopped.rawValue, reason: "Server stopped")
    }

    /// Closes every open connection with `code` and `reason`, as the app does.
    public func closeConnections(code: UInt16, reason: String) {
        lock.lock()
        let list = Array(connections.values)
        lock.unlock()
        for channel in list {
            var data = channel.allocator.buffer(capacity: 2 + reason.utf8.count)
            data.writeInteger(code)
            data.writeString(reason)
            let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
            channel.writeAndFlush(frame).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// Stops (`true`) or resumes sending readings; connections stay open. What is sampled meanwhile is lost.
    public func setPaused(_ on: Bool) {
        lock.lock()
        paused = on
        lock.unlock()
    }

    /// The next `count` messages are malformed (each a different kind of damage).
    public func sendMalformedMessages(_ count: Int) {
        lock.lock()
        malformed += count
        lock.unlock()
    }

    /// Source time now.
    var sourceNow: Double { ProcessInfo.processInfo.systemUptime - start }

    func register(_ channel: any Channel) {
        lock.lock()
        connections[ObjectIdentifier(channel)] = channel
        lock.unlock()
    }

    func noteUpgrade() {
        lock.lock()
        upgrades += 1
        lock.unlock()
    }

    func unregister(_ channel: any Channel) {
        lock.lock()
        connections[ObjectIdentifier(channel)] = nil
        lock.unlock()
    }

    /// The messages of readings in (`from`, `through`] for `sensors`, time-sorted; `type` on multi-sensor
    /// connections.
    func messages(_ sensors: [SensorServerSensor], from: Double, through: Double, withType: Bool) -> [String] {
        lock.lock()
        let isPaused = paused
        lock.unlock()
        if isPaused { return [] }
        var readings: [(Double, String)] = []
        for sensor in sensors {
            guard let stream = source.sensors[sensor.kind] else { continue }
            for (t, v) in source.readings(stream, from: from, through: through) {
                let android: [Double] = switch sensor {
                case .accelerometer: v.map { $0 * -standardGravity }
                case .pressure: [v[0] * 10]
                default: v
                }
                let ns = Int64(((start + t + bootOffset) * 1e9).rounded())
                let values = android.map { Float($0).description }.joined(separator: ",")
                let type = withType ? ",\"type\":\"\(sensor.rawValue)\"" : ""
                readings.append((t, "{\"values\":[\(values)],\"timestamp\":\(ns),\"accuracy\":3\(type)}"))
            }
        }
        readings.sort { $0.0 < $1.0 }
        lock.lock()
        defer { lock.unlock() }
        return readings.map { reading in
            guard malformed > 0 else { return reading.1 }
            malformed -= 1
            malformedCounter += 1
            let damaged = [
                "{\"values\":[1.0,2.0,3.0],\"timestamp\":\"soon\",\"accuracy\":3,\"type\":\"android.sensor.accelerometer\"}",
                "{\"values\":[1e999,0,0],\"timestamp\":5,\"type\":\"android.sensor.accelerometer\"}",
                "{\"values\":[1.0],\"timestamp\":5,\"accuracy\":3,\"type\":\"android.sensor.gyroscope\"}",
                "{\"values\":[1.0,2.0,3.0],\"timestamp\":5,\"accuracy\":3,\"type\":\"android.sensor.light\"}",
                "not json at all",
                "{\"values\":[1.0,2.0,3.0e9],\"timestamp\":5,\"accuracy\":3,\"type\":\"android.sensor.accelerometer\"}",
            ]
            return damaged[(malformedCounter - 1) % damaged.count]
        }
    }
}

/// One WebSocket: checks the request as SensorServer does, then streams.
private final class SensorServerStreamHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let emulator: SensorServerEmulator
    let uri: String
    var sensors: [SensorServerSensor] = []
    var withType = true
    var sentThrough = 0.0
    var timer: RepeatedTask?

    init(emulator: SensorServerEmulator, uri: String) {
        self.emulator = emulator
        self.uri = uri
    }

    private func close(_ context: ChannelHandlerContext, _ code: SensorServerCloseCode, _ reason: String) {
        var data = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        data.writeInteger(code.rawValue)
        data.writeString(reason)
        let channel = context.channel
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
        // As SensorServer does from onOpen: just after the handshake. A few milliseconds after it here, so
        // that the tests check the device's handling of the codes rather than the race of a close that
        // overtakes the client's upgrade (which the device survives by reconnecting, more slowly).
        context.eventLoop.scheduleTask(in: .milliseconds(20)) {
            channel.writeAndFlush(frame).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        emulator.noteUpgrade()
        let parts = uri.split(separator: "?", maxSplits: 1)
        let path = parts.first.map { String($0).lowercased() } ?? ""
        var query: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                query[String(kv[0])] = kv.count > 1 ? String(kv[1]).removingPercentEncoding ?? "" : ""
            }
        }
        var requested: [String] = []
        switch path {
        case "/sensor/connect":
            guard let type = query["type"] else { return close(context, .parameterMissing, "<type> param required") }
            guard !type.isEmpty else { return close(context, .noSensorSpecified, "No sensor specified") }
            requested = [type.lowercased()]
            withType = false
        case "/sensors/connect":
            guard let types = query["types"] else { return close(context, .parameterMissing, "<Types> parameter required") }
            guard let list = (try? PhoneJSON.parse(Array(types.utf8)))?.array, list.allSatisfy({ $0.string != nil }) else {
                return close(context, .invalidJSONArray, "Syntax error : \(types) is not valid JSON array")
            }
            guard list.count != 1 else { return close(context, .tooFewSensors, "At least two sensor types must be specified") }
            guard !list.isEmpty else { return close(context, .noSensorSpecified, " No sensor specified") }
            requested = list.compactMap(\.string)
        default:
            return close(context, .unsupportedRequest, "unsupported request")
        }
        for type in requested {
            guard let sensor = SensorServerSensor(rawValue: type.lowercased()), !emulator.missing.contains(sensor),
                  emulator.source.sensors[sensor.kind] != nil
            else {
                let word = withType ? "sensor" : "Sensor"
                return close(context, .sensorNotFound, "\(word) of type \(type) not found")
            }
            sensors.append(sensor)
        }
        emulator.register(context.channel)
        sentThrough = emulator.sourceNow
        let channel = context.channel
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(5), delay: .milliseconds(5)) { _ in
            let me = handler.value
            let now = me.emulator.sourceNow
            let messages = me.emulator.messages(me.sensors, from: me.sentThrough, through: now, withType: me.withType)
            me.sentThrough = now
            guard !messages.isEmpty, channel.isActive else { return }
            for m in messages {
                var data = channel.allocator.buffer(capacity: m.utf8.count)
                data.writeString(m)
                channel.write(WebSocketFrame(fin: true, opcode: .text, data: data), promise: nil)
            }
            channel.flush()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        emulator.unregister(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if frame.opcode == .connectionClose {
            timer?.cancel()
            context.close(promise: nil)
        }
    }
}
