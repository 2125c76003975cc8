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

/// Carries a non-`Sendable` value across the library's internal threads: an app's handler (the library only
/// ever calls it on the queue the app gave, as Apple's does), or a sample object on its way from the
/// provider's thread to the app's queue.
///
/// The API's classes are not `Sendable`, as Apple declares them (plain `NSObject` subclasses, e.g.
/// https://developer.apple.com/documentation/coremotion/cmlogitem lists no `Sendable` conformance). The
/// sample objects the library makes are immutable (every stored property a `let`), and the thread that
/// makes one never touches it again after handing it over: that is what makes this box sound.
struct UncheckedBox<Value>: @unchecked Sendable {  // @unchecked: boxes an app handler run only on its queue, or an immutable sample handed off once
    let value: Value
    init(_ value: Value) { self.value = value }
}
