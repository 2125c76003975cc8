import Foundation
import MotionHistory
import MotionSamples

/// How a service opens its history.
public struct HistorySettings: Sendable {
    /// What to do with a damaged or foreign history file.
    public var damagedFilePolicy: DamagedFilePolicy
    /// Called with every notice of the store (a file moved aside, a flush that failed, records dropped),
    /// besides the log line.
    public var observer: (@Sendable (HistoryNotice) -> Void)?

    /// Whether queries read the records of every device in the file, not only this device's. A process
    /// keeps to its own device (a recording's history is not a phone's); `coremotiond` owns the file and
    /// reads it all, so that history survives a device that comes back under another name (IIO devices are
    /// numbered at boot).
    public var queriesEveryDevice: Bool

    public init(
        damagedFilePolicy: DamagedFilePolicy = .fail, queriesEveryDevice: Bool = false,
        observer: (@Sendable (HistoryNotice) -> Void)? = nil
    ) {
        self.damagedFilePolicy = damagedFilePolicy
        self.queriesEveryDevice = queriesEveryDevice
        self.observer = observer
    }
}

enum HistoryState {
    case closed
    case open(any HistoryStorage)
    case failed(String)
}

extension MotionService {
    /// The history store, opened on first use at the location given to the service (or chosen by
    /// `COREMOTION_HISTORY`). `nil` when it cannot be opened; the reason is logged once and kept in
    /// ``historyProblem``.
    public var history: (any HistoryStorage)? {
        historyLock.lock()
        defer { historyLock.unlock() }
        switch historyState {
        case .open(let store): return store
        case .failed: return nil
        case .closed:
            do {
                var configuration = try historyLocation.map { HistoryConfiguration(location: $0) } ?? HistoryConfiguration.fromEnvironment()
                let clock = self.clock
                configuration.now = { clock.date(at: clock.now) }
                let logger = self.logger
                let observer = historySettings.observer
                configuration.notify = { notice in
                    logger.warning("\(notice)")
                    observer?(notice)
                }
                configuration.damagedFilePolicy = historySettings.damagedFilePolicy
                let store = try Self.openHistory(configuration)
                historyState = .open(store)
                return store
            } catch {
                // The store's errors escape what they quote (paths, SQLite's reasons); anything else is
                // escaped here.
                let reason = error is HistoryError ? "\(error)" : LogSafeText.logSafe("\(error)", limit: 2048)
                logger.error("motion history unavailable: \(reason)")
                historyState = .failed(reason)
                return nil
            }
        }
    }

    /// Opens the store for the configuration's location: the SQLite store for a file or memory, the
    /// registered server store (``MotionHistory/HistoryServers``) for a `postgres://` URL.
    public static func openHistory(_ configuration: HistoryConfiguration) throws -> any HistoryStorage {
        if case .postgres = configuration.location { return try HistoryServers.open(configuration) }
        return try HistoryStore(configuration: configuration)
    }

    /// Opens the store for a tool that reads every device in it (`coremotion history`): a PostgreSQL
    /// database answers for every machine and phone, not only this machine's devices.
    public static func openHistoryForTools(_ configuration: HistoryConfiguration) throws -> any HistoryStorage {
        // Every machine's and every phone's devices, named in full.
        if case .postgres = configuration.location { return try HistoryServers.open(configuration, everyDevice: true) }
        return try HistoryStore(configuration: configuration)
    }

    /// Why the history could not be opened, if it could not.
    public var historyProblem: String? {
        _ = history
        historyLock.lock()
        defer { historyLock.unlock() }
        if case .failed(let reason) = historyState { return reason }
        return nil
    }

    /// The tag this device's records carry in the history.
    public var historySource: String { device.name }

    /// The source queries read: this device's, or every device's (``HistorySettings/queriesEveryDevice``).
    public var historyQuerySource: String? { historySettings.queriesEveryDevice ? nil : historySource }

}

extension MotionService {
    /// Stops the device and writes everything the engines and recorders hold to the history, then closes
    /// it: the device's last batch is delivered, steps still being confirmed are decided, the accelerometer
    /// recorder's last batch is written.
    /// The service delivers nothing afterwards. Used by `coremotiond` on SIGTERM.
    public func shutDown() {
        // The device's last batch (up to a second of samples when it batches for the background engines)
        // still reaches the engines before they finish.
        stopDevice()
        stopHeadphones()
        recorders.lock.lock()
        let pedometer = recorders.pedometer
        let accelerometer = recorders.accelerometer
        recorders.lock.unlock()
        // Under the delivery lock, as every sample reaches the pedometer: the device's last batch may still be
        // arriving on its own thread (a data race the thread sanitizer caught in CI).
        withDeliveryLock { pedometer?.finish() }
        accelerometer?.flush()
        // A calibration on its way to the history's database gets there before the history closes.
        calibrationMemory.waitUntilKept()
        historyLock.lock()
        let state = historyState
        historyState = .failed("the service was shut down")
        historyLock.unlock()
        if case .open(let store) = state {
            do { try store.close() } catch { logger.error("closing the history failed: \(error)") }
        }
    }
}
