/// Counts floors from barometric altitude *while walking*.
///
/// Rule (one floor = 3 m, Apple's "approximately 10 feet"):
/// - only altitude changes between steps of one walking bout count: at the first step of each bout
///   the reference moves by the altitude change since the last step of the previous bout, so rides
///   in a lift, on an escalator while standing, or in a car (no steps) never count, and neither does
///   weather drift between bouts, while a climb interrupted by a pause keeps its progress;
/// - during a bout, the reference relaxes towards the altitude with a 10-minute time constant, which
///   absorbs weather drift (≈ 1 m/h, at most ≈ 8 m/h in a storm: the reference then lags by 0.17 m and
///   1.3 m, well under a floor) while stairs (0.15–0.2 m per step, 3 m in 15–20 s) pass untouched;
/// - each time the altitude is within 0.25 m of 3 m above (below) the reference, one floor is
///   ascended (descended) and the reference moves 3 m up (down); the 0.25 m tolerance covers the
///   smoothing lag and the relaxation over a climb of several floors (so the count is
///   ⌊(climb + 0.25 m) / 3 m⌋ for an uninterrupted climb).
public struct FloorCounter: Sendable {
    /// Height of a floor, m.
    public var floorHeight = 3.0
    /// Time constant of the reference's relaxation during a bout, s.
    public var relaxationTime = 600.0
    /// How close to a full floor height a change must come to count, m.
    public var tolerance = 0.25

    private var reference: Double?
    private var lastTime = 0.0
    private var lastAltitude: Double?
    private var newBout = true
    /// Floors climbed.
    public private(set) var ascended = 0
    /// Floors descended.
    public private(set) var descended = 0

    /// A counter at zero floors, before the first sample.
    public init() {}

    /// A new walking bout starts: the next step sets the reference.
    public mutating func startBout() { newBout = true }

    /// A step at `time` s when the (smoothed) altitude is `altitude` m. Returns +n floors ascended or
    /// −n descended at this step (0 when none).
    public mutating func step(time: Double, altitude: Double) -> Int {
        guard altitude.isFinite else { return 0 }
        guard var ref = reference, let previous = lastAltitude else {
            reference = altitude
            lastAltitude = altitude
            lastTime = time
            newBout = false
            return 0
        }
        lastAltitude = altitude
        if newBout {
            // Exclude what changed while not stepping.
            newBout = false
            reference = ref + (altitude - previous)
            lastTime = time
            return 0
        }
        let dt = max(0, time - lastTime)
        lastTime = time
        ref += (altitude - ref) * min(1, dt / relaxationTime)
        var change = 0
        while altitude - ref >= floorHeight - tolerance { ref += floorHeight; ascended += 1; change += 1 }
        while altitude - ref <= -(floorHeight - tolerance) { ref -= floorHeight; descended += 1; change -= 1 }
        reference = ref
        return change
    }
}
