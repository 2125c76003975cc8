import CoreMotion

// Each client runs in its own process: `ProjectClients NAME`. `--list` prints the names, `--device NAME` the
// COREMOTION_DEVICE value the client runs on, `--headphone-device NAME` its COREMOTION_HEADPHONE_DEVICE value
// (relative paths are from the repository root).
struct Client {
    var device: String
    var headphones = "none"
    /// Whether `--list` names it: a client that needs a live source (a pusher running) is run by name.
    var listed = true
    var run: (Expectations) -> Void
}

let airpodsExcerpt = "replay:Tests/Fixtures/headphones/airpods-head-shake-excerpt.jsonl"

let clients: [String: Client] = [
    "foundation-through-coremotion": Client(device: "sim:still-face-up", run: foundationThroughCoreMotion),
    "subclass-api-classes": Client(device: "sim:still-face-up", run: subclassAPIClasses),
    "main-queue-dispatch-main": Client(device: "sim:still-face-up", run: mainQueueDispatchMain),
    "main-queue-run-loop": Client(device: "sim:still-face-up", run: mainQueueRunLoop),
    "long-update-interval": Client(device: "sim:still-face-up", run: longUpdateInterval),
    "altimeter-vertical-speed": Client(device: "sim:elevator", run: altimeterVerticalSpeed),
    "absolute-altitude": Client(device: "replay:Tests/Fixtures/recordings/sensorlogger/ios-climb?speed=4", run: absoluteAltitude),
    "headphone-motion-recording": Client(device: "none", headphones: airpodsExcerpt) {
        headphoneMotion($0, name: "headphone-motion-recording", location: .default, rate: 50)
    },
    "headphone-motion-sim": Client(device: "none", headphones: "sim:head-shake") {
        headphoneMotion($0, name: "headphone-motion-sim", location: .headphoneLeft, rate: 50)
    },
    // Run by tools/network/headphones-live-compat.sh, with COMPAT_HEADPHONE_DEVICE=sensorlogger:127.0.0.1:PORT and a
    // pusher sending the AirPods excerpt as Sensor Logger `headphone` readings (devicelocation left).
    "headphone-motion-live": Client(device: "none", headphones: "sensorlogger:127.0.0.1:8000", listed: false) {
        headphoneMotion($0, name: "headphone-motion-live", location: .headphoneLeft, rate: 50)
    },
    // Run by tools/vm/guest-checks.sh on real kernel drivers, with KNOWN_VALUES from the chips' registers.
    "known-values": Client(device: "iio", listed: false, run: knownValues),
    "headphone-bud-swap": Client(device: "none", headphones: "sim:bud-out-and-in?speed=2", run: headphoneBudSwap),
    "headphone-reconnect": Client(device: "none", headphones: "sim:bud-out-and-in?speed=2", run: headphoneReconnect),
    "headphone-unavailable": Client(device: "sim:still-face-up", headphones: "none", run: headphoneUnavailable),
]

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--list" {
    print(clients.filter { $0.value.listed }.keys.sorted().joined(separator: " "))
    exit(0)
}
if arguments.first == "--device", arguments.count == 2, let client = clients[arguments[1]] {
    print(client.device)
    exit(0)
}
if arguments.first == "--headphone-device", arguments.count == 2, let client = clients[arguments[1]] {
    print(client.headphones)
    exit(0)
}
guard let name = arguments.first, let client = clients[name] else {
    print("usage: ProjectClients NAME | --list | --device NAME | --headphone-device NAME   (NAME one of: \(clients.keys.sorted().joined(separator: ", ")))")
    exit(2)
}
let expectations = Expectations()
client.run(expectations)
expectations.finish(name)
