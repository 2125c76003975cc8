import Foundation
import MotionService

/// Records the accelerometer at 50 Hz for later retrieval (kept 3 days, queried in spans of at most
/// 12 hours).
///
/// Recording happens in this library's per-process service: it runs while a process using the device
/// is alive (there is no system daemon yet). Requests are kept in the history
/// (`COREMOTION_HISTORY`), so a later process on the same device resumes a request that has not ended
/// as soon as it makes a `CMSensorRecorder`. Samples are available at once (Apple allows up to
/// 3 minutes of delay).
open class CMSensorRecorder: NSObject, @unchecked Sendable {
    let service: MotionService

    public override init() {
        service = MotionService.current
        super.init()
        service.resumeAccelerometerRecording()
    }

    /// Whether accelerometer recording is available: the device needs an accelerometer and the history
    /// must be writable.
    open class func isAccelerometerRecordingAvailable() -> Bool {
        let service = MotionService.current
        return service.has(.accelerometer) && service.history != nil
    }
    /// Authorization (see the README's authorization policy; `.authorized` by default).
    open class func authorizationStatus() -> CMAuthorizationStatus { Authorization.status }
    /// Whether recording is authorized.
    @available(*, deprecated, message: "Use authorizationStatus() instead")
    open class func isAuthorizedForRecording() -> Bool { Authorization.status == .authorized }

    /// Records the accelerometer at 50 Hz for `duration` seconds from now (at most 12 hours; longer
    /// requests are cut to 12 hours). Recording ends by itself; there is no stop.
    open func recordAccelerometer(forDuration duration: TimeInterval) {
        guard Authorization.allowsData, duration.isFinite, duration > 0 else { return }
        do {
            try service.recordAccelerometer(forDuration: min(duration, 43_200))
        } catch {
            service.logger.error("recordAccelerometer(forDuration: \(duration)): \(error)")
        }
    }

    /// The recorded samples between the dates, in time order, or `nil` when the span is longer than
    /// 12 hours, inverted, or the history cannot be read.
    open func accelerometerData(from fromDate: Date, to toDate: Date) -> CMSensorDataList? {
        guard Authorization.allowsData, toDate >= fromDate, toDate.timeIntervalSince(fromDate) <= 43_200 else { return nil }
        do {
            let samples = try service.recordedAccelerometer(from: fromDate, to: toDate)
            let clock = service.clock
            return CMSensorDataList(samples.map { s in
                CMRecordedAccelerometerData(
                    identifier: s.identifier, startDate: s.date,
                    acceleration: CMAcceleration(x: s.acceleration.x, y: s.acceleration.y, z: s.acceleration.z),
                    timestamp: clock.time(at: s.date)
                )
            })
        } catch {
            service.logger.error("accelerometerData(from:to:): \(error)")
            return nil
        }
    }
}

/// The samples returned by ``CMSensorRecorder``: `CMRecordedAccelerometerData` objects in time order.
///
/// On Apple's platforms the list only supports Objective-C fast enumeration; here it is a Swift
/// `Sequence` (of `Any`, so `for case let s as CMRecordedAccelerometerData in list` works as written
/// for iOS). Enumerate it from one thread at a time.
open class CMSensorDataList: NSObject, Sequence, @unchecked Sendable {
    let items: [CMRecordedAccelerometerData]

    public override init() {
        items = []
        super.init()
    }

    init(_ items: [CMRecordedAccelerometerData]) {
        self.items = items
        super.init()
    }

    public func makeIterator() -> IndexingIterator<[Any]> { (items as [Any]).makeIterator() }
}
