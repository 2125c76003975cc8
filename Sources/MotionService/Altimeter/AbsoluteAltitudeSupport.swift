import Foundation

/// Which Apple devices have absolute altitude (`CMAltimeter.isAbsoluteAltitudeAvailable()`), by model.
///
/// Apple: "Absolute altitude is only available on iPhone 12 and later and Apple Watch 6 or SE and
/// later" (`CMAbsoluteAltitudeData`). The table, by marketing name (what Sensor Logger writes as the
/// device name) or hardware identifier:
///
/// | model | absolute altitude |
/// |---|---|
/// | iPhone 12, 13, 14, 15, 16, 17 (mini, Plus, Pro, Pro Max, 16e), iPhone Air; `iPhone13,1` and later identifiers | yes |
/// | iPhone 11 and earlier, iPhone X/XR/XS, iPhone SE (every generation: `iPhone12,8`, `iPhone14,6`); `iPhone12,x` and earlier | no |
/// | Apple Watch Series 6 and later, Apple Watch SE, Apple Watch Ultra; `Watch6,x` and later, `Watch5,9`–`Watch5,12` (SE) | yes |
/// | Apple Watch Series 5 and earlier; other `WatchN,x` | no |
/// | iPad, iPod touch, Mac, Apple Vision Pro | no |
/// | anything else (Android phones, a name that is not a model) | not decided by the model: `nil` |
public enum AbsoluteAltitudeSupport {
    /// Whether the Apple device `model` has absolute altitude; `nil` when `model` is not an Apple model
    /// this table knows (then the data decide: a barometer and a reference).
    public static func supports(model: String) -> Bool? {
        let name = model.trimmingCharacters(in: .whitespaces)
        let lower = name.lowercased()
        // Hardware identifiers: iPhone13,2 or Watch6,1.
        if let (family, major, minor) = identifier(name) {
            switch family {
            case "iphone": return major >= 13 && !(major == 14 && minor == 6)
            case "watch": return major >= 6 || (major == 5 && (9...12).contains(minor))
            case "ipad", "ipod", "realitydevice": return false
            default: return family.hasPrefix("mac") ? false : nil
            }
        }
        if lower.hasPrefix("iphone") {
            let rest = lower.dropFirst("iphone".count).trimmingCharacters(in: .whitespaces)
            if word(rest, "air") { return true }
            if word(rest, "se") || rest.hasPrefix("x") { return false }
            let digits = rest.prefix { $0.isNumber }
            guard let generation = Int(digits), !digits.isEmpty else { return nil }
            return generation >= 12
        }
        if lower.hasPrefix("apple watch") {
            let rest = lower.dropFirst("apple watch".count).trimmingCharacters(in: .whitespaces)
            if word(rest, "se") || word(rest, "ultra") { return true }
            if rest.hasPrefix("series") {
                let digits = rest.dropFirst("series".count).trimmingCharacters(in: .whitespaces).prefix { $0.isNumber }
                guard let series = Int(digits) else { return nil }
                return series >= 6
            }
            return nil
        }
        if lower.hasPrefix("ipad") || lower.hasPrefix("ipod") || lower.hasPrefix("mac") || lower.hasPrefix("apple vision") {
            return false
        }
        return nil
    }

    /// Whether `text` starts with the word `word` (followed by nothing, a space or a parenthesis).
    private static func word(_ text: String, _ word: String) -> Bool {
        guard text.hasPrefix(word) else { return false }
        let next = text.dropFirst(word.count).first
        return next == nil || next == " " || next == "("
    }

    /// `(family, major, minor)` of an identifier such as `iPhone13,2`, family lowercased.
    private static func identifier(_ name: String) -> (String, Int, Int)? {
        let letters = name.prefix { $0.isLetter }
        let rest = name.dropFirst(letters.count)
        let parts = rest.split(separator: ",", omittingEmptySubsequences: false)
        guard !letters.isEmpty, parts.count == 2, let major = Int(parts[0]), let minor = Int(parts[1]) else { return nil }
        return (letters.lowercased(), major, minor)
    }
}
