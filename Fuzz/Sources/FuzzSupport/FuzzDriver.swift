import CLibFuzzer
import Foundation

/// The fuzzers' `main`.
///
/// SwiftPM (tools version 5.5 and later) links an executable target with `--defsym main=<Target>_main`,
/// which takes the place of libFuzzer's own `main`. So each fuzz target defines `<Target>_main` and calls
/// ``run(_:_:_:)``, which hands over to libFuzzer's driver as libFuzzer's `main` would. Built without
/// `-sanitize=fuzzer` there is no libFuzzer: the program then runs each input file it is given (or every
/// file of a folder) once, which reproduces a crash without the sanitizers.
public enum FuzzDriver {
    public typealias Callback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    public static func run(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ callback: Callback
    ) -> CInt {
        if CLibFuzzerIsLinked() != 0 {
            var argc = argc
            var argv = argv
            return CLibFuzzerRunDriver(&argc, &argv, callback)
        }
        let arguments = CommandLine.arguments
        let name = URL(fileURLWithPath: arguments.first ?? "fuzzer").lastPathComponent
        var inputs: [URL] = []
        for argument in arguments.dropFirst() where !argument.hasPrefix("-") {
            let url = URL(fileURLWithPath: argument)
            if let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) {
                inputs += names.sorted().map { url.appendingPathComponent($0) }
            } else {
                inputs.append(url)
            }
        }
        print("\(name) was built without libFuzzer (-sanitize=fuzzer): running \(inputs.count) inputs once")
        for input in inputs {
            guard let data = FileManager.default.contents(atPath: input.path) else {
                print("cannot read \(input.path)")
                return 1
            }
            let bytes = [UInt8](data) + [0]  // never an empty buffer: the pointer is not null
            _ = bytes.withUnsafeBufferPointer { callback($0.baseAddress, data.count) }
        }
        print("\(inputs.count) inputs passed")
        return 0
    }
}
