import CoreMotion

/// Writes text at once (unbuffered), so that lines appear when they are made, on a terminal or in a pipe.
func output(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}

/// "35 s", "12 min", "1 h 05 min".
func duration(_ seconds: TimeInterval) -> String {
    let s = Int(seconds.rounded())
    if s < 60 { return "\(s) s" }
    if s < 3600 { return "\(s / 60) min" }
    return "\(s / 3600) h \(String(format: "%02d", (s % 3600) / 60)) min"
}

/// "0.93 km", "412 m".
func distance(_ metres: Double) -> String {
    metres >= 1000 ? String(format: "%.2f km", metres / 1000) : String(format: "%.0f m", metres)
}

/// "09:00".
func hourLabel(_ date: Date) -> String {
    let hour = Calendar.current.component(.hour, from: date)
    return String(format: "%02d:00", hour)
}

/// "14:05:09".
func clockTime(_ date: Date) -> String {
    let c = Calendar.current.dateComponents([.hour, .minute, .second], from: date)
    return String(format: "%02d:%02d:%02d", c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
}

/// "1 step", "1,234 steps".
func count(_ n: Int, _ noun: String) -> String {
    "\(n.formatted()) \(noun)\(n == 1 ? "" : "s")"
}
