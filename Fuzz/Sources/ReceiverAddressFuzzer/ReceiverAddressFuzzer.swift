// The Sensor Logger receiver judging a request's `Host` and `Origin` headers (outside bytes): whatever a
// peer sends, the checks never crash, and a text they call loopback is a numeric address and nothing else
// (no name, no NUL-cut string such as "127.0.0.1\0.example.com"); an origin they call the receiver's own
// names a local host on the expected port.
import FuzzSupport
import MotionNetwork

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    if SensorLoggerAddress.isLoopback(text) {
        precondition(!text.utf8.contains(0), "a string with a NUL counted as loopback")
        precondition(text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x3A) || $0 == 0x2E || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) },
                     "\(text.debugDescription) counted as loopback")
    }
    if let name = SensorLoggerAddress.name(ofAuthority: text) {
        precondition(!name.isEmpty, "an empty name from \(text.debugDescription)")
        if SensorLoggerAddress.isLocalName(name) {
            precondition(name.lowercased() == "localhost" || SensorLoggerAddress.isLoopback(name))
        }
    }
    if SensorLoggerAddress.isOwnOrigin(text, port: 8000) {
        precondition(text.lowercased().hasPrefix("http://"), "\(text.debugDescription) taken as the receiver's own origin")
        precondition(!text.dropFirst(7).contains("/"))
    }
    return 0
}

/// The process's entry point: libFuzzer's driver (see FuzzSupport/FuzzDriver.swift for why it is not `main`).
@_cdecl("ReceiverAddressFuzzer_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}
