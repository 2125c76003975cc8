// MotionEmulation: stand-ins for sensor hardware, for tests, benchmarks and `coremotion iio-emulate`. Never
// linked by an app, the daemon or `CoreMotion`.
//
// Folders:
// - `IIO/` fake sysfs trees with the layouts of real drivers (`IIOFakeTree`, `IIOFakeDevice`), the emulator that
//          plays samples into them as the kernel would (`IIOEmulator`), a gentle synthetic motion to play
//          (`IIOSyntheticMotion`)
//
// The phones' emulators (`coremotion phone-emulate`) still live in MotionNetwork (`Emulation/`).
// Design notes: docs/iio.md.
