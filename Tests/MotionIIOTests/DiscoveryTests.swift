import Foundation
import MotionEmulation
import Testing
@testable import MotionIIO

@Suite("discovery on fake trees with real drivers' layouts")
struct DiscoveryTests {
    @Test("bmi160: accelerometer and gyroscope on one device, per-type rates, buffer with data-ready trigger")
    func bmi160() throws {
        let t = try TemporaryTree()
        try t.tree.add(.bmi160(mountMatrix: "0, -1, 0; 1, 0, 0; 0, 0, 1"), index: 0)
        let device = try t.discover()
        let info = device.sensorInfo
        let accel = try #require(info[.accelerometer])
        let gyro = try #require(info[.gyroscope])
        #expect(info[.magnetometer] == nil && info[.barometer] == nil)
        #expect(accel.driverName == "bmi160" && accel.deviceDirectory == "iio:device0")
        #expect(accel.channels.map(\.scale) == [0.000598, 0.000598, 0.000598])
        #expect(accel.channels.allSatisfy { $0.scalePath?.hasSuffix("/in_accel_scale") == true })
        #expect(gyro.channels.map(\.scale) == [0.001065, 0.001065, 0.001065])
        #expect(accel.rate.attributePath?.hasSuffix("/in_accel_sampling_frequency") == true)
        #expect(accel.rate.rates.availableRates == [0.78125, 1.5625, 3.125, 6.25, 12.5, 25, 50, 100, 200, 400, 800, 1600])
        #expect(gyro.rate.rates.availableRates == [25, 50, 100, 200, 400, 800, 1600, 3200])
        #expect(accel.rate.currentRate == 100)
        #expect(accel.mountMatrix == Matrix3(0, -1, 0, 1, 0, 0, 0, 0, 1))
        #expect(accel.mountMatrixSource == .sysfs && accel.mountMatrixPath?.hasSuffix("/in_mount_matrix") == true)
        #expect(gyro.mountMatrix == accel.mountMatrix)
        #expect(accel.isBufferCapable && gyro.isBufferCapable)
        #expect(accel.channels.map { $0.scan?.index } == [7, 8, 9])
        #expect(gyro.channels.map { $0.scan?.index } == [4, 5, 6])
        let d = try #require(device.deviceInfo.first)
        let buffer = try #require(d.buffer)
        #expect(buffer.nodePath == t.path + "/dev/iio:device0")
        #expect(buffer.timestamp?.index == 10)
        #expect(buffer.preferredTrigger == "bmi160-dev0")
        #expect(buffer.currentTriggerPath != nil)
        // What the service clamps intervals with.
        let descriptions = device.sensors
        #expect(descriptions[.accelerometer]?.minimumRate == 0.78125)
        #expect(descriptions[.accelerometer]?.maximumRate == 1600)
        #expect(descriptions[.gyroscope]?.availableRates?.first == 25)
    }

    @Test("mpu6050: big-endian scan elements, per-type mount matrices, device-wide rate")
    func mpu6050() throws {
        let t = try TemporaryTree()
        try t.tree.add(.mpu6050(mountMatrix: "-1, 0, 0; 0, -1, 0; 0, 0, 1"), index: 2)
        let device = try t.discover()
        let accel = try #require(device.sensorInfo[.accelerometer])
        let gyro = try #require(device.sensorInfo[.gyroscope])
        #expect(accel.channels.first?.scan?.type.endianness == .big)
        #expect(accel.channels.first?.scan?.type.description == "be:s16/16>>0")
        #expect(accel.mountMatrixPath?.hasSuffix("/in_accel_mount_matrix") == true)
        #expect(gyro.mountMatrixPath?.hasSuffix("/in_anglvel_mount_matrix") == true)
        #expect(accel.mountMatrix == Matrix3(-1, 0, 0, 0, -1, 0, 0, 0, 1))
        #expect(accel.rate.attributePath == t.path + "/iio:device2/sampling_frequency")
        #expect(gyro.rate.attributePath == accel.rate.attributePath)
        #expect(accel.rate.rates.availableRates == [10, 20, 50, 100, 200, 500])
        #expect(gyro.channels[0].scale == 0.001064724)
        // The temperature channel is a scan element but not part of a motion sensor.
        #expect(device.deviceInfo[0].buffer?.allElements.contains { $0.name == "in_temp" } == true)
        #expect(device.deviceInfo[0].buffer?.preferredTrigger == "mpu6050-dev2")
    }

