import CoreMotion

/// Where the level shows itself: a terminal, or a plain log.
protocol LevelDisplay {
    func begin()
    func show(_ tilt: Tilt, at timestamp: TimeInterval)
    func end()
}

/// Writes text at once (unbuffered), so that frames and lines appear when they are made.
func output(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}

private func degrees(_ value: Double) -> String {
    String(format: "%+6.1f°", value)
}

/// A plain line a second, for pipes and logs.
final class LineDisplay: LevelDisplay {
    private var lastLine: TimeInterval?

    func begin() {}

    func show(_ tilt: Tilt, at timestamp: TimeInterval) {
        if let lastLine, timestamp - lastLine < 1 { return }
        lastLine = timestamp
        var line = "pitch \(degrees(tilt.pitch))  roll \(degrees(tilt.roll))  from level \(String(format: "%5.1f°", tilt.fromLevel))"
        if tilt.isLevel { line += "  LEVEL" }
        if tilt.faceDown { line += "  (face down)" }
        output(line + "\n")
    }

    func end() {}
}

/// A round level drawn with ANSI escapes, redrawn in place on every update.
final class TerminalDisplay: LevelDisplay {
    /// The disc's radius in rows; a column is half as wide as a row is high, so it spans 4 × radius columns.
    private let radius = 8

    static let hideCursor = "\u{1B}[?25l"
    static let showCursor = "\u{1B}[?25h"
    static let clearScreen = "\u{1B}[2J"
    static let home = "\u{1B}[H"
    static let clearLine = "\u{1B}[K"
    static let reset = "\u{1B}[0m"
    static let green = "\u{1B}[1;32m"
    static let yellow = "\u{1B}[1;33m"
    static let dim = "\u{1B}[2m"

    init() {
        // Ctrl-C (and `kill -INT`) restores the cursor before the process ends. A signal handler may only
        // call async-signal-safe functions: write(2) of a constant and _exit(2).
        signal(SIGINT) { _ in
            let restore: StaticString = "\u{1B}[0m\u{1B}[?25h\n"
            _ = write(STDOUT_FILENO, restore.utf8Start, restore.utf8CodeUnitCount)
            _exit(0)
        }
    }

    func begin() {
        output(Self.hideCursor + Self.clearScreen)
    }

    func show(_ tilt: Tilt, at timestamp: TimeInterval) {
        let r = Double(radius)
        // The bubble's centre in rows and columns from the disc's centre (screen rows grow downwards).
        let bubbleRow = -tilt.bubble.y * (r - 1)
        let bubbleColumn = tilt.bubble.x * (r - 1) * 2
        let bubbleColour = tilt.isLevel ? Self.green : Self.yellow
        let tenDegreeRing = sin(10 * .pi / 180) / sin(Tilt.fullScale * .pi / 180) * (r - 1)
        var frame = Self.home + "  Bubble level" + Self.clearLine + "\n\n"
        for row in -radius...radius {
            var line = "  "
            for column in -2 * radius...2 * radius {
                let dx = Double(column) / 2
                let dy = Double(row)
                let distance = (dx * dx + dy * dy).squareRoot()
                let bx = (Double(column) - bubbleColumn) / 2
                let by = Double(row) - bubbleRow
                if !tilt.faceDown && (bx * bx + by * by).squareRoot() <= 1.1 {
                    line += bubbleColour + "●" + Self.reset
                } else if abs(distance - r) < 0.45 {
                    line += "·"
                } else if abs(distance - tenDegreeRing) < 0.3 {
                    line += Self.dim + "·" + Self.reset  // 10° ring
                } else if row == 0 && column == 0 {
                    line += "+"
                } else {
                    line += " "
                }
            }
            frame += line + Self.clearLine + "\n"
        }
        frame += "\n  pitch \(degrees(tilt.pitch))   roll \(degrees(tilt.roll))" + Self.clearLine + "\n"
        var status = "  \(String(format: "%.1f", tilt.fromLevel))° from level"
        if tilt.isLevel {
            status += "   " + Self.green + "LEVEL" + Self.reset
        } else if tilt.faceDown {
            status += "   (face down: turn the screen up)"
        }
        frame += status + Self.clearLine + "\n"
        frame += "  " + Self.dim + "rim at \(Int(Tilt.fullScale))°, inner ring 10°; Ctrl-C to quit" + Self.reset + Self.clearLine + "\n"
        output(frame)
    }

    func end() {
        output(Self.reset + Self.showCursor)
    }
}
