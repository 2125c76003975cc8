import Foundation
import MotionService

/// Records the accelerometer at 50 Hz for later retrieval (kept 3 days).
open class CMSensorRecorder: NSObject, @unchecked Sendable {
    let service: MotionService

    public override init() {
        service = MotionService.current
        super.init()
    }

    /// Whether accelerometer recording is available: the device needs an accelerometer.
    open class func isAccelerometerRecordingAvailable() -> Bool { false }
    /// Authorization (see the README's authorization policy; `.authorized` by default).
    open class func authorizationStatus() -> CMAuthorizationStatus { Authorization.status }
    /// Whether recording is authorized.
    @available(*, deprecated, message: "Use authorizationStatus() instead")
    open class func isAuthorizedForRecording() -> Bool { Authorization.status == .authorized }

    /// Records the accelerometer at 50 Hz for `duration` seconds (at most 12 hours).
    open func recordAccelerometer(forDuration duration: TimeInterval) {}

    /// The recorded samples between the dates (a span of at most 12 hours), or `nil`.
    open func accelerometerData(from fromDate: Date, to toDate: Date) -> CMSensorDataList? { nil }
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