    @Test("lsm6dsx: accelerometer and gyroscope are two devices; hardware FIFO without trigger")
    func lsm6dsx() throws {
        let t = try TemporaryTree()
        try t.tree.add(.lsm6dsxAccel(), index: 0)
        try t.tree.add(.lsm6dsxGyro(), index: 1)
        let device = try t.discover()
        #expect(device.sensorInfo[.accelerometer]?.deviceDirectory == "iio:device0")
        #expect(device.sensorInfo[.gyroscope]?.deviceDirectory == "iio:device1")
        #expect(device.sensorInfo[.accelerometer]?.driverName == "lsm6dsl_accel")
        #expect(device.sensorInfo[.accelerometer]?.rate.rates.availableRates == [12.5, 26, 52, 104, 208, 416])
        #expect(device.sensorInfo[.accelerometer]?.mountMatrixPath?.hasSuffix("/mount_matrix") == true)
        #expect(device.deviceInfo.count == 2)
        #expect(device.deviceInfo.allSatisfy { $0.buffer != nil && $0.buffer?.currentTriggerPath == nil })
    }

    @Test("magnetometers: per-axis scale (lis3mdl), a different Z gain and big endian (lsm303dlhc)")
    func magnetometers() throws {
        let t = try TemporaryTree()
        try t.tree.add(.lis3mdl(), index: 0)
        let device = try t.discover()
        let magn = try #require(device.sensorInfo[.magnetometer])
        #expect(magn.channels.map(\.scale) == [0.000146, 0.000146, 0.000146])
        #expect(magn.channels[2].scalePath?.hasSuffix("/in_magn_z_scale") == true)
        #expect(magn.rate.rates.availableRates == [1, 2, 3, 5, 10, 20, 40, 80])
        #expect(device.deviceInfo[0].buffer?.preferredTrigger == "lis3mdl-trigger")

        let t2 = try TemporaryTree()
        try t2.tree.add(.lsm303dlhcMagn(), index: 0)
        let other = try #require(try t2.discover().sensorInfo[.magnetometer])
        #expect(other.channels.map(\.scale) == [0.000909, 0.000909, 0.001020])
        #expect(other.channels.allSatisfy { $0.scan?.type.endianness == .big })
    }

    @Test("bmp280: processed pressure and temperature, polled only, default 1–10 Hz")
    func bmp280() throws {
        let t = try TemporaryTree()
        try t.tree.add(.bmp280(), index: 0)
        let device = try t.discover()
        let baro = try #require(device.sensorInfo[.barometer])
        #expect(baro.channels[0].isProcessed && baro.channels[0].valuePath.hasSuffix("/in_pressure_input"))
        #expect(baro.temperature?.valuePath.hasSuffix("/in_temp_input") == true)
        #expect(baro.rate.attributePath == nil)
        #expect(baro.rate.rates.minimum == 1 && baro.rate.rates.maximum == 10)
        #expect(!baro.isBufferCapable)
        #expect(device.deviceInfo[0].buffer == nil)
    }

    @Test("an IMU's gyroscope follows the udev matrix when the driver shows the identity (no firmware matrix), not otherwise")
    func udevMatrixForTheWholeChip() throws {
        // Linux 6.1's bmi160 on a board without a firmware "mount-matrix" prints "mounting matrix not found:
        // using identity" and shows the identity in in_mount_matrix (tools/vm/guest-checks.sh): a hwdb matrix
        // then describes the chip, so the gyroscope must turn with the accelerometer.
        let t = try TemporaryTree()
        try t.tree.add(.bmi160(interrupt: false), index: 0)
        try t.tree.set("iio:device0", "dev", "250:0")
        try t.tree.setUdevMountMatrix("0, -1, 0; 1, 0, 0; 0, 0, 1", deviceNumber: "250:0")
        let d = try t.discover()
        let rotated = Matrix3(0, -1, 0, 1, 0, 0, 0, 0, 1)
        #expect(d.sensorInfo[.accelerometer]?.mountMatrix == rotated)
        #expect(d.sensorInfo[.gyroscope]?.mountMatrix == rotated)
        #expect(d.sensorInfo[.gyroscope]?.mountMatrixSource == .udevHwdb)

        // A driver with a real (non-identity) matrix keeps it for the gyroscope; udev still wins for the accelerometer.
        let t2 = try TemporaryTree()
        try t2.tree.add(.bmi160(mountMatrix: "-1, 0, 0; 0, -1, 0; 0, 0, 1", interrupt: false), index: 0)
        try t2.tree.set("iio:device0", "dev", "250:1")
        try t2.tree.setUdevMountMatrix("0, -1, 0; 1, 0, 0; 0, 0, 1", deviceNumber: "250:1")
        let d2 = try t2.discover()
        #expect(d2.sensorInfo[.accelerometer]?.mountMatrix == rotated)
        #expect(d2.sensorInfo[.gyroscope]?.mountMatrix == Matrix3(-1, 0, 0, 0, -1, 0, 0, 0, 1))
        #expect(d2.sensorInfo[.gyroscope]?.mountMatrixSource == .sysfs)
    }

