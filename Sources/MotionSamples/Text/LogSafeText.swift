/// Text from outside the process (a client's hello, a phone's `deviceId`, an executable's name, an HTTP
/// header) made safe to write into a log line.
///
/// A raw outside string can forge log lines (`"\n… critical …"`), move the terminal's cursor or change
/// its colours (escape sequences), or reverse what a reader sees (Unicode bidirectional controls). The
/// result of ``logSafe(_:limit:)`` has none of those: every control character (C0, DEL, C1), every
/// bidirectional formatting character and every other invisible format character is written as a
/// `\u{XXXX}` escape (a backslash as `\\`), and text longer than `limit` characters is cut with `…`
/// and the number of characters left out. Printable text, accents and emoji pass unchanged.
public enum LogSafeText {
    /// The longest outside string kept whole by default, in characters.
    public static let defaultLimit = 120

    /// `text` with controls and bidirectional characters escaped and at most `limit` characters kept.
    public static func logSafe(_ text: some StringProtocol, limit: Int = defaultLimit) -> String {
        var out = ""
        var kept = 0
        var omitted = 0
        for scalar in text.unicodeScalars {
            if kept >= limit {
                omitted += 1
                continue
            }
            kept += 1
            if scalar == "\\" {
                out += "\\\\"
            } else if needsEscape(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        if omitted > 0 { out += "…(\(omitted) more)" }
        return out
    }

    /// Whether a scalar must not reach a log as it is: C0 and C1 controls, DEL, and the format characters
    /// (bidirectional overrides and isolates, zero-width joiners, the byte-order mark, …).
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x2028, 0x2029: return true  // line and paragraph separators
        default: return scalar.properties.generalCategory == .format
        }
    }
}

extension StringProtocol {
    /// This text made safe for a log line (``LogSafeText/logSafe(_:limit:)``).
    public var logSafe: String { LogSafeText.logSafe(self) }
}
