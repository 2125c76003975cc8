import Foundation

/// Puts irregular samples of any rate onto a uniform grid: a one-pole low-pass whose coefficient
/// comes from each actual sample interval (so it behaves the same at 25 or 400 Hz and with jitter),
/// then linear interpolation at the grid times.
///
/// Usage: ``add(time:value:)`` a sample, then take grid points with ``nextGridPoint()`` until it
/// returns `nil`. No allocation.
struct UniformResampler: Sendable {
    let rate: Double
    let cutoff: Double
    private(set) var hasInput = false
    private(set) var lastInputTime = -Double.infinity
    private var previousTime = 0.0
    private var previous = Vector3.zero
    private var current = Vector3.zero
    private var origin = 0.0
    private var gridIndex = 0

    init(rate: Double, cutoff: Double) {
        self.rate = rate
        self.cutoff = cutoff
    }

    /// Adds a sample; `time` must be later than the previous sample's.
    mutating func add(time: Double, value: Vector3) {
        if !hasInput {
            hasInput = true
            previous = value
            current = value
            previousTime = time
            lastInputTime = time
            origin = time
            gridIndex = 0
            return
        }
        let dt = time - lastInputTime
        let alpha = 1 - exp(-dt * 2 * Double.pi * cutoff)
        previous = current
        previousTime = lastInputTime
        current = current + (value - current) * alpha
        lastInputTime = time
    }

    /// The next grid point not later than the newest sample, or `nil`.
    mutating func nextGridPoint() -> (time: Double, value: Vector3)? {
        guard hasInput else { return nil }
        let t = origin + Double(gridIndex) / rate
        guard t <= lastInputTime else { return nil }
        gridIndex += 1
        if lastInputTime <= previousTime || t <= previousTime { return (t, t <= previousTime ? previous : current) }
        let u = (t - previousTime) / (lastInputTime - previousTime)
        return (t, previous + (current - previous) * u)
    }
}
