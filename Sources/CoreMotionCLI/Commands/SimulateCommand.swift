import ArgumentParser
import Foundation
import MotionRecordings
import MotionSamples
import MotionSimulator

/// `coremotion simulate`: runs a simulator scene and writes its samples, or lists the scenes.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Write the samples of a simulated scene (or list the scenes).",
        discussion: """
            SCENE is a named scene (see --list) or a scene file (a path ending in .json).
            Samples are written as CSV, one per line: time,sensor,x,y,z (g, rad/s, µT; a barometer
            line has kPa in x and °C in y), or with -o FILE.cmrec in the project's recording format,
            with the ground-truth attitude and step times as reference data (--truth writes the
            whole truth as CSV). The same scene and seed always give identical samples.
            """
    )

    @Argument(help: "A named scene or a scene file (.json).")
    var scene: String?

    @Option(help: "Seconds of samples to write (default: one pass of the scene, the length --list gives).")
    var duration: Double?

    @Option(help: "Seed of the sensor noise and of the scene's random phases.")
    var seed: UInt64 = 0

    @Option(name: .shortAndLong, help: "Output file (.csv, or .cmrec with the ground truth); CSV on standard output when omitted.")
    var output: String?

    @Option(help: "Also write the ground truth (attitude, gravity, user acceleration, rotation rate, altitude, steps) as CSV to this file, at the accelerometer's times.")
    var truth: String?

    @Flag(help: "Leave out every sensor error (noise, bias, scale): exact physical values.")
    var ideal = false

    @Flag(help: "List the named scenes.")
    var list = false

    @Flag(help: "With --list: print JSON.")
    var json = false

    struct SceneInfo: Encodable {
        var name: String
        var summary: String
        var scriptSeconds: Double
        var ending: String
        var steps: Int
    }

    func validate() throws {
        if list { return }
        guard scene != nil else { throw ValidationError("give a SCENE (or --list to see them)") }
        if let duration, !(duration.isFinite && duration > 0) {
            throw ValidationError("--duration must be a positive number of seconds, found \(duration)")
        }
        if let output, !output.hasSuffix(".csv") && !output.hasSuffix(".cmrec") {
            throw ValidationError("--output must end in .csv or .cmrec, found '\(output)'")
        }
    }

    func run() throws {
        if list { return try listScenes() }
        guard let name = scene else { return }
        var chosen: Scene
        do {
            chosen = try SceneCatalog.resolve(name)
        } catch let error as SceneError {
            throw SimulateFailure(message: error.description)
        }
        if ideal { chosen = chosen.ideal }
        let simulation: Simulation
        do {
            simulation = try Simulation(scene: chosen, seed: seed)
        } catch let error as SceneError {
            throw SimulateFailure(message: error.description)
        }
        let duration = self.duration ?? simulation.script.duration
        var end = duration
        if let last = simulation.sampleDuration, last < duration {
            Output.note("note: scene '\(chosen.name)' stops after \(last) s; writing \(last) s")
            end = last
        }
        if let output, output.hasSuffix(".cmrec") {
            return try writeRecording(simulation, until: end, to: output)
        }
        let writer = try LineWriter(path: output)
        let truthWriter = try truth.map { try LineWriter(path: $0) }
        writer.write(SampleCSV.header)
        truthWriter?.write(SampleCSV.truthHeader)
        var source = simulation.makeSource()
        let progress = ProgressLine("simulate \(chosen.name)", total: end)
        var count = 0
        while let sample = source.next(), sample.time <= end {
            writer.write(SampleCSV.line(sample))
            if let truthWriter, sample.sensor == .accelerometer {
                truthWriter.write(SampleCSV.truthLine(simulation.truth(at: sample.time)))
            }
            count += 1
            if count % 4096 == 0 { progress.update(sample.time) }
        }
        progress.finish("\(count) samples")
        try writer.close()
        try truthWriter?.close()
        if output != nil { Output.note("wrote \(count) samples of '\(chosen.name)' (seed \(seed), \(end) s)") }
    }

    /// Writes the samples and the ground truth in the project's recording format.
    private func writeRecording(_ simulation: Simulation, until end: Double, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let steps = simulation.stepTimes(in: 0...end).count
        let writer: NativeRecordingWriter
        do {
            writer = try NativeRecordingWriter(url: url, metadata: simulation.recordingMetadata, stepTotal: steps)
        } catch {
            throw SimulateFailure(message: "\(error)")
        }
        var source = simulation.makeSource()
        let progress = ProgressLine("simulate \(simulation.scene.name)", total: end)
        var count = 0
        while let sample = source.next(), sample.time <= end {
            try writer.append(sample)
            count += 1
            if count % 4096 == 0 { progress.update(sample.time) }
        }
        try writer.append(reference: simulation.referenceData(duration: end))
        try writer.close()
        progress.finish("\(count) samples")
        if let truth {
            let truthWriter = try LineWriter(path: truth)
            truthWriter.write(SampleCSV.truthHeader)
            var again = simulation.makeSource()
            while let sample = again.next(), sample.time <= end {
                if sample.sensor == .accelerometer { truthWriter.write(SampleCSV.truthLine(simulation.truth(at: sample.time))) }
            }
            try truthWriter.close()
        }
        Output.note("wrote \(count) samples and the ground-truth attitude and steps of '\(simulation.scene.name)' (seed \(seed), \(end) s) to \(path)")
    }

    private func listScenes() throws {
        var infos: [SceneInfo] = []
        for scene in SceneCatalog.all {
            let simulation = try Simulation(scene: scene, seed: seed)
            infos.append(SceneInfo(
                name: scene.name, summary: scene.summary, scriptSeconds: simulation.script.duration,
                ending: scene.ending.rawValue, steps: simulation.script.scriptStepTimes.count
            ))
        }
        if json { return try Output.json(infos) }
        print(Output.table(
            ["scene", "seconds", "ending", "steps"],
            infos.map { [$0.name, Output.fixed($0.scriptSeconds, 1), $0.ending, "\($0.steps)"] }
        ))
        print("")
        for info in infos { print("\(info.name): \(info.summary)\n") }
        print("Scene files: coremotion simulate /path/scene.json (format: the MotionSimulator documentation, \"Scene files\").")
    }
}

/// A failure reported as `Error: message` without the usage text.
struct SimulateFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Buffered line output to a file or standard output.
final class LineWriter {
    private let handle: FileHandle
    private let path: String?
    private var buffer = Data()

    init(path: String?) throws {
        self.path = path
        if let path {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw SimulateFailure(message: "cannot create '\(path)'")
            }
            guard let h = FileHandle(forWritingAtPath: path) else { throw SimulateFailure(message: "cannot write '\(path)'") }
            handle = h
        } else {
            handle = FileHandle.standardOutput
        }
        buffer.reserveCapacity(1 << 16)
    }

    func write(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    private func flush() {
        handle.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    func close() throws {
        flush()
        if path != nil { try handle.close() }
    }
}
