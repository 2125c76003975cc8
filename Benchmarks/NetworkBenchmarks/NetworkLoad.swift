#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MotionEmulation
import MotionNetwork
import MotionSamples

/// Network phones: decoding Sensor Logger pushes, and one receiver under the load of 100 phones.
///
/// Run: `cd Benchmarks && swift package --disable-sandbox benchmark --target NetworkBenchmarks`.
///
/// - **decode**: ``SensorLoggerDecoder`` on real-shaped pushes (250 ms of accelerometer, gyroscope and
///   magnetometer at 100 Hz: 75 readings, times double-rendered, payload shuffled) in readings/s on one
///   core. Target ≥ 1 M readings/s.
/// - **load**: a ``SensorLoggerServer`` on 127.0.0.1 and, on one thread of this process, 100 simulated
///   phones, each pushing accelerometer + gyroscope + magnetometer at 100 Hz in 250 ms batches over its
///   own keep-alive HTTP/1.1 connection, for 30 s (`NETWORK_LOAD_SECONDS`). Reported: readings lost
///   (sent − accepted by the receiver, plus any the phones' jitter buffers dropped; target 0), p99 and
///   maximum from a push's arrival to the end of its handling (the receiver's own histogram; target ≤ 5 ms),
///   the senders' p99 round trip, and the receiver's CPU as % of one core (the process's CPU time less the
///   sending thread's).


/// One simulated phone's push `k`: 250 ms of three sensors at 100 Hz, shuffled.
func push(phone: Int, k: Int, writer: SensorLoggerPushWriter, start: Int64) -> (body: [UInt8], readings: Int) {
    var readings: [SensorLoggerPushWriter.Reading] = []
    readings.reserveCapacity(75)
    let names = ["accelerometeruncalibrated", "gyroscopeuncalibrated", "magnetometeruncalibrated"]
    for (j, name) in names.enumerated() {
        for i in (k * 25)..<((k + 1) * 25) {
            let t = Double(i) / 100
            let time = start + Int64((t + Double(j) * 0.0013) * 1e9)
            switch j {
            case 0: readings.append(.vector(name, time: time, 0.01 * sin(t), 0.5, -0.86))
            case 1: readings.append(.vector(name, time: time, 0.02, -0.01 * cos(t), 0.2))
            default: readings.append(.vector(name, time: time, 20 + sin(t), -3, -40))
            }
        }
    }
    var generator = SystemRandomNumberGenerator()
    readings.shuffle(using: &generator)
    let deviceId = String(format: "3F2A0C1E-0000-4000-8000-%012d", phone)
    return (writer.body(messageId: Int64(k), sessionId: "9B1D2E3F-0000-4000-8000-00000000000A", deviceId: deviceId, readings: readings), readings.count)
}

/// A blocking HTTP/1.1 keep-alive connection to 127.0.0.1.
final class PushConnection {
    let fd: Int32
    var pending: [UInt8] = []

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(fd); throw POSIXError(.ECONNREFUSED) }
    }

    deinit { close(fd) }

    /// Sends one push and reads the reply; the reply's status (0 when the connection failed).
    func post(_ body: [UInt8]) -> Int {
        let request = Array("POST /push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return 0 }
            sent += n
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            // A whole reply: head, then Content-Length bytes.
            if let end = headEnd(), let length = contentLength(pending[..<end]), pending.count >= end + length {
                let status = Int(String(decoding: pending[9..<min(12, pending.count)], as: UTF8.self)) ?? 0
                pending.removeFirst(end + length)
                return status
            }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return 0 }
            pending += buffer[0..<n]
        }
    }

    private func headEnd() -> Int? {
        guard pending.count >= 4 else { return nil }
        for i in 0...(pending.count - 4) where pending[i] == 13 && pending[i + 1] == 10 && pending[i + 2] == 13 && pending[i + 3] == 10 {
            return i + 4
        }
        return nil
    }

    private func contentLength(_ head: ArraySlice<UInt8>) -> Int? {
        let text = String(decoding: head, as: UTF8.self).lowercased()
        guard let range = text.range(of: "content-length:") else { return 0 }
        // Characters, not bytes: "\r\n" is one Character in Swift, so stop at any line break. (Stopping at "\r"
        // alone ran to the end of the head, the length never parsed, and every push waited 10 s for more.)
        let rest = text[range.upperBound...].prefix { !$0.isNewline }
        return Int(rest.trimmingCharacters(in: .whitespaces))
    }
}

func threadCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) * 1e-6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) * 1e-6
}

/// What one load run measured.
struct LoadOutcome {
    var sent = 0
    var accepted = 0
    var droppedByPhones = 0
    var failedPushes = 0
    var handling = HandlingLatency()
    var roundTrips: [Double] = []
    var receiverCPU = 0.0
    var seconds = 0.0
}

/// 100 phones × 4 pushes/s × 75 readings for `seconds`, paced in real time from one sending thread.
func runLoad(phones: Int = 100, seconds: Double) throws -> LoadOutcome {
    let server = SensorLoggerServer(configuration: SensorLoggerConfiguration(port: 0, platform: .ios, silence: 5))
    let port = try server.start()
    defer { server.stop() }
    let connections = try (0..<phones).map { _ in try PushConnection(port: port) }
    let writer = SensorLoggerPushWriter()
    let start = Int64(Date().timeIntervalSince1970 * 1e9)
    let batches = Int(seconds / 0.25)
    var outcome = LoadOutcome()
    outcome.roundTrips.reserveCapacity(phones * batches)
    // Every phone's device runs, as an app's would: what the jitter buffers drop is counted as lost.
    var running = Set<String>()
    let delivered = Counter()
    let cpu0 = processCPUSeconds()
    let thread0 = threadCPUSeconds()
    let t0 = Date()
    for k in 0..<batches {
        for p in 0..<phones {
            let due = t0.addingTimeInterval(Double(k) * 0.25 + Double(p) * 0.25 / Double(phones) + 0.25)
            let wait = due.timeIntervalSinceNow
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            let (body, count) = push(phone: p, k: k, writer: writer, start: start)
            let before = DispatchTime.now().uptimeNanoseconds
            let status = connections[p].post(body)
            outcome.roundTrips.append(Double(DispatchTime.now().uptimeNanoseconds - before) * 1e-9)
            outcome.sent += count
            if status != 200 { outcome.failedPushes += 1 }
        }
        if running.count < phones {
            for phone in server.phones where running.insert(phone.deviceId).inserted {
                phone.device.run([.accelerometer: 100, .gyroscope: 100, .magnetometer: 100], sink: { _ in delivered.add() }, events: { _ in })
            }
        }
    }
    let elapsed = Date().timeIntervalSince(t0)
    let senderCPU = threadCPUSeconds() - thread0
    outcome.receiverCPU = (processCPUSeconds() - cpu0 - senderCPU) / elapsed
    outcome.seconds = elapsed
    outcome.accepted = server.statistics.readings
    outcome.handling = server.handlingLatency
    for phone in server.phones {
        let s = phone.device.currentStatistics
        outcome.droppedByPhones += s.late + s.duplicates + s.overflow
    }
    return outcome
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.lock(); n += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return n }
}

func quantile(_ values: [Double], _ q: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * q).rounded(.up)) - 1)]
}

