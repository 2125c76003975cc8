// MotionClient: the one interface the `CoreMotion` API talks to.
//
// Two implementations serve it: the in-process service (`MotionService.MotionService`: the device
// and the engines run inside the app's own process, as tests, recordings and the simulator want) and the
// connection to the system service (`MotionDaemonClient.DaemonConnection`: `coremotiond` owns the device,
// runs the engines once for every process and keeps the history). The API never knows which one it has.
@_exported import MotionSamples
