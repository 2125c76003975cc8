/// Where a mount matrix came from.
public enum IIOMountMatrixSource: String, Sendable, Hashable, Codable {
    /// The udev property `ACCEL_MOUNT_MATRIX` (systemd's `60-sensor.hwdb` quirks), which overrides the
    /// kernel's matrix for accelerometers.
    case udevHwdb = "udev ACCEL_MOUNT_MATRIX"
    /// A sysfs attribute (`in_accel_mount_matrix`, `in_mount_matrix`, `mount_matrix`, …).
    case sysfs
    /// No matrix anywhere: the chip is taken to be aligned with the device (identity).
    case none
}

/// Parsing of the IIO mount matrix.
///
/// The kernel prints it as `"%s, %s, %s; %s, %s, %s; %s, %s, %s\n"` (`iio_show_mount_matrix` in
/// `drivers/iio/industrialio-core.c`); systemd's hwdb uses the same text for `ACCEL_MOUNT_MATRIX`.
/// The rows multiply a chip-frame sample to give the device-frame sample,
/// `x' = m11·x + m12·y + m13·z` and so on (Documentation/devicetree/bindings/iio/mount-matrix.txt:
/// "x' = mxx * x + myx * y + mzx * z" with the first printed row being `(mxx, myx, mzx)`).
public enum IIOMountMatrix {
    /// Parses `"a, b, c; d, e, f; g, h, i"`; throws naming `path` when malformed or unusable.
    ///
    /// A matrix must have nine finite entries and |det| ≥ 0.5: a singular matrix would silently
    /// collapse an axis (systemd's hwdb has carried such typos), so it is rejected rather than applied.
    public static func parse(_ text: String, path: String) throws(IIOError) -> Matrix3 {
        let rows = text.trimmingSysfsSpace().split(separator: ";", omittingEmptySubsequences: false)
        var values: [Double] = []
        if rows.count == 3 {
            for row in rows {
                let items = row.split(separator: ",", omittingEmptySubsequences: false)
                guard items.count == 3 else { break }
                for item in items {
                    guard let v = SysfsNumber.double(item) else { break }
                    values.append(v)
                }
            }
        }
        guard values.count == 9 else {
            throw IIOError.malformedAttribute(
                path: path, value: text, expected: "a mount matrix \"a, b, c; d, e, f; g, h, i\" of nine numbers")
        }
        let m = Matrix3(values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7], values[8])
        guard abs(m.determinant) >= 0.5 else {
            throw IIOError.malformedAttribute(
                path: path, value: text, expected: "a rotation (|det| ≈ 1); this matrix is singular (det \(m.determinant))")
        }
        return m
    }

    /// Formats a matrix the way the kernel prints it.
    public static func format(_ m: Matrix3) -> String {
        let f = SysfsNumber.format
        return "\(f(m.m11)), \(f(m.m12)), \(f(m.m13)); \(f(m.m21)), \(f(m.m22)), \(f(m.m23)); \(f(m.m31)), \(f(m.m32)), \(f(m.m33))"
    }
}
