import ArgumentParser
import Foundation
import MotionDevices
import MotionNetwork
import MotionService

/// `coremotion devices --network sensorlogger:HOST:PORT`: listens for a while and lists the phones that pushed.
enum NetworkListing {
    struct Report: Codable, Equatable {
        var receiver: String
        var seconds: Double
        var phones: [Phone]
        var replies: [String: Int]
    }

    struct Phone: Codable, Equatable {
        var deviceId: String
        var sessionId: String?
        var convention: String?
        var reason: String?
        var messages: Int
        var duplicates: Int
        var readings: [String: Int]
        var sources: [String: String]
        var sensors: [String: Double]
        var delay: Double
        var batchPeriod: Double?
    }

    static func run(_ value: String, seconds: Double, json: Bool) throws {
        let configuration: SensorLoggerConfiguration
        switch try? DeviceSpecification.parse(value) {
        case .sensorLogger(let c)?:
            configuration = c
        default:
            do {
                _ = try DeviceSpecification.parse(value)
            } catch {
                throw ValidationError("--network: \(error)")
            }
            throw ValidationError("--network takes a network receiver, e.g. sensorlogger:127.0.0.1:8000; found '\(value)'")
        }
        let server = SensorLoggerServer(configuration: configuration)
        do {
            try server.start()
        } catch {
            throw ValidationError("--network: \(error.reason)")
        }
        if !json { Output.note("Listening on \(configuration.description) for \(Output.fixed(seconds, 1)) s; point Sensor Logger's HTTP push here.") }
        Thread.sleep(forTimeInterval: seconds)
        server.stop()
        let phones = server.phones.map { phone -> Phone in
            let s = phone.currentSummary
            let live = phone.device.currentStatistics
            return Phone(
                deviceId: s.deviceId, sessionId: s.sessionId, convention: s.decision.map { $0.convention.rawValue + ($0.platform.map { " (\($0))" } ?? "") },
                reason: s.decision?.reason, messages: s.messages, duplicates: s.duplicates, readings: s.readingCounts, sources: s.sources,
                sensors: Dictionary(uniqueKeysWithValues: phone.device.sensors.map { ($0.key.rawValue, $0.value.maximumRate) }),
                delay: live.delay, batchPeriod: live.batchPeriod)
        }
        let replies = Dictionary(uniqueKeysWithValues: server.statistics.replies.map { (String($0.key), $0.value) })
        let report = Report(receiver: configuration.description, seconds: seconds, phones: phones, replies: replies)
        if json {
            try Output.json(report)
            return
        }
        if phones.isEmpty {
            print("No phone pushed to \(configuration.description) in \(Output.fixed(seconds, 1)) s.")
            return
        }
        for p in phones {
            print("phone \(p.deviceId)\(p.sessionId.map { ", session \($0)" } ?? "")")
            print("  convention: \(p.convention ?? "undecided")\(p.reason.map { " — \($0)" } ?? "")")
            print("  \(p.messages) messages, \(p.duplicates) duplicates; batch period \(p.batchPeriod.map { Output.fixed($0 * 1000, 0) + " ms" } ?? "?"), jitter delay \(Output.fixed(p.delay * 1000, 0)) ms")
            print("  sensors: " + (p.sensors.isEmpty ? "none yet" : p.sensors.sorted { $0.key < $1.key }.map { "\($0.key) \(Output.fixed($0.value, 1)) Hz (from \(p.sources[$0.key] ?? $0.key))" }.joined(separator: ", ")))
            print("  readings: " + p.readings.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        print("replies: " + replies.sorted { $0.key < $1.key }.map { "\($0.key) × \($0.value)" }.joined(separator: ", "))
    }
}
