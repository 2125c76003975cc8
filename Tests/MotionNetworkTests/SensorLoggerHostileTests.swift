import Foundation
import Logging
import MotionDevices
import MotionEmulation
import MotionNetwork
import MotionSamples
import MotionService
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Raw TCP connections to a receiver, to idle, trickle and count.
enum RawSocket {
    /// A socket connected to 127.0.0.1:`port` (the caller closes it).
    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        return fd
    }

    /// Sends `text`; `false` when the peer has closed.
    @discardableResult
    static func send(_ fd: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Whether the peer closes the connection within `timeout` seconds (anything it sends first is read
    /// and dropped); meanwhile `tick` runs every `every` seconds (e.g. to trickle a byte).
    static func closes(_ fd: Int32, within timeout: Double, every: Double = 0.1, tick: () -> Void = {}) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < end {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, Int32(every * 1000)) > 0 {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 { return true }
            } else {
                tick()
            }
        }
        return false
    }
}

/// A body for phone `phone`'s message `k` whose newest reading is "now" (pushed without pacing, each
/// message still looks timely to the receiver's clock).
func timelyMessage(_ phone: SyntheticPhone, _ k: Int) -> [UInt8] {
    var p = phone
    p.start = Int64(Date().timeIntervalSince1970 * 1e9) - Int64(Double(k + 1) * p.batch * 1e9)
    return p.message(k)
}

@Suite("Sensor Logger receiver against hostile peers", .serialized)
struct SensorLoggerHostileTests {
    // MARK: 1. Connections

    /// Finding: 1,100 idle connections (no token needed) used all of the daemon's descriptors. Now an idle
    /// connection, a request head that never ends and a body trickled byte by byte are all closed.
    @Test func idleAndSlowConnectionsAreClosed() throws {
        let limits = SensorLoggerLimits(idleTimeout: 0.5, requestTimeout: 1.0)
        let server = SensorLoggerServer(configuration: SensorLoggerConfiguration(port: 0, token: "s3cret"), limits: limits)
        let port = try server.start()
        defer { server.stop() }
        // Idle from the start: no byte at all.
        let idle = try RawSocket.connect(port: port)
        defer { close(idle) }
        #expect(RawSocket.closes(idle, within: 10))
        // A head that never ends (slowloris), one header line at a time, more slowly than the idle time.
        let head = try RawSocket.connect(port: port)
        defer { close(head) }
        RawSocket.send(head, "POST /data HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        var line = 0
        #expect(RawSocket.closes(head, within: 10, every: 0.2) {
            line += 1
            RawSocket.send(head, "X-Slow-\(line): 1\r\n")
        })
        // A body trickled a byte every 0.2 s (each byte sooner than the idle time) is cut at the request time.
        let body = try RawSocket.connect(port: port)
        defer { close(body) }
        let started = Date()
        RawSocket.send(body, "POST /data HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer s3cret\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
        #expect(RawSocket.closes(body, within: 10, every: 0.2) { RawSocket.send(body, " ") })
        #expect(Date().timeIntervalSince(started) < 9)  // 1 s unloaded
        #expect(eventually(5) { server.statistics.closedConnections[.idle, default: 0] >= 2 && server.statistics.closedConnections[.slowRequest, default: 0] >= 1 })
        // A phone pushing on its keep-alive connection is not affected.
        #expect(try RawHTTP.post(port: port, body: timelyMessage(SyntheticPhone(platform: .ios), 0), headers: ["Authorization": "Bearer s3cret"]).status == 200)
        #expect(eventually(5) { server.openConnections == 0 })
    }

    /// Beyond the cap a connection is closed at once, counted, and logged once (at most once a minute).
    @Test func connectionsBeyondTheCapAreClosedAtOnce() throws {
        let log = LogRecorder()
        let limits = SensorLoggerLimits(maximumConnections: 4)
        let server = SensorLoggerServer(configuration: SensorLoggerConfiguration(port: 0, token: "s3cret"), limits: limits, logger: log.logger)
        let port = try server.start()
        defer { server.stop() }
        var held: [Int32] = []
        defer { for fd in held { close(fd) } }
        for _ in 0..<4 { held.append(try RawSocket.connect(port: port)) }
        #expect(eventually(10) { server.openConnections == 4 })
        for _ in 0..<3 {
            let extra = try RawSocket.connect(port: port)
            defer { close(extra) }
            #expect(RawSocket.closes(extra, within: 10))
        }
        #expect(server.statistics.closedConnections[.overLimit] == 3)
        #expect(log.lines.filter { $0.contains("over the limit of 4") }.count == 1)
        // The held ones still work, and once they close a new connection gets in.
        for fd in held { close(fd) }
        held = []
        #expect(eventually(10) { server.openConnections == 0 })
        #expect(try RawHTTP.post(port: port, body: timelyMessage(SyntheticPhone(platform: .ios), 0), headers: ["Authorization": "Bearer s3cret"]).status == 200)
        // The receiver's own defaults.
        #expect(SensorLoggerLimits().maximumConnections == 128 && SensorLoggerLimits().idleTimeout == 10 && SensorLoggerLimits().requestTimeout == 30)
    }

