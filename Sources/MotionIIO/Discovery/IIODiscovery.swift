/// Finds motion sensors under an IIO root.
///
/// Attribute names follow Documentation/ABI/testing/sysfs-bus-iio and the naming rule of
/// `__iio_device_attr_init` (drivers/iio/industrialio-core.c): a value shared by all channels of a
/// type is `in_<type>_<info>` (e.g. `in_accel_scale`), a per-channel one `in_<type>_<axis>_<info>`
/// (e.g. `in_magn_z_scale`), one shared by every input channel `in_<info>` and one shared by the
/// whole device `<info>` (e.g. `sampling_frequency`, `mount_matrix`). The most specific attribute
/// wins.
public struct IIODiscovery: Sendable {
    /// The result of one scan of the root.
    public struct Result: Sendable {
        /// Every IIO device with at least one motion sensor, by device number.
        public var devices: [IIODeviceInfo]
        /// Why devices or sensors were skipped (file, value, what was expected).
        public var problems: [String]
    }

    /// Where the devices are.
    public let root: IIORoot

    /// Motion-sensor channel types and their IIO names.
    static let vectorTypes: [(SensorKind, String)] = [(.accelerometer, "accel"), (.gyroscope, "anglvel"), (.magnetometer, "magn")]
    static let axes = ["x", "y", "z"]

    /// Default rate range when a driver offers no `sampling_frequency` at all (polled only), Hz.
    public static func defaultPolledRates(_ kind: SensorKind) -> IIORates {
        kind == .barometer ? IIORates(unspecifiedFrom: 1, to: 10) : IIORates(unspecifiedFrom: 1, to: 100)
    }

    /// Discovery under `root`.
    public init(root: IIORoot) { self.root = root }

    /// Scans the root. Throws only when the root itself cannot be listed; problems with single
    /// devices are collected in ``Result/problems``.
    public func scan() throws(IIOError) -> Result {
        guard SysfsFile.isDirectory(root.devicesDirectory) else { throw IIOError.rootNotFound(path: root.devicesDirectory) }
        let entries = try SysfsFile.list(root.devicesDirectory)
        var triggers: [String] = []
        for entry in entries where entry.hasPrefix("trigger") {
            if let name = try? SysfsFile.readText(root.path(entry) + "/name").trimmingSysfsSpace(), !name.isEmpty {
                triggers.append(name)
            }
        }
        var devices: [IIODeviceInfo] = []
        var problems: [String] = []
        for entry in entries where entry.hasPrefix("iio:device") && Int(entry.dropFirst("iio:device".count)) != nil {
            do {
                if let device = try describe(entry, triggers: triggers, problems: &problems) { devices.append(device) }
            } catch {
                problems.append("\(root.path(entry)): skipped: \(error)")
            }
        }
        devices.sort { $0.index < $1.index }
        return Result(devices: devices, problems: problems)
    }

