/// What the pedometer engine tells the service, in time order per kind. Times are seconds on the
/// clock of the samples (the service turns them into `Date`s).
public enum PedometerEvent: Sendable, Hashable {
    /// One step at `time` s, with its estimated length in metres.
    case step(time: Double, length: Double)
    /// One floor climbed (`ascended == true`) or descended, recognised at `time` s.
    case floor(time: Double, ascended: Bool)
    /// Walking stopped; `time` is the last step, s (`CMPedometerEventType.pause`).
    case pause(time: Double)
    /// Walking (re)started; `time` is the first step of the new bout, s (`CMPedometerEventType.resume`).
    case resume(time: Double)

    /// Time of the event, s.
    public var time: Double {
        switch self {
        case .step(let t, _), .floor(let t, _), .pause(let t), .resume(let t): t
        }
    }
}
