// The smallest Core Motion app: accelerometer updates, from the system service `coremotiond`.
//
//   swift run --package-path Examples/DaemonOnly DaemonOnly --seconds 5     # needs coremotiond (docs/service.md)
//
// Its manifest depends on swift-core-motion with `traits: []`: the app links the API and the connection to
// the daemon, nothing that opens a device in process. `COREMOTION_DEVICE` may be unset, `auto` or `service`
// (`service:PATH` for a daemon on another socket); any in-process value stops it at first use with a message.
// Its tests (Tests/DaemonOnlyTests) run the same code on recordings and the simulator with CoreMotionTesting.
import CoreMotion

var seconds: Double?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--seconds", let value = arguments.popFirst().flatMap(Double.init), value.isFinite, value > 0 {
        seconds = value
    } else {
        FileHandle.standardError.write(Data("usage: DaemonOnly [--seconds N]\n".utf8))
        exit(2)
    }
}

let log = AccelerometerLog()
guard log.isAvailable else {
    FileHandle.standardError.write(Data("DaemonOnly: no accelerometer (is coremotiond running with a device?)\n".utf8))
    exit(1)
}
log.start(
    each: { a, count in
        if count % 10 == 1 { print(String(format: "x %+.3f  y %+.3f  z %+.3f g", a.x, a.y, a.z)) }
    },
    failed: { error in
        FileHandle.standardError.write(Data("DaemonOnly: \(error.localizedDescription)\n".utf8))
        exit(1)
    })

let deadline = seconds.map { Date(timeIntervalSinceNow: $0) } ?? .distantFuture
while Date() < deadline {
    RunLoop.main.run(until: min(deadline, Date(timeIntervalSinceNow: 0.25)))
}
log.stop()
print("\(log.count) accelerometer updates")