    /// Describes one device directory; `nil` when it has no motion sensor.
    public func describe(_ directoryName: String, triggers: [String] = [], problems: inout [String]) throws(IIOError) -> IIODeviceInfo? {
        let dir = root.path(directoryName)
        let files = Set(try SysfsFile.list(dir))
        let name = files.contains("name") ? try SysfsFile.readText(dir + "/name").trimmingSysfsSpace() : directoryName
        let label = files.contains("label") ? (try? SysfsFile.readText(dir + "/label").trimmingSysfsSpace()).flatMap { $0.isEmpty ? nil : $0 } : nil
        let deviceNumber = files.contains("dev") ? (try? SysfsFile.readText(dir + "/dev").trimmingSysfsSpace()) : nil

        // Scan elements live in scan_elements/ (all kernels) and buffer0/ (5.11 and later).
        var scanDir: String?
        var scanFiles: Set<String> = []
        for candidate in ["scan_elements", "buffer0"] where files.contains(candidate) {
            let listed = Set((try? SysfsFile.list(dir + "/" + candidate)) ?? [])
            if listed.contains(where: { $0.hasSuffix("_en") }) {
                scanDir = dir + "/" + candidate
                scanFiles = listed
                break
            }
        }
        var scanElements: [String: IIOScanElementInfo] = [:]
        if let scanDir {
            for file in scanFiles where file.hasSuffix("_en") {
                let channel = String(file.dropLast(3))
                guard scanFiles.contains(channel + "_index"), scanFiles.contains(channel + "_type") else { continue }
                do {
                    let indexPath = scanDir + "/" + channel + "_index"
                    let indexText = try SysfsFile.readText(indexPath)
                    guard let index = SysfsNumber.integer(indexText), index >= 0, index < 1 << 16 else {
                        throw IIOError.malformedAttribute(path: indexPath, value: indexText, expected: "a non-negative scan index")
                    }
                    let typePath = scanDir + "/" + channel + "_type"
                    let type = try IIOScanType(parsing: try SysfsFile.readText(typePath), path: typePath)
                    scanElements[channel] = IIOScanElementInfo(name: channel, enablePath: scanDir + "/" + file, index: Int(index), type: type)
                } catch {
                    problems.append("\(dir): scan element \(channel) not usable for buffered capture: \(error)")
                }
            }
        }

        let udevMatrix = udevAccelMountMatrix(deviceNumber: deviceNumber, problems: &problems)
        var sensors: [IIOSensorInfo] = []
        for (kind, type) in IIODiscovery.vectorTypes {
            do {
                if let s = try vectorSensor(kind, type, dir: dir, directoryName: directoryName, name: name, label: label,
                                             files: files, scan: scanElements, udevMatrix: udevMatrix, problems: &problems) {
                    sensors.append(s)
                }
            } catch {
                problems.append("\(dir): \(kind) skipped: \(error)")
            }
        }
        do {
            if let s = try pressureSensor(dir: dir, directoryName: directoryName, name: name, label: label, files: files, scan: scanElements) {
                sensors.append(s)
            }
        } catch {
            problems.append("\(dir): barometer skipped: \(error)")
        }
        guard !sensors.isEmpty else { return nil }

        var buffer: IIOBufferInfo?
        let node = root.deviceNode(directoryName)
        let bufferDir = files.contains("buffer0") && SysfsFile.exists(dir + "/buffer0/enable") ? dir + "/buffer0" : dir + "/buffer"
        if scanDir != nil, SysfsFile.exists(bufferDir + "/enable"), SysfsFile.exists(node) {
            let currentTrigger = SysfsFile.exists(dir + "/trigger/current_trigger") ? dir + "/trigger/current_trigger" : nil
            let n = directoryName.dropFirst("iio:device".count)
            let preferred = triggers.first { $0 == "\(name)-dev\(n)" } ?? triggers.first { $0 == "\(name)-trigger" }
                ?? triggers.first { $0.hasPrefix(name + "-") }
            buffer = IIOBufferInfo(
                enablePath: bufferDir + "/enable",
                lengthPath: SysfsFile.exists(bufferDir + "/length") ? bufferDir + "/length" : nil,
                watermarkPath: SysfsFile.exists(bufferDir + "/watermark") ? bufferDir + "/watermark" : nil,
                nodePath: node,
                timestamp: scanElements["in_timestamp"],
                allElements: scanElements.values.sorted { $0.index < $1.index },
                currentTriggerPath: currentTrigger,
                preferredTrigger: preferred)
        }
        return IIODeviceInfo(
            directoryName: directoryName, path: dir, name: name, label: label, deviceNumber: deviceNumber, sensors: sensors,
            buffer: buffer,
            timestampClockPath: files.contains("current_timestamp_clock") ? dir + "/current_timestamp_clock" : nil)
    }

    // MARK: - Sensors

    private func vectorSensor(
        _ kind: SensorKind, _ type: String, dir: String, directoryName: String, name: String, label: String?, files: Set<String>,
        scan: [String: IIOScanElementInfo], udevMatrix: (Matrix3, String)?, problems: inout [String]
    ) throws(IIOError) -> IIOSensorInfo? {
        let present = IIODiscovery.axes.filter { files.contains("in_\(type)_\($0)_raw") || files.contains("in_\(type)_\($0)_input") }
        if present.isEmpty { return nil }
        guard present.count == 3 else {
            problems.append("\(dir): \(kind) skipped: has in_\(type)_{\(present.joined(separator: ","))} but needs x, y and z")
            return nil
        }
        var channels: [IIOChannelInfo] = []
        for axis in IIODiscovery.axes {
            channels.append(try channel("in_\(type)_\(axis)", typePrefix: "in_\(type)", dir: dir, files: files, scan: scan))
        }
        // Mount matrix: the most specific sysfs attribute, overridden for accelerometers by udev's
        // ACCEL_MOUNT_MATRIX (systemd hwdb: "The default, when unset, is the one defined by the ACPI
        // found in …/in_mount_matrix"). Other sensors of the same chip (an IMU's gyroscope) take the udev
        // matrix when the kernel gives them none or the identity: a real driver whose firmware node has no
        // "mount-matrix" still shows the identity ("mounting matrix not found: using identity", bmi160 on
        // Linux 6.1), and the chip's axes are one frame for all its sensors.
        var matrix = Matrix3.identity
        var source = IIOMountMatrixSource.none
        var matrixPath: String?
        for candidate in ["in_\(type)_mount_matrix", "in_mount_matrix", "mount_matrix"] where files.contains(candidate) {
            let path = dir + "/" + candidate
            matrix = try IIOMountMatrix.parse(try SysfsFile.readText(path), path: path)
            source = .sysfs
            matrixPath = path
            break
        }
        if let (m, path) = udevMatrix, kind == .accelerometer || source == .none || matrix == .identity {
            matrix = m
            source = .udevHwdb
            matrixPath = path
        }
        return IIOSensorInfo(
            kind: kind, deviceDirectory: directoryName, driverName: name, label: label, channels: channels, temperature: nil,
            mountMatrix: matrix, mountMatrixSource: source, mountMatrixPath: matrixPath,
            rate: try rateControl(kind, typePrefix: "in_\(type)", dir: dir, files: files))
    }

