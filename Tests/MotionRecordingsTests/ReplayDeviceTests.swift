import Foundation
import MotionRecordings
import Testing
import TestSupport

@Suite struct ReplayDeviceTests {
    @Test func replaysInRealTimeOnAVirtualClock() throws {
        let recording = try RecordingReader.read(Fixture.url("broad/broad-01-excerpt.csv"))
        let clock = VirtualClock()
        let start = clock.now
        let device = try ReplayDevice.make(recording: recording, clock: clock)
        #expect(device.name.hasPrefix("replay:"))
        #expect(Set(device.sensors.keys) == [.accelerometer, .gyroscope, .magnetometer])
        #expect(abs(device.sensors[.accelerometer]!.maximumRate - 285.714) < 0.01)
        let got = Collector()
        device.run([.accelerometer: 100], sink: { got.add($0) }, events: { got.add($0) })
        clock.advance(by: 1)
        let samples = got.all
        // Source times 25.0005 … 26.0005 s (3.5 ms apart) fall within the first second: 286 samples.
        #expect(samples.count == 286)
        #expect(samples.allSatisfy { $0.sensor == .accelerometer })
        for (i, s) in samples.enumerated() {
            let original = recording.accelerometer[i]
            #expect(abs(s.time - (start + original.time - 25.0005)) < 1e-9)
            #expect(s.vector == original.value)
        }
        // The rest, then the end.
        clock.advance(by: 25)
        #expect(got.all.count == 5715)
        #expect(got.allEvents == [.endOfData])
    }

    @Test func speedAndLoop() throws {
        let recording = try RecordingReader.read(Fixture.url("sensorlogger/ios-walk"))
        let clock = VirtualClock()
        let fast = try ReplayDevice.make(recording: recording, clock: clock, speed: 4)
        let gotFast = Collector()
        fast.run([.gyroscope: 100], sink: { gotFast.add($0) }, events: { gotFast.add($0) })
        clock.advance(by: 0.25)
        // Playback starts at the first motion sample (t = 0.005 s; the barometer sample at −0.3 s plays
        // at once): 0.25 s of clock at 4× is source time 0.005 … 1.005 s, gyroscope samples i = 0 … 100.
        #expect(gotFast.all.count == 101)

        let looping = try ReplayDevice.make(recording: recording, clock: clock, loop: true)
        let gotLoop = Collector()
        looping.run([.accelerometer: 100], sink: { gotLoop.add($0) }, events: { gotLoop.add($0) })
        clock.advance(by: 4.6)
        // A pass is 0.005 … 1.495 s plus one 10 ms period = 1.5 s; in 4.6 s: three full passes of 150
        // accelerometer samples and 0.1 s of the fourth (i = 0 … 10), and never an end.
        let times = gotLoop.all.map(\.time)
        #expect(gotLoop.all.count == 150 + 150 + 150 + 11)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        #expect(!gotLoop.allEvents.contains(.endOfData))
    }

    @Test func specification() throws {
        let s = try ReplayDevice.Specification(parsing: "replay:/data/trials.zip#Pixel_1?speed=4&loop=true")
        #expect(s == ReplayDevice.Specification(path: "/data/trials.zip#Pixel_1", speed: 4, loop: true))
        #expect(try ReplayDevice.Specification(parsing: "/x.cmrec") == ReplayDevice.Specification(path: "/x.cmrec"))
        for bad in ["replay:", "/x?speed=0", "/x?speed=-2", "/x?speed=fast", "/x?loop=maybe", "/x?pace=2", "/x?speed"] {
            #expect(throws: RecordingError.self, "\(bad)") { try ReplayDevice.Specification(parsing: bad) }
        }
        #expect(throws: RecordingError.self) { try ReplayDevice.make(recording: Recording(metadata: RecordingMetadata(format: "x", source: "y")), clock: VirtualClock(), speed: .nan) }
        let device = try ReplayDevice.make(ReplayDevice.Specification(path: Fixture.url("qrowd/walk/user1.txt").path, speed: 2), clock: VirtualClock())
        #expect(device.speed == 2)
        #expect(device.sensors.keys.contains(.accelerometer))
    }
}

/// Collects what a device delivers, samples and fixes in one sequence.
final class CollectedWithFixes: @unchecked Sendable {
    enum Item: Equatable { case sample(SensorSample), fix(TimedLocation) }
    private let lock = NSLock()
    private var _items: [Item] = []
    var items: [Item] { lock.lock(); defer { lock.unlock() }; return _items }
    var fixes: [TimedLocation] { items.compactMap { if case .fix(let f) = $0 { f } else { nil } } }
    func add(_ item: Item) { lock.lock(); _items.append(item); lock.unlock() }
}

@Suite struct ReplayLocationTests {
    static let climb = Fixture.url("sensorlogger/ios-climb")

    /// The replay device plays the recording's fixes on the samples' schedule, in time order with
    /// them, stamped on the clock; the model and the location receiver come from the recording.
    @Test func fixesPlayInOrderWithTheSamples() throws {
        let recording = try RecordingReader.read(Self.climb)
        #expect(recording.location.count == 31)
        let clock = VirtualClock()
        let start = clock.now
        let device = try ReplayDevice.make(recording: recording, clock: clock)
        #expect(device.model == "iPhone 13")
        let receiver = try #require(device.locationDescription)
        #expect(receiver.hasAltitude && abs(receiver.typicalInterval - 3) < 1e-9)
        let got = CollectedWithFixes()
        device.run([.barometer: 1], sink: { got.add(.sample($0)) }, events: { _ in })
        device.runLocation { got.add(.fix($0)) }
        clock.advance(by: 10)
        let items = got.items
        let times = items.map { item -> Double in
            switch item {
            case .sample(let s): s.time
            case .fix(let f): f.time
            }
        }
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
        // No motion sensor: playback starts with the first barometer sample (0.2 s); the fix at 0 s
        // plays at once, 0.2 s before the clock's start.
        let fixes = got.fixes
        #expect(fixes.count == 4)  // 0, 3, 6, 9 s
        for (fix, original) in zip(fixes, recording.location) {
            #expect(abs(fix.time - (start + original.time - 0.2)) < 1e-9)
            #expect(fix.altitude == original.altitude && fix.verticalAccuracy == 3)
        }
        // Stopped, fixes pass by; started again, the last one that played comes first.
        device.runLocation(nil)
        clock.advance(by: 5)
        #expect(got.fixes.count == 4)
        device.runLocation { got.add(.fix($0)) }
        let again = got.fixes
        #expect(again.count == 5 && abs(again[4].time - (start + 15 - 0.2)) < 1e-9)  // the fix of 15 s (12 s passed by)
    }

    /// A recording without fixes has no location receiver, and nothing arrives.
    @Test func noFixesNoReceiver() throws {
        let recording = try RecordingReader.read(Fixture.url("broad/broad-01-excerpt.csv"))
        let clock = VirtualClock()
        let device = try ReplayDevice.make(recording: recording, clock: clock)
        #expect(device.locationDescription == nil && device.model == nil)
        let got = CollectedWithFixes()
        device.runLocation { got.add(.fix($0)) }
        clock.advance(by: 2)
        #expect(got.items.isEmpty)
    }
}
