import Foundation
import MotionSystemd
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Socket activation with real sockets moved to high descriptors (each test its own, so tests can run in parallel),
/// passed as `firstDescriptor` the way systemd passes descriptor 3.
@Suite struct SocketActivationTests {
    let pid = getpid()

    func environment(count: String, names: String? = nil, pid: Int32? = nil) -> [String: String] {
        var environment = ["LISTEN_PID": String(pid ?? self.pid), "LISTEN_FDS": count]
        environment["LISTEN_FDNAMES"] = names
        return environment
    }

    @Test func adoptsAListeningUnixSocketAndSetsCloseOnExec() throws {
        let folder = try SocketSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/coremotiond.sock"
        try SocketSupport.move(try SocketSupport.listeningSocket(path: path), to: 700)
        defer { close(700) }

        let sockets = try SocketActivation.listeningSockets(
            environment: environment(count: "1"), firstDescriptor: 700, unsetEnvironment: false)
        #expect(sockets == [ActivatedSocket(descriptor: 700, name: nil, path: path)])
        #expect(SocketSupport.isCloseOnExec(700))
    }

    @Test func twoSocketsWithNames() throws {
        let folder = try SocketSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try SocketSupport.move(try SocketSupport.listeningSocket(path: folder + "/a.sock"), to: 710)
        defer { close(710) }
        try SocketSupport.move(try SocketSupport.listeningSocket(path: folder + "/b.sock"), to: 711)
        defer { close(711) }

        let sockets = try SocketActivation.listeningSockets(
            environment: environment(count: "2", names: "coremotiond.socket:extra"), firstDescriptor: 710, unsetEnvironment: false)
        #expect(sockets.map(\.descriptor) == [710, 711])
        #expect(sockets.map(\.name) == ["coremotiond.socket", "extra"])
        #expect(sockets.map(\.path) == [folder + "/a.sock", folder + "/b.sock"])
        #expect(SocketSupport.isCloseOnExec(710) && SocketSupport.isCloseOnExec(711))

        // An empty name stands for "no name"; the positions still count.
        let unnamed = try SocketActivation.listeningSockets(
            environment: environment(count: "2", names: ":extra"), firstDescriptor: 710, unsetEnvironment: false)
        #expect(unnamed.map(\.name) == [nil, "extra"])

        // Three names for two descriptors is malformed.
        let error = #expect(throws: SocketActivationError.self) {
            try SocketActivation.listeningSockets(
                environment: environment(count: "2", names: "a:b:c"), firstDescriptor: 710, unsetEnvironment: false)
        }
        #expect(error?.kind == .malformedVariable)
        #expect(error?.variable == "LISTEN_FDNAMES")
        #expect(error?.description.contains("3 names") == true)
    }

    @Test func abstractAddressIsReportedWithAnAt() throws {
        let name = "coremotion-test-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let descriptor = try SocketSupport.boundSocket(type: SocketSupport.stream, path: name, abstract: true)
        #expect(listen(descriptor, 4) == 0)
        try SocketSupport.move(descriptor, to: 715)
        defer { close(715) }
        let sockets = try SocketActivation.listeningSockets(
            environment: environment(count: "1"), firstDescriptor: 715, unsetEnvironment: false)
        #expect(sockets.first?.path == "@" + name)
    }

    @Test func absentVariablesOrAnotherProcessGiveNoSockets() throws {
        #expect(try SocketActivation.listeningSockets(environment: [:], unsetEnvironment: false).isEmpty)
        #expect(try SocketActivation.listeningSockets(environment: ["LISTEN_FDS": "1"], unsetEnvironment: false).isEmpty)
        #expect(try SocketActivation.listeningSockets(environment: ["LISTEN_PID": String(pid)], unsetEnvironment: false).isEmpty)
        // Meant for another process (e.g. inherited from a parent that did not unset them): ignored, even when
        // LISTEN_FDS is garbage, as sd_listen_fds does.
        #expect(try SocketActivation.listeningSockets(
            environment: environment(count: "1", pid: pid + 1), unsetEnvironment: false).isEmpty)
        #expect(try SocketActivation.listeningSockets(
            environment: environment(count: "abc", pid: pid + 1), unsetEnvironment: false).isEmpty)
        #expect(try SocketActivation.listeningSockets(environment: environment(count: "0"), unsetEnvironment: false).isEmpty)
    }

    @Test(arguments: ["abc", "-1", "", " 1", "1 ", "+1", "0x3", "1.0", "99999999999", "3\n"])
    func malformedCountIsAnError(count: String) throws {
        let error = #expect(throws: SocketActivationError.self) {
            try SocketActivation.listeningSockets(environment: environment(count: count), unsetEnvironment: false)
        }
        #expect(error?.kind == .malformedVariable)
        #expect(error?.variable == "LISTEN_FDS")
        #expect(error?.description.contains("LISTEN_FDS=") == true)
    }

    @Test func countBeyondTheDescriptorLimitIsAnError() throws {
        var limit = rlimit()
        #if canImport(Glibc)
        #expect(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0)
        #else
        #expect(getrlimit(RLIMIT_NOFILE, &limit) == 0)
        #endif
        // 100000 descriptors from 3: beyond any ordinary soft limit (20000 where this was written), or, under a
        // larger one, stopped at the first descriptor that is not a listening socket. Never a crash or a long loop.
        let error = #expect(throws: SocketActivationError.self) {
            try SocketActivation.listeningSockets(environment: environment(count: "100000"), firstDescriptor: 900, unsetEnvironment: false)
        }
        if limit.rlim_cur < 100_900 {
            #expect(error?.kind == .tooManyDescriptors)
            #expect(error?.description.contains("RLIMIT_NOFILE") == true)
        }
        // Int32 overflow of first + count.
        let overflow = #expect(throws: SocketActivationError.self) {
            try SocketActivation.listeningSockets(
                environment: environment(count: String(Int32.max)), firstDescriptor: 3, unsetEnvironment: false)
        }
        #expect(overflow?.kind == .tooManyDescriptors)
    }

    @Test(arguments: ["abc", "-5", "0", ""])
    func malformedPIDIsAnError(text: String) throws {
        let error = #expect(throws: SocketActivationError.self) {
            try SocketActivation.listeningSockets(environment: ["LISTEN_PID": text, "LISTEN_FDS": "1"], unsetEnvironment: false)
        }
        #expect(error?.variable == "LISTEN_PID")
    }

    @Test func closedDescriptorIsAnError() throws {
        try #require(fcntl(760, F_GETFD) == -1)
        let error = #expect(throws: SocketActivationError.self) {
            try SocketActivation.listeningSockets(environment: environment(count: "1"), firstDescriptor: 760, unsetEnvironment: false)
        }
        #expect(error?.kind == .notOpen)
        #expect(error?.descriptor == 760)
        #expect(error?.description.contains("descriptor 760") == true)
    }

    @Test func regularFileIsAnError() throws {
        let folder = try SocketSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = open(folder + "/not-a-socket", O_CREAT | O_RDWR, 0o600)
        try #require(file >= 0)
        try SocketSupport.move(file, to: 720)
        defer { close(720) }
        let error = #expect(throws: SocketActivationError.self) {
            try SocketActivation.listeningSockets(environment: environment(count: "1"), firstDescriptor: 720, unsetEnvironment: false)
        }
        #expect(error?.kind == .notASocket)
        #expect(error?.descriptor == 720)
        #expect(error?.description.contains("regular file") == true)
    }

    @Test func unixDatagramSocketIsAnError() throws {
        let folder = try SocketSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try SocketSupport.move(try SocketSupport.boundSocket(type: SocketSupport.datagram, path: folder + "/d.sock"), to: 725)
        defer { close(725) }
        let error = #expect(throws: SocketActivationError.self) {
            try SocketActivation.listeningSockets(environment: environment(count: "1"), firstDescriptor: 725, unsetEnvironment: false)
        }
        #expect(error?.kind == .wrongSocketType)
        #expect(error?.description.contains("SOCK_DGRAM") == true)
    }

    @Test func udpSocketIsAnError() throws {
        let descriptor = socket(AF_INET, SocketSupport.datagram, 0)
        try #require(descriptor >= 0)
        try SocketSupport.move(descriptor, to: 730)
        defer { close(730) }
        let error = #expect(throws: SocketActivationError.self) {
            try SocketActivation.listeningSockets(environment: environment(count: "1"), firstDescriptor: 730, unsetEnvironment: false)
        }
        #expect(error?.kind == .wrongFamily)
        #expect(error?.description.contains("AF_INET") == true)
    }

    @Test func boundButNotListeningIsAnError() throws {
        let folder = try SocketSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try SocketSupport.move(try SocketSupport.boundSocket(type: SocketSupport.stream, path: folder + "/s.sock"), to: 735)
        defer { close(735) }
        let error = #expect(throws: SocketActivationError.self) {
            try SocketActivation.listeningSockets(environment: environment(count: "1"), firstDescriptor: 735, unsetEnvironment: false)
        }
        #expect(error?.kind == .notListening)
    }

    @Test func secondOfTwoDescriptorsIsChecked() throws {
        let folder = try SocketSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try SocketSupport.move(try SocketSupport.listeningSocket(path: folder + "/a.sock"), to: 740)
        defer { close(740) }
        try #require(fcntl(741, F_GETFD) == -1)
        let error = #expect(throws: SocketActivationError.self) {
            try SocketActivation.listeningSockets(environment: environment(count: "2"), firstDescriptor: 740, unsetEnvironment: false)
        }
        #expect(error?.descriptor == 741)
        #expect(error?.description.contains("socket 2 of LISTEN_FDS=2") == true)
    }

    /// The variables leave the process environment on every outcome (here: another process's sockets). This test
    /// changes the real environment, so it uses a pid no test passes and restores nothing else.
    @Test func unsetsTheVariables() throws {
        setenv("LISTEN_PID", "1", 1)
        setenv("LISTEN_FDS", "1", 1)
        setenv("LISTEN_FDNAMES", "coremotiond.socket", 1)
        let sockets = try SocketActivation.listeningSockets(
            environment: ["LISTEN_PID": "1", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "coremotiond.socket"])
        #expect(sockets.isEmpty)
        #expect(getenv("LISTEN_PID") == nil)
        #expect(getenv("LISTEN_FDS") == nil)
        #expect(getenv("LISTEN_FDNAMES") == nil)
    }
}