    @Test("udev ACCEL_MOUNT_MATRIX (systemd hwdb) overrides the kernel's matrix for the accelerometer")
    func udevOverride() throws {
        let t = try TemporaryTree()
        // An HID accelerometer has no kernel matrix; hwdb gives one (e.g. Dell entries for HID-SENSOR-200073).
        try t.tree.add(.hidAccel3D(deviceNumber: "250:0"), index: 0)
        try t.tree.setUdevMountMatrix("0, 1, 0; -1, 0, 0; 0, 0, 1", deviceNumber: "250:0")
        let accel = try #require(try t.discover().sensorInfo[.accelerometer])
        #expect(accel.mountMatrixSource == .udevHwdb)
        #expect(accel.mountMatrix == Matrix3(0, 1, 0, -1, 0, 0, 0, 0, 1))
        #expect(accel.mountMatrixPath == t.path + "/udev/data/c250:0")
        #expect(accel.channels.first?.scan?.type.description == "le:s16/32>>0")

        // A bmc150 with its own in_mount_matrix: udev still wins for the accelerometer.
        let t2 = try TemporaryTree()
        try t2.tree.add(.bmc150(mountMatrix: "1, 0, 0; 0, 1, 0; 0, 0, 1"), index: 0)
        try t2.tree.set("iio:device0", "dev", "249:3")
        try t2.tree.setUdevMountMatrix("-1, 0, 0; 0, -1, 0; 0, 0, 1", deviceNumber: "249:3")
        let accel2 = try #require(try t2.discover().sensorInfo[.accelerometer])
        #expect(accel2.mountMatrix == Matrix3(-1, 0, 0, 0, -1, 0, 0, 0, 1))

        // A singular udev matrix is ignored (with a problem naming the file); the kernel's is used.
        let t3 = try TemporaryTree()
        try t3.tree.add(.bmc150(mountMatrix: "0, 1, 0; 1, 0, 0; 0, 0, 1"), index: 0)
        try t3.tree.set("iio:device0", "dev", "249:4")
        try t3.tree.setUdevMountMatrix("1, 0, 0; 0, -1, 0; 1, 0, 0", deviceNumber: "249:4")
        let d3 = try t3.discover()
        #expect(d3.sensorInfo[.accelerometer]?.mountMatrix == Matrix3(0, 1, 0, 1, 0, 0, 0, 0, 1))
        #expect(d3.discoveryProblems.contains { $0.contains("c249:4") && $0.contains("singular") })
    }

    @Test("which device provides a sensor: display before base, IMU before a lone accelerometer")
    func preference() throws {
        let t = try TemporaryTree()
        try t.tree.add(.bmc150(label: "accel-base"), index: 0)
        try t.tree.add(.bmc150(label: "accel-display"), index: 1)
        #expect(try t.discover().sensorInfo[.accelerometer]?.deviceDirectory == "iio:device1")

        let t2 = try TemporaryTree()
        try t2.tree.add(.bmc150(), index: 0)
        try t2.tree.add(.bmi160(), index: 1)
        let d2 = try t2.discover()
        #expect(d2.sensorInfo[.accelerometer]?.deviceDirectory == "iio:device1")
        #expect(d2.sensorInfo[.gyroscope]?.deviceDirectory == "iio:device1")
    }

