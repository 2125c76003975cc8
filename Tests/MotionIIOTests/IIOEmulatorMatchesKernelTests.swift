import Foundation
import MotionEmulation
import Testing
import TestSupport
@testable import MotionIIO

/// Pins the fake tree to what Linux 6.1 (Debian 6.1.0-56) showed under QEMU with the real bmi160,
/// bmc150_magn and bmp280 drivers on i2c-stub (tools/vm/README.md, "Real kernel vs the emulator"; the
/// lists are the `INFO … sysfs:` lines of tools/vm/guest-checks.sh from that run). `power`,
/// `subsystem` and `uevent` are left out of every list: a fake tree cannot have them.
@Suite("the emulator matches the real kernel (Linux 6.1: bmi160, bmc150_magn, bmp280)", .serialized)
struct IIOEmulatorMatchesKernelTests {
    // MARK: - What the real kernel listed

    static let notInFakeTrees: Set<String> = ["power", "subsystem", "uevent"]
    static func kernel(_ list: String) -> [String] {
        list.split(separator: " ").map(String.init).filter { !notInFakeTrees.contains($0) }.sorted()
    }

    /// `ls /sys/bus/iio/devices/iio:device0` of the bmi160 (no IRQ).
    static let bmi160Sysfs = kernel("""
        buffer buffer0 current_timestamp_clock dev in_accel_sampling_frequency in_accel_sampling_frequency_available \
        in_accel_scale in_accel_scale_available in_accel_x_raw in_accel_y_raw in_accel_z_raw in_anglvel_sampling_frequency \
        in_anglvel_sampling_frequency_available in_anglvel_scale in_anglvel_scale_available in_anglvel_x_raw in_anglvel_y_raw \
        in_anglvel_z_raw in_mount_matrix name power scan_elements subsystem trigger uevent
        """)
    /// `ls …/buffer` of the bmi160.
    static let bmi160Buffer = kernel("data_available direction enable length watermark")
    /// `ls …/scan_elements` of the bmi160.
    static let bmi160ScanElements = kernel("""
        in_accel_x_en in_accel_x_index in_accel_x_type in_accel_y_en in_accel_y_index in_accel_y_type in_accel_z_en \
        in_accel_z_index in_accel_z_type in_anglvel_x_en in_anglvel_x_index in_anglvel_x_type in_anglvel_y_en \
        in_anglvel_y_index in_anglvel_y_type in_anglvel_z_en in_anglvel_z_index in_anglvel_z_type in_timestamp_en \
        in_timestamp_index in_timestamp_type
        """)
    /// `ls` of the bmc150_magn (no IRQ).
    static let bmc150MagnSysfs = kernel("""
        buffer buffer0 current_timestamp_clock dev in_magn_sampling_frequency in_magn_scale in_magn_x_oversampling_ratio \
        in_magn_x_raw in_magn_y_oversampling_ratio in_magn_y_raw in_magn_z_oversampling_ratio in_magn_z_raw in_mount_matrix \
        name power sampling_frequency_available scan_elements subsystem trigger uevent
        """)
    /// `ls` of the bmp280.
    static let bmp280Sysfs = kernel(
        "in_pressure_input in_pressure_oversampling_ratio in_temp_input in_temp_oversampling_ratio name power subsystem uevent")
    /// The scan types both buffered drivers printed.
    static let bmi160ScanTypes = [
        "in_accel_x": "le:s16/16>>0", "in_accel_y": "le:s16/16>>0", "in_accel_z": "le:s16/16>>0",
        "in_anglvel_x": "le:s16/16>>0", "in_anglvel_y": "le:s16/16>>0", "in_anglvel_z": "le:s16/16>>0",
        "in_timestamp": "le:s64/64>>0",
    ]
    static let bmc150MagnScanTypes = [
        "in_magn_x": "le:s32/32>>0", "in_magn_y": "le:s32/32>>0", "in_magn_z": "le:s32/32>>0", "in_timestamp": "le:s64/64>>0",
    ]

    /// A fake tree with Linux 6.1's IIO core layout (``IIOFakeTree/buffer0``).
    static func kernelTree() throws -> TemporaryTree {
        let t = try TemporaryTree()
        t.tree.buffer0 = true
        return t
    }

