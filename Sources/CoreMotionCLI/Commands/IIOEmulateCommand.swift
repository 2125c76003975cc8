import ArgumentParser
import Dispatch
import Foundation
import MotionEmulation
import MotionIIO
import MotionSimulator

/// `coremotion iio-emulate`: builds a fake IIO tree with real drivers' layouts and feeds it
/// samples, so that `COREMOTION_DEVICE=iio:ROOT` can be exercised without hardware.
struct IIOEmulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iio-emulate",
        abstract: "Emulate Linux IIO motion sensors in a fake sysfs tree (for tests and demos without hardware).",
        discussion: """
            Creates ROOT with one iio:deviceN per driver layout (attribute names, formats, scan types
            and indices of the real kernel drivers) and keeps it fed: the latest sample of each sensor
            is written to the _raw/_input attributes at the rate in the device's sampling_frequency
            attribute, and while buffer/enable is 1, scans laid out from the _en attributes are written
            to ROOT/dev/iio:deviceN (a FIFO by default). Samples come from a synthetic hand-held
            motion (|a| = 1 g, 47 µT field, 101.3 kPa). Runs until interrupted or --duration ends.

            Drivers: \(IIOFakeDevice.catalog.keys.sorted().joined(separator: ", ")).

            Example:
              coremotion iio-emulate --root /tmp/iio --driver bmi160 --driver lis3mdl --driver bmp280 &
              COREMOTION_DEVICE=iio:/tmp/iio my-app
            """
    )

    @Option(help: "Folder to create the fake tree in (must be empty or absent, unless --reuse).")
    var root: String

    @Option(name: .customLong("driver"), help: "Driver layout to add (repeatable).")
    var drivers: [String] = ["bmi160", "lis3mdl", "bmp280"]

    @Option(help: "What stands for /dev/iio:deviceN: fifo or file.")
    var node: String = "fifo"

    @Option(help: "Replace every sampling_frequency_available list with these rates (space-separated Hz).")
    var rates: String?

    @Option(help: "Drop offered rates above this (Hz); the compatibility clients expect a 100 Hz device.")
    var maxRate: Double?

    @Option(help: "Rate of the synthetic motion, Hz.")
    var sourceRate: Double = 200

    @Option(help: "Seed of the synthetic noise.")
    var seed: UInt64 = 0x5EED

    @Option(help: "Stop after this many seconds (default: run until interrupted).")
    var duration: Double?

    @Flag(help: "Do not write the _raw attributes (buffered capture only; lighter at high rates).")
    var noAttributes = false

    @Flag(help: "Use ROOT even if it is not empty (its contents are replaced).")
    var reuse = false

    @Option(help: "Write this file once the tree is ready (for scripts waiting on the emulator).")
    var readyFile: String?

    func validate() throws {
        for d in drivers where IIOFakeDevice.catalog[d] == nil {
            throw ValidationError(NameSuggestion.unknown("driver", d, among: IIOFakeDevice.catalog.keys.sorted()))
        }
        if IIOFakeTree.NodeKind(rawValue: node) == nil { throw ValidationError("--node must be fifo or file") }
        if let rates, IIORates(parsing: rates) == nil { throw ValidationError("--rates must be numbers in Hz, e.g. \"10 50 100\"") }
        if let maxRate, !(maxRate > 0) { throw ValidationError("--max-rate must be positive") }
        if !(sourceRate > 0 && sourceRate.isFinite) { throw ValidationError("--source-rate must be positive") }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive") }
    }

    func run() throws {
        let fm = FileManager.default
        let url = URL(fileURLWithPath: root)
        if fm.fileExists(atPath: root) {
            let contents = (try? fm.contentsOfDirectory(atPath: root)) ?? []
            if !contents.isEmpty {
                guard reuse else { throw ValidationError("\(root) is not empty; pass --reuse to replace its contents") }
                for c in contents { try fm.removeItem(atPath: root + "/" + c) }
            }
        }
        let tree = try IIOFakeTree(root: url)
        var names: [String] = []
        var index = 0
        for driver in drivers {
            for var layout in IIOFakeDevice.catalog[driver]!() {
                adjustRates(&layout)
                names.append(try tree.add(layout, index: index, node: IIOFakeTree.NodeKind(rawValue: node)!))
                index += 1
            }
        }
        let emulator = IIOEmulator(
            tree: tree, devices: names, source: IIOSyntheticMotion(rate: sourceRate, seed: seed),
            options: IIOEmulator.Options(writeAttributes: !noAttributes))
        emulator.start()
        Output.note("iio-emulate: \(names.count) device(s) under \(root): "
            + names.map { "\($0)=\(tree.device($0)?.name ?? "?")" }.joined(separator: ", "))
        if let readyFile { try Data("ready\n".utf8).write(to: URL(fileURLWithPath: readyFile)) }

        let done = DispatchSemaphore(value: 0)
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let sources = [SIGINT, SIGTERM].map { sig -> any DispatchSourceSignal in
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { done.signal() }
            s.resume()
            return s
        }
        if let duration {
            _ = done.wait(timeout: .now() + duration)
        } else {
            done.wait()
        }
        sources.forEach { $0.cancel() }
        emulator.stop()
        let s = emulator.statistics
        Output.note("iio-emulate: stopped after \(s.ticks) ticks, \(s.scansWritten) scans written, \(s.scansDropped) dropped")
    }

    /// Applies --rates and --max-rate to every rate list (and clamps the current rate into it).
    private func adjustRates(_ layout: inout IIOFakeDevice) {
        for key in layout.attributes.keys where key.hasSuffix("sampling_frequency_available") {
            var list = SysfsNumber.list(rates ?? layout.attributes[key]!) ?? []
            if let maxRate {
                let kept = list.filter { $0 <= maxRate }
                list = kept.isEmpty ? [list.min() ?? maxRate] : kept
            }
            layout.attributes[key] = list.map(SysfsNumber.format).joined(separator: " ") + "\n"
        }
        for key in layout.attributes.keys where key.hasSuffix("sampling_frequency") {
            let available = layout.attributes[key + "_available"] ?? layout.attributes["sampling_frequency_available"]
            guard let list = available.flatMap(SysfsNumber.list), let current = SysfsNumber.double(layout.attributes[key]!) else { continue }
            if !list.contains(current) { layout.attributes[key] = SysfsNumber.format(list.first { $0 >= current } ?? list.last!) + "\n" }
        }
    }
}
