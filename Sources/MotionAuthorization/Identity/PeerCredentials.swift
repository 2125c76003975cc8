/// The kernel's word on who is at the other end of a Unix socket: `SO_PEERCRED`'s `struct ucred`.
///
/// The values are fixed when the client called `connect(2)`; the client cannot change them later. The
/// pid can be reused by another process once the client exits, so the daemon identifies the app
/// (``AppIdentity/identify(pid:procRoot:)``) right after accepting the connection.
public struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
    /// Process id of the peer (in the daemon's pid namespace).
    public var pid: Int32
    /// Effective user id of the peer.
    public var uid: UInt32
    /// Effective group id of the peer.
    public var gid: UInt32

    /// Credentials as read from `SO_PEERCRED`.
    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    /// `pid 1234 uid 1000 gid 1000`.
    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }
}
