/// IIO's unit for each sensor, and the factor to Apple's unit.
///
/// From Documentation/ABI/testing/sysfs-bus-iio: acceleration "Units after application of scale and
/// offset are m/s^2"; angular velocity "radians per second"; magnetic field "converted by
/// application of offset then scale to Gauss"; pressure "kilopascal"; temperature "milli degrees
/// Celsius".
public enum IIOUnits {
    /// IIO unit of `kind` after scale and offset.
    public static func iioUnit(of kind: SensorKind) -> String {
        switch kind {
        case .accelerometer: "m/s²"
        case .gyroscope: "rad/s"
        case .magnetometer: "G"
        case .barometer: "kPa"
        }
    }

    /// Factor from IIO's unit to Apple's, sign included:
    /// - accelerometer: IIO reads +9.81 m/s² on the axis pointing up (the mount-matrix binding:
    ///   "users would likely expect a value of 9.81 m/s^2 upwards along the (z) axis, i.e. out of the
    ///   screen when the device is held with its screen flat"), Apple reads −1 g face up, so
    ///   g = m/s² ÷ −9.80665;
    /// - gyroscope: rad/s, right-hand rule on both sides: 1;
    /// - magnetometer: 1 G = 100 µT: 100;
    /// - barometer: kPa on both sides: 1.
    public static func toApple(_ kind: SensorKind) -> Double {
        switch kind {
        case .accelerometer: -1 / standardGravity
        case .gyroscope: 1
        case .magnetometer: 100
        case .barometer: 1
        }
    }

    /// Milli-degrees Celsius (IIO temperature) to °C.
    public static let celsiusPerIIOUnit = 0.001
}

/// Converts the raw counts of a three-axis IIO sensor into Apple's device axes and units, in one
/// affine map computed once:
///
///     apple = U · M · diag(scale) · (raw + offset)
///
/// with `offset` and `scale` per axis (`in_<type>_<axis>_offset`/`_scale` or the shared
/// `in_<type>_offset`/`_scale`; the ABI: "offset to be added to <type>[Y]_raw prior to scaling by
/// <type>[Y]_scale"), `M` the mount matrix (chip frame → device frame) and `U` the unit factor of
/// ``IIOUnits/toApple(_:)``. The device frame of the IIO mount matrix for a hand-held device is
/// "X … positive towards the right hand side of the screen, Y … positive towards the top of the
/// screen, Z … positive out of the screen" (sysfs-bus-iio, `mount_matrix`), which is Apple's device
/// frame, so no further rotation is needed.
public struct IIOVectorConversion: Sendable, Hashable {
    /// The sensor converted (decides the unit factor).
    public let kind: SensorKind
    /// IIO units per count, per chip axis.
    public let scale: Vector3
    /// Counts added before scaling, per chip axis.
    public let offset: Vector3
    /// Chip frame → device frame.
    public let mountMatrix: Matrix3
    /// `U · M · diag(scale)`.
    public let matrix: Matrix3

    /// The conversion for `kind` with per-axis `scale` (IIO units per count) and `offset` (counts),
    /// and the chip → device `mountMatrix`.
    public init(kind: SensorKind, scale: Vector3, offset: Vector3 = .zero, mountMatrix: Matrix3 = .identity) {
        precondition(kind != .barometer, "the barometer is a scalar sensor")
        self.kind = kind
        self.scale = scale
        self.offset = offset
        self.mountMatrix = mountMatrix
        self.matrix = mountMatrix * Matrix3.diagonal(scale) * IIOUnits.toApple(kind)
    }

    /// Apple-frame value (g, rad/s or µT) of raw counts on the chip's x, y, z channels.
    @inlinable
    public func convert(_ raw: Vector3) -> Vector3 { matrix * (raw + offset) }

    /// The raw counts (not rounded) that give `apple`: the inverse map, for fake trees and the
    /// emulator. `nil` when a scale is 0.
    public func rawCounts(for apple: Vector3) -> Vector3? {
        guard let inverse = matrix.inverse else { return nil }
        return inverse * apple - offset
    }
}

/// Converts a raw scalar reading (pressure, temperature): `unit × scale × (raw + offset)`.
public struct IIOScalarConversion: Sendable, Hashable {
    /// IIO units per count.
    public let scale: Double
    /// Counts added before scaling.
    public let offset: Double
    /// IIO unit → delivered unit (1 for kPa, 0.001 for m°C → °C).
    public let unit: Double

    /// `scale` IIO units per count, `offset` counts, `unit` delivered units per IIO unit.
    public init(scale: Double, offset: Double = 0, unit: Double = 1) {
        self.scale = scale
        self.offset = offset
        self.unit = unit
    }

    @inlinable
    public func convert(_ raw: Double) -> Double { (raw + offset) * scale * unit }

    /// The raw count (not rounded) giving `value`; `nil` when the scale is 0.
    public func rawCount(for value: Double) -> Double? {
        guard scale != 0, unit != 0 else { return nil }
        return value / unit / scale - offset
    }
}
