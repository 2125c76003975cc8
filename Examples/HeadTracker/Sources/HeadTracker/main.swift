// A head tracker: the head's yaw, pitch and roll relative to where it pointed when tracking started, from
// motion-sensing headphones (AirPods Pro/Max), with the headphones' connection events.
//
//   COREMOTION_HEADPHONE_DEVICE=sim:look-around swift run --package-path Examples/HeadTracker HeadTracker --seconds 10
//   COREMOTION_HEADPHONE_DEVICE=sensorlogger:0.0.0.0:8000 COREMOTION_DEVICE=sensorlogger:0.0.0.0:8000?token=SECRET \
//       swift run --package-path Examples/HeadTracker      # Sensor Logger on an iPhone with AirPods, pushing here
//
// Written as on iOS: one CMHeadphoneMotionManager, a delegate for connect and disconnect, updates delivered to
// the main queue (the delegate hears the connection there too). On a terminal it redraws one line ~25 times a
// second; otherwise (a pipe, a log) it prints a line every half second and one per connection event.
import CoreMotion

let options: Options
do {
    options = try Options(CommandLine.arguments.dropFirst())
} catch {
    FileHandle.standardError.write(Data("HeadTracker: \(error)\n\(Options.usage)\n".utf8))
    exit(2)
}

let headphones = CMHeadphoneMotionManager()
guard headphones.isDeviceMotionAvailable else {
    FileHandle.standardError.write(Data(
        "HeadTracker: headphone motion is not available here (choose headphones with COREMOTION_HEADPHONE_DEVICE, e.g. sim:look-around)\n".utf8))
    exit(1)
}
switch CMHeadphoneMotionManager.authorizationStatus() {
case .denied, .restricted:
    FileHandle.standardError.write(Data("HeadTracker: Motion & Fitness access is denied for this app\n".utf8))
    exit(1)
default:
    break
}

let display = HeadDisplay(terminal: isatty(STDOUT_FILENO) != 0)
let connection = ConnectionPrinter(display: display)
headphones.delegate = connection

headphones.startDeviceMotionUpdates(to: .main) { motion, error in
    if let error {
        display.end()
        FileHandle.standardError.write(Data("HeadTracker: \(error.localizedDescription)\n".utf8))
        exit(1)
    }
    guard let motion else { return }
    display.show(HeadPose(motion), at: motion.timestamp)
}

// The main run loop delivers the handlers and the delegate (UIApplicationMain does this on iOS).
let deadline = options.seconds.map { Date(timeIntervalSinceNow: $0) } ?? .distantFuture
while Date() < deadline {
    RunLoop.main.run(until: min(deadline, Date(timeIntervalSinceNow: 0.25)))
}
headphones.stopDeviceMotionUpdates()
display.end()
