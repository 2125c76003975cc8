import MotionSamples

/// `text` in double quotes, made safe for a log line or a message that may reach one: controls,
/// bidirectional and other format characters escaped by ``LogSafeText/logSafe(_:limit:)``, a `"` as `\"`.
///
/// Every string from outside (an executable's name, an app id from `/proc` or from a request, a name
/// in the policy file, a key in the permission file) goes through this or `LogSafeText` before it is
/// logged.
func logQuoted(_ text: some StringProtocol, limit: Int = LogSafeText.defaultLimit) -> String {
    var out = "\""
    for character in LogSafeText.logSafe(text, limit: limit) {
        if character == "\"" { out += "\\\"" } else { out.append(character) }
    }
    return out + "\""
}