    /// The board of the real-kernel check: bmi160, bmc150_magn, bmp280, no interrupt lines.
    static func noIRQBoard() throws -> TemporaryTree {
        let t = try kernelTree()
        try t.tree.add(.bmi160(interrupt: false))
        try t.tree.add(.bmc150Magn(interrupt: false))
        try t.tree.add(.bmp280())
        return t
    }

    static func list(_ t: TemporaryTree, _ path: String) throws -> [String] { try SysfsFile.list(t.path + "/" + path) }
    static func raw(_ t: TemporaryTree, _ path: String) throws -> String { try SysfsFile.readText(t.path + "/" + path) }

    // MARK: - 1. No trigger without an interrupt

    @Test("1. no IRQ: no triggerN, trigger/current_trigger empty; buffer/, buffer0/, scan_elements/ and the node remain")
    func noTriggerWithoutInterrupt() throws {
        let t = try Self.noIRQBoard()
        #expect(try Self.list(t, ".") == ["dev", "iio:device0", "iio:device1", "iio:device2"], "no triggerN")
        for d in ["iio:device0", "iio:device1"] {
            #expect(try Self.raw(t, d + "/trigger/current_trigger") == "\n")
            #expect(try Self.list(t, d + "/trigger") == ["current_trigger"])
            for folder in ["buffer", "buffer0", "scan_elements"] { #expect(SysfsFile.isDirectory(t.path + "/" + d + "/" + folder)) }
            #expect(SysfsFile.exists(t.path + "/dev/" + d))
        }
        #expect(try Self.list(t, "dev") == ["iio:device0", "iio:device1"], "bmp280 has no buffer, so no node")
        let discovered = try IIODiscovery(root: t.tree.iioRoot).scan()
        for d in discovered.devices where d.name != "bmp280" {
            let buffer = try #require(d.buffer, "\(d.name): the buffer is there")
            #expect(buffer.currentTriggerPath == d.path + "/trigger/current_trigger")
            #expect(buffer.preferredTrigger == nil)
        }
        // Today's default is unchanged: with its interrupt the driver registers "<name>-dev<N>".
        let wired = try Self.kernelTree()
        try wired.tree.add(.bmi160(), index: 0)
        try wired.tree.add(.bmc150Magn(), index: 1)
        #expect(try Self.raw(wired, "trigger0/name") == "bmi160-dev0\n")
        #expect(try Self.raw(wired, "trigger1/name") == "bmc150_magn-dev1\n")
        #expect(try IIODiscovery(root: wired.tree.iioRoot).scan().devices.map { $0.buffer?.preferredTrigger } == ["bmi160-dev0", "bmc150_magn-dev1"])
        #expect(IIOFakeDevice.bmi160().interrupt && !IIOFakeDevice.bmi160().withoutInterrupt().interrupt)
    }

    // MARK: - 2. buffer0/ and buffer/'s attributes

    @Test("2. buffer/ has data_available and direction; buffer0/ holds the same attributes and the scan elements")
    func bufferZero() throws {
        let t = try Self.noIRQBoard()
        #expect(try Self.list(t, "iio:device0/buffer") == Self.bmi160Buffer)
        #expect(try Self.list(t, "iio:device0/scan_elements") == Self.bmi160ScanElements)
        #expect(try Self.raw(t, "iio:device0/buffer/direction") == "in\n")
        #expect(try Self.raw(t, "iio:device0/buffer/data_available") == "0\n")
        // buffer0/ is the kernel's 5.11+ group: buffer attributes and scan elements in one folder
        // (Documentation/iio/iio_devbuf.rst: …/buffer0/in_accel_y_type).
        #expect(try Self.list(t, "iio:device0/buffer0") == (Self.bmi160Buffer + Self.bmi160ScanElements).sorted())
        for file in Self.bmi160Buffer {
            #expect(try Self.raw(t, "iio:device0/buffer0/" + file) == Self.raw(t, "iio:device0/buffer/" + file))
        }
        // One attribute under two names, as in the kernel: a write through buffer0/ shows in buffer/.
        try SysfsFile.write(t.path + "/iio:device0/buffer0/watermark", "7")
        try SysfsFile.write(t.path + "/iio:device0/buffer0/in_accel_x_en", "1")
        #expect(t.tree.get("iio:device0", "buffer/watermark") == "7")
        #expect(t.tree.get("iio:device0", "scan_elements/in_accel_x_en") == "1")
        // Discovery reads both layouts: buffer controls from buffer0/, scan elements as listed.
        let info = try #require(try IIODiscovery(root: t.tree.iioRoot).scan().devices.first { $0.name == "bmi160" })
        let buffer = try #require(info.buffer)
        #expect(buffer.enablePath.hasSuffix("/iio:device0/buffer0/enable"))
        #expect(buffer.allElements.count == 7)
        #expect(Dictionary(uniqueKeysWithValues: buffer.allElements.map { ($0.name, $0.type.description) }) == Self.bmi160ScanTypes)

        // A tree left at the default keeps the layout of kernels up to 5.10 (no buffer0/), as before.
        let legacy = try TemporaryTree()
        try legacy.tree.add(.bmi160())
        #expect(!SysfsFile.exists(legacy.path + "/iio:device0/buffer0"))
        #expect(try Self.list(legacy, "iio:device0/buffer") == Self.bmi160Buffer)
        #expect(try IIODiscovery(root: legacy.tree.iioRoot).scan().devices.first?.buffer?.enablePath == legacy.path + "/iio:device0/buffer/enable")
    }

    // MARK: - 3. dev

    @Test("3. dev (MAJ:MIN) on the buffered devices, none on the bmp280")
    func devAttribute() throws {
        let t = try Self.noIRQBoard()
        #expect(t.tree.get("iio:device0", "dev") == "236:0")
        #expect(t.tree.get("iio:device1", "dev") == "236:1")
        #expect(!SysfsFile.exists(t.path + "/iio:device2/dev"))
        let devices = try IIODiscovery(root: t.tree.iioRoot).scan().devices
        #expect(devices.map(\.deviceNumber) == ["236:0", "236:1", nil])
        // A layout's own number wins (the HID accelerometer's "250:0").
        let h = try Self.kernelTree()
        try h.tree.add(.hidAccel3D(deviceNumber: "250:0"), index: 0)
        #expect(h.tree.get("iio:device0", "dev") == "250:0")
        // The udev-database lookup through dev now runs on emulated trees (nothing there: the kernel's matrix).
        #expect(devices[0].sensors.allSatisfy { $0.mountMatrixSource == .sysfs })
    }

    // MARK: - 4. bmp280

    @Test("4. bmp280: exactly the kernel's attributes, oversampling ratios without _available")
    func bmp280Layout() throws {
        let t = try Self.noIRQBoard()
        #expect(try Self.list(t, "iio:device2") == Self.bmp280Sysfs)
        #expect(t.tree.get("iio:device2", "in_pressure_oversampling_ratio") == "16")
        #expect(t.tree.get("iio:device2", "in_temp_oversampling_ratio") == "2")
        // And the full bmi160 listing while here (with buffer0 and dev).
        #expect(try Self.list(t, "iio:device0") == Self.bmi160Sysfs)
    }

    // MARK: - 5. bmc150_magn

    @Test("5. bmc150_magn: the kernel's attributes, values, scan types; offered by iio-emulate")
    func bmc150MagnLayout() throws {
        let t = try Self.noIRQBoard()
        let d = "iio:device1"
        #expect(try Self.list(t, d) == Self.bmc150MagnSysfs)
        #expect(t.tree.get(d, "name") == "bmc150_magn")
        #expect(t.tree.get(d, "in_magn_scale") == "0.000625")
        #expect(t.tree.get(d, "in_magn_sampling_frequency") == "10")
        #expect(t.tree.get(d, "sampling_frequency_available") == "2 6 8 10 15 20 25 30")
        #expect(try Self.list(t, d + "/buffer") == Self.bmi160Buffer)
        var types: [String: String] = [:]
        var indices: [String: String] = [:]
        for file in try Self.list(t, d + "/scan_elements") where file.hasSuffix("_type") {
            let channel = String(file.dropLast(5))
            types[channel] = t.tree.get(d, "scan_elements/" + file)
            indices[channel] = t.tree.get(d, "scan_elements/\(channel)_index")
        }
        #expect(types == Self.bmc150MagnScanTypes)
        #expect(indices == ["in_magn_x": "0", "in_magn_y": "1", "in_magn_z": "2", "in_timestamp": "3"])
        #expect(IIOFakeDevice.catalog["bmc150_magn"]?().map(\.name) == ["bmc150_magn"])

        let info = try #require(try IIODiscovery(root: t.tree.iioRoot).scan().devices.first { $0.name == "bmc150_magn" })
        let magn = try #require(info.sensors.first)
        #expect(info.sensors.map(\.kind) == [.magnetometer])
        #expect(magn.channels.map(\.scale) == [0.000625, 0.000625, 0.000625])
        #expect(magn.channels.allSatisfy { $0.scalePath == t.path + "/" + d + "/in_magn_scale" })
        #expect(magn.rate.attributePath == t.path + "/" + d + "/in_magn_sampling_frequency")
        #expect(magn.rate.availablePath == t.path + "/" + d + "/sampling_frequency_available")
        #expect(magn.rate.rates.minimum == 2 && magn.rate.rates.maximum == 30 && magn.rate.currentRate == 10)
        #expect(magn.mountMatrixSource == .sysfs && magn.mountMatrixPath == t.path + "/" + d + "/in_mount_matrix")
        #expect(magn.isBufferCapable)
        // 1 G = 100 µT: a count is 0.0625 µT.
        let v = try #require(magn.vectorConversion).convert(Vector3(16, -16, 1600))
        #expect(approximately(v, Vector3(1, -1, 100), 1e-12))
    }

    @Test("5b. bmc150_magn with its IRQ: buffered capture of the emulator's le:s32 scans, in µT")
    func bmc150MagnBuffered() throws {
        let t = try Self.kernelTree()
        let d = try t.tree.add(.bmc150Magn())
        let emulator = IIOEmulator(tree: t.tree, devices: [d], source: IIOSyntheticMotion(rate: 100))
        emulator.start()
        defer { emulator.stop() }
        let device = try t.discover()
        let c = Collector()
        device.run([.magnetometer: 25], sink: c.sink, events: c.eventSink)
        #expect(waitUntil(5) { c.count(.magnetometer) >= 20 })
        #expect(device.captureStatistics.first?.mode == "buffered")
        #expect(t.tree.get(d, "trigger/current_trigger") == "bmc150_magn-dev0")
        #expect(t.tree.get(d, "in_magn_sampling_frequency") == "25")
        device.stopAndWait()
        // The synthetic field: 47 µT plus a (5, −3, 8) µT hard-iron offset and noise.
        let norms = c.of(.magnetometer).map { $0.vector!.norm }
        #expect(norms.allSatisfy { $0 > 35 && $0 < 60 }, "\(norms.prefix(5))")
        #expect(emulator.statistics.scansWritten > 0)
    }

    // MARK: - 6. Failing reads, removal, numbering

    @Test("6a. an attribute that fails to read (EISDIR, as the kernel's EINVAL): the sensor is skipped, the other kept")
    func failingRead() throws {
        let t = try Self.noIRQBoard()
        // The real check: ACC_CONF = 0, so in_accel_sampling_frequency fails with EINVAL.
        try t.tree.makeUnreadable("iio:device0", "in_accel_sampling_frequency")
        let path = t.path + "/iio:device0/in_accel_sampling_frequency"
        #expect(try Self.list(t, "iio:device0").contains("in_accel_sampling_frequency"), "still listed, as in sysfs")
        #expect(throws: IIOError.io(path: path, operation: "read", errno: EISDIR)) { try SysfsFile.readText(path) }
        #expect(throws: IIOError.io(path: path, operation: "open", errno: EISDIR)) { try SysfsFile.write(path, "50") }
        #expect(t.tree.get("iio:device0", "in_accel_sampling_frequency") == nil)
        let result = try IIODiscovery(root: t.tree.iioRoot).scan()
        let bmi = try #require(result.devices.first { $0.name == "bmi160" })
        #expect(bmi.sensors.map(\.kind) == [.gyroscope])
        #expect(result.problems.contains { $0.contains("accelerometer skipped") && $0.contains("in_accel_sampling_frequency") && $0.contains("read failed") })
        let device = try t.discover()
        #expect(device.sensors[.accelerometer] == nil && device.sensors[.gyroscope] != nil && device.sensors[.magnetometer] != nil)

        try t.tree.makeReadable("iio:device0", "in_accel_sampling_frequency", "100.000000")
        #expect(try IIODiscovery(root: t.tree.iioRoot).scan().devices.first?.sensors.map(\.kind) == [.accelerometer, .gyroscope])
    }

    @Test("6b. removal and unplugging make the old paths vanish (ENOENT); a re-added device takes the lowest free number")
    func removalAndNumbering() throws {
        let t = try Self.kernelTree()
        #expect(try t.tree.add(.bmi160()) == "iio:device0")
        #expect(try t.tree.add(.bmc150Magn()) == "iio:device1")
        #expect(try t.tree.add(.bmp280()) == "iio:device2")
        #expect(try Self.list(t, ".") == ["dev", "iio:device0", "iio:device1", "iio:device2", "trigger0", "trigger1"])

        // delete_device: directory, node and trigger vanish; number 0 is free again.
        try t.tree.remove("iio:device0")
        #expect(throws: IIOError.deviceGone(path: t.path + "/iio:device0/name", errno: ENOENT)) {
            try SysfsFile.readText(t.path + "/iio:device0/name")
        }
        #expect(!SysfsFile.exists(t.path + "/dev/iio:device0") && !SysfsFile.exists(t.path + "/trigger0"))
        #expect(t.tree.device("iio:device0") == nil)
        #expect(t.tree.lowestFreeIndex == 0)
        #expect(try t.tree.add(.bmi160()) == "iio:device0")
        #expect(try Self.raw(t, "trigger0/name") == "bmi160-dev0\n")
        #expect(try t.tree.add(.bmi160()) == "iio:device3")

        // Unplugging (moved aside, so it can come back) hides the same paths.
        let aside = try t.tree.unplug("iio:device1")
        #expect(throws: IIOError.deviceGone(path: t.path + "/iio:device1/in_magn_x_raw", errno: ENOENT)) {
            try SysfsFile.readInteger(t.path + "/iio:device1/in_magn_x_raw")
        }
        #expect(!SysfsFile.exists(t.path + "/dev/iio:device1") && !SysfsFile.exists(t.path + "/trigger1"))
        #expect(try IIODiscovery(root: t.tree.iioRoot).scan().devices.map(\.name) == ["bmi160", "bmp280", "bmi160"])
        #expect(t.tree.lowestFreeIndex == 1)
        // Back at the lowest free number (its own, here), with its node and trigger.
        try t.tree.replug("iio:device1", from: aside)
        #expect(t.tree.get("iio:device1", "name") == "bmc150_magn")
        #expect(SysfsFile.exists(t.path + "/dev/iio:device1") && t.tree.get("trigger1", "name") == "bmc150_magn-dev1")

