import Foundation
import MotionEngine
import MotionHistory

/// What the fusion has learned about the device's own sensor errors: the gyroscope bias and the
/// magnetometer's hard- and soft-iron calibration.
///
/// iOS keeps estimating these all day, so an app that starts device motion gets a filter that is
/// already calibrated. Here the service keeps them from one run of the fusion to the next while the
/// process lives, and, for real hardware (`COREMOTION_DEVICE` = `auto` or `iio`), in a small JSON file
/// beside the history store (`calibration/<device>.json`), so that the next process starts warm too.
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

/// Keeps a device's ``SensorCalibrationState`` between runs of the fusion (see there).
final class SensorCalibrationMemory: @unchecked Sendable {  // @unchecked: `state` and `readFile` are guarded by `lock`; `file` is a `let`
    /// The file for real hardware, `nil` for replays, simulations and in-memory history.
    let file: URL?
    private let lock = NSLock()
    private var state: SensorCalibrationState?
    private var readFile = false

    init(file: URL?) {
        self.file = file
    }

    /// The last saved state: this process's, else the file's (read once; a damaged file is ignored
    /// and overwritten at the next save).
    func load() -> SensorCalibrationState? {
        lock.lock()
        defer { lock.unlock() }
        if state == nil, !readFile, let file {
            readFile = true
            if let data = try? Data(contentsOf: file),
               let saved = try? JSONDecoder.calibration.decode(SensorCalibrationState.self, from: data), saved.isValid {
                state = saved
            }
        }
        return state
    }

    /// Remembers `newState` and, for real hardware, writes it to the file (atomically). Returns the
    /// write error, if any.
    @discardableResult
    func save(_ newState: SensorCalibrationState) -> (any Error)? {
        guard newState.isValid else { return nil }
        lock.lock()
        state = newState
        readFile = true
        lock.unlock()
        guard let file else { return nil }
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try JSONEncoder.calibration.encode(newState).write(to: file, options: .atomic)
            return nil
        } catch {
            return error
        }
    }

    /// Where real hardware keeps its calibration: `calibration/<device>.json` beside the history file;
    /// `nil` when the history is in memory or has no known location.
    static func file(for deviceName: String, history: HistoryLocation?) -> URL? {
        let location = history ?? (try? HistoryLocation.fromEnvironment())
        guard case .file(let historyFile) = location else { return nil }
        let safe = String(deviceName.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
        return historyFile.deletingLastPathComponent()
            .appendingPathComponent("calibration", isDirectory: true)
            .appendingPathComponent((safe.isEmpty ? "device" : safe) + ".json")
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
