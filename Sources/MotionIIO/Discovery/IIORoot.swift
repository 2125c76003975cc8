/// The places an IIO device layer reads: the sysfs device directory, the buffer character devices
/// and the udev database.
///
/// On a real system:
///
///     /sys/bus/iio/devices/iio:deviceN/   attributes (links into /sys/devices/…)
///     /sys/bus/iio/devices/triggerM/name  triggers
///     /dev/iio:deviceN                    buffered capture
///     /run/udev/data/cMAJOR:MINOR         udev properties (ACCEL_MOUNT_MATRIX from systemd's hwdb)
///
/// Any other root is a *fake tree* (tests, `coremotion iio-emulate`) and keeps everything under it:
///
///     ROOT/iio:deviceN/                   the same attributes as sysfs (plain directories and files)
///     ROOT/triggerM/name
///     ROOT/dev/iio:deviceN                a regular file or a FIFO carrying the scans
///     ROOT/udev/data/cMAJOR:MINOR         optional udev properties, matched through iio:deviceN/dev
public struct IIORoot: Sendable, Hashable, CustomStringConvertible {
    /// The system's IIO device directory.
    public static let systemDevicesPath = "/sys/bus/iio/devices"

    /// The directory holding `iio:deviceN` entries.
    public let devicesDirectory: String
    /// The directory holding the `iio:deviceN` buffer nodes.
    public let deviceNodeDirectory: String
    /// The udev database directory.
    public let udevDataDirectory: String
    /// True for the real `/sys/bus/iio/devices`.
    public let isSystem: Bool

    /// The system root (`path == nil`) or a fake tree at `path`.
    public init(path: String? = nil) {
        let given = path.map(IIORoot.normalized) ?? IIORoot.systemDevicesPath
        devicesDirectory = given
        isSystem = given == IIORoot.systemDevicesPath
        if isSystem {
            deviceNodeDirectory = "/dev"
            udevDataDirectory = "/run/udev/data"
        } else {
            deviceNodeDirectory = given + "/dev"
            udevDataDirectory = given + "/udev/data"
        }
    }

    /// Path of the buffer node of device directory `deviceName` (`iio:deviceN`).
    public func deviceNode(_ deviceName: String) -> String { deviceNodeDirectory + "/" + deviceName }

    /// Path of `name` inside the devices directory.
    public func path(_ name: String) -> String { devicesDirectory + "/" + name }

    public var description: String { devicesDirectory }

    static func normalized(_ path: String) -> String {
        var p = path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        return p
    }
}
