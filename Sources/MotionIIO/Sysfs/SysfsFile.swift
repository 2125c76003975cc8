#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads and writes sysfs attributes with plain system calls, so that every failure keeps its errno
/// (a vanished device gives ENOENT or ENODEV, a protected one EACCES) and the polled hot path
/// allocates nothing.
///
/// Each read opens, reads and closes the file: sysfs regenerates an attribute on every open, and a
/// fake tree written by atomic rename must be re-opened to see new values.
public enum SysfsFile {
    @inline(__always)
    static func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        return Glibc.read(fd, buffer, count)
        #elseif canImport(Musl)
        return Musl.read(fd, buffer, count)
        #else
        return Darwin.read(fd, buffer, count)
        #endif
    }

    @inline(__always)
    package static func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        return Glibc.write(fd, buffer, count)
        #elseif canImport(Musl)
        return Musl.write(fd, buffer, count)
        #else
        return Darwin.write(fd, buffer, count)
        #endif
    }

    /// Reads a whole attribute as text (attributes are at most one page, 4096 bytes).
    public static func readText(_ path: String) throws(IIOError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw IIOError.from(errno: errno, path: path, operation: "open") }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw IIOError.from(errno: errno, path: path, operation: "read")
            }
            if n == 0 { break }
            result.append(contentsOf: chunk[0..<n])
            if result.count > 1 << 20 { break }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Reads an attribute holding one decimal integer (a `_raw` value) without allocating.
    public static func readInteger(_ path: String) throws(IIOError) -> Int64 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw IIOError.from(errno: errno, path: path, operation: "open") }
        defer { close(fd) }
        // A `_raw` value is at most 21 characters; 64 bytes on the stack hold it with its newline.
        var storage: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        let capacity = MemoryLayout.size(ofValue: storage)
        var filled = 0
        var failure: Int32 = 0
        withUnsafeMutableBytes(of: &storage) { buffer in
            while filled < capacity {
                let n = systemRead(fd, buffer.baseAddress! + filled, capacity - filled)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if n == 0 { return }
                filled += n
            }
        }
        if failure != 0 { throw IIOError.from(errno: failure, path: path, operation: "read") }
        let parsed: Int64? = withUnsafeBytes(of: &storage) { SysfsNumber.integer(UnsafeRawBufferPointer(rebasing: $0[0..<filled])) }
        guard let value = parsed else {
            let text = withUnsafeBytes(of: &storage) { String(decoding: $0[0..<filled], as: UTF8.self) }
            throw IIOError.malformedAttribute(path: path, value: text, expected: "a decimal integer")
        }
        return value
    }

    /// Reads an attribute holding one decimal number.
    public static func readDouble(_ path: String) throws(IIOError) -> Double {
        let text = try readText(path)
        guard let value = SysfsNumber.double(text) else {
            throw IIOError.malformedAttribute(path: path, value: text, expected: "a decimal number")
        }
        return value
    }

    /// Writes `text` to an attribute (the kernel wants the whole value in one write).
    public static func write(_ path: String, _ text: String) throws(IIOError) {
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)  // O_TRUNC as a shell `echo >` does; sysfs ignores it, a fake tree needs it
        guard fd >= 0 else { throw IIOError.from(errno: errno, path: path, operation: "open", writing: true) }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        let n = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
        if n < 0 { throw IIOError.from(errno: errno, path: path, operation: "write", writing: true) }
        if n != bytes.count { throw IIOError.io(path: path, operation: "short write", errno: EIO) }
    }

    /// True when `path` exists (following symbolic links, as /sys/bus/iio/devices entries are links).
    public static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    /// True when `path` is a directory (following links).
    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// The names in a directory, sorted; throws when it cannot be listed.
    public static func list(_ path: String) throws(IIOError) -> [String] {
        guard let dir = opendir(path) else { throw IIOError.from(errno: errno, path: path, operation: "opendir") }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
