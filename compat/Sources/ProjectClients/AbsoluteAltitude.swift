import CoreMotion

/// A hiking app's elevation: `CMAbsoluteAltitudeData` on a recording of an iPhone 13 climbing 9 m
/// (120 m → 129 m above sea level; the committed hand-made `ios-climb` export with GNSS fixes every
/// 3 s, played 4× fast). Absolute altitude is available on that model; the altitude stays within two
/// of its accuracies of the truth, the accuracy is a plausible 1σ, and updates come only when the
/// altitude changed by the precision.
func absoluteAltitude(_ e: Expectations) {
    e.check(CMAltimeter.isAbsoluteAltitudeAvailable(), "absolute altitude not available on a recording of an iPhone 13")
    guard CMAltimeter.isAbsoluteAltitudeAvailable() else { return }
    let altimeter = CMAltimeter()
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let absolute = AbsoluteAltitudeLog()
    let relative = AltitudeLog()
    altimeter.startAbsoluteAltitudeUpdates(to: queue) { data, error in
        if let data, error == nil { absolute.append(data) }
    }
    altimeter.startRelativeAltitudeUpdates(to: queue) { data, error in
        if let data, error == nil { relative.append(data) }
    }
    Thread.sleep(forTimeInterval: 23)  // the 90 s recording at 4×
    altimeter.stopAbsoluteAltitudeUpdates()
    altimeter.stopRelativeAltitudeUpdates()
    queue.waitUntilAllOperationsAreFinished()
    let all = absolute.all
    e.check(all.count >= 10, "\(all.count) absolute altitude updates")
    guard let first = all.first, let last = all.last else { return }
    e.check(abs(first.altitude - 120) <= 2 * first.accuracy, "first \(first.altitude) m ± \(first.accuracy) (truth 120 m)")
    e.check(abs(last.altitude - 129) <= 2 * last.accuracy, "last \(last.altitude) m ± \(last.accuracy) (truth 129 m)")
    e.check(all.allSatisfy { $0.accuracy > 0.5 && $0.accuracy < 10 }, "accuracy outside 0.5…10 m")
    e.check(all.allSatisfy { $0.precision > 0 && $0.precision <= 1 }, "precision outside 0…1 m")
    let steps = zip(all, all.dropFirst()).map { abs($1.altitude - $0.altitude) }
    e.check(zip(steps, all.dropFirst()).allSatisfy { $0 >= $1.precision * 0.999 }, "an update that changed less than the precision")
    e.check(zip(all, all.dropFirst()).allSatisfy { $1.timestamp > $0.timestamp }, "timestamps not increasing")
    let climbed = (relative.all.last?.relativeAltitude.doubleValue ?? 0) - (relative.all.first?.relativeAltitude.doubleValue ?? 0)
    e.check(abs(climbed - 9) < 0.3, "relative altitude climbed \(climbed) m of 9")
    e.note("\(all.count) updates, \(String(format: "%.1f", first.altitude)) ± \(String(format: "%.1f", first.accuracy)) m → "
        + "\(String(format: "%.1f", last.altitude)) ± \(String(format: "%.1f", last.accuracy)) m, relative +\(String(format: "%.2f", climbed)) m")
}

/// `CMAbsoluteAltitudeData` collected from a handler on an operation queue.
final class AbsoluteAltitudeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [CMAbsoluteAltitudeData] = []
    func append(_ item: CMAbsoluteAltitudeData) { lock.lock(); items.append(item); lock.unlock() }
    var all: [CMAbsoluteAltitudeData] { lock.lock(); defer { lock.unlock() }; return items }
}
