import Foundation
@testable import MotionDaemon
import MotionDaemonClient
import MotionProtocol
import MotionService
import Testing
import TestSupport

@Suite("coremotiond: one device shared by many clients", .serialized)
struct DaemonSharingTests {
    @Test("the welcome lists the device's sensors; a client sees them as its own")
    func welcome() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.removeFiles() }
        let client = try daemon.connect()
        defer { client.close() }
        #expect(client.deviceName == "synthetic")
        #expect(client.sensorDescription(.accelerometer)?.maximumRate == 100)
        #expect(client.has(.barometer))
        #expect(client.availableReferenceFrames.contains(.xMagneticNorthZVertical))
        #expect(client.authorizationStatus() == .authorized)
        #expect(client.welcome.bufferCapacity == 8192)
    }

    @Test("each client gets its own interval; the device runs at the fastest; one client never changes another's")
    func ownIntervals() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.removeFiles() }
        let slow = try daemon.connect(hint: "slow")
        let fast = try daemon.connect(hint: "fast")
        defer { slow.close(); fast.close() }
        let slowCount = Counter()
        let fastCount = Counter()
        let a = try #require(slow.subscribe(to: .accelerometer, interval: 0.1) { slowCount.add($0.time) })
        let b = try #require(fast.subscribe(to: .accelerometer, interval: 0.02) { fastCount.add($0.time) })
        #expect(a.interval == 0.1 && b.interval == 0.02)
        Thread.sleep(forTimeInterval: 2.2)
        let slowTimes = slowCount.times
        let fastTimes = fastCount.times
        // Measured: 10 and 50 per second.
        let slowRate = Double(slowTimes.count - 1) / ((slowTimes.last ?? 0) - (slowTimes.first ?? 0))
        let fastRate = Double(fastTimes.count - 1) / ((fastTimes.last ?? 0) - (fastTimes.first ?? 0))
        #expect(abs(slowRate - 10) < 1, "slow client \(slowRate) Hz")
        #expect(abs(fastRate - 50) < 3, "fast client \(fastRate) Hz")
        #expect(daemon.core.service.activeRate(.accelerometer) == 100)
        // The fast client leaves: the slow one keeps its 10 Hz.
        b.cancel()
        slowCount.reset()
        Thread.sleep(forTimeInterval: 1.5)
        let after = slowCount.times
        let afterRate = Double(after.count - 1) / ((after.last ?? 0) - (after.first ?? 0))
        #expect(abs(afterRate - 10) < 1, "slow client after the fast one left: \(afterRate) Hz")
        a.cancel()
    }

    @Test("device motion: each client in its own frame, from one fusion")
    func deviceMotionFrames() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.removeFiles() }
        let one = try daemon.connect()
        let two = try daemon.connect()
        defer { one.close(); two.close() }
        let arbitrary = Counter()
        let north = Counter()
        let headings = Counter()
        let s1 = one.subscribeDeviceMotion(frame: .xArbitraryZVertical, interval: 0.02) { u in
            if case .motion(let m) = u {
                arbitrary.add(m.time)
                #expect(m.heading == -1)
            }
        }
        let s2 = two.subscribeDeviceMotion(frame: .xMagneticNorthZVertical, interval: 0.05) { u in
            if case .motion(let m) = u {
                north.add(m.time)
                headings.add(m.heading)
            }
        }
        #expect(eventually { arbitrary.count > 20 && north.count > 10 })
        #expect(headings.times.allSatisfy { $0 >= 0 && $0 < 360 })
        s1?.cancel()
        s2?.cancel()
    }

    @Test("altitude, pedometer and activity streams flow through the socket")
    func engineStreams() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.removeFiles() }
        let client = try daemon.connect()
        defer { client.close() }
        let altitude = Counter()
        let s = client.subscribeAltitude(absolute: false) { altitude.add($0.relativeAltitude) }
        #expect(eventually(timeout: 8) { altitude.count >= 2 }, "\(altitude.count) altitude updates")
        #expect(altitude.times.first == 0)
        s?.cancel()
        // A pedometer query answers from the daemon's history (no steps in a synthetic still device).
        let totals = try client.pedometerTotals(from: Date().addingTimeInterval(-60), to: Date())
        #expect(totals.steps == 0)
    }

    @Test("status names every client with its streams")
    func status() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.removeFiles() }
        let client = try daemon.connect(hint: "status-test")
        defer { client.close() }
        let s = client.subscribe(to: .gyroscope, interval: 0.05) { _ in }
        #expect(eventually { daemon.core.connectedSessions.first?.openStreams.count == 1 })
        let data = try #require(client.statusDocument().data(using: .utf8))
        let report = try JSONDecoder().decode(DaemonStatusReport.self, from: data)
        #expect(report.device == "synthetic")
        #expect(report.clients.count == 1)
        #expect(report.clients.first?.pid == getpid())
        #expect(report.clients.first?.hint == "status-test")
        #expect(report.clients.first?.streams.first?.kind == "gyroscope")
        #expect(report.sensors.first { $0.kind == "gyroscope" }?.activeRate == 100)
        #expect(report.history.path.hasSuffix("history.sqlite"))
        s?.cancel()
    }

    @Test("a client of the daemon reconnects by itself: a gap, then delivery resumes")
    func reconnects() throws {
        let first = try TestDaemon()
        let folder = first.folder
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = try first.connect()
        defer { client.close() }
        let count = Counter()
        let s = client.subscribe(to: .accelerometer, interval: 0.05) { count.add($0.time) }
        #expect(eventually { count.count > 5 })
        first.stop()
        #expect(eventually { !client.isConnected })
        count.reset()
        Thread.sleep(forTimeInterval: 0.5)
        #expect(count.count == 0)
        let second = try TestDaemon(folder: folder)
        defer { second.stop() }
        #expect(eventually(timeout: 10) { count.count > 5 }, "no samples after the daemon came back")
        #expect(client.isConnected)
        s?.cancel()
    }
}