    @Test("kernel 5.11+ layout: scan elements and controls in buffer0/")
    func buffer0() throws {
        let t = try TemporaryTree()
        try t.tree.add(.lsm6dsxAccel(), index: 0)
        let dir = t.path + "/iio:device0"
        try FileManager.default.moveItem(atPath: dir + "/scan_elements", toPath: dir + "/buffer0")
        for f in try FileManager.default.contentsOfDirectory(atPath: dir + "/buffer") {
            try FileManager.default.moveItem(atPath: dir + "/buffer/" + f, toPath: dir + "/buffer0/" + f)
        }
        try FileManager.default.removeItem(atPath: dir + "/buffer")
        let d = try t.discover().deviceInfo[0]
        #expect(d.buffer?.enablePath == dir + "/buffer0/enable")
        #expect(d.sensors[0].channels[0].scan?.enablePath == dir + "/buffer0/in_accel_x_en")
    }

    @Test("bad attributes: the sensor is skipped with a problem naming the file, never read as 0")
    func malformed() throws {
        let t = try TemporaryTree()
        try t.tree.add(.bmi160(), index: 0)
        try t.tree.set("iio:device0", "in_accel_scale", "0,000598")  // a comma, as a German printf would write
        let device = try t.discover()
        #expect(device.sensorInfo[.accelerometer] == nil)
        #expect(device.sensorInfo[.gyroscope] != nil)
        #expect(device.discoveryProblems.contains { $0.contains("/iio:device0/in_accel_scale") && $0.contains("0,000598") })

        // Only bad sensors: discovery throws and lists every problem.
        let t2 = try TemporaryTree()
        try t2.tree.add(.lis3mdl(), index: 0)
        try t2.tree.set("iio:device0", "mount_matrix", "1, 0, 0; 0, 1, 0")
        do {
            _ = try IIODevice.discover(root: t2.url)
            Issue.record("a tree without usable sensors was accepted")
        } catch let error as IIOError {
            guard case .noUsableSensors(_, let problems) = error else { throw error }
            #expect(problems.contains { $0.contains("/iio:device0/mount_matrix") })
        }

        // Two axes only: skipped and said why.
        let t3 = try TemporaryTree()
        try t3.tree.add(.lis3mdl(), index: 0)
        try FileManager.default.removeItem(atPath: t3.path + "/iio:device0/in_magn_z_raw")
        #expect(throws: IIOError.self) { try IIODevice.discover(root: t3.url) }

        // A malformed scan type makes the device polled-only, it is not skipped.
        let t4 = try TemporaryTree()
        try t4.tree.add(.lis3mdl(), index: 0)
        try t4.tree.set("iio:device0", "scan_elements/in_magn_x_type", "le:s16/8>>0")
        let d4 = try t4.discover()
        #expect(d4.sensorInfo[.magnetometer]?.isBufferCapable == false)
        #expect(d4.discoveryProblems.contains { $0.contains("in_magn_x_type") })
    }

    @Test("roots: missing explicit root is an error; empty root or no IIO subsystem is no device")
    func roots() throws {
        #expect(throws: IIOError.rootNotFound(path: "/nonexistent/iio")) {
            try IIODevice.discover(root: URL(fileURLWithPath: "/nonexistent/iio"))
        }
        let t = try TemporaryTree()
        #expect(try IIODevice.discover(root: t.url) == nil)
        // A device without motion channels (a light sensor) is not a motion sensor.
        try FileManager.default.createDirectory(atPath: t.path + "/iio:device0", withIntermediateDirectories: true)
        try t.tree.put(t.path + "/iio:device0/name", "als\n")
        try t.tree.put(t.path + "/iio:device0/in_illuminance_raw", "120\n")
        try FileManager.default.createDirectory(atPath: t.path + "/iio:deviceX", withIntermediateDirectories: true)
        #expect(try IIODevice.discover(root: t.url) == nil)
        // This machine: the real root, if any (nil without an IIO subsystem).
        if !FileManager.default.fileExists(atPath: IIORoot.systemDevicesPath) {
            #expect(try IIODevice.discover(root: nil) == nil)
        }
    }

    @Test("capture mode from COREMOTION_IIO_CAPTURE")
    func options() throws {
        #expect(try IIODevice.Options.fromEnvironment([:]).capture == .automatic)
        #expect(try IIODevice.Options.fromEnvironment(["COREMOTION_IIO_CAPTURE": "polled"]).capture == .polled)
        #expect(try IIODevice.Options.fromEnvironment(["COREMOTION_IIO_CAPTURE": "BUFFERED"]).capture == .buffered)
        #expect(throws: IIOError.self) { try IIODevice.Options.fromEnvironment(["COREMOTION_IIO_CAPTURE": "fast"]) }
    }
}
