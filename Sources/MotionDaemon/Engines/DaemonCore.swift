import Foundation
import Logging
import MotionDevices
import MotionHistory
import MotionProtocol
import MotionService
import NIOConcurrencyHelpers

/// The heart of `coremotiond`: one ``MotionService`` that owns the device and runs the engines once, the
/// always-on recording, the authorization, and the registry of connected clients.
///
/// Each client's streams are subscriptions of that one service (its ``MotionClient/MotionProvider`` methods),
/// so the device runs at the fastest rate any client or the recorder asks for, the fusion runs once per
/// sample for every client (each with its own frame and interval), and no client changes another's stream.
public final class DaemonCore: Sendable {
    public let configuration: DaemonConfiguration
    /// The service that owns the device; sessions subscribe through its client interface
    /// (`authorizationStatus()` is `.authorized`: the daemon decides per client before a request reaches it).
    public let service: MotionService
    public let authorizer: any ClientAuthorizer
    public let logger: Logger
    /// When the daemon started (wall clock).
    public let startDate = Date()

    /// What the sessions, the history and the recorder share.
    private struct State {
        /// The admitted clients and the uid each holds its slot for.
        var sessions: [ObjectIdentifier: (session: ClientSession, uid: UInt32)] = [:]
        var acceptedTotal = 0
        var refusals = RefusalCounts()
        /// When a refusal of each uid was last logged (one line per uid and minute at most).
        var refusalLogged: [UInt32: Date] = [:]
        var lastHistoryProblem: (date: Date, text: String)?
        /// Set by ``startRecording()``: a sensor that appears or returns later is recorded too.
        var recording = false
    }
    private let state = NIOLockedValueBox(State())
    private let ingest = NIOLockedValueBox<[IngestNode]>([])

    /// The ingest nodes this daemon runs (`--ingest`), for `service status`.
    public var ingestNodes: [IngestNode] {
        get { ingest.withLockedValue { $0 } }
        set { ingest.withLockedValue { $0 = newValue } }
    }
    /// Where the recorders are (re)started when a sensor appears (never the device's thread).
    private let recordingWork = DispatchQueue(label: "coremotiond.recording", qos: .utility)
    /// What every session's own serial queue runs on: requests, teardown (never an event loop or the device's
    /// thread).
    let sessionWork = DispatchQueue(label: "coremotiond.sessions", qos: .utility, attributes: .concurrent)

    /// Connections refused, by reason (counted in `coremotion service status`).
    public struct RefusalCounts: Sendable, Hashable, Codable {
        /// All slots taken.
        public var full = 0
        /// The user already held ``DaemonConfiguration/maximumClientsPerUser`` slots.
        public var perUser = 0
        /// The administrator's policy restricts the user or app.
        public var restricted = 0
        public var total: Int { full + perUser + restricted }
    }

    /// Opens the device the configuration names and the history; starts nothing yet (see ``startRecording()``).
    public convenience init(configuration: DaemonConfiguration, authorizer: any ClientAuthorizer, logger: Logger) throws {
        let selection = try DeviceSelection(configuration.device, headphones: configuration.headphoneDevice)
        self.init(configuration: configuration, device: selection.device, headphones: selection.headphones, authorizer: authorizer, logger: logger)
    }

    /// A daemon core around a device (and headphones) made by the caller (tests, benchmarks); they must stamp
    /// their samples on the system clock.
    public init(
        configuration: DaemonConfiguration, device: any MotionDevice, headphones: (any HeadphoneDevice)? = nil,
        authorizer: any ClientAuthorizer, logger: Logger
    ) {
        self.configuration = configuration
        self.authorizer = authorizer
        self.logger = logger
        let observer = HistoryObserver()
        let service = MotionService(
            device: device, keepsCalibration: configuration.device.isMachineHardware,
            history: (try? configuration.historyLocation()) ?? .file(URL(fileURLWithPath: configuration.historyPath)),
            historySettings: HistorySettings(damagedFilePolicy: .moveAside, queriesEveryDevice: true, observer: { notice in observer.take(notice) }),
            headphones: headphones, authorization: .authorized)
        do {
            service.location = try GeographicLocation.fromEnvironment()
        } catch {
            logger.warning("\(error); true north is unavailable")
        }
        self.service = service
        observer.core = self
        service.observeDeviceEvents { [weak self] event in self?.broadcast(event) }
    }

    /// Starts what records whether or not any app runs: the pedometer and activity engines (7 days of
    /// history) and any accelerometer recording request still in force (3 days).
    ///
    /// A sensor that appears after this (a Linux IIO device whose driver loads after the daemon started) or
    /// returns is recorded from then on: every ``MotionSamples/DeviceEvent/sensorReturned(_:)`` starts the
    /// recorders again (each is idempotent, and takes only the sensors it does not have yet).
    public func startRecording() {
        state.withLockedValue { $0.recording = true }
        if service.history == nil {
            logger.error("the history at \(configuration.historyDescription) cannot be opened (\(service.historyProblem ?? "?")); live data only")
        }
        startRecorders()
        logger.notice("recording on \(service.device.name.logSafe): sensors \(service.device.sensors.keys.map(\.rawValue).sorted().joined(separator: ", "))")
        if let headphones = service.headphones { logger.notice("headphones: \(headphones.name.logSafe)") }
    }

    private func startRecorders() {
        service.startPedometerRecording()
        service.startActivityRecording()
        service.resumeAccelerometerRecording()
    }

    /// A sensor appeared or returned: the recorders take it if they record (off the device's thread).
    private func sensorArrived(_ sensor: SensorKind) {
        guard isRecording else { return }
        recordingWork.async { [weak self] in
            guard let self, self.isRecording else { return }
            self.startRecorders()
            self.logger.notice("\(sensor) available; recording on sensors \(self.service.device.sensors.keys.map(\.rawValue).sorted().joined(separator: ", "))")
        }
    }

