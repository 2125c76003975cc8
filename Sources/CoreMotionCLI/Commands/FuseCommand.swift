import ArgumentParser
import Foundation
import MotionEngine
import MotionEvaluation
import MotionRecordings
import MotionSamples
import MotionService

/// `coremotion fuse`: runs the fusion engine over a recording and writes the attitude per sample.
struct FuseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuse",
        abstract: "Fuse a recording's raw sensors into device motion and write one row per accelerometer sample.",
        discussion: """
            Output columns: t,qw,qx,qy,qz (attitude, device → reference frame, Hamilton, scalar first), then
            gravity gx,gy,gz and user acceleration ux,uy,uz (g), gyro bias bx,by,bz (rad/s), heading (degrees).
            Prints us_per_sample=N: the time of the fusion work alone (the device-motion estimator over all samples,
            best of three passes, no file I/O, estimates not stored) per accelerometer sample.
            COREMOTION_TRACE_CALIBRATION=1 prints the magnetometer calibration's changes on standard error.
            """
    )

    @Argument(help: "Recording to fuse (any format the recording readers know).")
    var file: String

    @Option(help: "Reference frame: xArbitraryZVertical, xArbitraryCorrectedZVertical, xMagneticNorthZVertical, xTrueNorthZVertical.")
    var frame: String = "xMagneticNorthZVertical"

    @Option(help: "Magnetic declination for xTrueNorthZVertical, degrees east (default: the World Magnetic Model 2025 at COREMOTION_LOCATION, else at the recording's first GPS fix).")
    var declination: Double?

    @Option(help: "Output CSV path ('-' for standard output).")
    var output: String = "-"

    @Option(name: .customLong("set"), help: "Override a fusion setting, NAME=VALUE (repeatable); see `coremotion evaluate --list-settings`.")
    var overrides: [String] = []

    func run() throws {
        guard let referenceFrame = AttitudeReferenceFrame(name: frame) else {
            throw ValidationError("unknown frame '\(frame)'; use one of \(AttitudeReferenceFrame.allCases.map(\.description).joined(separator: ", "))")
        }
        let recording = try RecordingReader.read(file)
        let declinationRadians = referenceFrame == .xTrueNorthZVertical ? try trueNorthDeclination(recording) : 0
        var settings = FusionFilter.Settings()
        try reportingAsUsage { try SettingsOverrides.apply(overrides, to: &settings) }
        let samples = FusionRun.mergedSamples(recording, useMagnetometer: referenceFrame.usesMagnetometer)
        // Timing pass: the estimator alone (every estimate is consumed, none is stored), best of three.
        let clock = ContinuousClock()
        var best = Duration.seconds(1_000_000)
        var checksum = 0.0
        var produced = 0
        for _ in 0..<3 {
            var estimator = DeviceMotionEstimator(settings: settings)
            var count = 0
            let elapsed = clock.measure {
                for s in samples {
                    if let e = estimator.add(s) { checksum += e.attitude9D.w; count += 1 }
                }
                while let e = estimator.flush() { checksum += e.attitude9D.w; count += 1 }
            }
            best = min(best, elapsed)
            produced = count
        }
        if !checksum.isFinite { Output.note("warning: non-finite attitude") }

        // Output pass.
        var run = FusionRun(settings: settings, frame: AttitudeFrame(referenceFrame, declination: declinationRadians))
        var estimates: [DeviceMotionEstimate] = []
        estimates.reserveCapacity(recording.accelerometer.count)
        let trace = ProcessInfo.processInfo.environment["COREMOTION_TRACE_CALIBRATION"] != nil
        var calibrations: [(Double, MagnetometerCalibration)] = []
        do {
            run.process(samples) { run, e in
                estimates.append(e)
                if trace, run.estimator.magnetometerCalibration != calibrations.last?.1 {
                    calibrations.append((e.time, run.estimator.magnetometerCalibration))
                }
            }
        }
        for (t, c) in calibrations {
            Output.note("t=\(Output.fixed(t, 2)) hardIron=\(c.hardIron) accuracy=\(c.accuracy)")
        }
        var text = "t,qw,qx,qy,qz,gx,gy,gz,ux,uy,uz,bx,by,bz,heading\n"
        text.reserveCapacity(estimates.count * 200)
        var frameState = AttitudeFrame(referenceFrame, declination: declinationRadians)
        var lastAccuracy = MagnetometerCalibrationAccuracy.uncalibrated
        for e in estimates {
            if trace && e.magneticFieldAccuracy != lastAccuracy {
                lastAccuracy = e.magneticFieldAccuracy
                Output.note("t=\(Output.fixed(e.time, 2)) accuracy=\(e.magneticFieldAccuracy) bias=\(e.gyroBias)")
            }
            let q = frameState.attitude(for: e)
            let h = frameState.heading(of: q)
            let cols: [Double] = [e.accelerometerTime, q.w, q.x, q.y, q.z, e.gravity.x, e.gravity.y, e.gravity.z,
                                  e.userAcceleration.x, e.userAcceleration.y, e.userAcceleration.z,
                                  e.gyroBias.x, e.gyroBias.y, e.gyroBias.z, h]
            text += cols.map { String($0) }.joined(separator: ",") + "\n"
        }
        if output == "-" {
            Output.write(Data(text.utf8))
        } else {
            try text.write(toFile: output, atomically: true, encoding: .utf8)
        }
        let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) * 1e-18
        let us = seconds * 1e6 / Double(max(1, produced))
        print("us_per_sample=\(String(format: "%.4f", us))")
    }

    /// The declination for the true-north frame, radians: `--declination`, else the World Magnetic
    /// Model at `COREMOTION_LOCATION` or at the recording's first location, on the recording's date.
    private func trueNorthDeclination(_ recording: Recording) throws -> Double {
        if let declination {
            guard declination.isFinite, abs(declination) <= 180 else {
                throw ValidationError("--declination \(declination) must be degrees east between -180 and 180")
            }
            return declination * Double.pi / 180
        }
        let date = recording.metadata.startDate ?? Date()
        let location: GeographicLocation
        if let configured = try GeographicLocation.fromEnvironment() {
            location = configured
        } else if let fix = recording.location.first(where: { $0.latitude.isFinite && $0.longitude.isFinite }) {
            // The World Magnetic Model takes the height above the ellipsoid (within tens of metres of
            // the altitude above sea level, which changes the declination by far less than 0.01°).
            location = GeographicLocation(latitude: fix.latitude, longitude: fix.longitude, altitude: fix.ellipsoidalAltitude ?? fix.altitude ?? 0)
        } else {
            throw ValidationError("""
                xTrueNorthZVertical needs the magnetic declination: pass --declination DEGREES or set \
                COREMOTION_LOCATION=lat,lon[,alt_m] (\(file) has no location of its own)
                """)
        }
        guard let radians = location.declination(on: date) else {
            throw ValidationError("the World Magnetic Model could not be evaluated at \(location)")
        }
        Output.note("declination \(Output.fixed(radians * 180 / Double.pi, 2))° east at \(location) (WMM2025)")
        return radians
    }
}
