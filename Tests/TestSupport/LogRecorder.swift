import Foundation
import Logging

/// Collects log messages, for tests that check what was logged.
public final class LogRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private let label: String
    private var entries: [(level: Logger.Level, message: String)] = []

    /// A recorder whose ``logger`` is labelled `label`.
    public init(label: String = "test") { self.label = label }

    /// The messages so far with their levels, in order.
    public var messages: [(level: Logger.Level, message: String)] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    /// The messages so far as `level: message` lines, in order.
    public var lines: [String] { messages.map { "\($0.level): \($0.message)" } }

    /// Records a message.
    public func append(_ level: Logger.Level, _ message: String) {
        lock.lock()
        entries.append((level, message))
        lock.unlock()
    }

    /// A logger (every level) whose messages land here.
    public var logger: Logger {
        Logger(label: label) { _ in RecordingHandler(recorder: self) }
    }

    private struct RecordingHandler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.append(event.level, event.message.description)
        }
    }
}
