#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Small helpers around `sockaddr_un`, errno and file types shared by socket activation and notification.
enum UnixSupport {
    /// Bytes available in `sockaddr_un.sun_path` (108 on Linux).
    static let socketPathCapacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    /// Offset of `sun_path` inside `sockaddr_un` (2 on Linux: after `sun_family`).
    static let socketPathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? MemoryLayout<sa_family_t>.size

    /// The text of `code` (`strerror`) followed by its symbolic number, e.g. "No such file or directory (errno 2)".
    static func describe(errno code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }

    /// A `sockaddr_un` for `address`: an absolute path, or `@name` for Linux's abstract namespace.
    ///
    /// Returns the address and its exact length: for a path, up to and including the terminating NUL; for an
    /// abstract name, the leading NUL and the name's bytes with nothing after them (abstract names are
    /// compared over the whole length, so trailing NULs would name another socket).
    static func address(for address: String) -> Result<(sockaddr_un, socklen_t), AddressProblem> {
        var bytes = Array(address.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract {
            bytes[0] = 0
        } else {
            guard bytes.first == UInt8(ascii: "/") else { return .failure(.notAbsolute) }
            guard !bytes.contains(0) else { return .failure(.containsNul) }
        }
        // A path needs room for its terminating NUL; an abstract name may fill the whole field.
        let needed = abstract ? bytes.count : bytes.count + 1
        guard needed <= socketPathCapacity else { return .failure(.tooLong(bytes: bytes.count, capacity: socketPathCapacity)) }
        guard bytes.count > (abstract ? 1 : 0) else { return .failure(.empty) }
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let length = socketPathOffset + needed
        return .success((storage, socklen_t(length)))
    }

    /// Why a text is not a usable `AF_UNIX` address.
    enum AddressProblem: Error {
        case notAbsolute
        case containsNul
        case empty
        case tooLong(bytes: Int, capacity: Int)

        var text: String {
            switch self {
            case .notAbsolute: "it is neither an absolute path nor an abstract name starting with '@'"
            case .containsNul: "it contains a NUL byte"
            case .empty: "the name is empty"
            case .tooLong(let bytes, let capacity):
                "it is \(bytes) bytes long, more than an AF_UNIX address holds (\(capacity - 1) bytes and a NUL)"
            }
        }
    }

    /// The path or `@name` in a `sockaddr_un` of `length` bytes, as returned by `getsockname`; nil when unnamed.
    static func name(of address: sockaddr_un, length: socklen_t) -> String? {
        let count = min(Int(length) - socketPathOffset, socketPathCapacity)
        guard count > 0 else { return nil }
        return withUnsafeBytes(of: address.sun_path) { raw -> String? in
            let bytes = Array(raw.prefix(count))
            if bytes[0] == 0 {
                // Abstract: every byte after the leading NUL is part of the name.
                let name = bytes.dropFirst()
                return name.isEmpty ? nil : "@" + String(decoding: name, as: UTF8.self)
            }
            let path = bytes.prefix { $0 != 0 }
            return path.isEmpty ? nil : String(decoding: path, as: UTF8.self)
        }
    }

    /// What kind of file `descriptor` refers to ("a regular file", "a pipe", …), from `fstat`; nil when unknown.
    static func fileKind(of descriptor: Int32) -> String? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a pipe or FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFLNK: return "a symbolic link"
        case S_IFSOCK: return "a socket"
        default: return nil
        }
    }

    #if canImport(Glibc)
    // Glibc imports the socket types as an enumeration.
    static let streamType = Int32(SOCK_STREAM.rawValue)
    static let datagramType = Int32(SOCK_DGRAM.rawValue)
    static let sequencedPacketType = Int32(SOCK_SEQPACKET.rawValue)
    static let rawType = Int32(SOCK_RAW.rawValue)
    static let closeOnExecFlag = Int32(SOCK_CLOEXEC.rawValue)
    #else
    static let streamType = SOCK_STREAM
    static let datagramType = SOCK_DGRAM
    static let sequencedPacketType = SOCK_SEQPACKET
    static let rawType = SOCK_RAW
    static let closeOnExecFlag = SOCK_CLOEXEC
    #endif

    /// The name of a socket type (`SO_TYPE`).
    static func socketTypeName(_ type: Int32) -> String {
        switch type {
        case streamType: "SOCK_STREAM"
        case datagramType: "SOCK_DGRAM"
        case sequencedPacketType: "SOCK_SEQPACKET"
        case rawType: "SOCK_RAW"
        default: "type \(type)"
        }
    }

    /// `value` quoted and escaped for an error message, cut to `limit` characters (hostile input may be long).
    static func quoted(_ value: String, limit: Int = 64) -> String {
        let shown = value.count > limit ? String(value.prefix(limit)) + "…" : value
        return String(reflecting: shown)
    }

    /// The name of an address family (`sa_family`).
    static func familyName(_ family: Int32) -> String {
        switch family {
        case AF_UNIX: "AF_UNIX"
        case AF_INET: "AF_INET"
        case AF_INET6: "AF_INET6"
        case AF_NETLINK: "AF_NETLINK"
        case AF_VSOCK: "AF_VSOCK"
        default: "family \(family)"
        }
    }
}
