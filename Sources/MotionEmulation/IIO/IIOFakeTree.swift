import Foundation
import MotionIIO
import MotionSamples
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A fake IIO tree in a directory, laid out as ``IIORoot`` describes, for tests and the emulator.
///
/// Attribute values are written by atomic rename, so a reader never sees a half-written value.
/// The buffer node `ROOT/dev/iio:deviceN` is a FIFO (``NodeKind/fifo``) or a regular file that
/// scans are appended to (``NodeKind/file``).
///
/// A buffered device gets what Linux 6.1 registers for it (checked under QEMU with the real bmi160,
/// bmc150_magn and bmp280 drivers, tools/vm/README.md): `buffer/` with `data_available`, `direction`
/// ("in"), `enable`, `length` and `watermark`; `scan_elements/`; with ``buffer0`` set, `buffer0/`
/// (kernel 5.11 and later), which holds the buffer attributes and the scan elements together
/// (Documentation/iio/iio_devbuf.rst) — here symbolic links to the `buffer/` and `scan_elements/`
/// files, so that, as in the kernel, both names are one attribute; a `dev` attribute
/// (``deviceNumber(index:)``); `trigger/current_trigger` for a triggered buffer, and the device's own
/// `ROOT/triggerM` only when the layout has its ``IIOFakeDevice/interrupt``. A device without a buffer
/// (bmp280) has none of these. Devices are numbered as the kernel numbers them (lowest free N), and
/// ``makeUnreadable(_:_:)``, ``remove(_:)`` and ``unplug(_:)`` give the failures a real tree gives.
public final class IIOFakeTree: @unchecked Sendable {  // @unchecked: `devices`, `triggerDirectories`, `unplugged`, `makesBuffer0` are guarded by `lock`; `root` is a `let`
    // NSLock, not Mutex: the thread sanitizer CI runs cannot see Mutex's contended (futex) path.
    /// What stands in for `/dev/iio:deviceN`.
    public enum NodeKind: String, Sendable, CaseIterable {
        /// A named pipe: a reader polls it as it polls the kernel's node.
        case fifo
        /// A regular file: scans are appended, for tests that read it directly.
        case file
    }

    /// The tree's root folder (what `COREMOTION_DEVICE=iio:ROOT` names).
    public let root: URL
    /// ``root`` as a path.
    public var rootPath: String { root.path }
    private let lock = NSLock()
    private var devices: [String: IIOFakeDevice] = [:]
    /// The `triggerM` directory each device registered (devices with an interrupt).
    private var triggerDirectories: [String: String] = [:]
    /// Unplugged devices by the path they were moved to: layout and trigger, for ``replug(_:from:as:)``
    /// (their number is free meanwhile, so another device may take the name).
    private var unplugged: [String: (layout: IIOFakeDevice?, trigger: String?)] = [:]

    private var makesBuffer0: Bool

    /// True: buffered devices added from now on also get `buffer0/`, the IIO core's per-buffer group of
    /// kernel 5.11 and later, as Linux 6.1 shows it. False (the default, the trees made before the
    /// real-kernel check): `buffer/` and `scan_elements/` only, the layout of kernels up to 5.10.
    public var buffer0: Bool {
        get { lock.lock(); defer { lock.unlock() }; return makesBuffer0 }
        set { lock.lock(); makesBuffer0 = newValue; lock.unlock() }
    }

