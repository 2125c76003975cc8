import CoreMotion

/// The head's orientation relative to where it pointed when updates started, in degrees: yaw (turning left
/// is positive), pitch (looking up is positive), roll (tilting towards the right shoulder is positive, as
/// `CMAttitude.roll`), and the bud that measured it.
struct HeadPose {
    var yaw: Double
    var pitch: Double
    var roll: Double
    var bud: String

    init(_ motion: CMDeviceMotion) {
        // CMHeadphoneMotionManager's attitude is already relative to the start pose (Z vertical, X the heading
        // the head had): its Euler angles are the turn, nod and tilt since then.
        let degrees = 180 / Double.pi
        yaw = motion.attitude.yaw * degrees
        pitch = motion.attitude.pitch * degrees
        roll = motion.attitude.roll * degrees
        switch motion.sensorLocation {
        case .headphoneLeft: bud = "left bud"
        case .headphoneRight: bud = "right bud"
        default: bud = "headphones"
        }
    }

    /// `yaw  +12.3°  pitch  -4.0°  roll  +1.2°  (left bud)`.
    var line: String {
        func angle(_ v: Double) -> String {
            let text = String(format: "%+.1f°", v)
            return String(repeating: " ", count: max(0, 7 - text.count)) + text
        }
        return "yaw \(angle(yaw))  pitch \(angle(pitch))  roll \(angle(roll))  (\(bud))"
    }

    /// Where the head looks, in words.
    var facing: String {
        var words: [String] = []
        if yaw > 15 { words.append("left") } else if yaw < -15 { words.append("right") }
        if pitch > 20 { words.append("up") } else if pitch < -25 { words.append("down") }
        return words.isEmpty ? "ahead" : words.joined(separator: " and ")
    }
}
