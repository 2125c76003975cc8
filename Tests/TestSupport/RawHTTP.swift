import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 client over a blocking socket (one request per connection).
public enum RawHTTP {
    public struct Reply: Sendable {
        public var status: Int
        public var body: String
    }

    public static func post(
        port: Int, path: String = "/data", body: [UInt8], headers: [String: String] = [:], declaredLength: Int? = nil,
        host: String = "127.0.0.1", contentType: String? = "application/json"
    ) throws -> Reply {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var head = "POST \(path) HTTP/1.1\r\nHost: \(host)\r\n\(contentType.map { "Content-Type: \($0)\r\n" } ?? "")Content-Length: \(declaredLength ?? body.count)\r\nConnection: close\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        head += "\r\n"
        let request = Array(head.utf8) + body
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }  // the server may answer 413 and close before reading everything
            sent += n
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            response += buffer[0..<n]
        }
        let text = String(decoding: response, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let statusLine = parts.first?.split(separator: "\r\n").first ?? ""
        let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
        return Reply(status: status, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }
}
