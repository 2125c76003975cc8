import Foundation
import MotionSamples
import Testing

/// Samples every 20 ms over `ranges` (seconds), the attitude turning about z.
func headphoneSamples(_ ranges: [Range<Double>], location: HeadphoneSensorLocation = .left) -> [HeadphoneMotionSample] {
    ranges.flatMap { range in
        stride(from: range.lowerBound, to: range.upperBound - 1e-9, by: 0.02).map { t in
            HeadphoneMotionSample(
                time: t, attitude: Quaternion.aboutZ(0.1 * t), rotationRate: Vector3(0, 0, 0.1), userAcceleration: .zero,
                gravity: Vector3(0, 0, -1), location: location)
        }
    }
}

/// Collects a sink's events.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [HeadphoneEvent] = []
    var sink: HeadphoneEventSink { { [self] event in lock.lock(); items.append(event); lock.unlock() } }
    var all: [HeadphoneEvent] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
    var connections: [(Double, Bool)] {
        all.compactMap {
            switch $0 {
            case .connected(let t): (t, true)
            case .disconnected(let t, _): (t, false)
            case .motion: nil
            }
        }
    }
    var samples: [HeadphoneMotionSample] { all.compactMap { if case .motion(let s) = $0 { s } else { nil } } }
}

@Suite("headphone timelines and devices")
struct HeadphoneTimelineTests {
    @Test("connected before the first sample; a silence over 1 s disconnects at last + 1 s, the next sample reconnects; the end disconnects")
    func connectionRule() {
        let timeline = HeadphoneTimeline(name: "t", samples: headphoneSamples([0..<2, 3.5..<4, 4.9..<6]))
        let changes = timeline.events.compactMap { e -> (Double, Bool)? in
            switch e {
            case .connected(let t): (t, true)
            case .disconnected(let t, _): (t, false)
            case .motion: nil
            }
        }
        #expect(changes.count == 4)
        #expect(changes[0] == (0, true))
        #expect(abs(changes[1].0 - (1.98 + 1)) < 1e-9 && !changes[1].1)  // 1.5 s silence
        #expect(abs(changes[2].0 - 3.5) < 1e-9 && changes[2].1)
        #expect(abs(changes[3].0 - (5.98 + 0.02)) < 1e-9 && !changes[3].1)  // end; the 0.92 s silence stays a gap
        #expect(abs(timeline.rate - 50) < 1e-6)
        #expect(timeline.isConnected(at: 1) && !timeline.isConnected(at: 3.2) && timeline.isConnected(at: 4.5) && !timeline.isConnected(at: 7))
        #expect(!timeline.isConnected(at: -1))
    }

    @Test("recorded status: the capture's connect time, and its disconnect")
    func recordedStatus() {
        let samples = headphoneSamples([1..<2, 2.5..<3])
        let timeline = HeadphoneTimeline(
            name: "t", samples: samples,
            status: [HeadphoneStatusRecord(time: 0.7, connected: true, label: "connected"),
                     HeadphoneStatusRecord(time: 2.2, connected: false, label: "disconnected")])
        guard case .connected(let t0) = timeline.events.first else {
            Issue.record("no connect first")
            return
        }
        #expect(t0 == 0.7)
        #expect(timeline.events.contains { if case .disconnected(let t, let reason) = $0 { t == 2.2 && reason.contains("disconnected") } else { false } })
        #expect(timeline.startTime == 0.7)
    }

    @Test("a looping timeline repeats without reconnecting at the seam")
    func looping() {
        let samples = headphoneSamples([0..<1])
        let timeline = HeadphoneTimeline(name: "t", samples: samples, loopSpan: 1)
        #expect(timeline.endsConnected)
        #expect(timeline.isConnected(at: 5.5))
        let clock = VirtualClock()
        let device = ScheduledHeadphoneDevice(name: "loop", timeline: timeline, clock: clock)
        let log = EventLog()
        device.run(log.sink)
        clock.advance(by: 3.5)
        #expect(log.connections.count == 1)
        #expect(log.samples.count == 176)  // 0 … 3.5 s at 50 Hz, both ends included
        let steps = zip(log.samples.dropFirst(), log.samples).map { $0.time - $1.time }
        #expect(steps.allSatisfy { abs($0 - 0.02) < 1e-9 })
    }

