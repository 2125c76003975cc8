import Foundation
import MotionIngest
import MotionNetwork

extension RawPush {
    /// The raw readings of a Sensor Logger push as an ingest node stores them: one series per sensor and list
    /// of value fields, times in microseconds (the push's nanoseconds, rounded down), values as sent (the
    /// phone's units).
    ///
    /// Left out: the app's "test" readings (time 0), string values (activity labels, battery state) and value
    /// keys the decoder does not know. A push without `deviceId` is filed under `"(no deviceId)"`; one without
    /// `messageId` under its first reading's time in microseconds, negated, so that a resent copy is still
    /// recognised. The node checks the lengths the store allows (``RawPush/isStorable``).
    public init(sensorLogger message: SensorLoggerMessage, receivedAt: Date) {
        var order: [String] = []
        var bySeries: [String: RawSeries] = [:]
        for reading in message.readings {
            if case .test = reading.sensor { continue }
            var fields: [String] = []
            var values: [Double] = []
            for k in reading.values where message.fields[k] != .devicelocation {
                fields.append(message.fields[k].key)
                values.append(message.numbers[k])
            }
            guard !fields.isEmpty, fields.count <= 32 else { continue }
            let sensor = reading.sensor.name   // at most 64 bytes (the decoder keeps no longer name)
            let key = sensor + "\u{1F}" + fields.joined(separator: "\u{1F}")
            if bySeries[key] == nil {
                bySeries[key] = RawSeries(sensor: sensor, fields: fields, microseconds: [], values: [])
                order.append(key)
            }
            bySeries[key]!.microseconds.append(reading.time / 1000)
            bySeries[key]!.values.append(contentsOf: values)
        }
        let series = order.map { bySeries[$0]! }
        let device = message.deviceId.flatMap { $0.isEmpty ? nil : $0 } ?? "(no deviceId)"
        let messageID = message.messageId ?? -(series.first?.microseconds.first ?? 0)
        self.init(
            device: device, session: message.sessionId ?? "", messageID: messageID,
            receivedAt: receivedAt, series: series)
    }
}
