import ArgumentParser
import Foundation
import MotionDaemonClient
import MotionSamples

/// `coremotion service`: install and inspect the system service `coremotiond`.
struct ServiceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service",
        abstract: "Install and inspect the system service coremotiond.",
        subcommands: [ServiceInstallCommand.self, ServiceStatusCommand.self, ServiceRecordAccelerometerCommand.self]
    )
}

/// `coremotion service record-accelerometer SECONDS`: what `CMSensorRecorder.recordAccelerometer(forDuration:)`
/// asks of the daemon, from the command line (administration, tools/bench/idle-daemon.sh).
struct ServiceRecordAccelerometerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record-accelerometer",
        abstract: "Ask coremotiond to record the accelerometer (50 Hz) into its history, as CMSensorRecorder does.",
        discussion: "The recording goes on after this command returns, with no client connected, for SECONDS (at most 12 hours)."
    )

    @OptionGroup var daemon: DaemonSocketOption

    @Argument(help: "How long to record, seconds (at most 43200).")
    var seconds: Double

    func validate() throws {
        guard seconds > 0, seconds <= 43_200 else { throw ValidationError("SECONDS must be more than 0 and at most 43200 (12 h)") }
    }

    func run() throws {
        let connection = try daemon.connect()
        defer { connection.close() }
        do {
            try connection.recordAccelerometer(forDuration: seconds)
        } catch {
            throw ValidationError("\(error)")
        }
        print("coremotiond records the accelerometer for \(Output.fixed(seconds, 0)) s")
    }
}

/// Where to reach the daemon: `--socket`, else `COREMOTION_SOCKET`, the user instance's socket, the system's.
struct DaemonSocketOption: ParsableArguments {
    @Option(help: "The daemon's socket (default: COREMOTION_SOCKET, else the user instance's, else /run/coremotion/coremotiond.sock).")
    var socket: String?

    var path: String { socket ?? DaemonSocket.firstExisting() ?? DaemonSocket.candidates().first ?? DaemonSocket.systemPath }

    /// A connection for one request (no reconnection).
    func connect() throws -> DaemonConnection {
        do {
            return try DaemonConnection.connect(socketPath: path, appHint: "coremotion")
        } catch {
            throw ValidationError("\(error)")
        }
    }
}

/// `coremotion service status`: the device, its rates, the clients, the history.
struct ServiceStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show coremotiond's device, sensor rates, clients (pid, app, streams, drops) and history."
    )

    @OptionGroup var daemon: DaemonSocketOption

    @Flag(help: "Print the daemon's JSON document.")
    var json = false

    func run() throws {
        let connection = try daemon.connect()
        defer { connection.close() }
        let document = try connection.statusDocument()
        if json {
            print(document)
            return
        }
        guard let data = document.data(using: .utf8),
              let report = try? JSONDecoder().decode(StatusView.self, from: data) else {
            print(document)
            return
        }
        print(report.text)
    }
}

/// The parts of the daemon's status document the human view prints.
private struct StatusView: Decodable {
    struct Sensor: Decodable { var kind: String; var maximumRate: Double; var activeRate: Double?; var maximumLatency: Double? }
    struct Stream: Decodable { var kind: String; var interval: Double }
    struct Client: Decodable {
        var pid: Int32; var uid: UInt32; var app: String; var authorization: String; var streams: [Stream]
        var waiting: Int; var sent: UInt64; var dropped: UInt64
    }
    struct History: Decodable {
        var path: String; var bytes: Int?; var steps: Int?; var activitySegments: Int?; var accelerometerSamples: Int?
        var oldestRecord: String?; var newestRecord: String?; var problem: String?
    }
    struct Refusals: Decodable { var full: Int; var perUser: Int; var restricted: Int }
    var version: String; var instance: String; var pid: Int32; var socket: String; var uptimeSeconds: Double
    var device: String; var sensors: [Sensor]; var clientBufferCapacity: Int; var clients: [Client]; var history: History
    /// An ingest node's figures (`coremotiond --ingest`).
    struct Ingest: Decodable {
        struct Figures: Decodable {
            var committed: Int; var spooled: Int; var duplicates: Int; var refused: Int; var readings: Int; var drained: Int
            var spoolPushes: Int; var spoolBytes: Int; var databaseReachable: Bool; var lagSeconds: Double
            var latencyP50Milliseconds: Double; var latencyP99Milliseconds: Double; var phones: Int
            /// The phones' engines; absent from nodes that run none (and from daemons before them).
            struct Engines: Decodable { var phones: Int; var windows: Int; var steps: Int; var lostLeases: Int; var lagSeconds: Double }
            var engines: Engines?
        }
        var address: String; var node: String; var figures: Figures
    }
    /// Absent from daemons without ingest nodes.
    var ingest: [Ingest]?
    /// Absent from daemons before the per-user bounds.
    var refusals: Refusals?
    var clientsConnected: Int?

