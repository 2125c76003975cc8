import CoreMotion

/// Writes text at once (unbuffered), so that lines appear when they are made.
func output(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}

/// Shows the head pose: one line redrawn in place on a terminal, else a line every half second.
final class HeadDisplay {
    let terminal: Bool
    private var lastLine = -Double.infinity
    private var drawn = false

    init(terminal: Bool) { self.terminal = terminal }

    func show(_ pose: HeadPose, at timestamp: TimeInterval) {
        if terminal {
            output("\r\u{1B}[2K\(pose.line)  looking \(pose.facing)")
            drawn = true
        } else if timestamp - lastLine >= 0.5 {
            lastLine = timestamp
            output("\(pose.line)  looking \(pose.facing)\n")
        }
    }

    /// A connection event on a line of its own.
    func event(_ text: String) {
        output((terminal && drawn ? "\r\u{1B}[2K" : "") + "[\(text)]\n")
    }

    func end() {
        if terminal && drawn { output("\n") }
    }
}

/// The headphones' delegate: prints when they connect and disconnect. Runs on the main queue, the queue the
/// motion updates were started on.
final class ConnectionPrinter: NSObject, CMHeadphoneMotionManagerDelegate, @unchecked Sendable {
    let display: HeadDisplay

    init(display: HeadDisplay) { self.display = display }

    func headphoneMotionManagerDidConnect(_ manager: CMHeadphoneMotionManager) {
        display.event("headphones connected")
    }

    func headphoneMotionManagerDidDisconnect(_ manager: CMHeadphoneMotionManager) {
        display.event("headphones disconnected")
    }
}
