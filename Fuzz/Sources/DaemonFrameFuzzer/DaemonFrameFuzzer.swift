// The client's side of the socket: whatever the daemon (or something posing as it) sends, split with the
// daemon limit (1 MiB) and decoded as `DaemonMessage`. See FuzzSupport/FrameFuzzing.swift for the checks.
import FuzzSupport
import MotionProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FrameFuzzing.check(UnsafeBufferPointer(start: data, count: size), as: DaemonMessage.self, limit: FrameHeader.maximumDaemonFrame)
    return 0
}

/// The process's entry point: libFuzzer's driver (see FuzzSupport/FuzzDriver.swift for why it is not `main`).
@_cdecl("DaemonFrameFuzzer_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}
