@_exported import MotionSamples

// MotionIIO: Linux Industrial I/O motion sensors as a `MotionDevice`.
//
// Folders:
// - `Sysfs/`      reading and writing sysfs attributes (errno-aware), locale-independent numbers, errors
// - `Discovery/`  finding accelerometer, gyroscope, magnetometer and pressure channels under a root
// - `Scan/`       `scan_elements` type strings, scan layout, decoding of buffered scans
// - `Conversion/` raw counts → Apple's axes and units (scale, offset, mount matrix, sign, units)
// - `Capture/`    polled and buffered capture threads, timestamp clocks, loss and return
//
// Entry point: `IIODevice.discover(root:)`. Fake trees and the emulator that feeds them: `MotionEmulation`.
// Design notes: docs/iio.md.
