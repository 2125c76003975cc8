import MotionIIO
import MotionSamples

/// One channel of a fake IIO device.
public struct IIOFakeChannel: Sendable, Hashable {
    /// Channel name, e.g. `in_accel_x`, `in_pressure`, `in_temp`.
    public var name: String
    /// The sensor it belongs to (`nil` for a temperature channel).
    public var kind: SensorKind?
    /// Axis 0, 1, 2 (x, y, z) of a three-axis sensor; 0 for a scalar.
    public var axis: Int
    /// True for a processed channel (`<name>_input`, value in IIO units) instead of `<name>_raw`.
    public var processed: Bool
    /// Scan element (`_index`, `_type`), when the device has a buffer.
    public var scanIndex: Int?
    /// Its scan element's `_type`, when it has one.
    public var scanType: IIOScanType?

    /// A channel; `scanIndex` and `scanType` make it a scan element.
    public init(name: String, kind: SensorKind?, axis: Int = 0, processed: Bool = false, scanIndex: Int? = nil, scanType: IIOScanType? = nil) {
        self.name = name
        self.kind = kind
        self.axis = axis
        self.processed = processed
        self.scanIndex = scanIndex
        self.scanType = scanType
    }
}

/// The sysfs layout of one IIO device as a real driver registers it, for fake trees.
///
/// Each factory reproduces the attribute names, value formats, scan indices and scan types of a
/// real driver, from the kernel sources cited on it (Linux `drivers/iio/…`, read through the
/// project's code search). Values are the driver's defaults or a typical configuration.
public struct IIOFakeDevice: Sendable, Hashable {
    /// The `name` attribute.
    public var name: String
    /// The `label` attribute, if any.
    public var label: String?
    /// Every channel, with its scan element if buffered.
    public var channels: [IIOFakeChannel]
    /// Other attribute files, path relative to the device directory → content (newline included).
    public var attributes: [String: String]
    /// Scan index of the software timestamp (`IIO_CHAN_SOFT_TIMESTAMP`), when buffered.
    public var timestampIndex: Int?
    /// True when the driver registers a buffer (`buffer/`, `buffer0/`, `scan_elements/`, `dev`, `/dev/iio:deviceN`).
    public var hasBuffer: Bool
    /// The device's own trigger name with `%d` for the device number (`"bmi160-dev%d"`), when the
    /// buffer is triggered; `nil` for a hardware-FIFO buffer without trigger.
    public var triggerName: String?
    /// The rate attribute the emulator follows (`sampling_frequency`, `in_accel_sampling_frequency`), if any.
    public var rateAttribute: String?
    /// True when the board wires the sensor's interrupt line, so that the driver registers its
    /// data-ready trigger (``triggerName``) as `ROOT/triggerM`. False reproduces a board without an
    /// IRQ (i2c-stub, many SBC wirings): `bmi160`, `bmc150_magn` and the like then register no trigger
    /// (their probe allocates one only when `client->irq > 0`), yet keep `buffer/`, `buffer0/`,
    /// `scan_elements/`, an empty `trigger/current_trigger` and `/dev/iio:deviceN`, as Linux 6.1 showed
    /// (tools/vm/README.md). A hardware-FIFO layout without trigger (``triggerName`` `nil`) ignores it.
    public var interrupt: Bool

    /// A layout from its parts (the factories below give real drivers' layouts).
    public init(
        name: String, label: String? = nil, channels: [IIOFakeChannel], attributes: [String: String], timestampIndex: Int? = nil,
        hasBuffer: Bool, triggerName: String? = nil, rateAttribute: String? = nil, interrupt: Bool = true
    ) {
        self.name = name
        self.label = label
        self.channels = channels
        self.attributes = attributes
        self.timestampIndex = timestampIndex
        self.hasBuffer = hasBuffer
        self.triggerName = triggerName
        self.rateAttribute = rateAttribute
        self.interrupt = interrupt
    }

    /// This layout on a board without the sensor's interrupt line (``interrupt`` false: no trigger).
    public func withoutInterrupt() -> IIOFakeDevice {
        var copy = self
        copy.interrupt = false
        return copy
    }

    /// `le:s64/64>>0`, the type of `IIO_CHAN_SOFT_TIMESTAMP` (include/linux/iio/iio.h).
    public static let timestampType = try! IIOScanType(endianness: .little, encoding: .signed, realBits: 64, storageBits: 64)

