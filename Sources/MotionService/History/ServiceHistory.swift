import Foundation
import MotionHistory

enum HistoryState {
    case closed
    case open(HistoryStore)
    case failed(String)
}

extension MotionService {
    /// The history store, opened on first use at the location given to the service (or chosen by
    /// `COREMOTION_HISTORY`). `nil` when it cannot be opened; the reason is logged once and kept in
    /// ``historyProblem``.
    public var history: HistoryStore? {
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
                configuration.notify = { notice in logger.warning("\(notice)") }
                let store = try HistoryStore(configuration: configuration)
                historyState = .open(store)
                return store
            } catch {
                logger.error("motion history unavailable: \(error)")
                historyState = .failed("\(error)")
                return nil
            }
        }
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

    /// The wall-clock date of a device timestamp.
    public func date(at time: TimeInterval) -> Date { clock.date(at: time) }
}
