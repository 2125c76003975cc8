import Foundation
@testable import MotionDaemon
import MotionDaemonClient
import MotionDevices
import MotionEmulation
import MotionIIO
import MotionService
import Testing
import TestSupport

/// coremotiond over Linux IIO sensors whose devices appear after it started (a driver loaded, an I²C
/// device instantiated later), on a fake sysfs tree polled by the device layer.
@Suite("coremotiond: IIO sensors that appear after the start", .serialized)
struct DaemonIIOAppearsTests {
    @Test("COREMOTION_DEVICE=iio:ROOT without motion sensors gives a device with none; a missing root still fails")
    func explicitIIOWithoutSensors() throws {
        let folder = try TestData.temporaryDirectory("coremotiond-iio-empty")
        defer { try? FileManager.default.removeItem(at: folder) }
        let device = try DeviceFactory.makeDevice(.iio(root: folder.path), clock: SystemClock.shared)
        #expect(device is IIODevice)
        #expect(device.sensors.isEmpty)
        #expect(throws: DeviceSpecificationError.self) {
            try DeviceFactory.makeDevice(.iio(root: folder.path + "/missing"), clock: SystemClock.shared)
        }
    }

    /// A daemon over a watching IIO device on a fresh tree holding `initial` (polled capture).
    private func daemon(_ initial: [IIOFakeDevice]) throws -> (TestDaemon, IIOFakeTree) {
        let folder = try TestData.temporaryDirectory("coremotiond-iio-appears")
        let tree = try IIOFakeTree(root: folder.appendingPathComponent("tree"))
        for (index, d) in initial.enumerated() { try tree.add(d, index: index) }
        let device = try IIODevice.watching(root: tree.root, options: IIODevice.Options(capture: .polled))
        return (try TestDaemon(device: device, folder: folder), tree)
    }

    @Test("barometer only at the start: a bmi160 that appears is recorded, announced to clients and streams")
    func imuAppears() throws {
        let (daemon, tree) = try daemon([.bmp280()])
        defer { daemon.stop(); daemon.removeFiles() }
        try tree.set("iio:device0", "in_pressure_input", "101.325")
        let client = try daemon.connect()
        defer { client.close() }
        #expect(client.has(.barometer) && !client.has(.accelerometer))
        #expect(client.subscribe(to: .accelerometer, interval: 0.02) { _ in } == nil)
        let service = daemon.core.service
        #expect(service.activeRate(.accelerometer) == nil)

        let imu = try tree.add(.bmi160(), index: 1)
        try tree.setRaw(imu, "in_accel_z", 16393)
        // With no client streaming, the recorders take the new sensors: the pedometer (accelerometer,
        // gyroscope, and now the barometer too) and activity.
        #expect(eventually(timeout: 10) {
            service.activeRate(.accelerometer) != nil && service.activeRate(.gyroscope) != nil && service.activeRate(.barometer) != nil
        })
        // The connected client was told, and can stream the new sensor.
        #expect(eventually(timeout: 5) { client.has(.accelerometer) && client.has(.gyroscope) })
        let count = Counter()
        let subscription = try #require(client.subscribe(to: .accelerometer, interval: 0.02) { count.add($0.time) })
        defer { subscription.cancel() }
        #expect(eventually(timeout: 5) { count.count >= 10 })
    }

    @Test("IMU only at the start: the pedometer takes a barometer that appears later")
    func barometerAppears() throws {
        let (daemon, tree) = try daemon([.bmi160()])
        defer { daemon.stop(); daemon.removeFiles() }
        let service = daemon.core.service
        #expect(eventually(timeout: 5) { service.activeRate(.accelerometer) != nil })
        #expect(service.activeRate(.barometer) == nil)
        let baro = try tree.add(.bmp280(), index: 1)
        try tree.set(baro, "in_pressure_input", "101.325")
        #expect(eventually(timeout: 10) { service.activeRate(.barometer) != nil })
        #expect(service.has(.barometer))
    }
}
