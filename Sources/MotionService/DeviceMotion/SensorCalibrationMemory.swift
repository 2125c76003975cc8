import Foundation
import MotionEngine
import MotionHistory

/// What the fusion has learned about the device's own sensor errors: the gyroscope bias and the
/// magnetometer's hard- and soft-iron calibration.
///
/// iOS keeps estimating these all day, so an app that starts device motion gets a filter that is
/// already calibrated. Here the service keeps them from one run of the fusion to the next while the
/// process lives, and, for real hardware (`COREMOTION_DEVICE` = `auto` or `iio`), in a small JSON file
/// beside a SQLite history (`calibration/<device>.json`) or in a PostgreSQL history's `calibration` table,
/// so that the next process starts warm too.
/// Replays and simulations never read or write the file: every run of a recording stays identical.
public struct SensorCalibrationState: Codable, Sendable, Hashable {
    /// The device the state belongs to (its name).
    public var device: String
    /// When it was saved (the device clock's date).
    public var savedAt: Date
    /// Gyroscope bias, rad/s, device axes.
    public var gyroBias: Vector3
    /// One-sigma uncertainty of the bias when saved, rad/s.
    public var gyroBiasSigma: Double
    /// The magnetometer calibration; `nil` without a magnetometer.
    public var magnetometer: MagnetometerCalibration?

    public init(device: String, savedAt: Date, gyroBias: Vector3, gyroBiasSigma: Double, magnetometer: MagnetometerCalibration?) {
        self.device = device
        self.savedAt = savedAt
        self.gyroBias = gyroBias
        self.gyroBiasSigma = gyroBiasSigma
        self.magnetometer = magnetometer
    }

    /// Whether every number is usable.
    public var isValid: Bool {
        gyroBias.isFinite && gyroBiasSigma.isFinite && gyroBiasSigma >= 0
            && (magnetometer.map { $0.hardIron.isFinite && $0.softIron.isFinite } ?? true)
    }

    /// How the saved bias is trusted `elapsed` seconds later (see
    /// ``MotionEngine/DeviceMotionEstimator/restoredBiasSigma(saved:elapsed:)``).
    public static func restoredBiasSigma(saved: Double, elapsed: TimeInterval) -> Double? {
        DeviceMotionEstimator.restoredBiasSigma(saved: saved, elapsed: elapsed)
    }

    /// The magnetometer calibration as restored `elapsed` seconds later (see
    /// ``MotionEngine/DeviceMotionEstimator/restoredMagnetometer(_:elapsed:)``).
    public static func restoredMagnetometer(_ saved: MagnetometerCalibration?, elapsed: TimeInterval) -> MagnetometerCalibration? {
        DeviceMotionEstimator.restoredMagnetometer(saved, elapsed: elapsed)
    }
}

/// Keeps a device's ``SensorCalibrationState`` between runs of the fusion (see there): in this process,
/// and, for real hardware, in a file beside a SQLite history or in the history's own database (PostgreSQL,
/// `coremotion.calibration`).
///
/// Nothing here blocks on the database: the state it keeps is read once, in the background, when the
/// service starts (a fusion started before it arrives starts cold), and a save goes to the database from a
/// serial queue that holds at most one state waiting (a newer save replaces it).
final class SensorCalibrationMemory: @unchecked Sendable {  // @unchecked: the `var`s are guarded by `lock`; the rest are `let`s
    /// Where the state outlives the process.
    enum Keeping: Sendable {
        /// Nowhere: replays, simulations, phones, an in-memory history.
        case process
        /// A JSON file (beside a SQLite history).
        case file(URL)
        /// The history's database, under the device's source name.
        case store(source: String)
    }

    let keeping: Keeping
    private let lock = NSLock()
    private var state: SensorCalibrationState?
    private var readKept = false
    private var openStore: (@Sendable () -> (any HistoryStorage)?)?
    private var waitingSave: SensorCalibrationState?
    private var saving = false
    private let queue = DispatchQueue(label: "coremotion.calibration")
    private let report: @Sendable (String) -> Void

    init(keeping: Keeping, report: @escaping @Sendable (String) -> Void = { _ in }) {
        self.keeping = keeping
        self.report = report
    }