    static func axes(_ type: String, _ kind: SensorKind, indices: [Int]?, scanType: IIOScanType?) -> [IIOFakeChannel] {
        ["x", "y", "z"].enumerated().map { i, axis in
            IIOFakeChannel(name: "in_\(type)_\(axis)", kind: kind, axis: i, scanIndex: indices?[i], scanType: scanType)
        }
    }

    static func s(_ bits: Int, _ storage: Int, shift: Int = 0, _ endianness: IIOScanType.Endianness = .little) -> IIOScanType {
        try! IIOScanType(endianness: endianness, encoding: .signed, realBits: bits, storageBits: storage, shift: shift)
    }

    /// Bosch BMI160 IMU (drivers/iio/imu/bmi160/bmi160_core.c): one device with accelerometer and
    /// gyroscope; `BMI160_CHANNEL` gives `info_mask_shared_by_type = SCALE | SAMP_FREQ` (so
    /// `in_accel_scale`, `in_accel_sampling_frequency`), scan type `le:s16/16>>0`, scan indices
    /// gyro 4–6, accel 7–9, timestamp 10 (`enum bmi160_scan_axis`); constant attributes
    /// `in_accel_sampling_frequency_available` "0.78125 1.5625 3.125 6.25 12.5 25 50 100 200 400 800 1600",
    /// `in_anglvel_sampling_frequency_available` "25 50 100 200 400 800 1600 3200", scales from
    /// `bmi160_accel_scale` (±2 g: 598 µm/s² per count) and `bmi160_gyro_scale` (±2000 °/s: 1065 µrad/s),
    /// printed as `IIO_VAL_INT_PLUS_MICRO`; data-ready trigger `"%s-dev%d"` (only with an IRQ:
    /// `interrupt` false gives the no-IRQ board of the real-kernel check); mount matrix shared by
    /// direction (`in_mount_matrix`). Checked against Linux 6.1 (tools/vm/guest-checks.sh).
    public static func bmi160(accelRates: String = "0.78125 1.5625 3.125 6.25 12.5 25 50 100 200 400 800 1600",
                              gyroRates: String = "25 50 100 200 400 800 1600 3200",
                              mountMatrix: String = "1, 0, 0; 0, 1, 0; 0, 0, 1",
                              interrupt: Bool = true) -> IIOFakeDevice {
        IIOFakeDevice(
            name: "bmi160",
            channels: axes("anglvel", .gyroscope, indices: [4, 5, 6], scanType: s(16, 16))
                + axes("accel", .accelerometer, indices: [7, 8, 9], scanType: s(16, 16)),
            attributes: [
                "in_accel_scale": "0.000598\n",
                "in_anglvel_scale": "0.001065\n",
                "in_accel_scale_available": "0.000598 0.001197 0.002394 0.004788\n",
                "in_anglvel_scale_available": "0.001065 0.000532 0.000266 0.000133 0.000066\n",
                "in_accel_sampling_frequency": "100.000000\n",
                "in_anglvel_sampling_frequency": "100.000000\n",
                "in_accel_sampling_frequency_available": accelRates + "\n",
                "in_anglvel_sampling_frequency_available": gyroRates + "\n",
                "in_mount_matrix": mountMatrix + "\n",
            ],
            timestampIndex: 10, hasBuffer: true, triggerName: "bmi160-dev%d", rateAttribute: "in_accel_sampling_frequency",
            interrupt: interrupt)
    }

    /// InvenSense MPU-6050 (drivers/iio/imu/inv_mpu6050/inv_mpu_core.c): `INV_MPU6050_CHAN` has
    /// scan type `be:s16/16>>0` (big-endian registers), scale shared by type, mount matrix shared by
    /// type (`IIO_MOUNT_MATRIX(IIO_SHARED_BY_TYPE, …)`: `in_accel_mount_matrix`,
    /// `in_anglvel_mount_matrix`); scan indices accel 0–2, temperature 3, gyro 4–6, timestamp 7;
    /// device-wide `sampling_frequency` with `IIO_CONST_ATTR_SAMP_FREQ_AVAIL("10 20 50 100 200 500")`;
    /// accel scale ±2 g 598 µm/s², gyro ±2000 °/s 1064724 nrad/s (`gyro_scale_6050`); temperature
    /// raw/offset/scale; trigger `"%s-dev%d"`.
    public static func mpu6050(rates: String = "10 20 50 100 200 500",
                               mountMatrix: String = "1, 0, 0; 0, 1, 0; 0, 0, 1") -> IIOFakeDevice {
        IIOFakeDevice(
            name: "mpu6050",
            channels: axes("accel", .accelerometer, indices: [0, 1, 2], scanType: s(16, 16, .big))
                + [IIOFakeChannel(name: "in_temp", kind: nil, scanIndex: 3, scanType: s(16, 16, .big))]
                + axes("anglvel", .gyroscope, indices: [4, 5, 6], scanType: s(16, 16, .big)),
            attributes: [
                "in_accel_scale": "0.000598\n",
                "in_anglvel_scale": "0.001064724\n",
                "in_temp_scale": "2.941176\n",
                "in_temp_offset": "12420\n",
                "sampling_frequency": "50\n",
                "sampling_frequency_available": rates + "\n",
                "in_accel_mount_matrix": mountMatrix + "\n",
                "in_anglvel_mount_matrix": mountMatrix + "\n",
            ],
            timestampIndex: 7, hasBuffer: true, triggerName: "mpu6050-dev%d", rateAttribute: "sampling_frequency")
    }

