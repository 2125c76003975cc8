import Foundation

/// `value` with `digits` decimals ("nan", "inf", "-inf" where not finite), as the tool prints numbers:
/// traces, and the keys of reports that name a picked value.
func fixed(_ value: Double, _ digits: Int = 3) -> String {
    guard value.isFinite else { return value.isNaN ? "nan" : (value > 0 ? "inf" : "-inf") }
    return String(format: "%.\(digits)f", value)
}