    /// Where the state is kept, for messages.
    var destination: String {
        switch keeping {
        case .process: "this process"
        case .file(let url): url.path
        case .store(let source): "the history database (device \(source))"
        }
    }

    /// Gives a store-kept memory its history (opened on first use) and starts reading the saved state.
    func attach(store: @escaping @Sendable () -> (any HistoryStorage)?) {
        guard case .store = keeping else { return }
        lock.lock()
        openStore = store
        lock.unlock()
        queue.async { self.readStore() }
    }

    /// The last saved state: this process's, else the kept one (a file is read here, once; a database's
    /// arrives in the background after ``attach(store:)``). A damaged file or row is ignored and replaced
    /// at the next save.
    func load() -> SensorCalibrationState? {
        lock.lock()
        defer { lock.unlock() }
        if state == nil, !readKept, case .file(let file) = keeping {
            readKept = true
            state = Self.decode((try? Data(contentsOf: file)))
        }
        return state
    }

    /// Remembers `newState` and keeps it: a file is written here (atomically), returning its error; a
    /// database write is queued (its failure is reported, with the reason, when it happens).
    @discardableResult
    func save(_ newState: SensorCalibrationState) -> (any Error)? {
        guard newState.isValid else { return nil }
        lock.lock()
        state = newState
        readKept = true
        var startWriter = false
        if case .store = keeping {
            waitingSave = newState
            startWriter = !saving
            saving = true
        }
        lock.unlock()
        switch keeping {
        case .process:
            return nil
        case .file(let file):
            do {
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try JSONEncoder.calibration.encode(newState).write(to: file, options: .atomic)
                return nil
            } catch {
                return error
            }
        case .store:
            if startWriter { queue.async { self.writeStore() } }
            return nil
        }
    }

    /// Waits until the kept state has been read and the last save written (for a daemon that stops, and
    /// for tests).
    func waitUntilKept() {
        queue.sync {}
    }

    private func readStore() {
        guard case .store(let source) = keeping else { return }
        lock.lock()
        let open = openStore
        lock.unlock()
        guard let store = open?() else { return }
        let data: Data?
        do {
            data = try store.savedCalibration(source: source)
        } catch {
            report("sensor calibration not read from \(destination): \(error)")
            return
        }
        let kept = Self.decode(data)
        lock.lock()
        if state == nil { state = kept }
        readKept = true
        lock.unlock()
    }

    private func writeStore() {
        guard case .store(let source) = keeping else { return }
        while true {
            lock.lock()
            guard let next = waitingSave else {
                saving = false
                lock.unlock()
                return
            }
            waitingSave = nil
            let open = openStore
            lock.unlock()
            guard let store = open?() else { continue }
            do {
                try store.saveCalibration(try JSONEncoder.calibration.encode(next), savedAt: next.savedAt, source: source)
            } catch {
                report("sensor calibration not saved to \(destination): \(error)")
            }
        }
    }

    private static func decode(_ data: Data?) -> SensorCalibrationState? {
        guard let data, let saved = try? JSONDecoder.calibration.decode(SensorCalibrationState.self, from: data), saved.isValid
        else { return nil }
        return saved
    }

    /// Where real hardware keeps its calibration: `calibration/<device>.json` beside a history file, the
    /// database of a PostgreSQL history, nowhere for an in-memory history.
    static func keeping(for deviceName: String, history: HistoryLocation?) -> Keeping {
        let location = history ?? (try? HistoryLocation.fromEnvironment())
        switch location {
        case .some(.file(let historyFile)):
            let safe = String(deviceName.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
            return .file(
                historyFile.deletingLastPathComponent()
                    .appendingPathComponent("calibration", isDirectory: true)
                    .appendingPathComponent((safe.isEmpty ? "device" : safe) + ".json"))
        case .some(.postgres):
            return .store(source: deviceName)
        default:
            return .process
        }
    }
}

extension JSONEncoder {
    fileprivate static var calibration: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        encoder.nonConformingFloatEncodingStrategy = .throw
        return encoder
    }
}

extension JSONDecoder {
    fileprivate static var calibration: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
