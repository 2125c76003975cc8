/// Why an evaluation cannot run as asked: a bad setting, a missing anchor file, too few trials.
///
/// The message names what was asked and what is accepted; the `coremotion` tool shows it as a usage
/// error of the command that asked.
public struct EvaluationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in one sentence.
    public var message: String

    /// An error with `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
