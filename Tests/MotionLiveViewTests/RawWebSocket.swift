#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A minimal blocking WebSocket client over a loopback TCP socket, for tests that must control every
/// byte (garbage, oversized messages, a client that never reads).
final class RawWebSocket {
    struct Failure: Error, CustomStringConvertible { let description: String }

    private let fd: Int32
    private var buffer: [UInt8] = []
    /// The HTTP status line of the upgrade answer.
    private(set) var statusLine = ""
    /// The answer's header lines (after the status line).
    private(set) var headerLines: [String] = []

    /// Connects to 127.0.0.1:`port` and asks for an upgrade at `path`. `receiveBuffer` shrinks the
    /// socket's receive buffer (a stalled client). `host` replaces the `Host` header's value (nil: none at
    /// all), `method` the request's, `extraHeaders` are added as they are (`Name: value`).
    init(
        port: Int, path: String = "/ws", receiveBuffer: Int32? = nil, upgrade: Bool = true, origin: String? = nil,
        host: String?? = .none, method: String = "GET", extraHeaders: [String] = []
    ) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(fd); throw Failure(description: "connect() failed") }
        let hostValue: String? = switch host {
        case .none: "127.0.0.1:\(port)"
        case .some(let value): value
        }
        let request = "\(method) \(path) HTTP/1.1\r\n" + (hostValue.map { "Host: \($0)\r\n" } ?? "")
            + (origin.map { "Origin: \($0)\r\n" } ?? "") + extraHeaders.map { $0 + "\r\n" }.joined() + (upgrade
            ? "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            : "Connection: close\r\n\r\n")
        try write(Array(request.utf8))
        // The answer's head.
        while true {
            if let end = find([13, 10, 13, 10]) {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                let lines = head.split(separator: "\r\n").map(String.init)
                statusLine = lines.first ?? ""
                headerLines = Array(lines.dropFirst())
                buffer.removeFirst(end + 4)
                break
            }
            guard try fill() else { break }
        }
    }

    deinit { close(fd) }

    /// An HTTP GET's status line (no upgrade asked).
    static func get(port: Int, path: String) throws -> String {
        try RawWebSocket(port: port, path: path, upgrade: false).statusLine
    }

    /// Whether the server switched protocols.
    var upgraded: Bool { statusLine.contains(" 101 ") }

    /// The value of the answer's header `name` (case-insensitive), if present.
    func header(_ name: String) -> String? {
        for line in headerLines {
            guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name.lowercased() else { continue }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// The rest of the answer until the server closes the connection (the body of a `Connection: close`
    /// request).
    func readToEnd() throws -> String {
        while try fill() {}
        return String(decoding: buffer, as: UTF8.self)
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for i in 0...(buffer.count - pattern.count) where Array(buffer[i..<(i + pattern.count)]) == pattern { return i }
        return nil
    }

    /// Reads more bytes; false at the end of the stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 { throw Failure(description: "recv() failed or timed out (errno \(errno))") }
        if n == 0 { return false }
        buffer.append(contentsOf: chunk[..<n])
        return true
    }

    func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send() failed (errno \(errno))") }
            sent += n
        }
    }

    /// A masked frame, as a browser sends it.
    static func frame(opcode: UInt8, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
        var out: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        if payload.count < 126 {
            out.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            out.append(0x80 | 126)
            out += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            out.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        out += mask
        for (i, b) in payload.enumerated() { out.append(b ^ mask[i % 4]) }
        return out
    }

    func send(text: String) throws { try write(Self.frame(opcode: 1, Array(text.utf8))) }

    /// The next whole message's text, or nil when the server closed the connection.
    func receive() throws -> String? {
        var message: [UInt8] = []
        while true {
            while buffer.count < 2 { guard try fill() else { return nil } }
            let opcode = buffer[0] & 0x0F, fin = buffer[0] & 0x80 != 0
            var length = Int(buffer[1] & 0x7F), offset = 2
            if length == 126 {
                while buffer.count < 4 { guard try fill() else { return nil } }
                length = Int(buffer[2]) << 8 | Int(buffer[3]); offset = 4
            } else if length == 127 {
                while buffer.count < 10 { guard try fill() else { return nil } }
                length = (2..<10).reduce(0) { $0 << 8 | Int(buffer[$1]) }; offset = 10
            }
            while buffer.count < offset + length { guard try fill() else { return nil } }
            let payload = Array(buffer[offset..<(offset + length)])
            buffer.removeFirst(offset + length)
            switch opcode {
            case 8: return nil
            case 9, 10: continue
            default:
                message += payload
                if fin { return String(decoding: message, as: UTF8.self) }
            }
        }
    }

    /// Messages until one satisfies `predicate` (nil: the connection closed first).
    func receive(until predicate: (String) -> Bool) throws -> String? {
        while let message = try receive() { if predicate(message) { return message } }
        return nil
    }
}
