import Foundation
import Glibc

/// What reading a small, possibly hostile file gave.
enum SmallFileRead: Equatable {
    /// The whole file (at most the limit).
    case contents([UInt8])
    /// The file (or a folder on its path, or the process) does not exist.
    case missing
    /// The file exists but is not a regular file (a FIFO, a device, a folder, or a symbolic link when
    /// links are not followed): never opened for reading, so that a FIFO cannot block the caller.
    case notRegularFile
    /// The file is larger than the limit.
    case tooLarge
    /// Opening or reading failed with this `errno` (for example `EACCES`).
    case failed(errno: Int32)
}

/// Bounded reads of small files: procfs entries, `.flatpak-info`, the permission store, the policy file.
///
/// Every read opens with `O_NONBLOCK` (a FIFO planted where a file is expected cannot block), checks
/// that the descriptor is a regular file, and stops at `limit` bytes. procfs files report a size of 0,
/// so the limit is enforced on the bytes read, not only on `st_size`.
enum SmallFile {
    static func read(_ path: String, limit: Int, followFinalSymlink: Bool = true) -> SmallFileRead {
        var flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
        if !followFinalSymlink { flags |= O_NOFOLLOW }
        let fd = open(path, flags)
        if fd < 0 {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR, ESRCH: return .missing
            case ELOOP where !followFinalSymlink: return .notRegularFile
            default: return .failed(errno: code)
            }
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failed(errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .notRegularFile }
        guard Int(info.st_size) <= limit else { return .tooLarge }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                Glibc.read(fd, buffer.baseAddress, buffer.count)
            }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == ESRCH { return .missing }
                return .failed(errno: code)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit { return .tooLarge }
        }
        return .contents(bytes)
    }

    /// The target of the symbolic link at `path`; `nil` when it is missing, unreadable or longer than
    /// `PATH_MAX` (a truncated target would give a wrong name).
    static func readLink(_ path: String) -> [UInt8]? {
        let capacity = Int(PATH_MAX) + 1
        var buffer = [UInt8](repeating: 0, count: capacity)
        let count = buffer.withUnsafeMutableBufferPointer { pointer in
            pointer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: capacity) {
                readlink(path, $0, capacity)
            }
        }
        guard count > 0, count < capacity else { return nil }
        return Array(buffer[0..<count])
    }

    /// A readable description of an `errno` value (`"Permission denied (errno 13)"`).
    static func describe(errno code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }
}

extension SmallFileRead {
    /// A short reason for logs and errors; `nil` for ``contents(_:)``.
    func problem(limit: Int) -> String? {
        switch self {
        case .contents: return nil
        case .missing: return "missing"
        case .notRegularFile: return "not a regular file"
        case .tooLarge: return "larger than \(limit) bytes"
        case .failed(let code): return SmallFile.describe(errno: code)
        }
    }
}