    /// Creates (or reuses) the directory `root`; `buffer0` as the property.
    public init(root: URL, buffer0: Bool = false) throws {
        self.root = root
        self.makesBuffer0 = buffer0
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// The IIO root for this tree.
    public var iioRoot: IIORoot { IIORoot(path: root.path) }

    /// The character-device number a buffered device's `dev` attribute holds when its layout brings
    /// none: `236:<index>` (the IIO major is allocated at boot, the minor is the device number).
    public static func deviceNumber(index: Int) -> String { "236:\(index)" }

    /// The lowest N without an `iio:deviceN` in the tree: the number the kernel gives the next device
    /// (`ida_alloc`), so a removed or unplugged device's number is taken again.
    public var lowestFreeIndex: Int {
        var n = 0
        while IIOFakeTree.entryExists(rootPath + "/iio:device\(n)") { n += 1 }
        return n
    }

    private var lowestFreeTriggerIndex: Int {
        var n = 0
        while IIOFakeTree.entryExists(rootPath + "/trigger\(n)") { n += 1 }
        return n
    }

    /// True when `path` names anything, a dangling link included.
    private static func entryExists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    /// Adds `device` as `iio:device<index>` (by default the lowest free number, as the kernel numbers
    /// devices) with every attribute of its layout; returns the directory name.
    @discardableResult
    public func add(_ device: IIOFakeDevice, index: Int? = nil, node: NodeKind = .fifo) throws -> String {
        let index = index ?? lowestFreeIndex
        let name = "iio:device\(index)"
        let dir = root.appendingPathComponent(name).path
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try put(dir + "/name", device.name + "\n")
        if let label = device.label { try put(dir + "/label", label + "\n") }
        for (path, content) in device.attributes {
            let full = dir + "/" + path
            try fm.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try put(full, content)
        }
        for c in device.channels {
            if c.processed {
                try put(dir + "/\(c.name)_input", "0\n")
            } else {
                try put(dir + "/\(c.name)_raw", "0\n")
            }
        }
        if device.hasBuffer {
            try fm.createDirectory(atPath: dir + "/scan_elements", withIntermediateDirectories: true)
            try fm.createDirectory(atPath: dir + "/buffer", withIntermediateDirectories: true)
            for c in device.channels {
                guard let index = c.scanIndex, let type = c.scanType else { continue }
                try put(dir + "/scan_elements/\(c.name)_en", "0\n")
                try put(dir + "/scan_elements/\(c.name)_index", "\(index)\n")
                try put(dir + "/scan_elements/\(c.name)_type", type.description + "\n")
            }
            if let ts = device.timestampIndex {
                try put(dir + "/scan_elements/in_timestamp_en", "0\n")
                try put(dir + "/scan_elements/in_timestamp_index", "\(ts)\n")
                try put(dir + "/scan_elements/in_timestamp_type", IIOFakeDevice.timestampType.description + "\n")
                try put(dir + "/current_timestamp_clock", "realtime\n")
            }
            try put(dir + "/buffer/data_available", "0\n")
            try put(dir + "/buffer/direction", "in\n")
            try put(dir + "/buffer/enable", "0\n")
            try put(dir + "/buffer/length", "128\n")
            try put(dir + "/buffer/watermark", "1\n")
            // buffer0/: the same attributes as buffer/ and scan_elements/ (links, so one value each).
            if buffer0 {
                try fm.createDirectory(atPath: dir + "/buffer0", withIntermediateDirectories: true)
                for folder in ["buffer", "scan_elements"] {
                    for file in try fm.contentsOfDirectory(atPath: dir + "/" + folder) where !file.contains(".tmp-") {
                        let link = dir + "/buffer0/" + file
                        if IIOFakeTree.entryExists(link) { try fm.removeItem(atPath: link) }
                        try fm.createSymbolicLink(atPath: link, withDestinationPath: "../" + folder + "/" + file)
                    }
                }
            }
            if device.attributes["dev"] == nil { try put(dir + "/dev", IIOFakeTree.deviceNumber(index: index) + "\n") }
            if let trigger = device.triggerName {
                // A triggered buffer always has trigger/current_trigger; the driver's own trigger exists
                // only when the board gives it an interrupt.
                try fm.createDirectory(atPath: dir + "/trigger", withIntermediateDirectories: true)
                try put(dir + "/trigger/current_trigger", "\n")
                if device.interrupt {
                    let triggerName = trigger.replacingOccurrences(of: "%d", with: String(index))
                    let triggerEntry = "trigger\(lowestFreeTriggerIndex)"
                    try fm.createDirectory(atPath: rootPath + "/" + triggerEntry, withIntermediateDirectories: true)
                    try put(rootPath + "/" + triggerEntry + "/name", triggerName + "\n")
                    lock.lock()
                    triggerDirectories[name] = triggerEntry
                    lock.unlock()
                }
            }
            try fm.createDirectory(atPath: rootPath + "/dev", withIntermediateDirectories: true)
            let nodePath = rootPath + "/dev/" + name
            if fm.fileExists(atPath: nodePath) { try fm.removeItem(atPath: nodePath) }
            switch node {
            case .fifo:
                guard mkfifo(nodePath, 0o644) == 0 else { throw IIOError.from(errno: errno, path: nodePath, operation: "mkfifo") }
            case .file:
                try put(nodePath, "")
            }
        }
        lock.lock()
        devices[name] = device
        lock.unlock()
        return name
    }

    /// The layout added as `name`.
    public func device(_ name: String) -> IIOFakeDevice? {
        lock.lock()
        defer { lock.unlock() }
        return devices[name]
    }

    /// Writes a `udev` database entry with `ACCEL_MOUNT_MATRIX` for the character device `number`
    /// (`MAJOR:MINOR`), as systemd's hwdb would.
    public func setUdevMountMatrix(_ matrix: String, deviceNumber number: String) throws {
        let dir = rootPath + "/udev/data"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try put(dir + "/c" + number, "E:ID_INPUT=1\nE:ACCEL_MOUNT_MATRIX=\(matrix)\nE:IIO_SENSOR_PROXY_TYPE=iio-poll-accel\n")
    }

    /// Writes `text` to `path` atomically (temporary file, then rename).
    public func put(_ path: String, _ text: String) throws {
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw IIOError.from(errno: errno, path: temporary, operation: "create", writing: true) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { SysfsFile.systemWrite(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count else {
            unlink(temporary)
            throw IIOError.io(path: temporary, operation: "write", errno: errno)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw IIOError.from(errno: code, path: path, operation: "rename", writing: true)
        }
    }

    /// Writes an attribute of device `name` (path relative to its directory).
    public func set(_ name: String, _ attribute: String, _ text: String) throws {
        try put(rootPath + "/" + name + "/" + attribute, text.hasSuffix("\n") ? text : text + "\n")
    }

    /// Reads an attribute of device `name`, trimmed.
    public func get(_ name: String, _ attribute: String) -> String? {
        (try? SysfsFile.readText(rootPath + "/" + name + "/" + attribute))?.trimmingSysfsSpace()
    }

    /// Writes a raw count to `<channel>_raw` of device `name`.
    public func setRaw(_ name: String, _ channel: String, _ value: Int64) throws {
        try set(name, channel + "_raw", String(value))
    }

    /// Makes `attribute` of device `name` fail to read, as an attribute whose driver returns an error
    /// does (Linux 6.1's bmi160 answers EINVAL for `in_accel_sampling_frequency` when ACC_CONF holds
    /// no rate it knows). A plain file cannot fail a read, and mode 000 does not stop root (the tests'
    /// user), so the file becomes an empty directory: it is still listed and `open(2)` succeeds, but
    /// `read(2)` fails with **EISDIR** — at the same step where sysfs returns the driver's errno, and
    /// ``IIOError`` classifies both alike (`.io(…, operation: "read", errno:)`: neither "gone" nor
    /// "permission"). Writing it fails too (EISDIR), the emulator's writes included, until
    /// ``makeReadable(_:_:_:)``.
    public func makeUnreadable(_ name: String, _ attribute: String) throws {
        let path = rootPath + "/" + name + "/" + attribute
        if IIOFakeTree.entryExists(path) { try FileManager.default.removeItem(atPath: path) }
        guard mkdir(path, 0o755) == 0 else { throw IIOError.from(errno: errno, path: path, operation: "mkdir", writing: true) }
    }

    /// Undoes ``makeUnreadable(_:_:)``: `attribute` is a file holding `text` again.
    public func makeReadable(_ name: String, _ attribute: String, _ text: String) throws {
        let path = rootPath + "/" + name + "/" + attribute
        if SysfsFile.isDirectory(path) { rmdir(path) }
        try set(name, attribute, text)
    }

    /// Removes device `name` as the kernel's `delete_device` (or an unbind) does: its directory, its
    /// buffer node and its trigger vanish (a read of an old path gives ENOENT) and its number is free
    /// for the next ``add(_:index:node:)``.
    public func remove(_ name: String) throws {
        let fm = FileManager.default
        lock.lock()
        let trigger = triggerDirectories.removeValue(forKey: name)
        devices[name] = nil
        lock.unlock()
        try fm.removeItem(atPath: rootPath + "/" + name)
        for path in [rootPath + "/dev/" + name, trigger.map { rootPath + "/" + $0 }].compactMap({ $0 }) where IIOFakeTree.entryExists(path) {
            try fm.removeItem(atPath: path)
        }
    }

    /// "Unplugs" device `name`: its directory, its buffer node and its trigger disappear (moved aside,
    /// like an unbound driver's: the old paths give ENOENT) and its number is free. Returns where the
    /// directory went, for ``replug(_:from:as:)``.
    @discardableResult
    public func unplug(_ name: String) throws -> String {
        let fm = FileManager.default
        let aside = rootPath + "/.unplugged-" + name
        if IIOFakeTree.entryExists(aside) { try fm.removeItem(atPath: aside) }
        guard rename(rootPath + "/" + name, aside) == 0 else {
            throw IIOError.from(errno: errno, path: rootPath + "/" + name, operation: "rename")
        }
        let node = rootPath + "/dev/" + name
        if IIOFakeTree.entryExists(node) {
            let nodeAside = rootPath + "/dev/.unplugged-" + name
            if IIOFakeTree.entryExists(nodeAside) { try fm.removeItem(atPath: nodeAside) }
            rename(node, nodeAside)
        }
        lock.lock()
        let trigger = triggerDirectories.removeValue(forKey: name)
        unplugged[aside] = (devices.removeValue(forKey: name), trigger)
        lock.unlock()
        if let trigger, IIOFakeTree.entryExists(rootPath + "/" + trigger) {
            let triggerAside = aside + "-" + trigger
            if IIOFakeTree.entryExists(triggerAside) { try fm.removeItem(atPath: triggerAside) }
            rename(rootPath + "/" + trigger, triggerAside)
        }
        return aside
    }

    /// Puts an unplugged device back, as `newName`, by default as the lowest free `iio:deviceN` (what
    /// the kernel gives a re-bound driver: its old number unless another device took it). The buffer
    /// node and the trigger come back with it; under a new number the trigger is renamed
    /// (`bmi160-dev5`), `trigger/current_trigger` is emptied (it named the old one) and the default
    /// `dev` follows the number. The directory appears last, complete, as a probed device does.
    public func replug(_ name: String, from aside: String, as newName: String? = nil) throws {
        let target = newName ?? "iio:device\(lowestFreeIndex)"
        let newIndex = Int(target.dropFirst("iio:device".count))
        lock.lock()
        let state = unplugged.removeValue(forKey: aside)
        let layout = state?.layout ?? devices[name]
        if target != name && state == nil { devices[name] = nil }
        devices[target] = layout
        lock.unlock()
        if let trigger = state?.trigger, IIOFakeTree.entryExists(aside + "-" + trigger) {
            let entry = IIOFakeTree.entryExists(rootPath + "/" + trigger) ? "trigger\(lowestFreeTriggerIndex)" : trigger
            if target != name, let pattern = layout?.triggerName, let newIndex {
                try put(aside + "-" + trigger + "/name", pattern.replacingOccurrences(of: "%d", with: String(newIndex)) + "\n")
                try put(aside + "/trigger/current_trigger", "\n")
            }
            guard rename(aside + "-" + trigger, rootPath + "/" + entry) == 0 else {
                throw IIOError.from(errno: errno, path: rootPath + "/" + entry, operation: "rename")
            }
            lock.lock()
            triggerDirectories[target] = entry
            lock.unlock()
        }
        if target != name, let layout, layout.hasBuffer, layout.attributes["dev"] == nil, let newIndex {
            try put(aside + "/dev", IIOFakeTree.deviceNumber(index: newIndex) + "\n")
        }
        let nodeAside = rootPath + "/dev/.unplugged-" + name
        if IIOFakeTree.entryExists(nodeAside) {
            rename(nodeAside, rootPath + "/dev/" + target)
        } else if target != name, IIOFakeTree.entryExists(rootPath + "/dev/" + name) {
            rename(rootPath + "/dev/" + name, rootPath + "/dev/" + target)
        }
        guard rename(aside, rootPath + "/" + target) == 0 else {
            throw IIOError.from(errno: errno, path: rootPath + "/" + target, operation: "rename")
        }
    }
}
