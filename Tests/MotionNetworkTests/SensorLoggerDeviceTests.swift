import Foundation
import MotionNetwork
import MotionRecordings
import MotionSamples
import TestSupport
import Testing

/// Collects what a device delivers.
final class PushCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var samplesList: [SensorSample] = []
    private var eventList: [DeviceEvent] = []
    private var headphoneList: [HeadphoneMotionEvent] = []
    private var deliveredAt: [Double] = []
    let clock: any MotionClock

    init(clock: any MotionClock) { self.clock = clock }

    var sink: SampleSink {
        { [self] s in
            lock.lock()
            samplesList.append(s)
            deliveredAt.append(clock.now)
            lock.unlock()
        }
    }

    var eventSink: DeviceEventSink { { [self] e in lock.lock(); eventList.append(e); lock.unlock() } }
    var headphoneSink: @Sendable (HeadphoneMotionEvent) -> Void { { [self] e in lock.lock(); headphoneList.append(e); lock.unlock() } }

    var samples: [SensorSample] { lock.lock(); defer { lock.unlock() }; return samplesList }
    var events: [DeviceEvent] { lock.lock(); defer { lock.unlock() }; return eventList }
    var headphone: [HeadphoneMotionEvent] { lock.lock(); defer { lock.unlock() }; return headphoneList }
    var deliveries: [Double] { lock.lock(); defer { lock.unlock() }; return deliveredAt }
    func samples(of kind: SensorKind) -> [SensorSample] { samples.filter { $0.sensor == kind } }
}

/// A receiver on a virtual clock, fed directly (no HTTP).
struct Rig {
    let clock = VirtualClock(start: 1000)
    let server: SensorLoggerServer
    let collector: PushCollector
    /// Host time of the phone's first sample (the phone's t = 0 arrives one batch later).
    let origin: Double

    init(platform: SensorLoggerPlatform? = nil, deviceId: String? = nil, silence: TimeInterval = 2) {
        server = SensorLoggerServer(configuration: SensorLoggerConfiguration(port: 0, platform: platform, deviceId: deviceId, silence: silence), clock: clock)
        collector = PushCollector(clock: clock)
        origin = clock.now
        server.device.run([.accelerometer: 100, .gyroscope: 100, .magnetometer: 100, .barometer: 1], sink: collector.sink, events: collector.eventSink)
    }

    /// Pushes message `k` of `phone` at its arrival time (advancing the clock to it first).
    @discardableResult
    func push(_ phone: SyntheticPhone, _ k: Int, extraDelay: Double = 0) -> SensorLoggerReply {
        let arrival = origin + phone.arrival(k) + extraDelay
        if clock.now < arrival { clock.advance(to: arrival) }
        return server.receive(phone.message(k), authorization: nil, arrival: clock.now)
    }
}

@Suite("Sensor Logger device")
struct SensorLoggerDeviceTests {
    // MARK: Convention

