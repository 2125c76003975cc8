// `coremotion view`'s server reading a page: whatever a browser sends in one WebSocket text message,
// decoded as `PageCommand`. Hostile bytes must give a `PageCommandError`, never a crash; a message that
// decodes must re-encode to text that decodes to the same command, and encode the same way again.
import FuzzSupport
import MotionLiveViewProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let command = try? PageCommand.decode(bytes) else { return 0 }
    let text = command.encoded
    guard let again = try? PageCommand.decode(Array(text.utf8)) else {
        fatalError("\(command) encodes to \(text), which does not decode")
    }
    precondition(again == command, "\(command) → \(text) → \(again)")
    precondition(again.encoded == text, "the encoding of \(command) is not stable")
    return 0
}

/// The process's entry point: libFuzzer's driver (see FuzzSupport/FuzzDriver.swift for why it is not `main`).
@_cdecl("PageCommandFuzzer_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}
