// phyphox `/get` replies as a hostile or broken phone may send them: decoded by `PhyphoxGetReply.decode`, then
// paired by `PhyphoxPoll` as the device does. Checks: no trap; a decoded reply holds only finite values or
// nulls; the poll's rows are as long as its channels' components, their times increasing and after the
// threshold, and the next query never carries a negative threshold.
import FuzzSupport
import MotionNetwork

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let reply = try? PhyphoxGetReply.decode(bytes) else { return 0 }
    for (name, buffer) in reply.buffers {
        precondition(buffer.values.allSatisfy { $0?.isFinite ?? true }, "non-finite value in \(name)")
        precondition(buffer.size >= 0)
    }
    var poll = PhyphoxPoll(channels: [
        PhyphoxChannel(source: "accelerometer", target: .raw(.accelerometer), time: "acc_time", components: ["accX", "accY", "accZ"]),
        PhyphoxChannel(source: "pressure", target: .raw(.barometer), time: "p_time", components: ["pressure"]),
    ])
    for _ in 0..<2 {
        let before = poll.thresholds
        let outcome = poll.consume(reply)
        for batch in outcome.batches {
            let width = poll.channels[batch.channel].components.count
            precondition(batch.rows.allSatisfy { $0.count == width && $0.allSatisfy(\.isFinite) }, "a row of the wrong width")
            precondition(batch.times.count == batch.rows.count)
            precondition(zip(batch.times, batch.times.dropFirst()).allSatisfy { $0 < $1 }, "times not increasing")
            if let t = before[batch.channel] { precondition(batch.times.allSatisfy { $0 > t }, "a repeat") }
        }
        precondition(!poll.query.contains("=-"), "a negative threshold: \(poll.query)")
    }
    return 0
}

/// The process's entry point: libFuzzer's driver (see FuzzSupport/FuzzDriver.swift for why it is not `main`).
@_cdecl("PhyphoxGetFuzzer_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}
