// MotionDaemonClient: a process's connection to `coremotiond`, the second implementation of the client
// interface (`MotionProvider`). The `CoreMotion` API uses it when COREMOTION_DEVICE is `service[:PATH]`,
// or `auto` and the daemon's socket answers; tools use it for `coremotion service status` and
// `coremotion permissions`.
@_exported import MotionClient
@_exported import MotionProtocol
