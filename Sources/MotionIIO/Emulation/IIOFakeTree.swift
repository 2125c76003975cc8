import Foundation
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
public final class IIOFakeTree: @unchecked Sendable {
    /// What stands in for `/dev/iio:deviceN`.
    public enum NodeKind: String, Sendable, CaseIterable {
        case fifo, file
    }

    /// The tree's root folder (what `COREMOTION_DEVICE=iio:ROOT` names).
    public let root: URL
    /// ``root`` as a path.
    public var rootPath: String { root.path }
    private let lock = NSLock()
    private var devices: [String: IIOFakeDevice] = [:]

    /// Creates (or reuses) the directory `root`.
    public init(root: URL) throws {
        self.root = root
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// The IIO root for this tree.
    public var iioRoot: IIORoot { IIORoot(path: root.path) }

    /// Adds `device` as `iio:device<index>` with every attribute of its layout; returns the
    /// directory name.
    @discardableResult
    public func add(_ device: IIOFakeDevice, index: Int, node: NodeKind = .fifo) throws -> String {
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
            try put(dir + "/buffer/enable", "0\n")
            try put(dir + "/buffer/length", "128\n")
            try put(dir + "/buffer/watermark", "1\n")
            if let trigger = device.triggerName {
                try fm.createDirectory(atPath: dir + "/trigger", withIntermediateDirectories: true)
                try put(dir + "/trigger/current_trigger", "\n")
                let triggerName = trigger.replacingOccurrences(of: "%d", with: String(index))
                let triggerDir = root.appendingPathComponent("trigger\(index)").path
                try fm.createDirectory(atPath: triggerDir, withIntermediateDirectories: true)
                try put(triggerDir + "/name", triggerName + "\n")
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

    /// "Unplugs" device `name`: its directory disappears from the root (moved aside, like an
    /// unbound driver's). Returns where it went, for ``replug(_:from:as:)``.
    @discardableResult
    public func unplug(_ name: String) throws -> String {
        let aside = rootPath + "/.unplugged-" + name
        if FileManager.default.fileExists(atPath: aside) { try FileManager.default.removeItem(atPath: aside) }
        guard rename(rootPath + "/" + name, aside) == 0 else {
            throw IIOError.from(errno: errno, path: rootPath + "/" + name, operation: "rename")
        }
        return aside
    }

    /// Puts an unplugged device back, as `newName` (a re-bound driver may get another number). The
    /// buffer node is moved along.
    public func replug(_ name: String, from aside: String, as newName: String? = nil) throws {
        let target = newName ?? name
        guard rename(aside, rootPath + "/" + target) == 0 else {
            throw IIOError.from(errno: errno, path: rootPath + "/" + target, operation: "rename")
        }
        if target != name {
            let oldNode = rootPath + "/dev/" + name
            if FileManager.default.fileExists(atPath: oldNode) { rename(oldNode, rootPath + "/dev/" + target) }
            lock.lock()
            devices[target] = devices[name]
            devices[name] = nil
            lock.unlock()
        }
    }
}
