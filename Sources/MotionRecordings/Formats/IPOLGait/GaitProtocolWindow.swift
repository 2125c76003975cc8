import Foundation

/// The scoring window of an IPOL gait trial.
///
/// The data set marks the protocol walk (stand, walk 10 m, U-turn, walk back, stop) with
/// `TrialBoundaries` (first foot-off → last foot-strike, samples); 36 of the 110 trials also annotate
/// foot movements after it (shuffling on the spot, 120 of the 3,866 annotations). A pedometer is scored
/// on the annotated steps (one per swing) inside the trial against its steps from the first foot-off to
/// half a step period after the last foot-strike (a pedometer reports a step at the trunk's response,
/// about 0.1 s after the strike): what Apple's pedometer would be scored on with
/// `queryPedometerData(from:to:)` over the same span.
public struct GaitProtocolWindow: Sendable, Hashable {
    /// The protocol walk, seconds on the recording's time axis: where annotated steps count.
    public var truth: ClosedRange<Double>
    /// The walk plus half a step period: where a pedometer's steps count.
    public var detection: ClosedRange<Double>

    /// The window of `recording`, or `nil` for a recording without trial boundaries (any other data set)
    /// or with fewer than two annotated steps inside them.
    public init?(_ recording: Recording) {
        guard let text = recording.metadata.properties["trialBoundaries"],
              let rateText = recording.metadata.properties["rate"],
              let rate = Double(rateText.split(separator: " ").first ?? ""), rate > 0
        else { return nil }
        let numbers = text.split(whereSeparator: { !$0.isNumber }).compactMap { Double($0) }
        guard numbers.count >= 2, numbers[1] > numbers[0] else { return nil }
        let start = numbers[0] / rate, end = numbers[1] / rate
        let inside = recording.reference.stepTimes.filter { $0 >= start && $0 <= end }
        guard inside.count >= 2 else { return nil }
        let intervals = zip(inside.dropFirst(), inside).map { $0 - $1 }.sorted()
        let stepPeriod = intervals[intervals.count / 2]  // both feet: consecutive foot-offs are one step apart
        truth = start...end
        detection = start...(end + stepPeriod / 2)
    }
}
