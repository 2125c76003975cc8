import Glibc

/// One account of the user database.
public struct UserRecord: Sendable, Hashable {
    /// Login name.
    public var name: String
    /// User id.
    public var uid: UInt32
    /// Primary group id (`pw_gid`).
    public var primaryGID: UInt32

    /// An account with these values.
    public init(name: String, uid: UInt32, primaryGID: UInt32) {
        self.name = name
        self.uid = uid
        self.primaryGID = primaryGID
    }
}

/// The user and group lookups the policy needs; ``SystemUserDatabase`` asks NSS, tests pass a fake.
public protocol UserDatabase: Sendable {
    /// The account named `name`, or `nil` when there is none (or the lookup failed).
    func user(named name: String) -> UserRecord?
    /// The account with user id `uid`, or `nil`.
    func user(uid: UInt32) -> UserRecord?
    /// The id of the group named `name`, or `nil`.
    func groupID(named name: String) -> UInt32?
    /// Every group `user` belongs to: the primary group and the supplementary ones.
    func groupIDs(of user: UserRecord) -> [UInt32]
}

/// The system's user database through NSS: `getpwnam_r`, `getpwuid_r`, `getgrnam_r`, `getgrouplist`.
///
/// Every call asks again (nothing is cached), so accounts and group memberships changed after the
/// daemon started are seen at once. A lookup that fails (no such entry, or an NSS error such as an
/// unreachable directory server) answers `nil` or only the primary group.
public struct SystemUserDatabase: UserDatabase {
    /// The system database.
    public init() {}

    public func user(named name: String) -> UserRecord? {
        lookUpPasswd { pwd, buffer, size, result in getpwnam_r(name, pwd, buffer, size, result) }
    }

    public func user(uid: UInt32) -> UserRecord? {
        lookUpPasswd { pwd, buffer, size, result in getpwuid_r(uid, pwd, buffer, size, result) }
    }

    public func groupID(named name: String) -> UInt32? {
        var size = Self.initialBufferSize(Int32(_SC_GETGR_R_SIZE_MAX))
        while size <= Self.maximumBufferSize {
            var group = Glibc.group()
            var result: UnsafeMutablePointer<Glibc.group>?
            var buffer = [CChar](repeating: 0, count: size)
            let code = buffer.withUnsafeMutableBufferPointer { getgrnam_r(name, &group, $0.baseAddress, size, &result) }
            if code == ERANGE {
                size *= 2
                continue
            }
            guard code == 0, result != nil else { return nil }
            return group.gr_gid
        }
        return nil
    }

    public func groupIDs(of user: UserRecord) -> [UInt32] {
        var count: Int32 = 32
        for _ in 0..<8 {
            var groups = [gid_t](repeating: 0, count: Int(count))
            var found = count
            let result = groups.withUnsafeMutableBufferPointer { getgrouplist(user.name, user.primaryGID, $0.baseAddress, &found) }
            if result >= 0 {
                return Array(groups.prefix(Int(found)))
            }
            // Too small: `found` now holds the number needed.
            count = max(found, count * 2)
        }
        return [user.primaryGID]
    }

    private static let maximumBufferSize = 1 << 20

    private static func initialBufferSize(_ name: Int32) -> Int {
        let suggested = sysconf(name)
        return suggested > 0 ? min(suggested, maximumBufferSize) : 1024
    }

    private func lookUpPasswd(
        _ call: (UnsafeMutablePointer<passwd>, UnsafeMutablePointer<CChar>, Int, UnsafeMutablePointer<UnsafeMutablePointer<passwd>?>) -> Int32
    ) -> UserRecord? {
        var size = Self.initialBufferSize(Int32(_SC_GETPW_R_SIZE_MAX))
        while size <= Self.maximumBufferSize {
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            var buffer = [CChar](repeating: 0, count: size)
            let code = buffer.withUnsafeMutableBufferPointer { call(&entry, $0.baseAddress!, size, &result) }
            if code == ERANGE {
                size *= 2
                continue
            }
            guard code == 0, result != nil, let namePointer = entry.pw_name else { return nil }
            return UserRecord(name: String(cString: namePointer), uid: entry.pw_uid, primaryGID: entry.pw_gid)
        }
        return nil
    }
}