    @Test("a scheduled device restamps events on its clock, keeps intervals, plays faster with speed, skips what fell due unheard")
    func scheduledDevice() {
        let clock = VirtualClock(start: 500)
        let timeline = HeadphoneTimeline(name: "t", samples: headphoneSamples([10..<12]))
        let device = ScheduledHeadphoneDevice(name: "d", timeline: timeline, clock: clock, speed: 2)
        #expect(abs(device.rate - 100) < 1e-6)
        #expect(device.isConnected)  // its first event plays at once
        let log = EventLog()
        clock.advance(by: 0.5)  // no sink: 1 s of the source goes by unheard
        device.run(log.sink)
        clock.advance(by: 1)
        let samples = log.samples
        // Source 11.0 s (clock 500.5) played while unheard, or is the first heard: rounding decides.
        #expect(samples.first!.time > 500.5 - 1e-9 && samples.first!.time < 500.51 + 1e-9)
        #expect(samples.count == 49 || samples.count == 50)
        #expect(zip(samples.dropFirst(), samples).allSatisfy { abs($0.time - $1.time - 0.01) < 1e-9 })
        #expect(log.connections.map(\.1) == [false])  // the end: 1.99 s + one period, at double speed
        #expect(!device.isConnected)
    }

    @Test("a live device connects on the first sample and disconnects after a silence measured on its clock")
    func liveDevice() {
        let clock = VirtualClock()
        let device = LiveHeadphoneDevice(name: "live", clock: clock, rate: 50)
        let log = EventLog()
        device.run(log.sink)
        #expect(!device.isConnected)
        for k in 0..<10 {
            device.receive(HeadphoneMotionSample(
                time: clock.now, attitude: .identity, rotationRate: .zero, userAcceleration: .zero, gravity: Vector3(0, 0, -1)))
            clock.advance(by: 0.02)
            if k == 0 { #expect(device.isConnected) }
        }
        device.receive(HeadphoneMotionSample(time: 0, attitude: .identity, rotationRate: .zero, userAcceleration: .zero, gravity: Vector3(0, 0, -1)))
        #expect(device.droppedCount == 1)  // older than the last
        clock.advance(by: 0.9)
        #expect(device.isConnected)
        clock.advance(by: 0.2)
        #expect(!device.isConnected)
        #expect(log.connections.map(\.1) == [true, false])
        device.receive(HeadphoneMotionSample(
            time: clock.now, attitude: .identity, rotationRate: .zero, userAcceleration: .zero, gravity: Vector3(0, 0, -1)))
        device.finish()
        #expect(log.connections.map(\.1) == [true, false, true, false])
    }

    @Test("the vertical twist: removing it leaves q.z = 0 and the tilt (gravity) as it was")
    func verticalTwist() {
        for (roll, pitch, yaw) in [(0.3, -0.2, 1.2), (0, 0, -2.5), (1.4, 0.5, 3.0), (-0.1, 1.2, 0.4)] {
            let q = Quaternion(appleRoll: roll, pitch: pitch, yaw: yaw)
            let anchored = HeadphoneMotionSample(
                time: 0, attitude: q, rotationRate: .zero, userAcceleration: .zero, gravity: gravity(of: q)
            ).anchored(removing: q.verticalTwist)
            #expect(abs(anchored.attitude.z) < 1e-15)
            #expect((gravity(of: anchored.attitude) - gravity(of: q)).norm < 1e-12)
            #expect(abs(anchored.attitude.norm - 1) < 1e-12)
        }
    }
}
