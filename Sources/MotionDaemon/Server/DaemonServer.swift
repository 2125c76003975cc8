import Foundation
import Logging
import MotionProtocol
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// The listening socket: bound to a path by the daemon, or handed over by systemd (socket activation).
public final class DaemonServer: @unchecked Sendable {  // @unchecked: no lock: `DaemonService.run` calls bind/adopt, then close, in turn on one task, never concurrently
    private let core: DaemonCore
    private let group: any EventLoopGroup
    private var channel: (any Channel)?
    /// Where the server listens.
    public private(set) var socketPath: String
    /// Whether the socket came from systemd.
    public private(set) var activated = false

    public init(core: DaemonCore, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.core = core
        self.group = group
        self.socketPath = core.configuration.socketPath
    }

    private func bootstrap() -> ServerBootstrap {
        let core = self.core
        return ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(
                        MessageFrameDecoder(limit: FrameHeader.maximumClientFrame, decode: ClientMessage.decode)))
                    try channel.pipeline.syncOperations.addHandler(ClientSession(core: core))
                }
            }
            .childChannelOption(ChannelOptions.writeBufferWaterMark, value: .init(low: 32 * 1024, high: 64 * 1024))
    }

    /// Binds the configured path: creates its folder, refuses to start if another daemon answers there,
    /// removes a stale socket file, then sets the file's group and mode.
    public func bind() throws {
        let path = core.configuration.socketPath
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if Self.answers(path) {
            throw DaemonStartError("another coremotiond already listens on \(path)")
        }
        let channel = try bootstrap().bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).wait()
        self.channel = channel
        socketPath = path
        try applyOwnership(path)
    }

    /// Adopts a listening socket passed by systemd (`LISTEN_FDS`).
    public func adopt(descriptor: Int32, path: String?) throws {
        let channel = try bootstrap().withBoundSocket(descriptor).wait()
        self.channel = channel
        activated = true
        if let path { socketPath = path }
    }

    /// Stops accepting connections (clients already connected are told by ``DaemonCore/shutDown()``).
    public func close() {
        try? channel?.close().wait()
        channel = nil
        if !activated { unlink(socketPath) }
    }

    private func applyOwnership(_ path: String) throws {
        if let group = core.configuration.socketGroup {
            if let gid = Self.groupID(group) {
                if chown(path, uid_t.max, gid) != 0 {
                    core.logger.warning("cannot give \(path) to group \(group): \(String(cString: strerror(errno)))")
                }
            } else {
                core.logger.warning("group \(group) does not exist (`coremotion service install` creates it); \(path) keeps its group")
            }
        }
        if chmod(path, core.configuration.socketMode) != 0 {
            throw DaemonStartError("cannot set the mode of \(path): \(String(cString: strerror(errno)))")
        }
    }

    static func groupID(_ name: String) -> gid_t? {
        var group = Glibc.group()
        var result: UnsafeMutablePointer<Glibc.group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getgrnam_r(name, &group, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return group.gr_gid
    }

    /// Whether something accepts connections on the socket at `path`.
    static func answers(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return result == 0
    }
}

/// Why the daemon cannot start.
public struct DaemonStartError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
