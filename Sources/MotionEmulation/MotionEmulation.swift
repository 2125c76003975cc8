// MotionEmulation: stand-ins for sensor hardware, for tests, benchmarks, fuzzers, `coremotion iio-emulate` and
// `coremotion phone-emulate`. Never linked by an app, the daemon or `CoreMotion`.
//
// Folders:
// - `IIO/`    fake sysfs trees with the layouts of real drivers (`IIOFakeTree`, `IIOFakeDevice`), the emulator that
//             plays samples into them as the kernel would (`IIOEmulator`), a gentle synthetic motion to play
//             (`IIOSyntheticMotion`)
// - `Phones/` fake phones on a local port: phyphox's remote access (`PhyphoxEmulator`) and a SensorServer
//             WebSocket (`SensorServerEmulator`), both played from a `PhoneEmulationSource` (a recording or a
//             synthetic phone); Sensor Logger's push bodies in the app's shape (`SensorLoggerPushWriter`)
//
// Design notes: docs/iio.md, docs/network.md ("Fake phones for tests and demos").
