import Foundation

/// Progress of a long job, on standard error.
///
/// On a terminal it is one live line, redrawn at most ten times a second:
/// `label [#####.....] 52% 12.3 s detail`. Anywhere else (a pipe, a file, a CI log) it is plain lines,
/// never a carriage return or an escape sequence: `label: 52% 12.3 s detail`, one when at least
/// ``PlainRate/minimumSeconds`` have passed *and* the job has moved ``PlainRate/minimumFraction`` since the
/// previous one (the less frequent of the two), and a final line. A job whose progress is part of what
/// it shows (`always`: `demo`, `record`) always prints the final line; for the others (`simulate`,
/// `steps`, `evaluate`) a job that ends before its first line prints nothing, so that a quick run in a
/// script leaves its log clean.
final class ProgressLine: @unchecked Sendable {  // @unchecked: its vars are guarded by `lock`; the rest are `let`s of Sendable types
    /// Where the progress goes.
    struct Sink: Sendable {
        /// Whether it is a terminal (live line) or not (plain lines).
        var isTerminal: Bool
        var write: @Sendable (String) -> Void

        /// Standard error.
        static var standardError: Sink {
            Sink(isTerminal: isatty(STDERR_FILENO) != 0) { FileHandle.standardError.write(Data($0.utf8)) }
        }
    }

    /// How often plain lines come.
    enum PlainRate {
        /// At least this long between two lines, s.
        static let minimumSeconds = 5.0
        /// At least this much of the job between two lines (of a job with a known total).
        static let minimumFraction = 0.1
    }

    private let label: String
    private let total: Double
    private let always: Bool
    private let sink: Sink
    private let now: @Sendable () -> Double
    private let start: Double
    private let lock = NSLock()
    // Under `lock`.
    private var lastDraw = -Double.infinity
    /// The last plain line's step of ``PlainRate/minimumFraction`` (1 for 10 %, 2 for 20 %, …).
    private var lastPlainStep = 0
    private var plainLines = 0
    private var finished = false

    /// - Parameters:
    ///   - total: the amount `update` counts up to (seconds, files, trials).
    ///   - always: the progress is part of the command's output: the final line is printed even for a
    ///     short job when the sink is not a terminal.
    ///   - sink: where to write (standard error by default).
    ///   - now: the clock, seconds (tests pass a manual one).
    init(
        _ label: String, total: Double, always: Bool = false, sink: Sink = .standardError,
        now: @escaping @Sendable () -> Double = { Date().timeIntervalSinceReferenceDate }
    ) {
        self.label = label
        self.total = max(total, 1e-9)
        self.always = always
        self.sink = sink
        self.now = now
        self.start = now()
    }

    /// Reports `done` out of the total.
    func update(_ done: Double, detail: String = "") {
        lock.lock()
        defer { lock.unlock() }
        guard !finished else { return }
        let t = now()
        let fraction = min(1, max(0, done / total))
        if sink.isTerminal {
            guard t - lastDraw >= 0.1 || done >= total else { return }
            lastDraw = t
            sink.write("\r" + liveText(fraction, elapsed: t - start, detail: detail))
        } else {
            // The less frequent of the two: enough time and a further step of the job since the last line.
            let step = Int(fraction / PlainRate.minimumFraction + 1e-9)
            guard t - max(lastDraw, start) >= PlainRate.minimumSeconds, step > lastPlainStep, fraction < 1 else { return }
            lastDraw = t
            lastPlainStep = step
            plainLines += 1
            sink.write(plainText(fraction, elapsed: t - start, detail: detail) + "\n")
        }
    }

    /// Ends the progress: the live line is completed and ended; in plain lines, the final line.
    func finish(_ detail: String = "") {
        lock.lock()
        defer { lock.unlock() }
        guard !finished else { return }
        finished = true
        let elapsed = now() - start
        if sink.isTerminal {
            sink.write("\r" + liveText(1, elapsed: elapsed, detail: detail) + "\n")
        } else if always || plainLines > 0 || elapsed >= PlainRate.minimumSeconds {
            sink.write(plainText(1, elapsed: elapsed, detail: detail) + "\n")
        }
    }

    private func liveText(_ fraction: Double, elapsed: Double, detail: String) -> String {
        let width = 24
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        return String(format: "%@ [%@] %3.0f%% %.1f s %@", label, bar, fraction * 100, elapsed, detail)
    }

    private func plainText(_ fraction: Double, elapsed: Double, detail: String) -> String {
        let text = String(format: "%@: %.0f%% %.1f s", label, fraction * 100, elapsed)
        // A log gets no control characters, whatever a detail (a file or trial name) holds.
        let clean = String(String.UnicodeScalarView(detail.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
        return clean.isEmpty ? text : text + " " + clean
    }
}
