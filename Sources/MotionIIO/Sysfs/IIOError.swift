#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An error of the IIO device layer. Every case names the file it is about.
public enum IIOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The sysfs root given (`COREMOTION_DEVICE=iio:ROOT`) does not exist or is not a directory.
    case rootNotFound(path: String)
    /// A file exists but this process may not read (or write) it.
    case permissionDenied(path: String, writing: Bool)
    /// An attribute holds text that is not what the kernel's ABI says it holds.
    case malformedAttribute(path: String, value: String, expected: String)
    /// The file or device went away (ENOENT, ENODEV, ENXIO): driver unbound or board unplugged.
    case deviceGone(path: String, errno: Int32)
    /// Any other failing system call, with its errno.
    case io(path: String, operation: String, errno: Int32)
    /// The root holds IIO devices but none of them gives a usable motion sensor.
    case noUsableSensors(root: String, problems: [String])

    public var description: String {
        switch self {
        case .rootNotFound(let path):
            return "IIO root \(path) does not exist or is not a directory (expected a folder like /sys/bus/iio/devices holding iio:deviceN entries)"
        case .permissionDenied(let path, let writing):
            return "permission denied \(writing ? "writing" : "reading") \(path). "
                + IIOError.permissionAdvice
        case .malformedAttribute(let path, let value, let expected):
            return "\(path): expected \(expected), found \(IIOError.quoted(value))"
        case .deviceGone(let path, let code):
            return "\(path): device gone (\(IIOError.errnoName(code)))"
        case .io(let path, let operation, let code):
            return "\(path): \(operation) failed (\(IIOError.errnoName(code)))"
        case .noUsableSensors(let root, let problems):
            return "no usable motion sensor under \(root):\n  " + problems.joined(separator: "\n  ")
        }
    }

    /// What to do about a permission problem (the rule is explained in docs/iio.md, "Permissions").
    public static let permissionAdvice = """
        With the coremotiond service installed (the package installs its own udev rule for the service), apps read
        the sensors through it (COREMOTION_DEVICE=service). To read them in process instead, give your user access:
        create /etc/udev/rules.d/61-iio-group.rules with
          SUBSYSTEM=="iio", KERNEL=="iio:device*", GROUP="iio", MODE="0660", \
        RUN+="/bin/sh -c 'chgrp -R iio /sys%p && chmod -R g+rw /sys%p'"
        then run `sudo groupadd -f iio && sudo usermod -aG iio $USER`, `sudo udevadm control --reload && sudo udevadm trigger --subsystem-match=iio`, and log in again.
        """

    /// True for errors meaning the device is no longer there.
    public var isDeviceGone: Bool {
        if case .deviceGone = self { return true }
        return false
    }

    /// Builds the error for a failed system call on `path`.
    package static func from(errno code: Int32, path: String, operation: String, writing: Bool = false) -> IIOError {
        switch code {
        case ENOENT, ENODEV, ENXIO, ENOTDIR: return .deviceGone(path: path, errno: code)
        case EACCES, EPERM: return .permissionDenied(path: path, writing: writing)
        default: return .io(path: path, operation: operation, errno: code)
        }
    }

    /// `ENODEV (No such device)`.
    static func errnoName(_ code: Int32) -> String {
        let names: [Int32: String] = [
            ENOENT: "ENOENT", ENODEV: "ENODEV", ENXIO: "ENXIO", EACCES: "EACCES", EPERM: "EPERM", EIO: "EIO",
            EBUSY: "EBUSY", EAGAIN: "EAGAIN", EINVAL: "EINVAL", ETIMEDOUT: "ETIMEDOUT", ENOTDIR: "ENOTDIR",
        ]
        let text = strerror(code).map { String(cString: $0) } ?? "error \(code)"
        return "\(names[code] ?? "errno \(code)"): \(text)"
    }

    static func quoted(_ value: String) -> String {
        let shown = value.count > 80 ? String(value.prefix(80)) + "…" : value
        return "\"" + shown.replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}
