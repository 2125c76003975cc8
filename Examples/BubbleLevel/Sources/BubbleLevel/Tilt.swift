import CoreMotion

/// How far the device leans, from the gravity vector of device motion (in g, device axes: x to the right
/// edge, y to the top edge, z out of the screen; lying face up, gravity is (0, 0, -1)).
struct Tilt {
    /// Rotation about the x axis in degrees, as `CMAttitude.pitch`: positive when the top edge rises,
    /// 90° standing upright.
    var pitch: Double
    /// Rotation about the y axis in degrees, as `CMAttitude.roll`: positive when the right edge goes down.
    var roll: Double
    /// The angle between the screen's normal and straight up, in degrees: 0° lying level face up.
    var fromLevel: Double
    /// Where the bubble floats, on a unit disc (x right, y towards the top edge): to the high side, at the
    /// rim from `fullScale` degrees on.
    var bubble: (x: Double, y: Double)
    /// Whether the screen faces the floor (the bubble of a real level would be gone).
    var faceDown: Bool

    /// The tilt at which the bubble touches the rim.
    static let fullScale = 30.0

    init(gravity g: CMAcceleration) {
        let length = max((g.x * g.x + g.y * g.y + g.z * g.z).squareRoot(), 1e-9)
        let (x, y, z) = (g.x / length, g.y / length, g.z / length)
        pitch = asin(min(1, max(-1, -y))) * 180 / .pi
        roll = atan2(x, -z) * 180 / .pi
        fromLevel = acos(min(1, max(-1, -z))) * 180 / .pi
        faceDown = z > 0
        // Gravity pulls to the low side; the bubble rises to the other. sin(fullScale) of sideways gravity
        // puts it on the rim.
        let scale = 1 / sin(Tilt.fullScale * .pi / 180)
        var bx = -x * scale
        var by = -y * scale
        let r = (bx * bx + by * by).squareRoot()
        if r > 1 {
            bx /= r
            by /= r
        }
        bubble = (bx, by)
    }

    /// Whether a carpenter would call it level.
    var isLevel: Bool { fromLevel < 1 }
}