    /// ST LSM6DSx accelerometer half (drivers/iio/imu/st_lsm6dsx/st_lsm6dsx_core.c): the driver
    /// registers accelerometer and gyroscope as two IIO devices named `"<chip>_accel"` and
    /// `"<chip>_gyro"`; `ST_LSM6DSX_CHANNEL_ACC` has scale shared by type, `SAMP_FREQ` shared by all,
    /// scan type `le:s16/16>>0`, indices 0–2 and soft timestamp 3, mount matrix shared by all
    /// (`mount_matrix`); rates from `odr_avl` in mHz printed "%d.%03d" (12.5 26 52 104 208 416 Hz);
    /// the buffer is the chip's FIFO (kfifo, no trigger). Scale ±2 g: `IIO_G_TO_M_S_2(61)` µm/s².
    public static func lsm6dsxAccel(chip: String = "lsm6dsl", mountMatrix: String = "1, 0, 0; 0, 1, 0; 0, 0, 1") -> IIOFakeDevice {
        IIOFakeDevice(
            name: chip + "_accel",
            channels: axes("accel", .accelerometer, indices: [0, 1, 2], scanType: s(16, 16)),
            attributes: [
                "in_accel_scale": "0.000598\n",
                "in_accel_scale_available": "0.000598 0.001196 0.002392 0.004785\n",
                "sampling_frequency": "104.000000\n",
                "sampling_frequency_available": "12.500 26.000 52.000 104.000 208.000 416.000\n",
                "mount_matrix": mountMatrix + "\n",
            ],
            timestampIndex: 3, hasBuffer: true, triggerName: nil, rateAttribute: "sampling_frequency")
    }

    /// ST LSM6DSx gyroscope half (see ``lsm6dsxAccel(chip:mountMatrix:)``); ±2000 °/s:
    /// `IIO_DEGREE_TO_RAD(70000)` = 1221 µrad/s per count.
    public static func lsm6dsxGyro(chip: String = "lsm6dsl", mountMatrix: String = "1, 0, 0; 0, 1, 0; 0, 0, 1") -> IIOFakeDevice {
        IIOFakeDevice(
            name: chip + "_gyro",
            channels: axes("anglvel", .gyroscope, indices: [0, 1, 2], scanType: s(16, 16)),
            attributes: [
                "in_anglvel_scale": "0.001221\n",
                "in_anglvel_scale_available": "0.000152 0.000305 0.000610 0.001221\n",
                "sampling_frequency": "104.000000\n",
                "sampling_frequency_available": "12.500 26.000 52.000 104.000 208.000 416.000\n",
                "mount_matrix": mountMatrix + "\n",
            ],
            timestampIndex: 3, hasBuffer: true, triggerName: nil, rateAttribute: "sampling_frequency")
    }

