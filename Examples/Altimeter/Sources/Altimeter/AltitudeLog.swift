import CoreMotion

/// Prints the altimeter's updates, one line each, and keeps what the summary at the end needs.
///
/// It lives on the main actor, like a view controller; both altimeter handlers run on the main queue
/// (`startRelativeAltitudeUpdates(to: .main)`), so they are main-actor code.
@MainActor
final class AltitudeLog {
    private let altimeter = CMAltimeter()
    private var firstTimestamp: TimeInterval?
    private var relativeUpdates = 0
    private var absoluteUpdates = 0
    private var lowest = Double.infinity
    private var highest = -Double.infinity
    private var latest = 0.0

    /// Whether there is nothing left to do (an error that ends the app).
    private(set) var isFinished = false
    /// The process's exit status: 0 unless the altimeter could not be used.
    private(set) var exitStatus: Int32 = 0

    func start() {
        guard CMAltimeter.isRelativeAltitudeAvailable() else {
            output("Relative altitude is not available on this device (it needs a barometer).\n")
            return finish(status: 1)
        }
        switch CMAltimeter.authorizationStatus() {
        case .authorized, .notDetermined:
            break  // notDetermined: iOS asks the user at the first start; the updates tell the answer.
        case .denied:
            output("Motion & Fitness access is denied for this app: the altimeter cannot be read.\n")
            return finish(status: 1)
        case .restricted:
            output("Motion & Fitness access is restricted by the administrator: the altimeter cannot be read.\n")
            return finish(status: 1)
        @unknown default:
            break
        }

        altimeter.startRelativeAltitudeUpdates(to: .main) { data, error in
            if let error { return self.failed(error) }
            guard let data else { return }
            self.relative(data)
        }
        if CMAltimeter.isAbsoluteAltitudeAvailable() {
            altimeter.startAbsoluteAltitudeUpdates(to: .main) { data, error in
                if let error { return self.failed(error) }
                guard let data else { return }
                self.absolute(data)
            }
        } else {
            output("Absolute altitude is not available on this device: relative altitude only.\n")
        }
    }

    func stop() {
        altimeter.stopRelativeAltitudeUpdates()
        altimeter.stopAbsoluteAltitudeUpdates()
        guard !isFinished else { return }
        if relativeUpdates == 0 {
            output("Stopped: no altitude update yet (the barometer reports about once a second).\n")
        } else {
            output(String(format: "Stopped: %d updates, relative altitude from %+.2f m to %+.2f m, last %+.2f m.\n",
                          relativeUpdates, lowest, highest, latest))
        }
    }

    /// `t   3.2 s  pressure 101.1893 kPa  relative altitude  +1.13 m`.
    private func relative(_ data: CMAltitudeData) {
        let metres = data.relativeAltitude.doubleValue
        relativeUpdates += 1
        latest = metres
        lowest = min(lowest, metres)
        highest = max(highest, metres)
        output(String(format: "t %5.1f s  pressure %.4f kPa  relative altitude %+6.2f m\n",
                      seconds(since: data.timestamp), data.pressure.doubleValue, metres))
    }

    /// `t   3.2 s  absolute altitude 121.4 m  (±3.0 m)`.
    private func absolute(_ data: CMAbsoluteAltitudeData) {
        absoluteUpdates += 1
        output(String(format: "t %5.1f s  absolute altitude %.1f m  (±%.1f m)\n",
                      seconds(since: data.timestamp), data.altitude, data.accuracy))
    }

    /// Seconds since the first update of either kind.
    private func seconds(since timestamp: TimeInterval) -> TimeInterval {
        if firstTimestamp == nil { firstTimestamp = timestamp }
        return timestamp - (firstTimestamp ?? timestamp)
    }

    private func failed(_ error: any Error) {
        let error = error as NSError
        if error.domain == CMErrorDomain && error.code == Int(CMErrorNotAuthorized.rawValue) {
            output("The user has not allowed this app to read the altimeter (Motion & Fitness).\n")
        } else {
            output("The altimeter failed: \(error.localizedDescription)\n")
        }
        altimeter.stopRelativeAltitudeUpdates()
        altimeter.stopAbsoluteAltitudeUpdates()
        finish(status: 1)
    }

    private func finish(status: Int32) {
        exitStatus = status
        isFinished = true
    }
}

/// Writes text at once (unbuffered), so that lines appear when they are made.
func output(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}
