import Foundation

/// A progress line on standard error for long jobs: `label [#####.....] 52% 12.3 s`.
///
/// Redraws at most ten times a second; prints nothing when standard error is not a terminal
/// unless `always` is set, so logs and CI output stay clean.
final class ProgressLine: @unchecked Sendable {
    private let label: String
    private let total: Double
    private let start = Date()
    private var lastDraw = Date.distantPast
    private let enabled: Bool
    private let lock = NSLock()

    init(_ label: String, total: Double, always: Bool = false) {
        self.label = label
        self.total = max(total, 1e-9)
        self.enabled = always || isatty(2) != 0
    }

    /// Reports `done` out of the total.
    func update(_ done: Double, detail: String = "") {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) > 0.1 || done >= total else { return }
        lastDraw = now
        let fraction = min(1, max(0, done / total))
        let width = 24
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let text = String(format: "\r%@ [%@] %3.0f%% %.1f s %@", label, bar, fraction * 100, now.timeIntervalSince(start), detail)
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Ends the line.
    func finish(_ detail: String = "") {
        guard enabled else { return }
        update(total, detail: detail)
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