    /// Bosch BMC150/BMA255 accelerometer (drivers/iio/accel/bmc150-accel-core.c), the `BOSC0200`
    /// of many tablets: `BMC150_ACCEL_CHANNEL(_axis, 12)` has scan type `le:s12/16>>4`
    /// (`realbits = bits, storagebits = 16, shift = 16 - bits`), scale and `SAMP_FREQ` shared by
    /// type, device-wide "15.620000 31.260000 62.50000 125 250 500 1000 2000" available, mount matrix
    /// shared by direction (`in_mount_matrix`), soft timestamp 3; ±2 g scale 9610 µm/s² per count;
    /// trigger `"%s-dev%d"`. On 2-in-1s with two of them the kernel labels them `accel-display` and
    /// `accel-base`.
    public static func bmc150(label: String? = nil, mountMatrix: String = "1, 0, 0; 0, 1, 0; 0, 0, 1") -> IIOFakeDevice {
        IIOFakeDevice(
            name: "bmc150_accel", label: label,
            channels: axes("accel", .accelerometer, indices: [0, 1, 2], scanType: s(12, 16, shift: 4)),
            attributes: [
                "in_accel_scale": "0.009610\n",
                "in_accel_sampling_frequency": "125.000000\n",
                "sampling_frequency_available": "15.620000 31.260000 62.50000 125 250 500 1000 2000\n",
                "in_mount_matrix": mountMatrix + "\n",
            ],
            timestampIndex: 3, hasBuffer: true, triggerName: "bmc150_accel-dev%d", rateAttribute: "in_accel_sampling_frequency")
    }

    /// HID sensor-hub accelerometer of laptops and tablets (drivers/iio/accel/hid-sensor-accel-3d.c):
    /// name `accel_3d`, raw per axis, offset, scale, `SAMP_FREQ` and hysteresis shared by type, scan
    /// storage 32 bits with the HID report size as valid bits (`le:s16/32>>0` for 16-bit reports),
    /// soft timestamp 3, trigger `"%s-dev%d"`; no mount matrix (systemd's hwdb supplies
    /// `ACCEL_MOUNT_MATRIX` through udev). Scale 0.0980665 m/s² per count (centi-g reports).
    /// `deviceNumber` is its `dev` attribute; `nil` leaves the tree's own (``IIOFakeTree/deviceNumber(index:)``).
    public static func hidAccel3D(deviceNumber: String? = "250:0") -> IIOFakeDevice {
        var attributes = [
            "in_accel_scale": "0.098066500\n",
            "in_accel_offset": "0\n",
            "in_accel_sampling_frequency": "10.000000\n",
            "in_accel_hysteresis": "0.000000\n",
        ]
        if let deviceNumber { attributes["dev"] = deviceNumber + "\n" }
        return IIOFakeDevice(
            name: "accel_3d",
            channels: axes("accel", .accelerometer, indices: [0, 1, 2], scanType: s(16, 32)),
            attributes: attributes, timestampIndex: 3, hasBuffer: true, triggerName: "accel_3d-dev%d",
            rateAttribute: "in_accel_sampling_frequency")
    }

    /// ST LIS3MDL magnetometer (drivers/iio/magnetometer/st_magn_core.c, `st_magn_2_16bit_channels`):
    /// raw and scale per axis (`in_magn_x_scale`), scan type `le:s16/16>>0`, indices 0–2, soft
    /// timestamp 3; `odr_avl` 1 2 3 5 10 20 40 80 Hz printed as integers; ±4 gauss full scale, gain
    /// 146 µG per count (`IIO_VAL_INT_PLUS_MICRO`); trigger `"%s-trigger"`; mount matrix shared by all.
    public static func lis3mdl(rates: String = "1 2 3 5 10 20 40 80", mountMatrix: String = "1, 0, 0; 0, 1, 0; 0, 0, 1") -> IIOFakeDevice {
        IIOFakeDevice(
            name: "lis3mdl",
            channels: axes("magn", .magnetometer, indices: [0, 1, 2], scanType: s(16, 16)),
            attributes: [
                "in_magn_x_scale": "0.000146\n",
                "in_magn_y_scale": "0.000146\n",
                "in_magn_z_scale": "0.000146\n",
                "in_magn_scale_available": "0.000146 0.000292 0.000438 0.000584\n",
                "sampling_frequency": "1\n",
                "sampling_frequency_available": rates + "\n",
                "mount_matrix": mountMatrix + "\n",
            ],
            timestampIndex: 3, hasBuffer: true, triggerName: "lis3mdl-trigger", rateAttribute: "sampling_frequency")
    }

    /// ST LSM303DLHC magnetometer (same driver, `st_magn_16bit_channels`): big-endian
    /// `be:s16/16>>0` and a different gain on Z (`gain` 909, `gain2` 1020 µG per count at ±1.3 G),
    /// so the scale is per axis and Z differs; rates 1 2 3 8 15 30 75 220 Hz; trigger `"%s-trigger"`.
    public static func lsm303dlhcMagn() -> IIOFakeDevice {
        IIOFakeDevice(
            name: "lsm303dlhc_magn",
            channels: axes("magn", .magnetometer, indices: [0, 1, 2], scanType: s(16, 16, .big)),
            attributes: [
                "in_magn_x_scale": "0.000909\n",
                "in_magn_y_scale": "0.000909\n",
                "in_magn_z_scale": "0.001020\n",
                "sampling_frequency": "1\n",
                "sampling_frequency_available": "1 2 3 8 15 30 75 220\n",
            ],
            timestampIndex: 3, hasBuffer: true, triggerName: "lsm303dlhc_magn-trigger", rateAttribute: "sampling_frequency")
    }