    @Test(arguments: [
        (SyntheticPhone.Platform.ios, ["accelerometeruncalibrated", "gyroscopeuncalibrated"], SensorLoggerConvention.apple, "rule 2"),
        (.android, ["accelerometeruncalibrated", "gyroscopeuncalibrated"], .android, "rule 1"),
        (.iosStandardised, ["accelerometeruncalibrated", "gyroscopeuncalibrated"], .android, "rule 2"),
        (.android, ["totalacceleration", "gyroscope"], .android, "rule 1"),
        (.ios, ["gravity", "accelerometer", "orientation", "gyroscope"], .apple, "rule 4"),
        (.iosStandardised, ["gravity", "accelerometer", "orientation", "gyroscope"], .android, "rule 4"),
    ])
    func conventionIsDecidedFromTheData(_ platform: SyntheticPhone.Platform, _ sensors: [String], _ convention: SensorLoggerConvention, _ rule: String) throws {
        let rig = Rig()
        var phone = SyntheticPhone(platform: platform)
        phone.sensors = sensors
        for k in 0..<8 { #expect(rig.push(phone, k).status == 200) }
        rig.clock.advance(by: 1)
        let decision = try #require(rig.server.chosenPhone?.decision)
        #expect(decision.convention == convention)
        #expect(decision.reason.hasPrefix(rule), "\(decision)")
        // Whatever the convention and source, the raw accelerometer is Apple's gravity in g.
        let acc = rig.collector.samples(of: .accelerometer)
        #expect(acc.count > 100)
        for s in acc.suffix(20) {
            let t = s.time - rig.origin
            let error = (s.vector! - SyntheticPhone.gravity(t)).norm
            #expect(error < 0.01, "at \(t): \(s.vector!) vs \(SyntheticPhone.gravity(t))")
        }
    }

    @Test func otherAndroidEvidence() {
        for (name, values) in [("battery", #"{"batteryLevel":0.5,"voltage":4100,"health":"good"}"#), ("activity", #"{"activity":"tilting"}"#), ("light", #"{"lux":3}"#)] {
            var detector = SensorLoggerConventionDetector()
            let body = #"{"payload":[{"name":"\#(name)","time":1,"values":\#(values)}]}"#
            let decision = detector.observe(try! SensorLoggerDecoder.decode(Array(body.utf8)))
            #expect(decision?.convention == .android && decision?.platform == .android, "\(name)")
        }
    }

    @Test func undecidableAsksTheUserUnlessTold() throws {
        var phone = SyntheticPhone(platform: .ios)
        phone.sensors = ["gravity", "accelerometer", "gyroscope"]
        let rig = Rig()
        let replies = (0..<4).map { rig.push(phone, $0) }
        #expect(replies.map(\.status) == [200, 200, 200, 499])
        let reply = replies[3]
        #expect(reply.text.contains("Uncalibrated Accelerometer"))
        rig.clock.advance(by: 1)
        #expect(rig.collector.samples(of: .accelerometer).isEmpty)
        #expect(!rig.collector.samples(of: .gyroscope).isEmpty)  // the same in both conventions
        let told = Rig(platform: .ios)
        for k in 0..<4 { #expect(told.push(phone, k).status == 200) }
        told.clock.advance(by: 1)
        let acc = told.collector.samples(of: .accelerometer)
        #expect(acc.count > 50)  // gravity + user acceleration of the same instant
        let last = try #require(acc.last)
        #expect((last.vector! - SyntheticPhone.gravity(last.time - told.origin)).norm < 0.01)
    }

    @Test func referenceDataIsKeptNotDelivered() throws {
        var phone = SyntheticPhone(platform: .ios)
        phone.sensors = ["accelerometeruncalibrated", "gravity", "accelerometer", "orientation", "barometer", "pedometer"]
        let rig = Rig()
        for k in 0..<12 { rig.push(phone, k) }
        rig.clock.advance(by: 1)
        let device = rig.server.chosenPhone!
        let reference = device.referenceData()
        #expect(reference.attitude.count > 250)
        #expect(reference.gravity.count == reference.attitude.count)
        #expect(reference.relativeAltitude.count == 3)
        #expect(reference.cumulativeSteps.count == 3)
        #expect(zip(reference.attitude.dropFirst(), reference.attitude).allSatisfy { $0.time > $1.time })
        let q = reference.attitude[100]
        #expect(q.value.angle(to: SyntheticPhone.attitude(q.time - rig.origin)) < 0.01)
        #expect(rig.collector.samples(of: .barometer).count == 3)
        if case .barometer(let p) = rig.collector.samples(of: .barometer)[0] { #expect(abs(p.kilopascals - 101.325) < 1e-9) }
    }

    // MARK: Order, duplicates, clock, pacing

    @Test func reordersDropsDuplicatesAndPaces() throws {
        let rig = Rig(platform: .ios)
        let phone = SyntheticPhone(platform: .ios)
        // Messages 0…19 with 5 and 6 swapped (6 arrives first, 5 right after), 9 twice, 12 delayed half a batch.
        let order = [0, 1, 2, 3, 4, 6, 5, 7, 8, 9, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]
        for k in order {
            let extra = (k == 5) ? 0.01 + phone.batch : (k == 12 ? 0.12 : 0)
            rig.push(phone, k, extraDelay: extra)
        }
        rig.clock.advance(by: 3)
        let acc = rig.collector.samples(of: .accelerometer)
        let times = acc.map(\.time)
        #expect(zip(times.dropFirst(), times).allSatisfy { $0 > $1 }, "strictly increasing")
        // 20 batches of 25 samples: message 5 came one batch late, so at most its oldest samples are lost.
        #expect(acc.count >= 500 - 25 && acc.count <= 500, "\(acc.count)")
        #expect(rig.server.chosenPhone!.currentSummary.duplicates == 1)
        // Intervals are the phone's (10 ms) within the slew of the offset.
        let steps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(steps.sorted()[steps.count / 2] > 0.0099 && steps.sorted()[steps.count / 2] < 0.0101)
        // Every sample reached the sink after its timestamp, and no later than the buffer's delay allows.
        let deliveries = rig.collector.deliveries
        let all = rig.collector.samples
        let stats = rig.server.device.currentStatistics
        #expect(stats.delay > 0.25 && stats.delay < 0.7, "delay \(stats.delay)")
        for (s, at) in zip(all, deliveries) {
            #expect(at >= s.time)
            #expect(at - s.time <= 2.01)
        }
        // Mapped times: the offset is min(arrival − newest reading): message 0 arrives at 0.255 s, its newest
        // reading is the magnetometer's at 0.2426 s, so the phone's t = 0 maps to origin + 12.4 ms.
        let first = try #require(acc.first)
        #expect(abs(first.time - rig.origin - (0.255 - 0.2426)) < 0.0005, "\(first.time - rig.origin)")
    }

    @Test func aStartJoinsTheStreamAsItFlows() throws {
        // The phone pushes before anyone runs a sensor; an app that starts the accelerometer between two
        // pushes gets its first sample at once (the buffer's delay old), not after the next push and a delay.
        let clock = VirtualClock(start: 1000)
        let server = SensorLoggerServer(configuration: SensorLoggerConfiguration(port: 0, platform: .ios), clock: clock)
        let collector = PushCollector(clock: clock)
        let phone = SyntheticPhone(platform: .ios)
        let origin = clock.now
        for k in 0..<8 {
            clock.advance(to: origin + phone.arrival(k))
            _ = server.receive(phone.message(k), authorization: nil, arrival: clock.now)
        }
        // Idle: only what is not yet due is held (about a delay's worth: 4 sensors, ≤ 0.3 s).
        let delay = server.device.currentStatistics.delay
        clock.advance(by: 0.1)
        let start = clock.now
        server.device.run([.accelerometer: 100], sink: collector.sink, events: collector.eventSink)
        clock.advance(by: 0.02)
        let first = try #require(collector.samples(of: .accelerometer).first)
        #expect(first.time >= start - delay - 0.011 && first.time <= start, "first sample \(first.time - start) s from the start")
        // And from then on, every sample of the phone, once.
        for k in 8..<12 {
            clock.advance(to: origin + phone.arrival(k))
            _ = server.receive(phone.message(k), authorization: nil, arrival: clock.now)
        }
        clock.advance(by: 0.5)
        let times = collector.samples(of: .accelerometer).map(\.time)
        #expect(zip(times.dropFirst(), times).allSatisfy { $0 > $1 })
        let expected = Int(((times.last ?? 0) - first.time) * 100 + 1.5)
        #expect(times.count >= expected - 1 && times.count <= expected + 1, "\(times.count) samples, \(expected) expected")
        #expect(times.count >= 100, "\(times.count) samples")
    }

    @Test func phoneClockTracksTheMinimumAndSlews() {
        var clock = PhoneClock(configuration: .init(settling: 0))
        let base: Int64 = 1_745_877_875_000_000_000
        // Arrivals 50 ms, then 20 ms after the newest sample: the offset follows the minimum.
        clock.observe(newestSample: base, arrival: 100.05)
        #expect(abs(clock.hostTime(base)! - 100.05) < 1e-9)
        clock.observe(newestSample: base + 250_000_000, arrival: 100.27)
        // Slewed by at most 2 ms/s × 0.22 s, not stepped to 100.02.
        #expect(abs(clock.hostTime(base)! - (100.05 - 0.00044)) < 1e-9)
        // A late message does not raise it.
        clock.observe(newestSample: base + 500_000_000, arrival: 101.2)
        #expect(clock.estimate! < 100.0201)
        // A jump of the phone's clock by 5 s is stepped once three pushes in a row over at least 1 s agree
        // (one alone is held: it may be a spoof with the phone's deviceId).
        let first = clock.observe(newestSample: base + 750_000_000 + 5_000_000_000, arrival: 101.3)
        let second = clock.observe(newestSample: base + 1_000_000_000 + 5_000_000_000, arrival: 101.6)
        #expect(!first && !second && clock.steps == 0 && clock.rejections == 2)
        let third = clock.observe(newestSample: base + 2_000_000_000 + 5_000_000_000, arrival: 102.6)
        #expect(third)
        #expect(clock.steps == 1)
        #expect(abs(clock.hostTime(base + 2_000_000_000 + 5_000_000_000)! - 102.55) < 1e-6)  // the lowest of the three
    }

    @Test func phoneClockTakesAFasterMessageAtOnceWhileSettling() {
        // The first push after a receiver starts came 0.47 s slower than the next (measured in a client's
        // process): in the first 3 s the faster message's offset is taken at once, not slewed over minutes.
        var clock = PhoneClock()
        let base: Int64 = 1_745_877_875_000_000_000
        clock.observe(newestSample: base, arrival: 100.5, mayStepBack: true)
        clock.observe(newestSample: base + 250_000_000, arrival: 100.28, mayStepBack: true)
        #expect(abs(clock.hostTime(base)! - 100.03) < 1e-9)
        #expect(clock.steps == 0)
        // A slower message does not raise it; after the settling time a faster one is slewed again.
        clock.observe(newestSample: base + 500_000_000, arrival: 100.9, mayStepBack: true)
        #expect(abs(clock.hostTime(base)! - 100.03) < 1e-9)
        clock.observe(newestSample: base + 4_000_000_000, arrival: 104.0, mayStepBack: true)
        #expect(abs(clock.hostTime(base)! - (100.03 - 0.002 * 3.1)) < 1e-9)
        // Once samples were delivered (the caller says so), a faster message is slewed even while settling:
        // the intervals an app already sees stay the phone's.
        var delivering = PhoneClock()
        delivering.observe(newestSample: base, arrival: 100.5)
        delivering.observe(newestSample: base + 250_000_000, arrival: 100.55)
        #expect(abs(delivering.hostTime(base)! - (100.5 - 0.002 * 0.05)) < 1e-9)
    }

    @Test func jitterBufferReleasesInTimeOrderAfterTheDelay() {
        var buffer = JitterBuffer<Int>(configuration: .init(margin: 0.03))
        buffer.noteMessage(oldest: 10.0, arrival: 10.25)
        for (t, v) in [(10.2, 3), (10.0, 1), (10.1, 2), (10.1, 22)] { buffer.insert(v, time: t) }
        #expect(abs(buffer.delay - 0.28) < 1e-9)
        #expect(buffer.popDue(now: 10.27) == nil)
        #expect(buffer.popDue(now: 10.28)?.element == 1)
        #expect(buffer.popDue(now: 10.38)?.element == 2)
        #expect(buffer.popDue(now: 10.38)?.element == 22)
        #expect(buffer.popDue(now: 10.38) == nil)
        // A message a batch late raises the delay for the window.
        buffer.noteMessage(oldest: 10.25, arrival: 10.75)
        #expect(abs(buffer.delay - 0.53) < 1e-9)
        buffer.noteMessage(oldest: 50, arrival: 50.25)
        #expect(abs(buffer.delay - 0.28) < 1e-9)
    }

    /// The one set of plausibility limits applies to Sensor Logger too: a reading beyond ±64 g is refused,
    /// counted and not delivered; its neighbour is.
    @Test func implausibleReadingsAreRefused() {
        let rig = Rig(platform: .ios)
        let t0: Int64 = 1_745_877_875_000_000_000
        let body = #"{"messageId":1,"sessionId":"s","deviceId":"d","payload":["#
            + #"{"name":"accelerometeruncalibrated","time":\#(t0),"values":{"x":500,"y":0,"z":-1}},"#
            + #"{"name":"accelerometeruncalibrated","time":\#(t0 + 10_000_000),"values":{"x":0,"y":0,"z":-1}}]}"#
        #expect(rig.server.receive(Array(body.utf8), authorization: nil, arrival: rig.clock.now).status == 200)
        rig.clock.advance(by: 1)
        #expect(rig.server.device.currentStatistics.refusedReadings == 1)
        #expect(rig.collector.samples(of: .accelerometer).map(\.vector) == [Vector3(0, 0, -1)])
    }

    // MARK: Several phones

    @Test func phonesAreSeparate() throws {
        let rig = Rig(deviceId: "B")
        var a = SyntheticPhone(platform: .android)
        a.deviceId = "A"
        var b = SyntheticPhone(platform: .ios)
        b.deviceId = "B"
        b.start += 123_000_000
        for k in 0..<8 {
            rig.push(a, k)
            // Garbage between them, and a message claiming B's id with a wrong shape.
            #expect(rig.server.receive(Array("{\"deviceId\":\"B\",\"payload\":[{\"name\":1}]}".utf8), authorization: nil).status == 400)
            #expect(rig.server.receive(Array("\u{0}\u{1}{{".utf8), authorization: nil).status == 400)
            rig.push(b, k)
        }
        rig.clock.advance(by: 1)
        #expect(rig.server.phones.map(\.deviceId) == ["A", "B"])
        #expect(rig.server.chosenPhone?.deviceId == "B")
        #expect(rig.server.phone("A")?.decision?.convention == .android)
        #expect(rig.server.phone("B")?.decision?.convention == .apple)
        #expect(rig.server.phone("A")?.device !== rig.server.device)
        // Only B's samples reach the device: B's first sample is 123 ms after A's, at B's arrival offset.
        let acc = rig.collector.samples(of: .accelerometer)
        #expect(acc.count == 8 * 25)
        #expect(rig.server.statistics.malformed[.badReading] == 8)
        #expect(rig.server.statistics.replies[400] == 16)
    }

    // MARK: Silence

    @Test func aSilentPhoneLosesItsSensorsAndComesBack() {
        let rig = Rig(platform: .ios)
        let phone = SyntheticPhone(platform: .ios)
        for k in 0..<8 { rig.push(phone, k) }
        rig.clock.advance(by: 1)
        #expect(Set(rig.server.device.sensors.keys) == [.accelerometer, .gyroscope, .magnetometer, .barometer])
        let before = rig.collector.samples(of: .accelerometer).count
        // Silence: 2 s without a push loses every sensor (the barometer, at 1 Hz, after 10 s).
        rig.clock.advance(by: 2.5)
        let lost = rig.collector.events.compactMap { e -> SensorKind? in if case .sensorLost(let k, _) = e { return k } else { return nil } }
        #expect(Set(lost).isSuperset(of: [.accelerometer, .gyroscope, .magnetometer]))
        #expect(rig.server.device.sensors[.accelerometer] == nil)
        // Back: message 30 (the phone kept its clock) brings them back and delivery resumes.
        for k in 30..<36 { rig.push(phone, k) }
        rig.clock.advance(by: 1)
        let returned = rig.collector.events.compactMap { e -> SensorKind? in if case .sensorReturned(let k) = e { return k } else { return nil } }
        #expect(returned.filter { $0 == .accelerometer }.count == 2)  // first seen, then back
        #expect(rig.server.device.sensors[.accelerometer] != nil)
        #expect(rig.collector.samples(of: .accelerometer).count >= before + 5 * 25)
    }

    // MARK: Headphones

    @Test func headphoneStream() {
        let rig = Rig(platform: .ios)
        var phone = SyntheticPhone(platform: .ios)
        phone.sensors = ["accelerometeruncalibrated", "headphone"]
        phone.rate = 25
        let events = PushCollector(clock: rig.clock)
        _ = rig.server.device.subscribeHeadphone(events.headphoneSink)
        for k in 0..<8 { rig.push(phone, k) }
        rig.clock.advance(by: 1)
        let received = events.headphone
        #expect(received.first == .connected)
        let samples = received.compactMap { e -> HeadphoneMotionSample? in if case .sample(let s) = e { return s } else { return nil } }
        #expect(samples.count == 8 * 25 / 4)
        #expect(samples.allSatisfy { $0.location == .left && $0.gravity == Vector3(0, 0, -1) && $0.userAcceleration == Vector3(0.01, 0, 0) })
        #expect(zip(samples.dropFirst(), samples).allSatisfy { $0.time > $1.time })
        rig.clock.advance(by: 3)
        #expect(events.headphone.last == .disconnected)
    }

    /// A reading with only the quaternion: zero rotation rate and user acceleration, gravity from the attitude
    /// (Apple's identity), `.default` location.
    @Test func headphoneReadingWithOnlyTheAttitude() throws {
        let rig = Rig(platform: .ios)
        var phone = SyntheticPhone(platform: .ios)
        phone.sensors = ["accelerometeruncalibrated", "headphone"]
        phone.rate = 25
        phone.headphoneFullReadings = false
        let events = PushCollector(clock: rig.clock)
        _ = rig.server.device.subscribeHeadphone(events.headphoneSink)
        for k in 0..<4 { rig.push(phone, k) }
        rig.clock.advance(by: 1)
        let samples = events.headphone.compactMap { e -> HeadphoneMotionSample? in if case .sample(let s) = e { return s } else { return nil } }
        #expect(samples.count == 4 * 25 / 4)
        for s in samples {
            #expect(s.rotationRate == .zero && s.userAcceleration == .zero && s.location == .unknown)
            #expect(s.gravity.angle(to: gravity(of: s.attitude)) < 1e-9 && abs(s.gravity.norm - 1) < 1e-9)
        }
        let first = try #require(samples.first)
        #expect(first.gravity.angle(to: first.attitude.inverseRotate(Vector3(0, 0, -1))) < 1e-9)
    }
}
