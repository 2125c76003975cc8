import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// systemd socket activation without libsystemd: the listening sockets a service manager passed to this process.
///
/// The protocol is the one of `sd_listen_fds(3)`: the manager opens and binds the sockets of a `.socket`
/// unit, then starts the service with them as descriptors 3, 4, … and three variables:
///
/// - `LISTEN_PID`: the process the sockets are meant for (a child that inherited the variables must ignore them);
/// - `LISTEN_FDS`: how many descriptors were passed;
/// - `LISTEN_FDNAMES`: optional, colon-separated names, one per descriptor (`FileDescriptorName=`, by default
///   the socket unit's name).
///
/// `coremotiond` calls ``listeningSockets(environment:processID:firstDescriptor:unsetEnvironment:)`` once at
/// start-up, before starting any thread that could fork: an empty answer means "not activated, bind the socket
/// path yourself"; a socket answer is adopted as it is (never `shutdown(2)` it: the manager keeps listening on
/// it while the daemon restarts).
///
/// ```swift
/// let sockets = try SocketActivation.listeningSockets()
/// if let socket = sockets.first {
///     // ServerBootstrap(group:).withBoundSocket(socket.descriptor)
/// } else {
///     // bind(unixDomainSocketPath:) yourself
/// }
/// ```
public enum SocketActivation {
    /// The first descriptor a service manager passes (`SD_LISTEN_FDS_START`).
    public static let firstPassedDescriptor: Int32 = 3

