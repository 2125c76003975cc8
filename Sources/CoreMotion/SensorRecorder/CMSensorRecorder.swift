import Foundation
import MotionClient

/// Records the accelerometer at 50 Hz for later retrieval (kept 3 days, queried in spans of at most
/// 12 hours).
///
/// Through `coremotiond`, recording goes on after the app exits, as on Apple's devices; requests from
/// different apps add up (recording lasts until the last one ends), and queries need the app to be
/// `.authorized`. In process, recording runs while the process is alive; requests are kept in the history
/// (`COREMOTION_HISTORY`), so a later process on the same device resumes a request that has not ended as
/// soon as it makes a `CMSensorRecorder`. Samples are available at once (Apple allows up to 3 minutes of
/// delay).
open class CMSensorRecorder: NSObject {
    let provider: any MotionProvider

    /// A recorder on the process's motion service. In process, making one resumes a recording request
    /// of an earlier process that has not ended yet (the request is kept in the history).
    public override init() {
        provider = MotionProviders.current
        super.init()
        provider.resumeAccelerometerRecording()
    }

    /// Whether accelerometer recording is available: the device needs an accelerometer and the history
    /// must be writable.
    open class func isAccelerometerRecordingAvailable() -> Bool {
        MotionProviders.current.isAccelerometerRecordingAvailable
    }
    /// Authorization: the daemon's decision for this user and app, or `.authorized` in process.
    open class func authorizationStatus() -> CMAuthorizationStatus { Authorization.status }
    /// Whether recording is authorized.
    @available(*, deprecated, message: "Use authorizationStatus() instead")
    open class func isAuthorizedForRecording() -> Bool { Authorization.status == .authorized }

    /// Records the accelerometer at 50 Hz for `duration` seconds from now (at most 12 hours; longer
    /// requests are cut to 12 hours). Recording ends by itself; there is no stop.
    open func recordAccelerometer(forDuration duration: TimeInterval) {
        guard Authorization.refusal(provider, history: true) == nil, duration.isFinite, duration > 0 else { return }
        do {
            try provider.recordAccelerometer(forDuration: min(duration, 43_200))
        } catch {
            provider.logger.error("recordAccelerometer(forDuration: \(duration)): \(error)")
        }
    }

    /// The recorded samples between the dates, in time order, or `nil` when the span is longer than
    /// 12 hours, inverted, or the history cannot be read.
    open func accelerometerData(from fromDate: Date, to toDate: Date) -> CMSensorDataList? {
        guard Authorization.refusal(provider, history: true) == nil, toDate >= fromDate,
              toDate.timeIntervalSince(fromDate) <= 43_200 else { return nil }
        do {
            let samples = try provider.recordedAccelerometer(from: fromDate, to: toDate)
            let clock = provider.clock
            return CMSensorDataList(samples.map { s in
                CMRecordedAccelerometerData(
                    identifier: s.identifier, startDate: s.date,
                    acceleration: CMAcceleration(x: s.acceleration.x, y: s.acceleration.y, z: s.acceleration.z),
                    timestamp: clock.time(at: s.date)
                )
            })
        } catch {
            provider.logger.error("accelerometerData(from:to:): \(error)")
            return nil
        }
    }
}

/// The samples returned by ``CMSensorRecorder``: `CMRecordedAccelerometerData` objects in time order.
///
/// On Apple's platforms the list only supports Objective-C fast enumeration; here it is a Swift
/// `Sequence` (of `Any`, so `for case let s as CMRecordedAccelerometerData in list` works as written
/// for iOS). Enumerate it from one thread at a time.
open class CMSensorDataList: NSObject, Sequence {
    let items: [CMRecordedAccelerometerData]

    /// An empty list.
    public override init() {
        items = []
        super.init()
    }

    init(_ items: [CMRecordedAccelerometerData]) {
        self.items = items
        super.init()
    }

    /// Iterates over the samples, each a ``CMRecordedAccelerometerData`` typed `Any`.
    public func makeIterator() -> IndexingIterator<[Any]> { (items as [Any]).makeIterator() }
}