    var text: String {
        var lines: [String] = []
        lines.append("coremotiond \(version) (\(instance) instance, pid \(pid)), up \(Output.fixed(uptimeSeconds, 0)) s, socket \(socket)")
        lines.append("device: \(device)")
        lines.append(Output.table(
            ["sensor", "max Hz", "running at", "latency"],
            sensors.map {
                [$0.kind, Output.fixed($0.maximumRate, 1), $0.activeRate.map { Output.fixed($0, 1) + " Hz" } ?? "off",
                 $0.activeRate == nil ? "" : $0.maximumLatency.map { Output.fixed($0, 1) + " s" } ?? ""]
            }))
        if clients.isEmpty {
            lines.append("clients: none (the engines record for the history all the same)")
        } else {
            lines.append("clients (each may hold \(clientBufferCapacity) values while it does not read):")
            lines.append(Output.table(
                ["pid", "uid", "app", "authorization", "streams", "sent", "waiting", "dropped"],
                clients.map { c in
                    let streams = c.streams.map { $0.interval > 0 ? "\($0.kind)@\(Output.fixed(1 / $0.interval, 0))Hz" : $0.kind }
                    // App ids come from other processes: escaped before they reach a terminal.
                    return ["\(c.pid)", "\(c.uid)", c.app.logSafe, c.authorization, streams.joined(separator: ", "), "\(c.sent)", "\(c.waiting)", "\(c.dropped)"]
                }))
        }
        if let connected = clientsConnected, connected > clients.count {
            lines.append("(\(connected - clients.count) clients of other users are not shown: only root sees every client)")
        }
        if let refusals, refusals.full + refusals.perUser + refusals.restricted > 0 {
            lines.append(
                "connections refused: \(refusals.full) (all slots taken), \(refusals.perUser) (a user's limit), "
                    + "\(refusals.restricted) (restricted by the policy)")
        }
        var h = "history: \(history.path)"
        if let bytes = history.bytes { h += ", \(Output.fixed(Double(bytes) / 1_048_576, 1)) MiB" }
        if let steps = history.steps { h += ", \(steps) steps" }
        if let segments = history.activitySegments { h += ", \(segments) activity segments" }
        if let samples = history.accelerometerSamples { h += ", \(samples) recorded samples" }
        if let oldest = history.oldestRecord, let newest = history.newestRecord { h += ", \(oldest) … \(newest)" }
        lines.append(h)
        if let problem = history.problem { lines.append("history problem: \(problem)") }
        for node in ingest ?? [] {
            let f = node.figures
            let counts = "\(f.phones) phones, \(f.committed) pushes committed, \(f.spooled) spooled, \(f.drained) drained, "
                + "\(f.duplicates) duplicates, \(f.refused) refused; \(f.readings) readings"
            let latency = "push latency p50 \(Output.fixed(f.latencyP50Milliseconds, 1)) ms, p99 \(Output.fixed(f.latencyP99Milliseconds, 1)) ms"
            let spool = "spool \(f.spoolPushes) pushes (\(Output.fixed(Double(f.spoolBytes) / 1_048_576, 1)) MiB)"
            let lag = f.lagSeconds > 0 ? ", \(Output.fixed(f.lagSeconds, 0)) s behind" : ""
            let database = "database " + (f.databaseReachable ? "reachable" : "UNREACHABLE") + lag
            lines.append("ingest \(node.address.logSafe) (node \(node.node.logSafe)): \(counts); \(latency); \(spool); \(database)")
            if let e = f.engines {
                lines.append(
                    "  phone engines: \(e.phones) phones derived, \(e.windows) windows, \(e.steps) steps written, \(e.lostLeases) leases lost; "
                        + "\(Output.fixed(e.lagSeconds, 0)) s behind the newest reading")
            }
        }
        return lines.joined(separator: "\n")
    }
}
