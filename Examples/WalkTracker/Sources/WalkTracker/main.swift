// A walk tracker: steps, distance and cadence since the app started, from CMPedometer (the model is
// `WalkSession`, in the `WalkTracking` library, which the package's tests replay a recorded walk through).
//
//   COREMOTION_DEVICE=sim:walking-in-hand swift run --package-path Examples/WalkTracker WalkTracker --seconds 20
//   swift test --package-path Examples/WalkTracker       # the model on a bundled iPhone walk, in milliseconds
//
// Written as on iOS: the availability and the Motion & Fitness authorization checked first, the pedometer's
// updates handled on its own queue.
import CoreMotion
import WalkTracking

var seconds: TimeInterval?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--seconds", let value = arguments.popFirst().flatMap(TimeInterval.init), value.isFinite, value > 0 {
        seconds = value
    } else {
        FileHandle.standardError.write(Data("usage: WalkTracker [--seconds N]\n".utf8))
        exit(2)
    }
}

/// Writes a line at once (unbuffered).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

guard WalkSession.isAvailable else {
    say("Step counting is not available on this device (it needs an accelerometer).")
    exit(1)
}
switch CMPedometer.authorizationStatus() {
case .denied:
    say("Motion & Fitness access is denied for this app: it cannot count steps.")
    exit(1)
case .restricted:
    say("Motion & Fitness access is restricted by the administrator: this app cannot count steps.")
    exit(1)
default:
    break  // authorized, or not determined yet (iOS asks at the first start)
}

let session = WalkSession()
say("Walking… (steps are counted while you walk\(WalkSession.isDistanceAvailable ? ", distance estimated" : ""))")
session.start(
    onUpdate: { progress in say("  " + progress.summary) },
    onError: { error in
        say("The pedometer failed: \(error.localizedDescription)")
        exit(1)
    })

// The main run loop keeps the app alive (UIApplicationMain does this on iOS).
let deadline = seconds.map { Date(timeIntervalSinceNow: $0) } ?? .distantFuture
while Date() < deadline {
    RunLoop.main.run(until: min(deadline, Date(timeIntervalSinceNow: 0.25)))
}
session.stop()
if let walk = session.progress {
    var line = "Walk: \(walk.summary) in \(Int(walk.duration.rounded())) s"
    if let stride = walk.strideLength { line += String(format: " (%.2f m a step)", stride) }
    say(line)
} else {
    say("Walk: no steps yet.")
}
