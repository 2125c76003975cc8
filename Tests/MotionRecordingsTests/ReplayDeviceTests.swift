import Foundation
import MotionRecordings
import Testing
import TestSupport

/// Collects what a device delivers.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var _samples: [SensorSample] = []
    private var _events: [DeviceEvent] = []
    var samples: [SensorSample] { lock.lock(); defer { lock.unlock() }; return _samples }
    var events: [DeviceEvent] { lock.lock(); defer { lock.unlock() }; return _events }
    func add(_ s: SensorSample) { lock.lock(); _samples.append(s); lock.unlock() }
    func add(_ e: DeviceEvent) { lock.lock(); _events.append(e); lock.unlock() }
}

@Suite struct ReplayDeviceTests {
    @Test func replaysInRealTimeOnAVirtualClock() throws {
        let recording = try RecordingReader.read(Fixture.url("broad/broad-01-excerpt.csv"))
        let clock = VirtualClock()
        let start = clock.now
        let device = try ReplayDevice.make(recording: recording, clock: clock)
        #expect(device.name.hasPrefix("replay:"))
        #expect(Set(device.sensors.keys) == [.accelerometer, .gyroscope, .magnetometer])
        #expect(abs(device.sensors[.accelerometer]!.maximumRate - 285.714) < 0.01)
        let got = Collected()
        device.run([.accelerometer: 100], sink: { got.add($0) }, events: { got.add($0) })
        clock.advance(by: 1)
        let samples = got.samples
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
        #expect(got.samples.count == 5715)
        #expect(got.events == [.endOfData])
    }

    @Test func speedAndLoop() throws {
        let recording = try RecordingReader.read(Fixture.url("sensorlogger/ios-walk"))
        let clock = VirtualClock()
        let fast = try ReplayDevice.make(recording: recording, clock: clock, speed: 4)
        let gotFast = Collected()
        fast.run([.gyroscope: 100], sink: { gotFast.add($0) }, events: { gotFast.add($0) })
        clock.advance(by: 0.25)
        // Playback starts at the first motion sample (t = 0.005 s; the barometer sample at −0.3 s plays
        // at once): 0.25 s of clock at 4× is source time 0.005 … 1.005 s, gyroscope samples i = 0 … 100.
        #expect(gotFast.samples.count == 101)

        let looping = try ReplayDevice.make(recording: recording, clock: clock, loop: true)
        let gotLoop = Collected()
        looping.run([.accelerometer: 100], sink: { gotLoop.add($0) }, events: { gotLoop.add($0) })
        clock.advance(by: 4.6)
        // A pass is 0.005 … 1.495 s plus one 10 ms period = 1.5 s; in 4.6 s: three full passes of 150
        // accelerometer samples and 0.1 s of the fourth (i = 0 … 10), and never an end.
        let times = gotLoop.samples.map(\.time)
        #expect(gotLoop.samples.count == 150 + 150 + 150 + 11)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        #expect(!gotLoop.events.contains(.endOfData))
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
