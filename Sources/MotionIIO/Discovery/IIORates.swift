/// The sampling rates a sensor offers, from `sampling_frequency_available` (or its per-type
/// variant `in_<type>_sampling_frequency_available`).
///
/// The ABI allows "a small discrete set of values like `0 2 4 6 8`" or "a range with minimum, step
/// and maximum frequencies like `[min step max]`" (Documentation/ABI/testing/sysfs-bus-iio,
/// `sampling_frequency_available`). A rate of 0 (some drivers list it as "off") is not a rate and
/// is dropped.
public struct IIORates: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How the driver states its rates.
    public enum Offer: Sendable, Hashable, Codable {
        /// A discrete set, ascending, Hz.
        case list([Double])
        /// Every `minimum + k·step` up to `maximum`, Hz.
        case range(minimum: Double, step: Double, maximum: Double)
        /// The driver does not say: the rate is free within ``IIORates/minimum``…``IIORates/maximum``
        /// (a software-polled sensor, or a `sampling_frequency` without `_available`).
        case unspecified
    }

    /// The rates as the driver states them.
    public let offer: Offer
    /// Slowest rate, Hz.
    public let minimum: Double
    /// Fastest rate, Hz.
    public let maximum: Double

    /// A discrete set of rates (Hz); `nil` when no positive finite rate remains.
    public init?(list rates: [Double]) {
        let clean = Array(Set(rates.filter { $0 > 0 && $0.isFinite })).sorted()
        guard let first = clean.first, let last = clean.last else { return nil }
        offer = .list(clean)
        minimum = first
        maximum = last
    }

    /// A stepped range (Hz); `nil` when it is empty or not finite.
    public init?(minimum: Double, step: Double, maximum: Double) {
        guard minimum.isFinite, step.isFinite, maximum.isFinite, maximum > 0, maximum >= minimum, step >= 0 else { return nil }
        let low = max(minimum, 0)
        if low == 0 {
            // A range starting at 0 Hz: 0 means "off"; the first usable rate is one step up.
            guard step > 0 else { return nil }
            offer = .range(minimum: step, step: step, maximum: maximum)
            self.minimum = step
        } else {
            offer = .range(minimum: low, step: step, maximum: maximum)
            self.minimum = low
        }
        self.maximum = maximum
    }

    /// Rates free between `minimum` and `maximum` (Hz).
    public init(unspecifiedFrom minimum: Double, to maximum: Double) {
        offer = .unspecified
        self.minimum = minimum
        self.maximum = max(minimum, maximum)
    }

    /// Parses the text of a `…sampling_frequency_available` attribute; `nil` when malformed.
    public init?(parsing text: String) {
        let trimmed = text.trimmingSysfsSpace()
        if trimmed.hasPrefix("[") {
            guard trimmed.hasSuffix("]"), let values = SysfsNumber.list(trimmed.dropFirst().dropLast()), values.count == 3
            else { return nil }
            self.init(minimum: values[0], step: values[1], maximum: values[2])
        } else {
            guard let values = SysfsNumber.list(trimmed) else { return nil }
            self.init(list: values)
        }
    }

    /// The discrete rates, when the driver lists them.
    public var availableRates: [Double]? {
        if case .list(let rates) = offer { return rates }
        return nil
    }

    /// The rate the hardware runs at for a request of `requested` Hz: the slowest offered rate that
    /// is at least `requested` (so no client gets fewer samples than it asked for), or the fastest
    /// rate when the request exceeds it.
    public func choose(_ requested: Double) -> Double {
        guard requested.isFinite, requested > 0 else { return minimum }
        let wanted = requested * (1 - 1e-9)
        switch offer {
        case .list(let rates):
            return rates.first { $0 >= wanted } ?? maximum
        case .range(let low, let step, let high):
            if requested <= low { return low }
            if requested >= high { return high }
            guard step > 0 else { return requested }
            let k = ((requested - low) / step - 1e-9).rounded(.up)
            return min(high, low + k * step)
        case .unspecified:
            return min(max(requested, minimum), maximum)
        }
    }

    public var description: String {
        switch offer {
        case .list(let rates): return rates.map(SysfsNumber.format).joined(separator: " ") + " Hz"
        case .range(let low, let step, let high):
            return "\(SysfsNumber.format(low))…\(SysfsNumber.format(high)) Hz in steps of \(SysfsNumber.format(step))"
        case .unspecified: return "\(SysfsNumber.format(minimum))…\(SysfsNumber.format(maximum)) Hz (polled)"
        }
    }
}

extension StringProtocol {
    /// The text without the whitespace, newlines and NULs sysfs puts around values.
    package func trimmingSysfsSpace() -> String {
        let bytes = Array(utf8)
        var start = 0
        var end = bytes.count
        while start < end, SysfsNumber.isSpace(bytes[start]) { start += 1 }
        while end > start, SysfsNumber.isSpace(bytes[end - 1]) { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
