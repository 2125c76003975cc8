#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The POSIX clock an IIO device stamps buffered scans with (`current_timestamp_clock`), and the
/// mapping of its nanoseconds onto the clock of `ProcessInfo.processInfo.systemUptime`.
///
/// On Linux, swift-corelibs-foundation computes `systemUptime` with `clock_gettime(CLOCK_MONOTONIC)`
/// (`CFGetSystemUptime` in Sources/CoreFoundation/CFDate.c), so samples must end up on
/// CLOCK_MONOTONIC. The IIO core's default clock is CLOCK_REALTIME (`iio_device_alloc` zeroes
/// `clock_id`); the attribute accepts `realtime`, `monotonic`, `monotonic_raw`, `realtime_coarse`,
/// `monotonic_coarse`, `boottime` and `tai` (`iio_store_timestamp_clock` in
/// drivers/iio/industrialio-core.c). The capture asks for `monotonic` before enabling the buffer;
/// when it may not (no write permission) it converts from whatever clock is set, using the offset
/// between that clock and CLOCK_MONOTONIC measured at each read.
public enum IIOTimestampClock: String, Sendable, Hashable, CaseIterable {
    case realtime, monotonic
    case monotonicRaw = "monotonic_raw"
    case realtimeCoarse = "realtime_coarse"
    case monotonicCoarse = "monotonic_coarse"
    case boottime, tai

    /// Parses the attribute's text (`"realtime\n"`); `nil` for an unknown clock.
    public init?(attribute text: String) {
        self.init(rawValue: text.trimmingSysfsSpace())
    }

    var clockID: clockid_t {
        switch self {
        case .realtime: CLOCK_REALTIME
        case .monotonic: CLOCK_MONOTONIC
        case .monotonicRaw: CLOCK_MONOTONIC_RAW
        case .realtimeCoarse: CLOCK_REALTIME_COARSE
        case .monotonicCoarse: CLOCK_MONOTONIC_COARSE
        case .boottime: CLOCK_BOOTTIME
        case .tai: CLOCK_TAI
        }
    }

    /// Now on `clock`, nanoseconds.
    static func nanoseconds(_ clock: clockid_t) -> Int64 {
        var t = timespec()
        clock_gettime(clock, &t)
        return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
    }

    /// Now on CLOCK_MONOTONIC, seconds (the same value as `ProcessInfo.processInfo.systemUptime`).
    public static func monotonicNow() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }

    /// Nanoseconds to add to a timestamp on this clock to get CLOCK_MONOTONIC nanoseconds, measured
    /// now (0 for `monotonic`; the coarse clocks differ from their fine ones by at most a tick).
    public func offsetToMonotonic() -> Int64 {
        switch self {
        case .monotonic, .monotonicCoarse: return 0
        default:
            let before = IIOTimestampClock.nanoseconds(CLOCK_MONOTONIC)
            let other = IIOTimestampClock.nanoseconds(clockID)
            let after = IIOTimestampClock.nanoseconds(CLOCK_MONOTONIC)
            return before / 2 + after / 2 - other
        }
    }
}
