// phyphox `/config`, `/meta` and `/time` replies: decoded, and a decoded configuration mapped to channels by
// `PhyphoxExperimentMap`. Checks: no trap; every channel has a time buffer and the components its target
// needs, each target at most once; every name is non-empty and bounded; times in `/time` are finite.
import FuzzSupport
import MotionNetwork

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if let config = try? PhyphoxConfig.decode(bytes) {
        let (channels, _) = PhyphoxExperimentMap.channels(of: config)
        precondition(Set(channels.map(\.target)).count == channels.count, "a target mapped twice")
        for c in channels {
            let names = [c.time] + c.components
            precondition(names.allSatisfy { !$0.isEmpty && $0.utf8.count <= PhyphoxConfig.maximumNameLength })
            switch c.target {
            case .raw(.barometer): precondition(c.components.count == 1)
            case .attitude: precondition(c.components.count == 3 || c.components.count == 4)
            default: precondition(c.components.count == 3)
            }
        }
        _ = PhyphoxPoll(channels: channels).query
    }
    _ = (try? PhyphoxMeta.decode(bytes))?.platform
    if let events = try? PhyphoxTimeEvent.decodeList(bytes) {
        precondition(events.allSatisfy { $0.experimentTime.isFinite && $0.systemTime.isFinite })
        _ = PhyphoxTimeline(events: events).phoneTime(of: 1)
    }
    return 0
}

/// The process's entry point: libFuzzer's driver (see FuzzSupport/FuzzDriver.swift for why it is not `main`).
@_cdecl("PhyphoxConfigFuzzer_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}
