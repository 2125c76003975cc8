import CoreMotion

// Each client runs in its own process: `ProjectClients NAME`. `--list` prints the names, `--device NAME` the
// COREMOTION_DEVICE value the client runs on (relative paths are from the repository root).
struct Client {
    var device: String
    var run: (Expectations) -> Void
}

let clients: [String: Client] = [
    "foundation-through-coremotion": Client(device: "sim:still-face-up", run: foundationThroughCoreMotion),
    "subclass-api-classes": Client(device: "sim:still-face-up", run: subclassAPIClasses),
    "main-queue-dispatch-main": Client(device: "sim:still-face-up", run: mainQueueDispatchMain),
    "main-queue-run-loop": Client(device: "sim:still-face-up", run: mainQueueRunLoop),
    "long-update-interval": Client(device: "sim:still-face-up", run: longUpdateInterval),
    "altimeter-vertical-speed": Client(device: "sim:elevator", run: altimeterVerticalSpeed),
    "absolute-altitude": Client(device: "replay:Tests/Fixtures/recordings/sensorlogger/ios-climb?speed=4", run: absoluteAltitude),
]

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--list" {
    print(clients.keys.sorted().joined(separator: " "))
    exit(0)
}
if arguments.first == "--device", arguments.count == 2, let client = clients[arguments[1]] {
    print(client.device)
    exit(0)
}
guard let name = arguments.first, let client = clients[name] else {
    print("usage: ProjectClients NAME | --list | --device NAME   (NAME one of: \(clients.keys.sorted().joined(separator: ", ")))")
    exit(2)
}
let expectations = Expectations()
client.run(expectations)
expectations.finish(name)