    /// The environment variables of the protocol, unset by ``listeningSockets(environment:processID:firstDescriptor:unsetEnvironment:)``.
    public static let environmentVariables = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]

    /// The listening `AF_UNIX` stream sockets passed to this process, in descriptor order.
    ///
    /// Returns `[]` (not an error) when `LISTEN_PID` or `LISTEN_FDS` is absent, when `LISTEN_PID` names
    /// another process, or when `LISTEN_FDS` is 0. Otherwise every passed descriptor gets `FD_CLOEXEC` (so that
    /// children the daemon starts do not inherit it) and must be an open `AF_UNIX` `SOCK_STREAM` socket on
    /// which `listen(2)` was called; anything else is an error naming the descriptor and what is wrong with it.
    ///
    /// The variables come from a service manager but are read as hostile input: a `LISTEN_FDS` of `"abc"`,
    /// `"-1"` or `"100000"`, a `LISTEN_FDNAMES` with the wrong number of names, a descriptor that is closed, a
    /// regular file, a datagram or TCP socket, or a connected (`Accept=yes`) socket each give a
    /// ``SocketActivationError``.
    ///
    /// - Parameters:
    ///   - environment: the variables to read (default: this process's environment).
    ///   - processID: the pid `LISTEN_PID` must equal (default: `getpid()`).
    ///   - firstDescriptor: the first passed descriptor (default 3, ``firstPassedDescriptor``; tests pass others).
    ///   - unsetEnvironment: when true (the default), `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES` are removed
    ///     from this process's environment (with `unsetenv(3)`, whatever `environment` held) on every outcome,
    ///     answer or error, so that processes the daemon starts do not see them. `unsetenv` is not thread-safe:
    ///     call this before starting threads.
    /// - Returns: one ``ActivatedSocket`` per passed descriptor, in order.
    /// - Throws: ``SocketActivationError`` for a malformed variable or an unsuitable descriptor.
    public static func listeningSockets(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        processID: Int32 = getpid(),
        firstDescriptor: Int32 = 3,
        unsetEnvironment: Bool = true
    ) throws(SocketActivationError) -> [ActivatedSocket] {
        defer {
            if unsetEnvironment {
                for name in environmentVariables { unsetenv(name) }
            }
        }
        guard let pidText = environment["LISTEN_PID"], let countText = environment["LISTEN_FDS"] else { return [] }
        let pid = try number(pidText, variable: "LISTEN_PID", meaning: "a process id")
        guard pid > 0 else {
            throw SocketActivationError(
                .malformedVariable, variable: "LISTEN_PID",
                "LISTEN_PID=\(UnixSupport.quoted(pidText)) is not a process id (expected a positive decimal number)")
        }
        guard pid == processID else { return [] }
        let count = try number(countText, variable: "LISTEN_FDS", meaning: "a number of descriptors")
        guard count > 0 else { return [] }

        guard firstDescriptor >= 0 else {
            throw SocketActivationError(.malformedVariable, variable: nil, "the first passed descriptor \(firstDescriptor) is negative")
        }
        let (end, overflow) = firstDescriptor.addingReportingOverflow(count)
        let limit = descriptorLimit()
        if overflow || Int64(end) > limit {
            throw SocketActivationError(
                .tooManyDescriptors, variable: "LISTEN_FDS",
                "LISTEN_FDS=\(UnixSupport.quoted(countText)) asks for descriptors \(firstDescriptor)…\(Int64(firstDescriptor) + Int64(count) - 1), "
                    + "beyond this process's limit of \(limit) open descriptors (RLIMIT_NOFILE)")
        }

        let names = try self.names(environment["LISTEN_FDNAMES"], count: Int(count))
        var sockets: [ActivatedSocket] = []
        sockets.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
            let descriptor = firstDescriptor + Int32(index)
            let label = "descriptor \(descriptor) (socket \(index + 1) of LISTEN_FDS=\(count)"
                + (names?[index].map { ", named \(UnixSupport.quoted($0))" } ?? "") + ")"
            let path = try check(descriptor, label: label)
            sockets.append(ActivatedSocket(descriptor: descriptor, name: names?[index], path: path))
        }
        return sockets
    }

    /// A decimal number made of ASCII digits only (no sign, no spaces), that fits in `Int32`.
    private static func number(_ text: String, variable: String, meaning: String) throws(SocketActivationError) -> Int32 {
        let digits = text.utf8
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw SocketActivationError(
                .malformedVariable, variable: variable,
                "\(variable)=\(UnixSupport.quoted(text)) is not \(meaning) (expected a non-negative decimal number)")
        }
        guard let value = Int32(text) else {
            throw SocketActivationError(
                .malformedVariable, variable: variable, "\(variable)=\(UnixSupport.quoted(text)) is too large to be \(meaning)")
        }
        return value
    }

    /// The names in `LISTEN_FDNAMES`, one per descriptor (an empty name is nil); nil when the variable is absent.
    private static func names(_ text: String?, count: Int) throws(SocketActivationError) -> [String?]? {
        guard let text else { return nil }
        let names = text.split(separator: ":", omittingEmptySubsequences: false).map { $0.isEmpty ? nil : String($0) }
        guard names.count == count else {
            throw SocketActivationError(
                .malformedVariable, variable: "LISTEN_FDNAMES",
                "LISTEN_FDNAMES=\(UnixSupport.quoted(text)) holds \(names.count) name\(names.count == 1 ? "" : "s") "
                    + "but LISTEN_FDS passes \(count) descriptor\(count == 1 ? "" : "s")")
        }
        return names
    }

    /// The soft limit on open descriptors (`RLIMIT_NOFILE`), or `Int32.max` when unlimited or unknown.
    private static func descriptorLimit() -> Int64 {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        // RLIM_INFINITY is the largest rlim_t: clamped below like any limit above Int32.max.
        guard getrlimit(resource, &limit) == 0 else { return Int64(Int32.max) }
        return min(Int64(clamping: limit.rlim_cur), Int64(Int32.max))
    }

    /// Sets `FD_CLOEXEC` on `descriptor` and checks that it is a listening `AF_UNIX` stream socket; returns its path.
    private static func check(_ descriptor: Int32, label: String) throws(SocketActivationError) -> String? {
        let flags = fcntl(descriptor, F_GETFD)
        if flags < 0 {
            let code = errno
            if code == EBADF { throw SocketActivationError(.notOpen, descriptor: descriptor, "\(label) is not open") }
            throw SocketActivationError(.systemCallFailed, descriptor: descriptor, "\(label): fcntl(F_GETFD) failed: \(UnixSupport.describe(errno: code))")
        }
        if flags & FD_CLOEXEC == 0, fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) < 0 {
            let code = errno
            throw SocketActivationError(
                .systemCallFailed, descriptor: descriptor, "\(label): setting FD_CLOEXEC failed: \(UnixSupport.describe(errno: code))")
        }

        var type: Int32 = 0
        var typeLength = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &typeLength) != 0 {
            let code = errno
            if code == ENOTSOCK {
                let kind = UnixSupport.fileKind(of: descriptor).map { ": it is \($0)" } ?? ""
                throw SocketActivationError(.notASocket, descriptor: descriptor, "\(label) is not a socket\(kind)")
            }
            throw SocketActivationError(
                .systemCallFailed, descriptor: descriptor, "\(label): getsockopt(SO_TYPE) failed: \(UnixSupport.describe(errno: code))")
        }

        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        if named != 0 {
            let code = errno
            throw SocketActivationError(
                .systemCallFailed, descriptor: descriptor, "\(label): getsockname failed: \(UnixSupport.describe(errno: code))")
        }
        let family = Int32(storage.ss_family)
        guard family == AF_UNIX else {
            throw SocketActivationError(
                .wrongFamily, descriptor: descriptor,
                "\(label) is an \(UnixSupport.familyName(family)) socket; expected AF_UNIX (a ListenStream= path in the socket unit)")
        }
        guard type == UnixSupport.streamType else {
            throw SocketActivationError(
                .wrongSocketType, descriptor: descriptor,
                "\(label) is an AF_UNIX \(UnixSupport.socketTypeName(type)) socket; expected SOCK_STREAM (ListenStream= in the socket unit)")
        }

        var listening: Int32 = 0
        var listeningLength = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &listeningLength) != 0 {
            let code = errno
            throw SocketActivationError(
                .systemCallFailed, descriptor: descriptor, "\(label): getsockopt(SO_ACCEPTCONN) failed: \(UnixSupport.describe(errno: code))")
        }
        guard listening != 0 else {
            throw SocketActivationError(
                .notListening, descriptor: descriptor,
                "\(label) is an AF_UNIX stream socket that is not listening (a connection from an Accept=yes socket unit?); expected a listening socket")
        }

        let address = withUnsafeBytes(of: storage) { $0.loadUnaligned(as: sockaddr_un.self) }
        return UnixSupport.name(of: address, length: min(length, socklen_t(MemoryLayout<sockaddr_un>.size)))
    }
}

