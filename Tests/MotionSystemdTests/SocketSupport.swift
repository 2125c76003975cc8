import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Temporary folders, sockets and descriptors for the tests (real kernel objects, no mocks).
enum SocketSupport {
    #if canImport(Glibc)
    static let stream = Int32(SOCK_STREAM.rawValue)
    static let datagram = Int32(SOCK_DGRAM.rawValue)
    #else
    static let stream = SOCK_STREAM
    static let datagram = SOCK_DGRAM
    #endif

    /// A new empty folder with a short path (socket paths must stay under 108 bytes).
    static func temporaryFolder() throws -> String {
        let path = "/tmp/cm-sd-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A `sockaddr_un` holding `bytes` (a path with its NUL, or a NUL and an abstract name) and its length.
    static func address(_ bytes: [UInt8]) -> (sockaddr_un, socklen_t) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let offset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
        return (address, socklen_t(offset + bytes.count))
    }

    /// A socket of `type` bound to `path` (file system, with NUL) or, when `abstract`, to `\0path`.
    static func boundSocket(type: Int32, path: String, abstract: Bool = false) throws -> Int32 {
        let descriptor = socket(AF_UNIX, type, 0)
        try #require(descriptor >= 0)
        let bytes = abstract ? [0] + Array(path.utf8) : Array(path.utf8) + [0]
        var (target, length) = address(bytes)
        let result = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        try #require(result == 0, "bind \(path): \(String(cString: strerror(errno)))")
        return descriptor
    }

    /// A listening `AF_UNIX` stream socket at `path`.
    static func listeningSocket(path: String) throws -> Int32 {
        let descriptor = try boundSocket(type: stream, path: path)
        try #require(listen(descriptor, 8) == 0)
        return descriptor
    }

    /// Moves `descriptor` to `target` (which must be free, as a passed socket would be) and closes the original.
    /// `dup2` leaves `FD_CLOEXEC` clear on the copy.
    static func move(_ descriptor: Int32, to target: Int32) throws {
        try #require(fcntl(target, F_GETFD) == -1 && errno == EBADF, "descriptor \(target) is already in use")
        try #require(dup2(descriptor, target) == target)
        close(descriptor)
        try #require(fcntl(target, F_GETFD) & FD_CLOEXEC == 0)
    }

    /// True when `descriptor` has `FD_CLOEXEC`.
    static func isCloseOnExec(_ descriptor: Int32) -> Bool {
        let flags = fcntl(descriptor, F_GETFD)
        return flags >= 0 && flags & FD_CLOEXEC != 0
    }

    /// Receives one datagram (waiting at most 2 s) as text.
    static func receive(_ descriptor: Int32) throws -> String {
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        try #require(count >= 0, "recv: \(String(cString: strerror(errno)))")
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }
}
