import Foundation
import Logging
import MotionSamples

/// Where the phone is and how to poll it: `COREMOTION_DEVICE=phyphox:http://HOST:PORT[?options]`.
public struct PhyphoxSettings: PhoneSourceSettings {
    /// `phyphox:` devices of the app phyphox.
    public static let source = PhoneSourceNames(
        scheme: "phyphox", app: "phyphox", advice: "is remote access on, and the phone on this network?")

    /// The phone: its host and the port of phyphox's remote access (8080 on Android; 80, else 8080, on iOS).
    public var address: PhoneAddress
    /// Start, silence and delay (docs/network.md, "What every phone device does").
    public var stream: PhoneStreamSettings
    /// Pause between two `/get` requests, seconds (phyphox's own web interface waits 10 ms; 0.1 s is
    /// light on a phone and well within the delay).
    public var interval: Double
    /// The platform when `/meta` cannot tell (or to override it).
    public var platform: PhyphoxPlatform?
    /// Whether to start the measurement (`/control?cmd=start`) when the device is made and the experiment
    /// is not measuring. Later pauses by the user are respected.
    public var startMeasuring: Bool

    /// The options of `phyphox:` besides ``PhoneStreamSettings/optionNames``.
    public static let optionNames = PhoneStreamSettings.optionNames + ["interval", "platform", "start"]
    /// The defaults: wait 5 s, silence 2 s (as every phone device), least delay 0.3 s (polls every 0.1 s plus the request).
    public static let defaultStream = PhoneStreamSettings(wait: 5, silence: 2, delay: 0.3)

    /// `http://HOST:PORT` as given to `phyphox:`.
    public var url: String { address.url(scheme: "http") }

    /// The phone at `host`:`port`, polled every `interval` seconds.
    public init(host: String, port: Int, stream: PhoneStreamSettings = PhyphoxSettings.defaultStream, interval: Double = 0.1,
                platform: PhyphoxPlatform? = nil, startMeasuring: Bool = true) {
        self.address = PhoneAddress(host: host, port: port)
        self.stream = stream
        self.interval = interval
        self.platform = platform
        self.startMeasuring = startMeasuring
    }

    /// The polling loop of `device` (``PhyphoxDevice``'s steps 1–4).
    public func loop(for device: LiveDevice) -> @Sendable () -> Void { PhyphoxPoller(settings: self, device: device).run }

    /// Reads `http://HOST[:PORT][/]` (or `HOST[:PORT]`; the port defaults to 8080, phyphox's, or 80 with an
    /// explicit `http://`) and the options.
    public init(url: String, options: [String: String]) throws(PhoneOptionError) {
        let address = try PhoneAddress(parsing: url, scheme: "http", defaultPort: 8080, schemeDefaultPort: 80, kind: "phyphox")
        self.init(host: address.host, port: address.port)
        stream = try PhoneStreamSettings(options: options, defaults: Self.defaultStream)
        interval = try PhoneOptionError.seconds(options, "interval", interval, allowZero: true)
        if let p = options["platform"] {
            guard let platform = PhyphoxPlatform(rawValue: p.lowercased()) else {
                throw PhoneOptionError("platform must be android or ios, found '\(p)'")
            }
            self.platform = platform
        }
        if let s = options["start"] {
            switch s.lowercased() {
            case "true", "1", "yes": startMeasuring = true
            case "false", "0", "no": startMeasuring = false
            default: throw PhoneOptionError("start must be true or false, found '\(s)'")
            }
        }
    }
}

/// phyphox's remote access as a device (`COREMOTION_DEVICE=phyphox:http://PHONE:8080`): polls the phone's
/// REST interface and delivers its motion sensors (NETWORK.md §2, docs/network.md#phyphox).
///
/// 1. `/get` (no buffers) for the session; `/config` for the inputs (``PhyphoxExperimentMap``); `/meta` for
///    the platform (iOS: `deviceBrand` Apple; Android: `sensors`), which decides the acceleration factor
///    (9.81 on iOS) and the attitude's frame; `/time` for the runs' wall clock. phyphox older than 1.1.6
///    (no `/config`) is refused with a message; without `/meta` the platform is Android unless the
///    `platform` option says otherwise; without `/time` the clock anchor alone places samples.
/// 2. If the experiment is not measuring, `/control?cmd=start` (option `start=false` leaves it alone).
/// 3. `/get` in a loop, one request at a time, every ``PhyphoxSettings/interval`` seconds
///    (``PhyphoxPoll``). A failed request is retried after 0.2 s, doubling up to 2 s.
/// 4. A new `status.session` (the user switched experiments) drops everything and starts over at 1.
///    Measuring again after a pause re-reads `/time`; a new first START (the data were cleared) asks for
///    every buffer in full again.
///
/// Times: experiment time → the phone's wall clock through `/time` → this machine's uptime through a
/// ``PhoneClock`` (min(arrival − time), slewed), which absorbs the offset between the two machines' clocks.
/// Values: Android's conventions on both platforms (phyphox converts iOS's), to Apple's with
/// ``AndroidConventions``: acceleration ÷ −9.80665 (Android) or ÷ −9.81 (iOS); rad/s and µT as they are;
/// hPa ÷ 10; attitude (ENU, y north, on both) turned to x-north.
public enum PhyphoxDevice: PhoneSource {
    /// Where the phone is and how to poll it.
    public typealias Settings = PhyphoxSettings
}