    /// Bosch BMP280 barometer (drivers/iio/pressure/bmp280-core.c): processed channels only,
    /// `in_pressure_input` in kPa printed by `IIO_VAL_FRACTIONAL` (Q24.8 Pa / 256000: "%d.%09u") and
    /// `in_temp_input` in m°C, oversampling ratios (16 and 2 by default), no sampling frequency and
    /// no buffer (so no `dev` either): polled only. Linux 6.1 lists exactly `in_pressure_input
    /// in_pressure_oversampling_ratio in_temp_input in_temp_oversampling_ratio name` (plus `power`,
    /// `subsystem`, `uevent`): no `*_oversampling_ratio_available` (tools/vm/README.md).
    public static func bmp280() -> IIOFakeDevice {
        IIOFakeDevice(
            name: "bmp280",
            channels: [
                IIOFakeChannel(name: "in_pressure", kind: .barometer, processed: true),
                IIOFakeChannel(name: "in_temp", kind: nil, processed: true),
            ],
            attributes: [
                "in_pressure_oversampling_ratio": "16\n",
                "in_temp_oversampling_ratio": "2\n",
            ],
            hasBuffer: false)
    }

    /// Bosch BMC150/BMM150 magnetometer (drivers/iio/magnetometer/bmc150_magn.c), as Linux 6.1 lists
    /// it: `BMC150_MAGN_CHANNEL` has `RAW` and `OVERSAMPLING_RATIO` per axis
    /// (`in_magn_x_oversampling_ratio`: repetitions, 9 on x and y, 15 on z in the driver's default
    /// "regular" preset), `SAMP_FREQ` and `SCALE` shared by type (`in_magn_sampling_frequency` 10 Hz,
    /// `in_magn_scale` "0.000625": 1/16 µT per count in gauss, IIO's magnetometer unit), the device-wide
    /// `IIO_CONST_ATTR_SAMP_FREQ_AVAIL("2 6 8 10 15 20 25 30")`, mount matrix shared by direction
    /// (`in_mount_matrix`), scan type `le:s32/32>>0` at indices 0–2 (the compensated value is an
    /// s32), soft timestamp 3, data-ready trigger `"%s-dev%d"` only with an IRQ (`interrupt`).
    public static func bmc150Magn(rates: String = "2 6 8 10 15 20 25 30",
                                  mountMatrix: String = "1, 0, 0; 0, 1, 0; 0, 0, 1",
                                  interrupt: Bool = true) -> IIOFakeDevice {
        IIOFakeDevice(
            name: "bmc150_magn",
            channels: axes("magn", .magnetometer, indices: [0, 1, 2], scanType: s(32, 32)),
            attributes: [
                "in_magn_scale": "0.000625\n",
                "in_magn_sampling_frequency": "10\n",
                "sampling_frequency_available": rates + "\n",
                "in_magn_x_oversampling_ratio": "9\n",
                "in_magn_y_oversampling_ratio": "9\n",
                "in_magn_z_oversampling_ratio": "15\n",
                "in_mount_matrix": mountMatrix + "\n",
            ],
            timestampIndex: 3, hasBuffer: true, triggerName: "bmc150_magn-dev%d", rateAttribute: "in_magn_sampling_frequency",
            interrupt: interrupt)
    }

    /// Every catalogued layout by name (for `coremotion iio-emulate --driver`).
    public static let catalog: [String: @Sendable () -> [IIOFakeDevice]] = [
        "bmi160": { [bmi160()] },
        "mpu6050": { [mpu6050()] },
        "lsm6dsx": { [lsm6dsxAccel(), lsm6dsxGyro()] },
        "bmc150": { [bmc150()] },
        "accel_3d": { [hidAccel3D()] },
        "lis3mdl": { [lis3mdl()] },
        "lsm303dlhc": { [lsm303dlhcMagn()] },
        "bmp280": { [bmp280()] },
        "bmc150_magn": { [bmc150Magn()] },
    ]
}
