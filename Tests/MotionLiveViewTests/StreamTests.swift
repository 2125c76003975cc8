import Foundation
import MotionLiveView
import MotionLiveViewProtocol
import Synchronization
import Testing

@Suite("Decimation, messages and the fan-out")
struct StreamTests {
    @Test("a 1 kHz channel is thinned to the rate; channels are independent; a jump back starts over")
    func decimation() {
        var decimator = SampleDecimator(rate: 60)
        var passed = [0, 0]
        for i in 0..<1000 {
            let t = Double(i) / 1000
            if decimator.admit(LiveSample(.acceleration, time: t, x: 0, y: 0, z: 1)) { passed[0] += 1 }
            if i % 10 == 0, decimator.admit(LiveSample(.rotationRate, time: t, x: 0, y: 0, z: 0)) { passed[1] += 1 }
        }
        #expect((59...61).contains(passed[0]))
        #expect((49...51).contains(passed[1]))  // 100 Hz: every other 10 ms sample is under the 16.7 ms period
        let back = decimator.admit(LiveSample(.acceleration, time: 0.2, x: 0, y: 0, z: 1))
        #expect(back)
        let notANumber = decimator.admit(LiveSample(.acceleration, time: .nan, x: 0, y: 0, z: 1))
        #expect(!notANumber)
        // A source exactly at the rate is not halved.
        var exact = SampleDecimator(rate: 50)
        #expect((0..<50).filter { exact.admit(LiveSample(.pressure, time: Double($0) / 50, value: 1)) }.count == 50)
    }

