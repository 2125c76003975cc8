/// Where a long evaluation reports how far it is, and its notices: the tool's terminal, or nothing.
///
/// Results never go here: they are the evaluation's return values.
public protocol EvaluationConsole: Sendable {
    /// A progress report for a job of `total` units (trials, runs, recordings).
    /// - Parameter always: the progress is part of what the job shows: its final line is printed even
    ///   when the job is short.
    func progress(_ label: String, total: Double, always: Bool) -> any EvaluationProgress

    /// A notice for whoever runs the evaluation (a grid that misses a value, a skipped recording).
    func note(_ text: String)
}

/// The progress of one job of an ``EvaluationConsole``.
public protocol EvaluationProgress: AnyObject, Sendable {
    /// Reports `done` units of the total, with what was last done (a trial or a file name).
    func update(_ done: Double, detail: String)

    /// Ends the report, with a last word (how many trials were loaded).
    func finish(_ detail: String)
}

extension EvaluationProgress {
    /// Reports `done` units of the total.
    public func update(_ done: Double) { update(done, detail: "") }

    /// Ends the report.
    public func finish() { finish("") }
}