    private var isRecording: Bool {
        state.withLockedValue { $0.recording }
    }

    /// Disconnects every client, stops the device and writes the history to disk.
    public func shutDown() {
        let all = state.withLockedValue { state in
            state.recording = false
            return state.sessions.values.map(\.session)
        }
        for session in all { session.shutDown(.shuttingDown, "coremotiond is stopping") }
        service.shutDown()
    }

    // MARK: Sessions

    /// Gives `session` a slot for `uid`, or says why not (the text of the client's `overloaded` failure).
    ///
    /// Bounds (docs/security.md): ``DaemonConfiguration/maximumClients`` in all; a uid other than root at most
    /// ``DaemonConfiguration/maximumClientsPerUser``; users other than root together leave
    /// ``DaemonConfiguration/slotsReservedForRoot`` slots free, so that no user can lock the administrator out.
    /// A refusal is counted, and logged once per uid and minute.
    func admit(_ session: ClientSession, uid: UInt32) -> String? {
        let now = Date()
        let (refusal, log, counts) = state.withLockedValue { state -> (String?, Bool, RefusalCounts) in
            var refusal: String?
            let total = state.sessions.count
            if total >= configuration.maximumClients {
                state.refusals.full += 1
                refusal = "coremotiond serves at most \(configuration.maximumClients) clients"
            } else if uid != 0 {
                var ofUser = 0
                var ofUsers = 0
                for entry in state.sessions.values where entry.uid != 0 {
                    ofUsers += 1
                    if entry.uid == uid { ofUser += 1 }
                }
                if ofUser >= configuration.maximumClientsPerUser {
                    state.refusals.perUser += 1
                    refusal = "user \(uid) already has \(ofUser) connections to coremotiond (at most \(configuration.maximumClientsPerUser) per user)"
                } else if ofUsers >= configuration.maximumClients - configuration.slotsReservedForRoot {
                    state.refusals.full += 1
                    refusal = "coremotiond serves at most \(configuration.maximumClients - configuration.slotsReservedForRoot) clients of users other than root"
                }
            }
            var log = false
            if refusal != nil {
                if let last = state.refusalLogged[uid], now.timeIntervalSince(last) < 60 {
                    log = false
                } else {
                    state.refusalLogged[uid] = now
                    if state.refusalLogged.count > 4096 { state.refusalLogged = state.refusalLogged.filter { now.timeIntervalSince($0.value) < 60 } }
                    log = true
                }
            } else {
                state.acceptedTotal += 1
                state.sessions[ObjectIdentifier(session)] = (session, uid)
            }
            return (refusal, log, state.refusals)
        }
        if let refusal, log {
            logger.warning("refusing a connection: \(refusal) (refusals so far: \(counts.total); logged once a minute per user)")
        }
        return refusal
    }

    /// Frees a slot (idempotent).
    func remove(_ session: ClientSession) {
        state.withLockedValue { $0.sessions[ObjectIdentifier(session)] = nil }
    }

    /// Frees the slot of a client the policy restricts, counts and logs it (once per uid and minute).
    func refuseRestricted(_ session: ClientSession, identity: ClientIdentity) {
        let now = Date()
        let log = state.withLockedValue { state in
            state.sessions[ObjectIdentifier(session)] = nil
            state.refusals.restricted += 1
            if let last = state.refusalLogged[identity.uid], now.timeIntervalSince(last) < 60 { return false }
            state.refusalLogged[identity.uid] = now
            return true
        }
        if log {
            logger.warning("refusing \(identity.appID.logSafe) (pid \(identity.pid), uid \(identity.uid)): restricted by the administrator's policy (logged once a minute per user)")
        }
    }

    /// The connected clients.
    var connectedSessions: [ClientSession] {
        state.withLockedValue { $0.sessions.values.map(\.session) }
    }

    /// Re-reads every client's decision (after `coremotion permissions` changed one) and tells those whose
    /// decision changed.
    func refreshAuthorization() {
        for session in connectedSessions { session.refreshAuthorization() }
    }

    private func broadcast(_ event: DeviceEvent) {
        let message: DaemonEvent
        switch event {
        case .sensorLost(let sensor, let reason): message = .sensorLost(sensor, reason: reason)
        case .sensorReturned(let sensor):
            sensorArrived(sensor)
            guard let description = service.sensorDescription(sensor) else { return }
            message = .sensorReturned(description)
        case .endOfData: message = .endOfData
        }
        for session in connectedSessions { session.send(.event(message)) }
    }

    // MARK: History health

    func historyNotice(_ notice: HistoryNotice) {
        switch notice {
        case .flushFailed, .droppedPending, .movedAside:
            state.withLockedValue { $0.lastHistoryProblem = (Date(), "\(notice)") }
        case .evicted:
            break
        }
    }

    /// The last problem the history reported (a failed write, a file moved aside), if any.
    public var historyProblem: (date: Date, text: String)? {
        state.withLockedValue { $0.lastHistoryProblem }
    }

    var connectionCounts: (accepted: Int, refused: RefusalCounts) {
        state.withLockedValue { ($0.acceptedTotal, $0.refusals) }
    }
}

/// Forwards history notices to the core once it exists (the service is made before the core is complete).
private final class HistoryObserver: Sendable {
    private struct Weak { weak var core: DaemonCore? }
    private let box = NIOLockedValueBox(Weak())
    var core: DaemonCore? {
        get { box.withLockedValue { $0.core } }
        set { box.withLockedValue { $0.core = newValue } }
    }
    func take(_ notice: HistoryNotice) { core?.historyNotice(notice) }
}
