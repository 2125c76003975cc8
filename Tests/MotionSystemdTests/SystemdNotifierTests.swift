import Foundation
import MotionSystemd
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// sd_notify datagrams received on real sockets standing in for systemd's notification socket.
@Suite struct SystemdNotifierTests {
    @Test func readyAndStatusArriveAsOneDatagramEach() throws {
        let folder = try SocketSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/notify"
        let receiver = try SocketSupport.boundSocket(type: SocketSupport.datagram, path: path)
        defer { close(receiver) }

        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path])
        #expect(notifier.isEnabled)
        #expect(notifier.socketAddress == path)
        try notifier.ready()
        #expect(try SocketSupport.receive(receiver) == "READY=1")
        try notifier.ready(status: "serving 3 sensors")
        #expect(try SocketSupport.receive(receiver) == "READY=1\nSTATUS=serving 3 sensors")
        try notifier.status("two\nlines")
        #expect(try SocketSupport.receive(receiver) == "STATUS=two lines")
        try notifier.stopping(status: "flushing history")
        #expect(try SocketSupport.receive(receiver) == "STOPPING=1\nSTATUS=flushing history")
        try notifier.watchdog()
        #expect(try SocketSupport.receive(receiver) == "WATCHDOG=1")
        try notifier.mainPID(4242)
        #expect(try SocketSupport.receive(receiver) == "MAINPID=4242")
        try notifier.extendTimeout(by: .seconds(5))
        #expect(try SocketSupport.receive(receiver) == "EXTEND_TIMEOUT_USEC=5000000")
        try notifier.reloading()
        let reloading = try SocketSupport.receive(receiver)
        #expect(reloading.hasPrefix("RELOADING=1\nMONOTONIC_USEC="))
        #expect(UInt64(reloading.split(separator: "=").last ?? "") != nil)
        try notifier.notify("READY=1\nSTATUS=custom")
        #expect(try SocketSupport.receive(receiver) == "READY=1\nSTATUS=custom")
    }

    /// A leading `@` is Linux's abstract namespace: a NUL byte, then the name, and an address length that ends
    /// exactly there (with trailing NULs the address would name another socket and the send would be refused).
    @Test func abstractNamespaceAddress() throws {
        let name = "coremotion-notify-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let receiver = try SocketSupport.boundSocket(type: SocketSupport.datagram, path: name, abstract: true)
        defer { close(receiver) }
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": "@" + name])
        try notifier.ready(status: "abstract")
        #expect(try SocketSupport.receive(receiver) == "READY=1\nSTATUS=abstract")
    }

    @Test func unsetOrEmptyIsANoOp() throws {
        for environment in [[:], ["NOTIFY_SOCKET": ""]] {
            let notifier = SystemdNotifier(environment: environment)
            #expect(!notifier.isEnabled)
            #expect(notifier.socketAddress == nil)
            try notifier.ready(status: "nobody listens")
            try notifier.watchdog()
            try notifier.notify("")
        }
    }

    @Test func missingSocketIsAnErrorNamingTheValue() throws {
        let path = "/tmp/cm-sd-missing-" + String(UInt32.random(in: 0...UInt32.max), radix: 16) + "/notify"
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path])
        let error = #expect(throws: SystemdNotifyError.self) { try notifier.ready() }
        #expect(error?.socket == path)
        #expect(error?.errno == ENOENT)
        #expect(error?.description.contains(path) == true)
    }

    @Test(arguments: [
        "relative/notify", "notify", "vsock:2:1234", "@", "/" + String(repeating: "x", count: 120),
        "@" + String(repeating: "y", count: 120),
    ])
    func malformedAddressIsAnError(value: String) throws {
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": value])
        #expect(notifier.isEnabled)
        let error = #expect(throws: SystemdNotifyError.self) { try notifier.ready() }
        #expect(error?.socket == value)
        #expect(error?.description.contains("NOTIFY_SOCKET=") == true)
    }

    @Test func emptyAssignmentsAreAnError() throws {
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/systemd/notify"])
        #expect(throws: SystemdNotifyError.self) { try notifier.notify("") }
    }

    /// A NUL inside a path (possible in a dictionary, not in a real environment) would cut the path short.
    @Test func nulInsideAPathIsAnError() throws {
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/tmp/with\u{0}nul"])
        let error = #expect(throws: SystemdNotifyError.self) { try notifier.ready() }
        #expect(error?.description.contains("NUL") == true)
    }

    @Test func watchdogInterval() {
        let pid = getpid()
        let enabled = SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000"])
        #expect(enabled.watchdogInterval == .seconds(30))
        #expect(enabled.watchdogPingInterval == .seconds(15))
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": String(pid)]).watchdogInterval == .seconds(30))
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "1500", "WATCHDOG_PID": "7"], processID: 7).watchdogInterval == .microseconds(1500))
        // Meant for another process, or malformed: no watchdog (never a crash).
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": String(pid + 1)]).watchdogInterval == nil)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "abc"]).watchdogInterval == nil)
        for bad in ["", "0", "-5", "abc", "1e6", "99999999999999999999999"] {
            #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": bad]).watchdogInterval == nil, "WATCHDOG_USEC=\(bad)")
        }
        #expect(SystemdNotifier(environment: [:]).watchdogPingInterval == nil)
    }
}