        // Taken meanwhile: it comes back as the next free number, its trigger, dev and node renamed with it.
        let aside2 = try t.tree.unplug("iio:device1")
        #expect(try t.tree.add(.lis3mdl()) == "iio:device1")
        try t.tree.replug("iio:device1", from: aside2)
        #expect(t.tree.get("iio:device4", "name") == "bmc150_magn")
        #expect(t.tree.get("iio:device4", "dev") == "236:4")
        #expect(t.tree.get("iio:device4", "trigger/current_trigger") == "")
        #expect(SysfsFile.exists(t.path + "/dev/iio:device4"))
        let magn = try #require(try IIODiscovery(root: t.tree.iioRoot).scan().devices.first { $0.name == "bmc150_magn" })
        #expect(magn.directoryName == "iio:device4" && magn.buffer?.preferredTrigger == "bmc150_magn-dev4")
        #expect(t.tree.device("iio:device4")?.name == "bmc150_magn")
    }

    // MARK: - Discovery and capture on the real board

    @Test("no-IRQ bmi160 + bmc150_magn + bmp280: polled IMU and magnetometer, the values the real kernel check delivered")
    func realBoardValues() throws {
        let t = try Self.noIRQBoard()
        // guest-checks.sh's registers, as the drivers report them.
        let accel: [Int64] = [4096, -2048, 16384], gyro: [Int64] = [1000, -500, 250], magnRaw: [Int64] = [581, -233, -1076]
        for (i, axis) in ["x", "y", "z"].enumerated() {
            try t.tree.setRaw("iio:device0", "in_accel_" + axis, accel[i])
            try t.tree.setRaw("iio:device0", "in_anglvel_" + axis, gyro[i])
            try t.tree.setRaw("iio:device1", "in_magn_" + axis, magnRaw[i])
        }
        try t.tree.set("iio:device2", "in_pressure_input", "100.653265625")  // 25767236/256000 kPa ("%d.%09u")
        try t.tree.set("iio:device2", "in_temp_input", "25080")

        let device = try t.discover()  // automatic: buffered where it can
        #expect(device.deviceInfo.map(\.directoryName) == ["iio:device0", "iio:device1", "iio:device2"])
        #expect(device.deviceInfo.allSatisfy { $0.name == "bmp280" || ($0.buffer != nil && $0.buffer?.preferredTrigger == nil) })
        let c = Collector()
        device.run([.accelerometer: 50, .gyroscope: 50, .magnetometer: 10, .barometer: 1], sink: c.sink, events: c.eventSink)
        #expect(waitUntil(10) {
            c.count(.accelerometer) >= 5 && c.count(.gyroscope) >= 5 && c.count(.magnetometer) >= 2 && c.count(.barometer) >= 1
        })
        // The buffer needs a trigger the board cannot give: both fall back to polling.
        let modes = Dictionary(uniqueKeysWithValues: device.captureStatistics.map { ($0.device, $0.mode) })
        #expect(modes["iio:device0"] == "polled" && modes["iio:device1"] == "polled", "\(modes)")
        #expect(device.sensors[.accelerometer]?.name.contains("polled") == true)
        #expect(device.sensors[.magnetometer]?.name.contains("polled") == true)
        device.stopAndWait()
        #expect(t.tree.get("iio:device0", "buffer/enable") == "0" && t.tree.get("iio:device1", "buffer/enable") == "0")
        #expect(!c.allEvents.contains { if case .sensorLost = $0 { true } else { false } })

        // Accelerometer: Apple g = −(raw · 0.000598 m/s²) / 9.80665 → (−0.249770, 0.124885, −0.999080).
        let a = try #require(c.of(.accelerometer).last?.vector)
        let expectedA = Vector3(-(4096 * 0.000598), 2048 * 0.000598, -(16384 * 0.000598)) * (1 / 9.80665)
        #expect(approximately(a, expectedA, 1e-12))
        #expect(approximately(a, Vector3(-0.249770, 0.124885, -0.999080), 5e-7))
        // Gyroscope: rad/s = raw · 0.001065.
        let g = try #require(c.of(.gyroscope).last?.vector)
        #expect(approximately(g, Vector3(1.065, -0.5325, 0.26625), 1e-12))
        // Magnetometer: raw × 0.000625 G × 100 µT/G = raw / 16; identity mount matrix and no sign change
        // (IIOUnits.toApple(.magnetometer) = 100): Apple's axes are the device frame's.
        let m = try #require(c.of(.magnetometer).last?.vector)
        #expect(approximately(m, Vector3(36.3125, -14.5625, -67.25), 1e-9))
        #expect(c.of(.magnetometer).allSatisfy { approximately($0.vector!, Vector3(36.3125, -14.5625, -67.25), 1e-9) })
        // Barometer: processed kPa and m°C.
        guard case .barometer(let p) = try #require(c.of(.barometer).last) else { Issue.record("not a barometer sample"); return }
        #expect(abs(p.kilopascals - 100.653265625) < 1e-12)
        #expect(abs((p.celsius ?? 0) - 25.08) < 1e-12)
    }
}
