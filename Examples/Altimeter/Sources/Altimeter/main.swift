// An altimeter: air pressure (kPa) and the altitude relative to where the app started (m), from
// CMAltimeter's relative-altitude updates, and the altitude above sea level where the device has it
// (CMAltimeter.isAbsoluteAltitudeAvailable()), with the Motion & Fitness authorization handled as on iOS.
//
//   COREMOTION_DEVICE=sim:elevator swift run --package-path Examples/Altimeter Altimeter --seconds 30
//   COREMOTION_DEVICE='replay:Tests/Fixtures/recordings/sensorlogger/ios-climb?speed=10' \
//       swift run --package-path Examples/Altimeter Altimeter --seconds 9     # an iPhone 13 climbing 9 m
//
// Written as on iOS: one CMAltimeter, its handlers on the main queue, one line per update.
import CoreMotion

let options: Options
do {
    options = try Options(CommandLine.arguments.dropFirst())
} catch {
    FileHandle.standardError.write(Data("Altimeter: \(error)\n\(Options.usage)\n".utf8))
    exit(2)
}

let log = AltitudeLog()
log.start()

// The main run loop delivers the handlers (UIApplicationMain does this on iOS).
let deadline = options.seconds.map { Date(timeIntervalSinceNow: $0) } ?? .distantFuture
while Date() < deadline && !log.isFinished {
    RunLoop.main.run(until: min(deadline, Date(timeIntervalSinceNow: 0.25)))
}
log.stop()
exit(log.exitStatus)