    // MARK: 2. Reference data

    /// Finding: reference data was bounded by time only (RSS grew 10.6 MB/s). Now by count too.
    @Test func referenceDataIsBoundedByCount() throws {
        let server = SensorLoggerServer(configuration: SensorLoggerConfiguration(port: 0, platform: .ios), limits: SensorLoggerLimits(referenceEntries: 100))
        let port = try server.start()
        defer { server.stop() }
        var phone = SyntheticPhone(platform: .ios)
        phone.sensors = ["accelerometeruncalibrated", "gravity", "orientation"]
        for k in 0..<8 { #expect(try RawHTTP.post(port: port, body: timelyMessage(phone, k)).status == 200) }
        let reference = try #require(server.phone(phone.deviceId)).referenceData()
        #expect(reference.attitude.count == 100)  // 8 × 25 pushed
        #expect(reference.gravity.count == 100)
        // Identifiers are kept per phone too: a long deviceId is refused by the decoder (this held already).
        var long = phone
        long.deviceId = String(repeating: "x", count: 300)
        let refused = try RawHTTP.post(port: port, body: timelyMessage(long, 0))
        #expect(refused.status == 400 && refused.body.contains("longer than 256 bytes"), "\(refused.body)")
        #expect(SensorLoggerLimits().referenceEntries == 12_000)
    }

    // MARK: 3. Phones

    /// Finding: 1,024 made-up deviceIds never expired, and the real phone got 503 until a restart. Now a
    /// silent phone is forgotten after the expiry, and a phone asked for by id always gets in.
    @Test func silentPhonesAreForgotten() throws {
        // On a virtual clock (arrivals are read from it), so the real 120 s expiry is tested in no time.
        let clock = VirtualClock(start: 1000)
        let limits = SensorLoggerLimits(maximumPhones: 3)
        let server = SensorLoggerServer(configuration: SensorLoggerConfiguration(port: 0, platform: .ios, deviceId: "real"), clock: clock, limits: limits)
        let port = try server.start()
        defer { server.stop() }
        func push(_ id: String) throws -> Int {
            var phone = SyntheticPhone(platform: .ios)
            phone.deviceId = id
            return try RawHTTP.post(port: port, body: timelyMessage(phone, 0)).status
        }
        for id in ["fake-1", "fake-2", "fake-3"] { #expect(try push(id) == 200) }
        #expect(try push("other") == 503)
        // The phone this receiver follows gets in even now.
        #expect(try push("real") == 200)
        clock.advance(by: 100)
        #expect(try push("real") == 200)
        #expect(try push("other") == 503)  // 100 s of silence is not yet enough
        clock.advance(by: 21)
        #expect(try push("real") == 200)
        #expect(try push("other") == 200)
        #expect(server.statistics.expiredPhones == 3)
        #expect(Set(server.phones.map(\.deviceId)) == ["real", "other"])
        #expect(SensorLoggerLimits().phoneExpiry == 120 && SensorLoggerLimits().maximumPhones == 128)
    }

    // MARK: 4. Clock

    /// Finding: one spoofed 200-byte push with the phone's deviceId and a far-future time blanked that
    /// phone for 30 s. Now it is held and counted, and the phone's samples keep coming.
    @Test func aSpoofedTimeDoesNotMoveThePhonesClock() throws {
        let server = SensorLoggerServer(configuration: SensorLoggerConfiguration(port: 0, platform: .ios))
        let port = try server.start()
        defer { server.stop() }
        let collector = PushCollector(clock: server.clock)
        server.device.run([.accelerometer: 100], sink: collector.sink, events: collector.eventSink)
        defer { server.device.run([:], sink: { _ in }, events: { _ in }) }
        var phone = SyntheticPhone(platform: .ios)
        phone.batch = 0.1
        phone.start = Int64(Date().timeIntervalSince1970 * 1e9)
        let t0 = Date()
        func pushPaced(_ k: Int) throws {
            let due = t0.addingTimeInterval(Double(k + 1) * phone.batch)
            let wait = due.timeIntervalSinceNow
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            #expect(try RawHTTP.post(port: port, body: phone.message(k)).status == 200)
        }
        for k in 0..<5 { try pushPaced(k) }
        // The spoof: the phone's own ids, one reading a day ahead.
        let future = Int64(Date().timeIntervalSince1970 * 1e9) + 86_400_000_000_000
        let spoof = SensorLoggerPushWriter().body(
            messageId: 100_000, sessionId: phone.sessionId, deviceId: phone.deviceId,
            readings: [.vector("accelerometeruncalibrated", time: future, 0, 0, -1)])
        #expect(spoof.count < 260)
        let spoofedAt = server.clock.now
        #expect(try RawHTTP.post(port: port, body: spoof).status == 200)
        for k in 5..<15 { try pushPaced(k) }
        // 100 samples were sent after the spoof; all but the last jitter-buffer delay reach the app.
        let after = { collector.samples(of: .accelerometer).filter { $0.time > spoofedAt + 0.05 }.count }
        #expect(eventually(10) { after() >= 60 }, "\(after()) samples after the spoof")
        // The spoof is counted (a first push slowed by a loaded machine may add a held one, never fewer).
        #expect(server.statistics.clockRejections >= 1)
        #expect((server.phone(phone.deviceId)?.currentSummary.clockRejections ?? 0) >= 1)
    }

    // MARK: 5. Web pages

    /// Finding: on loopback without a token, a cross-site `text/plain` POST from any web page got 200. Now
    /// only what a page cannot forge is taken: a local Host, no foreign Origin, `application/json`.
    @Test func webPagesCannotPushWithoutAToken() throws {
        let server = SensorLoggerServer(configuration: SensorLoggerConfiguration(port: 0, platform: .ios))
        let port = try server.start()
        defer { server.stop() }
        let phone = SyntheticPhone(platform: .ios)
        func post(host: String? = nil, contentType: String? = "application/json", origin: String? = nil) throws -> RawHTTP.Reply {
            try RawHTTP.post(port: port, body: timelyMessage(phone, 0), headers: origin.map { ["Origin": $0] } ?? [:],
                             host: host ?? "127.0.0.1:\(port)", contentType: contentType)
        }
        // What a page's simple request (no CORS preflight) looks like: text/plain, a foreign Origin.
        let plain = try post(contentType: "text/plain;charset=UTF-8")
        #expect(plain.status == 415 && plain.body.contains("application/json"))
        #expect(try post(contentType: nil).status == 415)
        #expect(try post(contentType: "application/x-www-form-urlencoded").status == 415)
        let page = try post(origin: "http://attacker.example")
        #expect(page.status == 403 && page.body.contains("Origin"))
        #expect(try post(origin: "null").status == 403)
        #expect(try post(origin: "http://127.0.0.1:\(port + 1)").status == 403)
        // DNS rebinding: a name of the attacker's that resolves to 127.0.0.1.
        let rebound = try post(host: "rebind.attacker.example:\(port)")
        #expect(rebound.status == 403 && rebound.body.contains("Host"))
        #expect(try post(host: "127.0.0.1.nip.io:\(port)").status == 403)
        // Sensor Logger and the test sender: taken.
        #expect(try post().status == 200)
        #expect(try post(contentType: "application/json; charset=utf-8").status == 200)
        #expect(try post(host: "localhost:\(port)").status == 200)
        #expect(try post(host: "[::1]:\(port)").status == 200)
        #expect(try post(origin: "http://127.0.0.1:\(port)").status == 200)
        #expect(server.statistics.replies[403] == 5 && server.statistics.replies[415] == 3)
        // With a token nothing can be forged: a tunnel's Host name is fine.
        let guarded = SensorLoggerServer(configuration: SensorLoggerConfiguration(port: 0, token: "s3cret", platform: .ios))
        let guardedPort = try guarded.start()
        defer { guarded.stop() }
        #expect(try RawHTTP.post(port: guardedPort, body: timelyMessage(phone, 0), headers: ["Authorization": "Bearer s3cret"], host: "tunnel.example").status == 200)
    }

    // MARK: 6. Loopback

    /// Finding: a host name starting with `127.` counted as loopback. Now the address decides.
    @Test func loopbackIsDecidedOnTheAddress() throws {
        for host in ["127.0.0.1", "127.0.0.2", "127.255.255.254", "::1", "0:0:0:0:0:0:0:1"] {
            #expect(SensorLoggerConfiguration(host: host, port: 0).isLoopback, "\(host)")
        }
        for host in ["127.0.0.1.nip.io", "127.evil.example", "127.1", "localhost", "::ffff:127.0.0.1", "1270.0.0.1", "0.0.0.0", "::", "128.0.0.1"] {
            #expect(!SensorLoggerConfiguration(host: host, port: 0).isLoopback, "\(host)")
            #expect(throws: SensorLoggerConfigurationError.self) { try SensorLoggerConfiguration.parse(target: "\(host.contains(":") ? "[\(host)]" : host):8123", options: [:], environment: [:]) }
        }
        // A name that merely looks like loopback is refused before anything listens.
        let named = SensorLoggerServer(configuration: SensorLoggerConfiguration(host: "127.0.0.1.nip.io", port: 0))
        #expect(throws: SensorLoggerConfigurationError.self) { try named.start() }
        #expect(named.port == nil)
        // A loopback address listens without a token.
        let other = SensorLoggerServer(configuration: SensorLoggerConfiguration(host: "127.0.0.1", port: 0))
        let port = try other.start()
        defer { other.stop() }
        #expect(try RawHTTP.post(port: port, body: timelyMessage(SyntheticPhone(platform: .ios), 0)).status == 200)
    }

    // MARK: 7. Tokens

    /// Finding: a token given as `?token=` is readable in /proc/PID/cmdline. Now it may come from a file
    /// (refused when others may read it) or the environment.
    @Test func tokensComeFromAFileOrTheEnvironment() throws {
        let folder = try TestSupportFolder.make()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("token").path
        try "fr0m-file\nsecond line ignored\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        let fromFile = try SensorLoggerConfiguration.parse(target: "0.0.0.0:8123", options: ["token-file": path], environment: [:])
        #expect(fromFile.token == "fr0m-file" && !fromFile.description.contains("fr0m-file"))
        guard case .sensorLogger(let spec) = try DeviceSpecification.parse("sensorlogger:127.0.0.1:0?token-file=\(path)") else {
            Issue.record("not a sensorlogger specification")
            return
        }
        #expect(spec.token == "fr0m-file")
        // Readable by others: refused, with what to do.
        chmod(path, 0o644)
        do {
            _ = try SensorLoggerConfiguration.parse(target: "127.0.0.1:8123", options: ["token-file": path], environment: [:])
            Issue.record("a world-readable token file was taken")
        } catch {
            #expect(error.reason.contains("chmod 600"))
        }
        #expect(throws: SensorLoggerConfigurationError.self) {
            try SensorLoggerConfiguration.parse(target: "127.0.0.1:8123", options: ["token-file": folder.appendingPathComponent("missing").path], environment: [:])
        }
        // The environment, when the value names none; an explicit one wins.
        let env = [SensorLoggerConfiguration.tokenEnvironmentVariable: " fr0m-env\n"]
        #expect(try SensorLoggerConfiguration.parse(target: "0.0.0.0:8123", options: [:], environment: env).token == "fr0m-env")
        #expect(try SensorLoggerConfiguration.parse(target: "127.0.0.1:8123", options: ["token": "t"], environment: env).token == "t")
        #expect(try SensorLoggerConfiguration.parse(target: "127.0.0.1:8123", options: [:], environment: [:]).token == nil)
        // Over a socket: the file's token is the one asked for.
        let server = SensorLoggerServer(configuration: spec)
        let port = try server.start()
        defer { server.stop() }
        let body = timelyMessage(SyntheticPhone(platform: .ios), 0)
        #expect(try RawHTTP.post(port: port, body: body).status == 401)
        #expect(try RawHTTP.post(port: port, body: body, headers: ["Authorization": "Bearer fr0m-file"]).status == 200)
    }

    // MARK: 8. Logs

    /// Finding: deviceIds and other peer strings reached the logs raw (forged lines, terminal escapes).
    @Test func peerStringsAreEscapedInLogs() throws {
        let log = LogRecorder()
        let server = SensorLoggerServer(configuration: SensorLoggerConfiguration(port: 0, platform: .ios), logger: log.logger)
        let port = try server.start()
        defer { server.stop() }
        var phone = SyntheticPhone(platform: .ios)
        phone.deviceId = "evil\ncritical: forged line \u{1B}[2J\u{202E}"
        #expect(try RawHTTP.post(port: port, body: timelyMessage(phone, 0)).status == 200)
        // A header with a right-to-left override (control bytes are refused by the HTTP parser already).
        #expect(try RawHTTP.post(port: port, body: timelyMessage(phone, 0), origin: "http://evil\u{202E}lmth.example", host: "127.0.0.1").status == 403)
        let lines = log.lines
        #expect(lines.contains { $0.contains("evil\\u{A}critical: forged line \\u{1B}[2J\\u{202E}") })
        #expect(lines.contains { $0.contains("evil\\u{202E}lmth") })
        for line in lines {
            #expect(!line.contains("\n") && !line.contains("\u{1B}") && !line.contains("\u{202E}"), "\(line)")
        }
    }
}

extension RawHTTP {
    /// `post` with an `Origin` header when one is given.
    static func post(port: Int, body: [UInt8], origin: String?, host: String) throws -> Reply {
        try post(port: port, body: body, headers: origin.map { ["Origin": $0] } ?? [:], host: host)
    }
}
