@testable import CoreMotionCLI
import Foundation
import Testing

/// The progress of long jobs: a live line on a terminal, plain lines at a modest rate anywhere else.
@Suite("coremotion: progress output")
struct ProgressLineTests {
    /// A sink that keeps what is written, and a clock the test moves.
    final class Capture: @unchecked Sendable {
        private let lock = NSLock()
        private var text = ""
        private var time = 1000.0

        var written: String { lock.lock(); defer { lock.unlock() }; return text }
        var now: Double { lock.lock(); defer { lock.unlock() }; return time }

        func write(_ s: String) { lock.lock(); text += s; lock.unlock() }
        func advance(_ seconds: Double) { lock.lock(); time += seconds; lock.unlock() }

        func sink(terminal: Bool) -> ProgressLine.Sink {
            ProgressLine.Sink(isTerminal: terminal) { [self] in write($0) }
        }

        func progress(_ label: String, total: Double, always: Bool = false, terminal: Bool) -> ProgressLine {
            ProgressLine(label, total: total, always: always, sink: sink(terminal: terminal), now: { [self] in now })
        }
    }

    static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0 == "\r" || $0 == "\u{1B}" || ($0.value < 0x20 && $0 != "\n") }
    }

    @Test("not a terminal: a 10-minute job updated ten times a second prints at most 11 plain lines, 10 % and 5 s apart")
    func longJobInAPipe() throws {
        let c = Capture()
        let total = 600.0
        let progress = c.progress("evaluate", total: total, terminal: false)
        for i in 1...6000 {
            c.advance(0.1)
            progress.update(Double(i) / 10, detail: "trial \(i / 10)")
        }
        progress.finish("done")
        let text = c.written
        #expect(!Self.hasControl(text), "control characters in \(text.debugDescription)")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(text.hasSuffix("\n"))
        // Every 10 % (60 s here, the less frequent of 10 % and 5 s), and the final line.
        #expect(lines.count == 10, "\(lines.count) lines:\n\(text)")
        #expect(lines.last?.hasPrefix("evaluate: 100% ") == true && lines.last?.hasSuffix(" done") == true, "\(text)")
        #expect(lines.first?.hasPrefix("evaluate: 10% 60.0 s trial 60") == true, "\(text)")
    }

    @Test("not a terminal: a fast job with many small steps is still bounded by time")
    func manyFastStepsInAPipe() {
        let c = Capture()
        // 20 files in 60 s: 10 % is two files, but lines come at most every 5 s.
        let progress = c.progress("steps", total: 20, terminal: false)
        for i in 1...20 {
            c.advance(3)
            progress.update(Double(i), detail: "file \(i)")
        }
        progress.finish()
        let lines = c.written.split(separator: "\n")
        #expect(!Self.hasControl(c.written))
        #expect(lines.count <= 60 / 5 + 1, "\(lines.count) lines:\n\(c.written)")
        #expect(lines.first == "steps: 10% 6.0 s file 2")
        #expect(lines.last == "steps: 100% 60.0 s")
    }

    @Test("not a terminal: a short job prints only its final line, or nothing when its progress is not its output")
    func shortJobsInAPipe() {
        let demo = Capture()
        let shown = demo.progress("demo", total: 3, always: true, terminal: false)
        for _ in 0..<32 {
            demo.advance(0.1)
            shown.update(demo.now - 1000, detail: "acc[g] +0.00 +0.00 -1.00")
        }
        shown.finish("acc[g] +0.00 +0.00 -1.00")
        #expect(demo.written == "demo: 100% 3.2 s acc[g] +0.00 +0.00 -1.00\n")

        let quick = Capture()
        let hidden = quick.progress("simulate car", total: 10, terminal: false)
        for i in 1...10 {
            quick.advance(0.05)
            hidden.update(Double(i))
        }
        hidden.finish("4096 samples")
        #expect(quick.written.isEmpty, "\(quick.written)")
    }

    @Test("not a terminal: a detail's control characters never reach the log")
    func detailIsCleaned() {
        let c = Capture()
        let progress = c.progress("steps", total: 1, always: true, terminal: false)
        progress.finish("odd\rname\u{1B}[2K")
        #expect(c.written == "steps: 100% 0.0 s oddname[2K\n")
    }

    @Test("a terminal keeps the live line: redrawn with a carriage return at most ten times a second, ended by a newline")
    func terminal() {
        let c = Capture()
        let progress = c.progress("demo", total: 3, always: true, terminal: true)
        for _ in 0..<48 {
            c.advance(0.0625)
            progress.update(c.now - 1000)
        }
        progress.finish()
        let frames = c.written.split(separator: "\r", omittingEmptySubsequences: true)
        // 3 s: at most ten redraws a second, the one at completion and the final one.
        #expect(frames.count >= 20 && frames.count <= 32, "\(frames.count) frames")
        #expect(c.written.hasPrefix("\rdemo [") && c.written.hasSuffix("\n"))
        #expect(c.written.filter { $0 == "\n" }.count == 1)
        #expect(frames.last?.hasPrefix("demo [########################] 100% ") == true)
    }

    @Test("finish twice prints one final line; updates after it nothing")
    func finishOnce() {
        let c = Capture()
        let progress = c.progress("record", total: 1, always: true, terminal: false)
        progress.finish("a")
        progress.finish("b")
        progress.update(1)
        #expect(c.written == "record: 100% 0.0 s a\n")
    }
}