    @Test("the samples message is JSON the page can read")
    func samplesMessage() throws {
        let text = ServerMessageWriter.samples(
            sequence: 3, clock: LiveClock(time: 1.5, playing: true, speed: 2),
            samples: [
                LiveSample(.acceleration, time: 1.25, x: 0.1, y: -0.000004, z: -1),
                LiveSample(.attitude, time: 1.25, SIMD4(1, 0, 0, 0)),
                LiveSample(.acceleration, time: 1.5, x: .nan, y: 1e20, z: -2.123456789),
                LiveSample(LiveChannel(key: "we\"ird\n", components: 1), time: 0, value: 3),
            ],
            events: [.step(time: 1.3), .activity(time: 1.4, label: "walking", confidence: 2), .appleActivity(time: 1, label: "a\u{1}b")]
        )
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "samples")
        #expect(object["seq"] as? Int == 3)
        let channels = try #require(object["ch"] as? [String: Any])
        let acc = try #require(channels["acc"] as? [Any])
        #expect(acc.count == 8)
        #expect(acc[1] as? Double == 0.1)
        #expect(acc[2] as? Double == 0)
        #expect(acc[5] is NSNull)
        #expect(acc[6] as? Double == 1e20)
        #expect(acc[7] as? Double == -2.12346)
        #expect((channels["att"] as? [Any])?.count == 5)
        #expect(channels["we\"ird\n"] != nil)
        let events = try #require(object["ev"] as? [[Any]])
        #expect(events.count == 3)
        #expect(events[1][2] as? String == "walking")
        #expect(events[2][2] as? String == "a\u{1}b")
        let clock = try #require(object["clock"] as? [Double])
        #expect(clock == [1.5, 1, 2])
    }

    @Test("hello, reset, error and pong are JSON")
    func otherMessages() throws {
        let hello = ServerMessageWriter.hello(LiveViewHello(source: "sim:walking \"x\"", timeline: 0...12.5, referenceFrame: "xArbitraryZVertical", referenceFrames: ["xArbitraryZVertical"], sampleRate: 60))
        let h = try #require(try JSONSerialization.jsonObject(with: Data(hello.utf8)) as? [String: Any])
        #expect(h["source"] as? String == "sim:walking \"x\"")
        #expect(h["timeline"] as? [Double] == [0, 12.5])
        for text in [ServerMessageWriter.reset(time: 3, referenceFrame: "f"), ServerMessageWriter.error("bad \u{7}"), ServerMessageWriter.pong(id: 4)] {
            #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
        }
    }

    @Test("a page that never reads loses its oldest messages; publishing and the other pages go on")
    func stalledPage() async throws {
        let broadcaster = LiveBroadcaster(rate: 1000)
        let stalled = broadcaster.addPage()
        let reader = broadcaster.addPage()
        let consumed = Atomic<Int>(0)
        // The reading page reads until its stream ends (when it is removed below), never "until 200": a
        // message it lost would leave it waiting for ever (with the sanitizer and a busy cooperative pool,
        // `Task.yield()` alone let the reader fall more than an outbox behind, and the run stopped with
        // every task suspended).
        let received = Task {
            var count = 0
            for await _ in reader.messages {
                count += 1
                consumed.add(1, ordering: .relaxed)
            }
            return count
        }
        for i in 0..<200 {
            broadcaster.publish(LiveSample(.acceleration, time: Double(i), x: 0, y: 0, z: 1))
            broadcaster.flush(clock: LiveClock(time: Double(i), playing: true, speed: 1))
            // A page that reads keeps up: it has read this message before the next is published (bounded).
            let deadline = ContinuousClock.now + .seconds(10)
            while consumed.load(ordering: .relaxed) <= i, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        #expect(broadcaster.droppedMessages(page: reader.id) == 0)
        broadcaster.remove(page: reader.id)
        #expect(await received.value == 200)
        #expect((broadcaster.droppedMessages(page: stalled.id) ?? 0) >= 200 - LiveBroadcaster.outboxSize)
        broadcaster.remove(page: stalled.id)
        #expect(broadcaster.pageCount == 0)
        _ = stalled.messages
    }

    @Test("loopback needs no token; any other address does; tokens are compared exactly")
    func access() throws {
        #expect(throws: Never.self) { try LiveViewAccess(host: "127.0.0.1", token: nil) }
        #expect(throws: Never.self) { try LiveViewAccess(host: "::1", token: nil) }
        #expect(throws: Never.self) { try LiveViewAccess(host: "localhost", token: nil) }
        #expect(throws: LiveViewAccessError.tokenRequired(host: "0.0.0.0")) { try LiveViewAccess(host: "0.0.0.0", token: nil) }
        #expect(throws: LiveViewAccessError.tokenRequired(host: "127.0.0.1.evil")) { try LiveViewAccess(host: "127.0.0.1.evil", token: nil) }
        #expect(throws: LiveViewAccessError.tokenTooShort) { try LiveViewAccess(host: "0.0.0.0", token: "short") }
        #expect(throws: LiveViewAccessError.tokenCharacters) { try LiveViewAccess(host: "0.0.0.0", token: "with space") }
        let open = try LiveViewAccess(host: "127.0.0.1", token: nil)
        #expect(open.admits(token: nil))
        let guarded = try LiveViewAccess(host: "0.0.0.0", token: "secret-token")
        #expect(guarded.admits(token: "secret-token"))
        #expect(!guarded.admits(token: nil))
        #expect(!guarded.admits(token: "secret-toke"))
        #expect(!guarded.admits(token: "secret-token2"))
        #expect(!guarded.admits(token: ""))
        #expect(LiveViewAccess.admits(origin: nil, host: "127.0.0.1:8765"))
        #expect(LiveViewAccess.admits(origin: "http://127.0.0.1:8765", host: "127.0.0.1:8765"))
        #expect(LiveViewAccess.admits(origin: "HTTP://LOCALHOST:8765", host: "localhost:8765"))
        #expect(!LiveViewAccess.admits(origin: "http://evil.example", host: "127.0.0.1:8765"))
        #expect(!LiveViewAccess.admits(origin: "http://127.0.0.1:8766", host: "127.0.0.1:8765"))
        #expect(!LiveViewAccess.admits(origin: "null", host: "127.0.0.1:8765"))
        #expect(!LiveViewAccess.admits(origin: "http://127.0.0.1:8765", host: nil))
    }

    @Test("a timeline plays, pauses, seeks with a prefill, changes speed and frame")
    func timeline() throws {
        let common = (0..<1000).map { LiveSample(.acceleration, time: Double($0) / 100, x: 0, y: 0, z: 1) }
        let framedA = (0..<100).map { LiveSample(.attitude, time: Double($0) / 10, SIMD4(1, 0, 0, 0)) }
        let timeline = RecordingTimeline(
            source: "test", span: 0...10, common: common,
            framed: ["xArbitraryZVertical": framedA, "xMagneticNorthZVertical": framedA], initialFrame: "xArbitraryZVertical",
            events: [.step(time: 5)]
        )
        let broadcaster = LiveBroadcaster(rate: 1000)
        let page = broadcaster.addPage()
        try timeline.start(into: broadcaster)
        try timeline.handle(.pause, broadcaster: broadcaster)
        try timeline.handle(.seek(time: 6), broadcaster: broadcaster)
        let clock = timeline.tick(into: broadcaster)
        #expect(clock.time == 6)
        #expect(!clock.playing)
        #expect(broadcaster.flush(clock: clock) > 500)  // the 10 s before the head (here 6 s) resent
        try timeline.handle(.speed(4), broadcaster: broadcaster)
        #expect(timeline.clock.speed == 4)
        try timeline.handle(.referenceFrame("xMagneticNorthZVertical"), broadcaster: broadcaster)
        #expect(timeline.hello.referenceFrame == "xMagneticNorthZVertical")
        #expect(throws: LiveViewSourceError.self) { try timeline.handle(.referenceFrame("xTrueNorthZVertical"), broadcaster: broadcaster) }
        try timeline.handle(.play, broadcaster: broadcaster)
        #expect(timeline.tick(into: broadcaster).playing)
        broadcaster.remove(page: page.id)
    }
}
