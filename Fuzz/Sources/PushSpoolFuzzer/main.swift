// An ingest node's spool files (outside bytes once on disk: a damaged disk, a file put there by hand): the
// framing never crashes and accounts for every byte, and a record that decodes encodes back to exactly its
// bytes (so a replayed push is the push that was acknowledged).
import Foundation
import FuzzSupport
import MotionIngest

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let file = Data(UnsafeBufferPointer(start: data, count: size))
    let frames = PushSpool.frames(in: file)
    precondition(frames.tornBytes <= size, "more torn bytes than the file has")
    precondition(frames.records.reduce(0) { $0 + $1.count + 12 } + frames.tornBytes <= size, "records longer than the file")
    for payload in frames.records {
        if let push = try? PushSpoolRecord.decode(payload) {
            precondition(PushSpoolRecord.encode(push) == payload, "a decoded record does not encode back to its bytes")
            precondition(push.series.allSatisfy(\.isWellFormed), "a decoded series is not well formed")
        }
    }
    // The payload alone, as the decoder sees it.
    if let push = try? PushSpoolRecord.decode(Array(file)) {
        precondition(PushSpoolRecord.encode(push) == Array(file), "a decoded payload does not encode back to its bytes")
    }
    return 0
}

/// The process's entry point: libFuzzer's driver (see FuzzSupport/FuzzDriver.swift for why it is not `main`).
@_cdecl("PushSpoolFuzzer_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}