/// The polling loop of one phyphox device.
final class PhyphoxPoller: Sendable {
    let settings: PhyphoxSettings
    let device: LiveDevice
    let client: PhyphoxHTTPClient

    init(settings: PhyphoxSettings, device: LiveDevice) {
        self.settings = settings
        self.device = device
        self.client = PhyphoxHTTPClient(host: settings.address.host, port: settings.address.port)
    }

    /// The state of one session.
    struct Session {
        var id: String
        var poll: PhyphoxPoll
        var platform: PhyphoxPlatform
        var timeline = PhyphoxTimeline()
        var measuring: Bool
        var clock = PhoneClock()
        var lastTimeRead: Double = 0
    }

    func run() {
        var failures = 0
        var session: Session?
        while !device.isClosed {
            if session == nil {
                session = configure()
                if session == nil {
                    failures += 1
                    device.pause(min(0.2 * pow(2, Double(min(failures, 4))), 2))
                    continue
                }
                failures = 0
            }
            guard var current = session else { continue }
            let path = "/get?" + current.poll.query
            guard let body = request(path, "/get") else {
                failures += 1
                device.pause(min(0.2 * pow(2, Double(min(failures, 4))), 2))
                continue
            }
            failures = 0
            let arrival = device.clock.now
            let reply: PhyphoxGetReply
            do {
                reply = try PhyphoxGetReply.decode(body)
            } catch {
                device.report("\(error); skipped, asking again", category: "malformed")
                device.pause(settings.interval)
                continue
            }
            if reply.status.session != current.id {
                device.logger.notice("\(device.name): new session '\(reply.status.session.logSafe)' (the experiment changed): reading /config again")
                session = nil
                continue
            }
            if reply.status.measuring && !current.measuring {
                // Measuring again: re-read the runs' wall clock; a new first START means the data were cleared.
                let before = current.timeline.firstStart
                if let events = readTime() {
                    current.timeline = PhyphoxTimeline(events: events)
                    current.lastTimeRead = device.clock.now
                    if let b = before, let a = current.timeline.firstStart, a != b {
                        device.logger.notice("\(device.name): a new measurement began (data cleared): reading every buffer in full")
                        current.poll.restart()
                        current.clock.reset()
                    }
                }
            } else if device.clock.now - current.lastTimeRead > 60, let events = readTime() {
                current.timeline = PhyphoxTimeline(events: events)
                current.lastTimeRead = device.clock.now
            }
            current.measuring = reply.status.measuring
            let outcome = current.poll.consume(reply)
            for p in outcome.problems { device.report(p, category: "reply") }
            deliver(outcome, session: &current, arrival: arrival)
            session = current
            device.pause(settings.interval)
        }
    }

    /// One request; a failure or an HTTP error is reported and gives `nil`.
    private func request(_ path: String, _ endpoint: String) -> [UInt8]? {
        do {
            let (status, body) = try client.get(path)
            device.noteAnswered()
            guard status == 200 else {
                device.report("\(endpoint): HTTP \(status)", category: "request")
                return nil
            }
            return body
        } catch {
            device.report("\(endpoint): \(error)", category: "request")
            return nil
        }
    }

    private func readTime() -> [PhyphoxTimeEvent]? {
        guard let body = request("/time", "/time") else { return nil }
        do {
            return try PhyphoxTimeEvent.decodeList(body)
        } catch {
            device.report("\(error); the runs' wall clock is unchanged", category: "malformed")
            return nil
        }
    }

