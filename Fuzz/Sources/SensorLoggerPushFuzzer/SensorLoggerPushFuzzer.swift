// What any peer on the network may POST to the Sensor Logger receiver (MotionNetwork): the body decoded by
// `SensorLoggerDecoder`, and, when it decodes, handed to a receiver on a virtual clock (convention rules,
// phone clock, conversion, jitter buffer, delivery) as the HTTP layer would. Checks:
//
// 1. No crash, whatever the bytes: a `SensorLoggerDecodingError` (HTTP 400) is the answer to bad input.
// 2. Every reading's value range lies inside the message's value arrays.
// 3. Round trip: a decoded message written back (`SensorLoggerPushWriter`, exact times) decodes to the same
//    envelope, readings and values.
// 4. The receiver answers 200, 499 or 503 (never 400 for a body that decoded) and delivers only finite
//    samples in time order.
import Foundation
import FuzzSupport
import MotionEmulation
import MotionNetwork
import MotionSamples

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = UnsafeBufferPointer(start: data, count: size)
    let message: SensorLoggerMessage
    switch SensorLoggerDecoder.decode(buffer: UnsafeRawBufferPointer(body)) {
    case .failure(let error):
        precondition(!error.reason.isEmpty && error.offset >= 0 && error.offset <= size, "bad error \(error)")
        return 0
    case .success(let m):
        message = m
    }
    precondition(message.fields.count == message.numbers.count, "fields and numbers differ in length")
    for r in message.readings {
        precondition(r.values.lowerBound >= 0 && r.values.upperBound <= message.numbers.count, "values out of range")
    }
    // Round trip through the writer.
    var readings: [SensorLoggerPushWriter.Reading] = []
    for (index, r) in message.readings.enumerated() {
        var values: [(String, SensorLoggerPushWriter.Value)] = []
        for k in r.values { values.append((message.fields[k].key, .number(message.numbers[k]))) }
        // String values that are not booleans were not numbers: written back as strings.
        for s in message.strings where s.reading == index && !["true", "false"].contains(s.text.lowercased()) {
            values.append((s.field.key, .string(s.text)))
        }
        readings.append(SensorLoggerPushWriter.Reading(name: r.sensor.name, time: r.time, values: values, accuracy: r.accuracy))
    }
    if message.numbers.allSatisfy(\.isFinite) {
        let again = SensorLoggerPushWriter(exactTimes: true).body(
            messageId: message.messageId ?? 0, sessionId: message.sessionId ?? "", deviceId: message.deviceId ?? "", readings: readings)
        guard case .success(let second) = again.withUnsafeBytes({ SensorLoggerDecoder.decode(buffer: $0) }) else {
            preconditionFailure("a decoded message written back does not decode: \(String(decoding: again, as: UTF8.self))")
        }
        precondition(second.readings.count == message.readings.count, "round trip changed the readings")
        for (a, b) in zip(second.readings, message.readings) {
            precondition(a.sensor == b.sensor && a.time == b.time && a.accuracy == b.accuracy, "round trip changed \(b)")
            let va = a.values.map { (second.fields[$0], second.numbers[$0].bitPattern) }
            let vb = b.values.map { (message.fields[$0], message.numbers[$0].bitPattern) }
            precondition(va.elementsEqual(vb, by: { $0.0 == $1.0 && $0.1 == $1.1 }), "round trip changed the values of \(b)")
        }
    }
    // Through a receiver.
    let clock = VirtualClock(start: 1000)
    let server = SensorLoggerServer(configuration: SensorLoggerConfiguration(port: 0), clock: clock, maximumPhones: 4)
    let box = Delivered()
    server.device.run([.accelerometer: 100, .gyroscope: 100, .magnetometer: 100, .barometer: 10], sink: { box.add($0) }, events: { _ in })
    let reply = server.receive(body, authorization: nil, arrival: clock.now)
    precondition([200, 499, 503].contains(reply.status), "a decoded body got \(reply.status): \(reply.text)")
    // A second copy is a duplicate when it has a messageId.
    _ = server.receive(body, authorization: nil, arrival: clock.now + 0.25)
    clock.advance(by: 3)
    box.check()
    return 0
}

/// Samples a receiver delivered: finite, in time order per sensor.
final class Delivered: @unchecked Sendable {
    private var last: [SensorKind: Double] = [:]
    func add(_ s: SensorSample) {
        precondition(s.time.isFinite, "non-finite time")
        if let v = s.vector { precondition(v.isFinite, "non-finite value \(v)") }
        if let t = last[s.sensor] { precondition(s.time > t, "out of order: \(s.time) after \(t)") }
        last[s.sensor] = s.time
    }
    func check() {}
}

/// The process's entry point: libFuzzer's driver (see FuzzSupport/FuzzDriver.swift).
@_cdecl("SensorLoggerPushFuzzer_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}
