import ArgumentParser
import Foundation
import MotionDevices
import MotionLiveView
import MotionRecordings
import MotionService

/// `coremotion view`: the motion in a browser, live from any device or scrubbed through a recording.
struct ViewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Show a device's or a recording's motion in a web browser (a local page, no download).",
        discussion: """
            With FILE: the engines run over the whole recording first, then the page scrubs, plays, pauses \
            and changes speed, with Apple's outputs and the ground truth the file holds drawn over ours. \
            Without FILE: the device from --device or COREMOTION_DEVICE (iio, sim:SCENE, replay:PATH, \
            service, a phone on the network…), live, through Core Motion's API. The server listens on \
            loopback only unless --host names another address, which then needs a token (--token-file FILE, \
            the environment variable COREMOTION_VIEW_TOKEN, or --token, which other users can read); open the \
            printed address. Ctrl-C stops. See docs/view.md.
            """
    )

    @Argument(help: "A recording to scrub through (any format the recording readers know).")
    var file: String?

    @Option(help: "A live device, in any COREMOTION_DEVICE form (default: the environment's).")
    var device: String?

    @Option(help: "Address to listen on (loopback unless a token is given).")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0: any free port).")
    var port = 8765

    @Option(help: """
        Token the page and its WebSocket must present as ?token= (required off loopback; at least 8 \
        characters). Visible to every user of this machine (ps, /proc/PID/cmdline): prefer --token-file or \
        COREMOTION_VIEW_TOKEN.
        """)
    var token: String?

    @Option(help: ArgumentHelp(
        "A file holding the token (one final line break is ignored; at most 4096 bytes); keep it chmod 600.",
        valueName: "path"))
    var tokenFile: String?

    @Option(help: "Most samples per second and channel sent to a page.")
    var rate = 60.0

    func validate() throws {
        if file != nil && device != nil { throw ValidationError("give a FILE or --device, not both") }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        guard rate.isFinite, (1...500).contains(rate) else { throw ValidationError("--rate must be 1…500 samples per second") }
        let resolved: LiveViewToken.Resolved
        do { resolved = try LiveViewToken.resolve(option: token, file: tokenFile) } catch { throw ValidationError(error.description) }
        do { _ = try LiveViewAccess(host: host, token: resolved.token) } catch { throw ValidationError(error.description) }
        if let device {
            do { _ = try DeviceSpecification.parse(device) } catch { throw ValidationError("\(error)") }
        }
    }

    func run() async throws {
        let resolved = try LiveViewToken.resolve(option: token, file: tokenFile)
        if let warning = resolved.warning { Output.note("coremotion view: \(warning)") }
        let access = try LiveViewAccess(host: host, token: resolved.token)
        let source: any LiveViewSource
        if let file {
            let recording = try RecordingReader.read(file)
            let name = URL(fileURLWithPath: file).lastPathComponent
            Output.note("Prepared \(name) (\(recording.metadata.format), \(Output.fixed(recording.duration, 1)) s): fusion, steps, activity and altitude over the whole file.")
            source = RecordingTimelineBuilder.build(recording, name: name)
        } else {
            // The device is chosen the way any app's is: by the environment, before the first Core Motion call.
            if let device { setenv(DeviceSpecification.environmentVariable, device, 1) }
            if ProcessInfo.processInfo.environment["COREMOTION_HISTORY"] == nil { setenv("COREMOTION_HISTORY", "memory", 1) }
            let spec = try DeviceSpecification.fromEnvironment()
            source = LiveDeviceFeed(name: spec.description, rate: rate)
        }
        let server = LiveViewServer(source: source, access: access, port: port, rate: rate)
        let shownHost = access.host.contains(":") ? "[\(access.host)]" : access.host
        let tokenQuery = access.token.map { "?token=\($0)" } ?? ""
        try await server.run { port in
            // One line on standard output, for people and for scripts that wait for it.
            // Written unbuffered, so that a script reading a pipe sees it at once.
            Output.write(Data("coremotion view: http://\(shownHost):\(port)/\(tokenQuery)\n".utf8))
        }
    }
}
