import Foundation
@testable import MotionDaemon
import MotionDaemonClient
import MotionRecordings
import MotionService
import Testing
import TestSupport

@Suite("coremotiond: absolute altitude follows the device", .serialized)
struct DaemonAltimeterTests {
    /// The hand-made iPhone 13 climb (barometer and GNSS) replayed by the daemon: the welcome says
    /// absolute altitude is available, and altitude records carry it through the socket, stamped with
    /// the barometer samples' own times.
    @Test func absoluteAltitudeThroughTheSocket() throws {
        let recording = try RecordingReader.read(TestData.fixture("recordings/sensorlogger/ios-climb"))
        let device = try ReplayDevice.make(recording: recording, clock: SystemClock.shared, speed: 8)
        let daemon = try TestDaemon(device: device)
        defer { daemon.stop(); daemon.removeFiles() }
        let client = try daemon.connect()
        defer { client.close() }
        #expect(client.isAbsoluteAltitudeAvailable)
        let altitudes = Counter()
        let accuracies = Counter()
        let times = Counter()
        let s = client.subscribeAltitude(absolute: true) { value in
            times.add(value.time)
            if let a = value.absolute {
                altitudes.add(a.altitude)
                accuracies.add(a.accuracy)
            }
        }
        #expect(eventually(timeout: 10) { altitudes.count >= 10 })
        s?.cancel()
        // 120 m above sea level at the start (GNSS ± 3 m), climbing.
        #expect(altitudes.times.allSatisfy { $0 > 112 && $0 < 138 })
        #expect(accuracies.times.allSatisfy { $0 > 1 && $0 <= 3.01 })
        // At 8× the recording's 1.0628 s cadence: 0.13285 s apart on the clock, one update per sample.
        let intervals = zip(times.times.dropFirst(), times.times).map { $0 - $1 }
        #expect(intervals.allSatisfy { abs($0 - 1.0628 / 8) < 1e-6 }, "\(intervals)")
    }

    /// A device with a barometer and no reference (the synthetic one): not available, in the welcome too.
    @Test func unavailableWithoutAReference() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.removeFiles() }
        let client = try daemon.connect()
        defer { client.close() }
        #expect(client.has(.barometer))
        #expect(!client.isAbsoluteAltitudeAvailable)
    }
}