/// A listening socket passed by the service manager (see ``SocketActivation``).
public struct ActivatedSocket: Sendable, Hashable {
    /// The file descriptor (3, 4, … under systemd), with `FD_CLOEXEC` set. The daemon owns it from now on.
    public let descriptor: Int32

    /// The descriptor's name in `LISTEN_FDNAMES` (systemd's `FileDescriptorName=`, by default the socket unit's
    /// name, e.g. `coremotiond.socket`); nil when `LISTEN_FDNAMES` was absent or the name empty.
    public let name: String?

    /// The socket's bound address from `getsockname(2)`: a file system path such as
    /// `/run/coremotion/coremotiond.sock`, `@name` for an abstract address, nil for an unnamed socket.
    public let path: String?

    /// A socket with these properties (for tests of code that receives activated sockets).
    public init(descriptor: Int32, name: String?, path: String?) {
        self.descriptor = descriptor
        self.name = name
        self.path = path
    }
}

/// Why the sockets passed by the service manager cannot be used.
///
/// ``description`` names the variable or the descriptor and what is wrong, e.g.
/// `descriptor 3 (socket 1 of LISTEN_FDS=1) is not a socket: it is a regular file`.
public struct SocketActivationError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The kinds of problem.
    public enum Kind: Sendable, Hashable {
        /// `LISTEN_PID`, `LISTEN_FDS` or `LISTEN_FDNAMES` is malformed (``SocketActivationError/variable`` says which).
        case malformedVariable
        /// `LISTEN_FDS` asks for more descriptors than this process may have open.
        case tooManyDescriptors
        /// A passed descriptor is not open.
        case notOpen
        /// A passed descriptor is open but not a socket (a file, a pipe, a device…).
        case notASocket
        /// A passed socket is not of the `AF_UNIX` family (e.g. a TCP socket).
        case wrongFamily
        /// A passed `AF_UNIX` socket is not a stream socket (e.g. a datagram socket).
        case wrongSocketType
        /// A passed `AF_UNIX` stream socket is not listening (e.g. a connection from an `Accept=yes` unit).
        case notListening
        /// A system call failed unexpectedly while checking a descriptor.
        case systemCallFailed
    }

    /// What is wrong.
    public let kind: Kind
    /// The environment variable at fault, if any.
    public let variable: String?
    /// The descriptor at fault, if any.
    public let descriptor: Int32?
    /// A sentence naming the variable or descriptor and the problem.
    public let description: String

    init(_ kind: Kind, variable: String?, _ description: String) {
        self.kind = kind
        self.variable = variable
        self.descriptor = nil
        self.description = "socket activation: " + description
    }

    init(_ kind: Kind, descriptor: Int32, _ description: String) {
        self.kind = kind
        self.variable = nil
        self.descriptor = descriptor
        self.description = "socket activation: " + description
    }
}
