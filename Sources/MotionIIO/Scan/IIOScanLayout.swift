/// Where each enabled channel sits in one scan read from `/dev/iio:deviceN`.
///
/// The kernel lays a scan out in `iio_compute_scan_bytes` (drivers/iio/industrialio-buffer.c): the
/// enabled channels in ascending `_index` order, the timestamp last, each element aligned to its own
/// size (`storagebits / 8 × repeat`, its "natural alignment"), and the whole scan padded to a
/// multiple of its largest element so that consecutive scans stay aligned. `_index` is a position,
/// not a byte offset, and indices need not be contiguous.
public struct IIOScanLayout: Sendable, Hashable {
    /// One enabled channel.
    public struct Element: Sendable, Hashable {
        /// The channel's sysfs name without suffix, e.g. `in_accel_x`, `in_timestamp`.
        public let name: String
        /// Its `_index`.
        public let index: Int
        /// Its storage format.
        public let type: IIOScanType
        /// Byte offset of the element in the scan.
        public let offset: Int
    }

    /// The elements in buffer order.
    public let elements: [Element]
    /// Bytes of one whole scan, padding included.
    public let scanBytes: Int

    /// Lays out the enabled channels `(name, index, type)`; `timestampName` names the timestamp
    /// channel, which goes last.
    public init(channels: [(name: String, index: Int, type: IIOScanType)], timestampName: String = "in_timestamp") {
        let ordered = channels.sorted { a, b in
            let at = a.name == timestampName, bt = b.name == timestampName
            if at != bt { return bt }
            return a.index < b.index
        }
        var offset = 0
        var largest = 1
        var placed: [Element] = []
        for c in ordered {
            let size = c.type.elementBytes
            offset = IIOScanLayout.roundUp(offset, to: size)
            placed.append(Element(name: c.name, index: c.index, type: c.type, offset: offset))
            offset += size
            largest = max(largest, size)
        }
        elements = placed
        scanBytes = placed.isEmpty ? 0 : IIOScanLayout.roundUp(offset, to: largest)
    }

    /// The element called `name`, if enabled.
    public func element(_ name: String) -> Element? { elements.first { $0.name == name } }

    static func roundUp(_ value: Int, to multiple: Int) -> Int {
        guard multiple > 1 else { return value }
        return (value + multiple - 1) / multiple * multiple
    }
}
