import Foundation
import Logging
import MotionHistory
import MotionProtocol
import MotionService

/// The heart of `coremotiond`: one ``MotionService`` that owns the device and runs the engines once, the
/// always-on recording, the authorization, and the registry of connected clients.
///
/// Each client's streams are subscriptions of an in-process ``LocalMotionProvider`` over that one service,
/// so the device runs at the fastest rate any client or the recorder asks for, the fusion runs once per
/// sample for every client (each with its own frame and interval), and no client changes another's stream.
public final class DaemonCore: @unchecked Sendable {
    public let configuration: DaemonConfiguration
    /// The service that owns the device.
    public let service: MotionService
    /// The client interface over ``service`` that sessions subscribe through.
    public let provider: LocalMotionProvider
    public let authorizer: any ClientAuthorizer
    public let logger: Logger
    /// When the daemon started (wall clock).
    public let startDate = Date()

    private let lock = NSLock()
    private var sessions: [ObjectIdentifier: ClientSession] = [:]
    private var acceptedTotal = 0
    private var refusedTotal = 0
    private var lastHistoryProblem: (date: Date, text: String)?
    let queries = DispatchQueue(label: "coremotiond.queries", qos: .utility, attributes: .concurrent)

    /// Opens the device the configuration names and the history; starts nothing yet (see ``startRecording()``).
    public convenience init(configuration: DaemonConfiguration, authorizer: any ClientAuthorizer, logger: Logger) throws {
        let device = try DeviceFactory.makeDevice(configuration.device, clock: SystemClock.shared)
        let headphones = try HeadphoneDeviceFactory.makeDevice(configuration.headphoneDevice, clock: SystemClock.shared)
        self.init(configuration: configuration, device: device, headphones: headphones, authorizer: authorizer, logger: logger)
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
            device: device, specification: configuration.device,
            history: .file(URL(fileURLWithPath: configuration.historyPath)),
            historySettings: HistorySettings(damagedFilePolicy: .moveAside, queriesEveryDevice: true, observer: { notice in observer.take(notice) }),
            headphones: headphones, headphoneSpecification: headphones == nil ? nil : configuration.headphoneDevice)
        do {
            service.location = try GeographicLocation.fromEnvironment()
        } catch {
            logger.warning("\(error); true north is unavailable")
        }
        self.service = service
        self.provider = LocalMotionProvider(service: service, authorization: .authorized)
        observer.core = self
        service.observeDeviceEvents { [weak self] event in self?.broadcast(event) }
    }

    /// Starts what records whether or not any app runs: the pedometer and activity engines (7 days of
    /// history) and any accelerometer recording request still in force (3 days).
    public func startRecording() {
        if service.history == nil {
            logger.error("the history at \(configuration.historyPath) cannot be opened (\(service.historyProblem ?? "?")); live data only")
        }
        service.startPedometerRecording()
        service.startActivityRecording()
        service.resumeAccelerometerRecording()
        logger.notice("recording on \(service.device.name): sensors \(service.device.sensors.keys.map(\.rawValue).sorted().joined(separator: ", "))")
        if let headphones = service.headphones { logger.notice("headphones: \(headphones.name)") }
    }

    /// Disconnects every client, stops the device and writes the history to disk.
    public func shutDown() {
        lock.lock()
        let all = Array(sessions.values)
        lock.unlock()
        for session in all { session.shutDown(.shuttingDown, "coremotiond is stopping") }
        service.shutDown()
    }

    // MARK: Sessions

    func admit(_ session: ClientSession) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard sessions.count < configuration.maximumClients else {
            refusedTotal += 1
            return false
        }
        acceptedTotal += 1
        sessions[ObjectIdentifier(session)] = session
        return true
    }

    func remove(_ session: ClientSession) {
        lock.lock()
        sessions[ObjectIdentifier(session)] = nil
        lock.unlock()
    }

    /// The connected clients.
    var connectedSessions: [ClientSession] {
        lock.lock()
        defer { lock.unlock() }
        return Array(sessions.values)
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
            lock.lock()
            lastHistoryProblem = (Date(), "\(notice)")
            lock.unlock()
        case .evicted:
            break
        }
    }

    /// The last problem the history reported (a failed write, a file moved aside), if any.
    public var historyProblem: (date: Date, text: String)? {
        lock.lock()
        defer { lock.unlock() }
        return lastHistoryProblem
    }

    var connectionCounts: (accepted: Int, refused: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (acceptedTotal, refusedTotal)
    }
}

/// Forwards history notices to the core once it exists (the service is made before the core is complete).
private final class HistoryObserver: @unchecked Sendable {
    weak var core: DaemonCore?
    func take(_ notice: HistoryNotice) { core?.historyNotice(notice) }
}
