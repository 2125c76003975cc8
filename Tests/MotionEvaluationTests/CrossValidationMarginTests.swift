import Foundation
import Testing
@testable import MotionEvaluation

/// The rule that decides whether a tuned constant leaves its current value during cross-validation:
/// the mean gain over the training trials must exceed a margin of standard errors of the per-trial gains.
@Suite("coremotion evaluate --cross-validate: the change margin")
struct CrossValidationMarginTests {
    /// Per-trial objectives of a current value: 15 training trials.
    let current: [Double] = (0..<15).map { 2 + 0.1 * Double($0) }

    @Test("A change that helps one trial and leaves the others as they were never passes one standard error")
    func singleTrialGainFails() {
        for gain in [0.01, 0.36, 5.0] {
            var candidate = current
            candidate[9] -= gain
            #expect(CrossValidation.passes(candidate, over: current, margin: 1) == nil)
            // With no margin, any gain is taken.
            let taken = CrossValidation.passes(candidate, over: current, margin: 0)
            #expect(taken != nil && abs(taken! - gain / 15) < 1e-12)
        }
    }

    @Test("A gain shared by the trials passes; its mean is returned")
    func sharedGainPasses() throws {
        let candidate = current.enumerated().map { $0.element - 0.05 - 0.01 * Double($0.offset % 3) }
        let gain = try #require(CrossValidation.passes(candidate, over: current, margin: 1))
        #expect(abs(gain - 0.06) < 1e-9)
        // Two standard errors are passed too: the gains barely scatter.
        #expect(CrossValidation.passes(candidate, over: current, margin: 2) != nil)
    }

    @Test("A change that helps some trials as much as it hurts others, or hurts, never passes")
    func noNetGainFails() {
        // Eight trials gain 0.2, seven lose 0.2 × 8/7: no net gain.
        let mixed = current.enumerated().map { $0.element + ($0.offset.isMultiple(of: 2) ? -0.2 : 0.2 * 8 / 7) }
        #expect(CrossValidation.passes(mixed, over: current, margin: 1) == nil)
        #expect(CrossValidation.passes(mixed, over: current, margin: 0) == nil)
        let worse = current.map { $0 + 0.1 }
        #expect(CrossValidation.passes(worse, over: current, margin: 0) == nil)
        #expect(CrossValidation.passes(current, over: current, margin: 0) == nil)
    }

    @Test("A gain with a wide scatter passes a small margin but not a large one")
    func noisyGain() {
        // Gains 0.3 on ten trials, −0.2 on five: mean 0.133, standard error 0.063 (t ≈ 2.1).
        let candidate = current.enumerated().map { $0.element - ($0.offset < 10 ? 0.3 : -0.2) }
        #expect(CrossValidation.passes(candidate, over: current, margin: 1) != nil)
        #expect(CrossValidation.passes(candidate, over: current, margin: 2) != nil)
        #expect(CrossValidation.passes(candidate, over: current, margin: 2.5) == nil)
    }

    @Test("Too few trials to measure a scatter: nothing passes a margin")
    func tooFewTrials() {
        #expect(CrossValidation.passes([1], over: [2], margin: 1) == nil)
        #expect(CrossValidation.passes([1], over: [2], margin: 0) == 1)
        #expect(CrossValidation.passes([], over: [], margin: 0) == nil)
    }
}

/// The objective that scores a trial against VQF on the same trial (`--cv-objective vqf`).
@Suite("coremotion evaluate --cross-validate: the objective relative to VQF")
struct CrossValidationRelativeObjectiveTests {
    func anchors(_ body: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cv-anchors-\(UUID().uuidString).json").path
        try body.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func result(_ trial: String, nine: Double, six: Double) -> BroadEvaluation.TrialResult {
        BroadEvaluation.TrialResult(trial: trial, groups: [], samples: 1,
                                    ours9D: .init(total: nine, heading: 0, inclination: 0),
                                    ours6D: .init(total: six, heading: 0, inclination: 0), fusionSeconds: 0)
    }

    @Test("Each trial counts as its 9D and 6D totals over VQF's on the same trial")
    func ratioToVQF() throws {
        let path = try anchors("""
            {"per_trial": [{"trial": "a", "results": {"VQF 9D": {"total": 2, "heading": 1, "inclination": 1},
                                                      "VQF 6D": {"total": 4, "heading": 1, "inclination": 1}}}]}
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scorer = try CrossValidation.Scorer(objective: .relative, trials: ["a"], anchorsPath: path)
        #expect(abs(scorer(result("a", nine: 1, six: 3)) - (0.5 + 0.75)) < 1e-12)
        let sum = try CrossValidation.Scorer(objective: .sum, trials: ["a"], anchorsPath: nil)
        #expect(sum(result("a", nine: 1, six: 3)) == 4)
    }

    @Test("No anchors, or a trial VQF has no totals for, is an error that says which")
    func missingAnchors() throws {
        #expect(throws: (any Error).self) { try CrossValidation.Scorer(objective: .relative, trials: ["a"], anchorsPath: nil) }
        let path = try anchors(#"{"per_trial": [{"trial": "a", "results": {"VQF 9D": {"total": 2, "heading": 1, "inclination": 1}}}]}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try CrossValidation.Scorer(objective: .relative, trials: ["a"], anchorsPath: path)
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".contains("for a"))
        }
    }
}
