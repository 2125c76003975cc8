import Foundation

// Handler types keep Apple's shapes: plain (non-`@Sendable`) closures taking `(any Error)?`, so that app
// code may mutate captured state in them exactly as on iOS. The library absorbs Swift 6 strictness
// internally (see `UncheckedBox`).

/// Receives accelerometer samples.
public typealias CMAccelerometerHandler = (CMAccelerometerData?, (any Error)?) -> Void
/// Receives gyroscope samples.
public typealias CMGyroHandler = (CMGyroData?, (any Error)?) -> Void
/// Receives device-motion samples.
public typealias CMDeviceMotionHandler = (CMDeviceMotion?, (any Error)?) -> Void
/// Receives magnetometer samples.
public typealias CMMagnetometerHandler = (CMMagnetometerData?, (any Error)?) -> Void

/// Carries a non-`Sendable` value (an app's handler) across the library's internal threads. The
/// library only ever calls a handler on the queue the app gave, as Apple's does.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
