// SensorServer WebSocket messages: decoded by `SensorServerMessage.decode` and, when one names a sensor this
// device reads and has enough values, converted as the device does. Checks: no trap; values finite, at most
// `maximumValues`; the timestamp non-negative; a conversion's result finite.
import FuzzSupport
import MotionNetwork

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let message = try? SensorServerMessage.decode(bytes) else { return 0 }
    precondition(message.values.allSatisfy(\.isFinite) && message.values.count <= SensorServerMessage.maximumValues)
    precondition(message.timestamp >= 0)
    if let sensor = message.type.flatMap({ SensorServerSensor(rawValue: $0.lowercased()) }), message.values.count >= sensor.valueCount {
        let sample = sensor.sample(values: message.values, time: Double(message.timestamp) / 1e9)
        precondition(sample.time.isFinite)
        _ = PhoneSampleLimits.problem(sample)
    }
    return 0
}

/// The process's entry point: libFuzzer's driver (see FuzzSupport/FuzzDriver.swift for why it is not `main`).
@_cdecl("SensorServerMessageFuzzer_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}
