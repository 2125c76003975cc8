// MotionDaemon: `coremotiond`'s library. One service for every process of the machine: it owns the device,
// runs the engines once, records pedometer, activity and accelerometer history whether or not an app runs,
// and serves each client its own streams over a Unix stream socket (docs/service.md, docs/protocol.md).
@_exported import MotionClient
@_exported import MotionSamples
