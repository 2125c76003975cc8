import Foundation
import MotionHistory
import MotionProtocol
import MotionService

/// What `coremotion service status` shows: the device and its rates, the clients, the history.
public struct DaemonStatusReport: Codable, Sendable, Hashable {
    public struct Sensor: Codable, Sendable, Hashable {
        public var kind: String
        public var name: String
        public var maximumRate: Double
        /// The rate the device runs the sensor at now, Hz; `nil` when off.
        public var activeRate: Double?
        /// How late the device may deliver the sensor's samples now, seconds (0 while a client streams it,
        /// `MotionService.backgroundLatency` when only the recorders use it); `nil` when off.
        public var maximumLatency: Double?
    }

    /// The daemon's headphones.
    public struct Headphones: Codable, Sendable, Hashable {
        public var name: String
        /// The headset's rate, Hz.
        public var rate: Double
        /// Whether they are connected now.
        public var connected: Bool
    }

    public struct Stream: Codable, Sendable, Hashable {
        public var kind: String
        /// Seconds; 0 for streams without an interval.
        public var interval: Double
    }

    public struct Client: Codable, Sendable, Hashable {
        public var pid: Int32
        public var uid: UInt32
        public var app: String
        public var hint: String
        public var executable: String?
        public var authorization: String
        public var connectedSeconds: Double
        public var streams: [Stream]
        /// Values waiting in the client's outbox now.
        public var waiting: Int
        public var sent: UInt64
        public var dropped: UInt64
    }

    public struct History: Codable, Sendable, Hashable {
        public var path: String
        public var bytes: Int?
        public var steps: Int?
        public var activitySegments: Int?
        public var accelerometerSamples: Int?
        /// Oldest and newest record of any device (ISO 8601).
        public var oldestRecord: String?
        public var newestRecord: String?
        /// The last problem (a write that failed, a file moved aside), if any.
        public var problem: String?
        public var problemAt: String?
    }

    public var version: String
    public var protocolVersion: Int
    public var instance: String
    public var pid: Int32
    public var socket: String
    public var startedAt: String
    public var uptimeSeconds: Double
    public var device: String
    public var sensors: [Sensor]
    /// The headphones the daemon owns, if any.
    public var headphones: Headphones?
    public var clientBufferCapacity: Int
    public var connectionsAccepted: Int
    public var connectionsRefused: Int
    /// The refusals by reason: all slots taken, a user's quota, the administrator's policy.
    public var refusals: DaemonCore.RefusalCounts?
    /// Connected clients of every user (the viewer's own are in ``clients``).
    public var clientsConnected: Int?
    /// The clients: every client for root, only the viewer's own for any other user.
    public var clients: [Client]
    public var history: History
    /// The ingest nodes this daemon runs (`--ingest`): their address and figures.
    public var ingest: [Ingest]?

    /// One ingest node in the report.
    public struct Ingest: Codable, Sendable, Hashable {
        public var address: String
        public var node: String
        public var figures: IngestNode.Figures
    }

    /// The JSON document (sorted keys, indented).
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
    }

    /// The daemon's software version.
    public static let softwareVersion = CoreMotionVersion.string

    /// The report as `viewerUID` may see it: root (uid 0) sees every client; any other user sees only their
    /// own clients (pids, apps and executables of other users are not theirs to know) and the total count.
    static func make(core: DaemonCore, viewerUID: UInt32 = 0) -> DaemonStatusReport {
        let iso = ISO8601DateFormatter()
        let service = core.service
        let sensors = SensorKind.allCases.compactMap { kind -> Sensor? in
            guard let d = service.sensorDescription(kind) else { return nil }
            return Sensor(
                kind: kind.rawValue, name: d.name, maximumRate: d.maximumRate, activeRate: service.activeRate(kind),
                maximumLatency: service.activeMaximumLatency(kind))
        }
        let now = Date()
        let sessions = core.connectedSessions
        let clients = sessions.compactMap { session -> Client? in
            guard let id = session.identity, viewerUID == 0 || id.uid == viewerUID else { return nil }
            let figures = session.outboxFigures
            return Client(
                pid: id.pid, uid: id.uid, app: id.appID, hint: id.hint, executable: id.executable,
                authorization: "\(session.currentStatus)", connectedSeconds: now.timeIntervalSince(session.connectedAt),
                streams: session.openStreams.map { Stream(kind: $0.label, interval: $0.interval) }.sorted { $0.kind < $1.kind },
                waiting: figures.waiting, sent: figures.sent, dropped: figures.dropped)
        }.sorted { ($0.pid, $0.app) < ($1.pid, $1.app) }
        var history = History(path: core.configuration.historyDescription)
        if let store = service.history {
            if let stats = try? store.statistics() {
                history.bytes = stats.databaseBytes
                history.steps = stats.steps
                history.activitySegments = stats.activitySegments
                history.accelerometerSamples = stats.accelerometerSamples
            }
            if let span = try? store.recordSpan() {
                history.oldestRecord = iso.string(from: span.lowerBound)
                history.newestRecord = iso.string(from: span.upperBound)
            }
        } else {
            history.problem = service.historyProblem
        }
        if let problem = core.historyProblem {
            history.problem = problem.text
            history.problemAt = iso.string(from: problem.date)
        }
        let counts = core.connectionCounts
        return DaemonStatusReport(
            version: softwareVersion, protocolVersion: Int(ProtocolVersion.current), instance: core.configuration.instance.rawValue,
            pid: getpid(), socket: core.configuration.socketPath, startedAt: iso.string(from: core.startDate),
            uptimeSeconds: now.timeIntervalSince(core.startDate), device: service.device.name, sensors: sensors,
            headphones: service.headphones.map { Headphones(name: $0.name, rate: $0.rate, connected: service.isHeadphoneConnected) },
            clientBufferCapacity: core.configuration.clientBufferCapacity, connectionsAccepted: counts.accepted,
            connectionsRefused: counts.refused.total, refusals: counts.refused, clientsConnected: sessions.count, clients: clients,
            history: history,
            ingest: core.ingestNodes.isEmpty ? nil : core.ingestNodes.map {
                Ingest(address: $0.configuration.description, node: $0.nodeName, figures: $0.figures)
            })
    }
}
