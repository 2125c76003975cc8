import ArgumentParser
import MotionEvaluation

/// The tool's console for evaluations: progress lines and notices on standard error.
struct TerminalConsole: EvaluationConsole {
    func progress(_ label: String, total: Double, always: Bool) -> any EvaluationProgress {
        ProgressLine(label, total: total, always: always)
    }

    func note(_ text: String) { Output.note(text) }
}

extension ProgressLine: EvaluationProgress {}

/// Runs `body`, reporting an ``EvaluationError`` as a usage error of the command (its message, then the
/// usage; exit status 64), as the tool's own checks report a bad option.
func reportingAsUsage<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as EvaluationError { throw ValidationError(error.message) }
}

/// The same for an asynchronous `body`.
func reportingAsUsage<T>(_ body: () async throws -> T) async throws -> T {
    do { return try await body() } catch let error as EvaluationError { throw ValidationError(error.message) }
}
