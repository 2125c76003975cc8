import Foundation
import Logging
import MotionSamples
import ServiceLifecycle

/// `coremotiond` as a swift-service-lifecycle `Service`: start the recording, listen, say ready; on SIGTERM
/// (or SIGINT) stop listening, tell every client, stop the device and write the history to disk.
public struct DaemonService: Service {
    public let core: DaemonCore
    public let server: DaemonServer
    /// A socket systemd passed (`LISTEN_FDS`), if any.
    public var activatedSocket: (descriptor: Int32, path: String?)?
    /// Called once clients can connect (systemd: `READY=1`).
    public var onReady: @Sendable (String) -> Void
    /// Called when stopping begins (systemd: `STOPPING=1`).
    public var onStopping: @Sendable () -> Void

    public init(
        core: DaemonCore, server: DaemonServer, activatedSocket: (descriptor: Int32, path: String?)? = nil,
        onReady: @escaping @Sendable (String) -> Void = { _ in }, onStopping: @escaping @Sendable () -> Void = {}
    ) {
        self.core = core
        self.server = server
        self.activatedSocket = activatedSocket
        self.onReady = onReady
        self.onStopping = onStopping
    }

    public func run() async throws {
        core.startRecording()
        if let activated = activatedSocket {
            try server.adopt(descriptor: activated.descriptor, path: activated.path)
        } else {
            try server.bind()
        }
        let how = server.activated ? "socket from systemd" : "bound"
        core.logger.notice("listening on \(server.socketPath) (\(how)); device \(core.service.device.name.logSafe)")
        onReady("serving \(core.service.device.name) on \(server.socketPath)")
        try? await gracefulShutdown()
        core.logger.notice("stopping: closing the socket, telling clients, writing the history")
        onStopping()
        server.close()
        core.shutDown()
        core.logger.notice("stopped")
    }
}
