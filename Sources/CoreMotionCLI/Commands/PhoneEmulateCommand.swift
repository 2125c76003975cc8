import ArgumentParser
import Dispatch
import Foundation
import MotionEmulation
import MotionNetwork
import MotionRecordings
import MotionSimulator

/// `coremotion phone-emulate`: a fake phone on a local port (phyphox's REST interface or a SensorServer
/// WebSocket), fed by a recording, so that `COREMOTION_DEVICE=phyphox:…` and `sensorserver:…` can be
/// exercised without a phone (tools/network/fake-phyphox, fake-sensorserver).
struct PhoneEmulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phone-emulate",
        abstract: "Serve a recording as a phone would: phyphox remote access or SensorServer (for tests and demos).",
        discussion: """
            PROTOCOL is phyphox (HTTP: /get, /config, /meta, /time, /control, with the Android or iOS quirks of
            --platform) or sensorserver (WebSocket: /sensors/connect?types=[…], /sensor/connect?type=…). The
            recording's raw sensors (and, for phyphox on iOS, its attitude, gravity and user acceleration) play in
            real time from the start, in a loop, converted to Android's units as the phone sends them. Without
            --recording a synthetic phone plays (100 Hz, known values). Listens on 127.0.0.1.

            Example:
              coremotion phone-emulate phyphox --recording walk.zip --port 8080 &
              COREMOTION_DEVICE=phyphox:http://127.0.0.1:8080 my-app
            """
    )

    @Argument(help: "phyphox or sensorserver.")
    var protocolName: String

    @Option(help: "Recording to serve (any format `coremotion info` reads); default: a synthetic phone.")
    var recording: String?

    @Option(help: "Port to listen on (0: any free port, written to --ready-file).")
    var port: Int = 0

    @Option(help: "phyphox only: android or ios.")
    var platform: String = "android"

    @Option(help: "Stop after this many seconds (default: run until interrupted).")
    var duration: Double?

    @Option(help: "Write the port to this file once listening (for scripts waiting on the emulator).")
    var readyFile: String?

    func validate() throws {
        guard ["phyphox", "sensorserver"].contains(protocolName) else {
            throw ValidationError(NameSuggestion.unknown("protocol", protocolName, among: ["phyphox", "sensorserver"]))
        }
        guard PhyphoxPlatform(rawValue: platform) != nil else {
            throw ValidationError(NameSuggestion.unknown("platform", platform, among: PhyphoxPlatform.allCases.map(\.rawValue)))
        }
        if !(0...65535).contains(port) { throw ValidationError("--port must be 0 to 65535") }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive") }
    }

    func run() throws {
        let source: PhoneEmulationSource
        if let recording {
            let read = try RecordingReader.read(recording)
            source = PhoneEmulationSource(recording: read)
        } else {
            source = .synthetic()
        }
        let listening: Int
        let stop: () -> Void
        if protocolName == "phyphox" {
            var options = PhyphoxEmulator.Options()
            options.platform = PhyphoxPlatform(rawValue: platform) ?? .android
            let emulator = PhyphoxEmulator(source: source, options: options)
            listening = try emulator.listen(port: port)
            stop = { emulator.stop() }
            Output.note("phone-emulate: phyphox (\(options.platform.rawValue)) on http://127.0.0.1:\(listening)")
        } else {
            let emulator = SensorServerEmulator(source: source)
            listening = try emulator.listen(port: port)
            stop = { emulator.stop() }
            Output.note("phone-emulate: SensorServer on ws://127.0.0.1:\(listening)")
        }
        if let readyFile { try Data("\(listening)\n".utf8).write(to: URL(fileURLWithPath: readyFile)) }

        let done = DispatchSemaphore(value: 0)
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let sources = [SIGINT, SIGTERM].map { sig -> any DispatchSourceSignal in
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { done.signal() }
            s.resume()
            return s
        }
        if let duration {
            _ = done.wait(timeout: .now() + duration)
        } else {
            done.wait()
        }
        sources.forEach { $0.cancel() }
        stop()
        Output.note("phone-emulate: stopped")
    }
}