    /// Reads the session, `/config`, `/meta`, `/time`; starts the measurement if asked. `nil` on failure.
    private func configure() -> Session? {
        guard let statusBody = request("/get", "/get") else { return nil }
        let status: PhyphoxStatus
        do {
            status = try PhyphoxGetReply.decode(statusBody).status
        } catch {
            device.report("\(error); skipped, asking again", category: "malformed")
            return nil
        }
        do {
            let (code, body) = try client.get("/config")
            device.noteAnswered()
            if code == 404 {
                device.report("/config: HTTP 404: phyphox 1.1.6 or later is needed (its /config tells which buffers hold which sensor)", category: "request")
                return nil
            }
            guard code == 200 else {
                device.report("/config: HTTP \(code)", category: "request")
                return nil
            }
            let config = try PhyphoxConfig.decode(body)
            let (channels, notes) = PhyphoxExperimentMap.channels(of: config)
            for note in notes { device.logger.info("\(device.name): \(LogSafeText.logSafe(note, limit: 400))") }

            var platform = settings.platform
            var model: String?
            if let metaBody = request("/meta", "/meta") {
                do {
                    let meta = try PhyphoxMeta.decode(metaBody)
                    platform = settings.platform ?? meta.platform
                    model = [meta.values["deviceBrand"], meta.values["deviceModel"]].compactMap { $0 }.joined(separator: " ")
                } catch {
                    device.report("\(error)", category: "malformed")
                }
            }
            if platform == nil {
                device.logger.notice("\(device.name): /meta does not tell the platform: taken as Android (option platform=ios to change)")
            }
            device.model = model.flatMap { $0.isEmpty ? nil : $0 }
            let events = readTime() ?? []
            var session = Session(
                id: status.session, poll: PhyphoxPoll(channels: channels), platform: platform ?? .android,
                timeline: PhyphoxTimeline(events: events), measuring: status.measuring)
            session.lastTimeRead = device.clock.now
            var announced: [SensorKind: String] = [:]
            for c in channels {
                if case .raw(let kind) = c.target {
                    announced[kind] = "phyphox '\(config.title)' \(c.source) (\(([c.time] + c.components).joined(separator: " ")))"
                }
            }
            device.announce(announced)
            device.noteConnection()
            device.logger.info(
                "\(device.name): experiment '\(config.title.logSafe)' (crc32 \(config.crc32.logSafe)), \(session.platform == .iOS ? "iOS" : "Android"), reading \(LogSafeText.logSafe(channels.map(\.target.description).joined(separator: ", "), limit: 400))")
            if channels.isEmpty {
                device.report("experiment '\(config.title)' has no motion sensor input (accelerometer, gyroscope, magnetic_field, pressure)", category: "config")
            }
            if !status.measuring && settings.startMeasuring {
                if let body = request("/control?cmd=start", "/control") {
                    let started = (try? PhyphoxControlReply.decode(body)) ?? false
                    if started {
                        device.logger.info("\(device.name): started the measurement")
                    } else {
                        device.report("phyphox refused to start the measurement (an experiment may wait for a Bluetooth device)", category: "control")
                    }
                }
            }
            return session
        } catch let error as PhyphoxDecodingError {
            device.report("\(error); asking again", category: "malformed")
            return nil
        } catch {
            device.report("/config: \(error)", category: "request")
            return nil
        }
    }

    /// Converts a reply's rows and hands them to the device.
    private func deliver(_ outcome: PhyphoxPoll.Outcome, session: inout Session, arrival: Double) {
        if outcome.skippedRows > 0 {
            device.logger.debug("\(device.name): \(outcome.skippedRows) rows skipped (null values or repeats)")
        }
        // The freshest sample of the reply updates the clock first, so every row of it maps with it.
        let newest = outcome.batches.compactMap { $0.times.last.flatMap { PhoneClock.nanoseconds(fromSeconds: session.timeline.phoneTime(of: $0)) } }.max()
        if let newest { session.clock.observe(newestSample: newest, arrival: arrival) }
        let g = session.platform.gravity
        var samples: [SensorSample] = []
        var reference = ReferenceData()
        var refused = 0
        for batch in outcome.batches {
            let channel = session.poll.channels[batch.channel]
            for (t, row) in zip(batch.times, batch.rows) {
                guard let ns = PhoneClock.nanoseconds(fromSeconds: session.timeline.phoneTime(of: t)), let time = session.clock.hostTime(ns) else { continue }
                switch channel.target {
                case .raw(.barometer):
                    samples.append(.barometer(PressureReading(time: time, kilopascals: AndroidConventions.kilopascals(fromHectopascals: row[0]))))
                case .raw(let kind):
                    let v = Vector3(row[0], row[1], row[2])
                    let value = kind == .accelerometer ? AndroidConventions.appleAcceleration(fromAndroid: v, gravity: g) : v
                    if let s = SensorSample.vector(kind, TimedVector(time: time, value: value)) { samples.append(s) }
                case .gravity:
                    reference.gravity.append(TimedVector(time: time, value: AndroidConventions.appleAcceleration(fromAndroid: Vector3(row[0], row[1], row[2]), gravity: g)))
                case .userAcceleration:
                    reference.userAcceleration.append(TimedVector(time: time, value: AndroidConventions.appleAcceleration(fromAndroid: Vector3(row[0], row[1], row[2]), gravity: g)))
                case .attitude:
                    if let q = AndroidConventions.quaternion(rotationVectorX: row[0], y: row[1], z: row[2], w: row.count > 3 ? row[3] : nil) {
                        reference.attitude.append(TimedQuaternion(time: time, value: AndroidConventions.appleAttitude(fromENU: q)))
                    } else {
                        refused += 1
                    }
                }
            }
        }
        if refused > 0 { device.refuse("\(refused) attitude rows are not rotations: skipped", count: refused) }
        samples.sort { $0.time < $1.time }
        device.ingest(samples.map { .sample($0) }, reference: reference, arrival: arrival)
    }
}