    private func pressureSensor(
        dir: String, directoryName: String, name: String, label: String?, files: Set<String>, scan: [String: IIOScanElementInfo]
    ) throws(IIOError) -> IIOSensorInfo? {
        // in_pressure_raw / in_pressure_input, or the lowest-numbered in_pressureY_….
        let candidates = files.compactMap { f -> String? in
            guard f.hasPrefix("in_pressure"), f.hasSuffix("_raw") || f.hasSuffix("_input") else { return nil }
            let base = f.hasSuffix("_raw") ? String(f.dropLast(4)) : String(f.dropLast(6))
            let index = base.dropFirst("in_pressure".count)
            return index.isEmpty || Int(index) != nil ? base : nil
        }
        guard let base = Set(candidates).sorted(by: { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }).first else { return nil }
        let pressure = try channel(base, typePrefix: "in_pressure", dir: dir, files: files, scan: scan)
        var temperature: IIOChannelInfo?
        for t in ["in_temp", "in_temp0"] where files.contains(t + "_raw") || files.contains(t + "_input") {
            temperature = try? channel(t, typePrefix: "in_temp", dir: dir, files: files, scan: scan)
            break
        }
        return IIOSensorInfo(
            kind: .barometer, deviceDirectory: directoryName, driverName: name, label: label, channels: [pressure],
            temperature: temperature, mountMatrix: .identity, mountMatrixSource: .none, mountMatrixPath: nil,
            rate: try rateControl(.barometer, typePrefix: "in_pressure", dir: dir, files: files))
    }

    /// One channel: value attribute, scale and offset (most specific first), scan element.
    private func channel(
        _ name: String, typePrefix: String, dir: String, files: Set<String>, scan: [String: IIOScanElementInfo]
    ) throws(IIOError) -> IIOChannelInfo {
        let processed = !files.contains(name + "_raw")
        var scale = 1.0
        var scalePath: String?
        var offset = 0.0
        var offsetPath: String?
        if !processed {
            for candidate in [name + "_scale", typePrefix + "_scale"] where files.contains(candidate) {
                let path = dir + "/" + candidate
                scale = try SysfsFile.readDouble(path)
                scalePath = path
                break
            }
            for candidate in [name + "_offset", typePrefix + "_offset"] where files.contains(candidate) {
                let path = dir + "/" + candidate
                offset = try SysfsFile.readDouble(path)
                offsetPath = path
                break
            }
        }
        return IIOChannelInfo(
            name: name, valuePath: dir + "/" + name + (processed ? "_input" : "_raw"), isProcessed: processed,
            scale: scale, scalePath: scalePath, offset: offset, offsetPath: offsetPath, scan: scan[name])
    }

    /// `in_<type>_sampling_frequency[_available]`, else the device-wide `sampling_frequency[_available]`.
    private func rateControl(_ kind: SensorKind, typePrefix: String, dir: String, files: Set<String>) throws(IIOError) -> IIORateControl {
        let attribute = [typePrefix + "_sampling_frequency", "sampling_frequency"].first { files.contains($0) }
        var rates: IIORates?
        var availablePath: String?
        for candidate in [typePrefix + "_sampling_frequency_available", "sampling_frequency_available"] where files.contains(candidate) {
            let path = dir + "/" + candidate
            let text = try SysfsFile.readText(path)
            guard let parsed = IIORates(parsing: text) else {
                throw IIOError.malformedAttribute(path: path, value: text, expected: "rates like \"12.5 25 50 100\" or \"[min step max]\"")
            }
            rates = parsed
            availablePath = path
            break
        }
        var current: Double?
        if let attribute {
            let path = dir + "/" + attribute
            current = try SysfsFile.readDouble(path)
        }
        if rates == nil {
            let fallback = IIODiscovery.defaultPolledRates(kind)
            if let current, current > 0 {
                // A writable rate without a list: free between 1 Hz and the faster of the current
                // rate and the polled default; the driver rounds what is written and we read it back.
                rates = IIORates(unspecifiedFrom: min(fallback.minimum, current), to: max(fallback.maximum, current))
            } else {
                rates = fallback
            }
        }
        return IIORateControl(rates: rates!, attributePath: attribute.map { dir + "/" + $0 }, availablePath: availablePath, currentRate: current)
    }

    // MARK: - udev

    /// `ACCEL_MOUNT_MATRIX` from the udev database entry of the device's character device, if any.
    private func udevAccelMountMatrix(deviceNumber: String?, problems: inout [String]) -> (Matrix3, String)? {
        guard let deviceNumber, !deviceNumber.isEmpty else { return nil }
        let path = root.udevDataDirectory + "/c" + deviceNumber
        guard let text = try? SysfsFile.readText(path) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("E:ACCEL_MOUNT_MATRIX=") {
            let value = String(line.dropFirst("E:ACCEL_MOUNT_MATRIX=".count))
            do {
                return (try IIOMountMatrix.parse(value, path: path + " (ACCEL_MOUNT_MATRIX)"), path)
            } catch {
                problems.append("\(error); the kernel's matrix is used instead")
                return nil
            }
        }
        return nil
    }
}
