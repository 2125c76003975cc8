import Foundation
import Glibc
import MotionAuthorization
import Testing

@Suite("App identity from a fake /proc")
struct AppIdentityTests {
    static let mapsInfo = """
        [Application]
        name=org.gnome.Maps
        runtime=runtime/org.gnome.Platform/x86_64/47

        [Instance]
        instance-id=1234567890
        app-path=/var/lib/flatpak/app/org.gnome.Maps/x86_64/stable/abc/files
        flatpak-version=1.14.4

        [Context]
        shared=network;ipc;
        """

    @Test func flatpakInfoGivesTheAppID() throws {
        try withFakeProc { proc in
            // The cgroup and the executable would say something else: Flatpak comes first.
            try proc.process(
                100, exe: "/app/bin/gnome-maps", flatpakInfo: Self.mapsInfo,
                cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.gnome.Maps-4711.scope\n"
            )
            let identity = proc.identify(100)
            #expect(identity == AppIdentity(id: "org.gnome.Maps", kind: .flatpak, executable: "/app/bin/gnome-maps", isSandboxed: true))
            #expect(identity.isIdentified)
        }
    }

    @Test func flatpakRuntimeSandboxUsesTheRuntimeName() throws {
        try withFakeProc { proc in
            try proc.process(101, exe: "/usr/bin/bash", flatpakInfo: "[Runtime]\nruntime=runtime/org.freedesktop.Sdk/x86_64/24.08\nname=org.freedesktop.Sdk\n")
            #expect(proc.identify(101).id == "org.freedesktop.Sdk")
            #expect(proc.identify(101).kind == .flatpak)
        }
    }

    @Test(arguments: [
        "\u{00}\u{01}\u{02}binary junk\u{FF}",                          // NUL bytes
        "[Application]\nname=org.gnome.Maps\nname=org.evil.App\n",       // the name twice
        "[Application]\nruntime=runtime/org.gnome.Platform/x86_64/47\n", // no name
        "[Application]\nname=not a valid name\n",                        // not a D-Bus-style name
        "[Application]\nname=" + String(repeating: "a.", count: 200) + "b\n", // longer than 255 bytes
        "[Application\nname=org.gnome.Maps\n",                           // broken group line
        "this line is neither a group nor a key\n[Application]\nname=org.gnome.Maps\n",
        "",
    ])
    func damagedFlatpakInfoIsAnUnnamedSandbox(info: String) throws {
        try withFakeProc { proc in
            try proc.process(102, exe: "/app/bin/tool", flatpakInfo: info, cgroup: "0::/user.slice/app-gnome-org.gnome.Maps-1.scope\n")
            let identity = proc.identify(102)
            #expect(identity.id == "unknown-pid-102")
            #expect(identity.kind == .flatpak)
            #expect(identity.isSandboxed)
            #expect(!identity.isIdentified)
            #expect(identity.executable == "/app/bin/tool")
        }
    }

    @Test func invalidUTF8FlatpakInfoIsAnUnnamedSandbox() throws {
        try withFakeProc { proc in
            let folder = try proc.process(103, exe: "/app/bin/tool")
            let info = folder.appendingPathComponent("root/.flatpak-info")
            try FileManager.default.createDirectory(at: info.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data([0x5B, 0x41, 0x5D, 0x0A, 0xC3, 0x28, 0xFE, 0xFF]).write(to: info)
            #expect(proc.identify(103).id == "unknown-pid-103")
            #expect(proc.identify(103).kind == .flatpak)
        }
    }

    @Test func oversizedFlatpakInfoIsNotReadWhole() throws {
        try withFakeProc { proc in
            let line = "[Application]\nname=org.gnome.Maps\n# " + String(repeating: "x", count: 300 * 1024) + "\n"
            try proc.process(104, exe: "/app/bin/tool", flatpakInfo: line)
            let identity = proc.identify(104)
            #expect(identity.id == "unknown-pid-104")
            #expect(identity.isSandboxed)
        }
    }

    @Test func flatpakInfoThatIsAFIFOOrASymlinkIsNeverOpened() throws {
        try withFakeProc { proc in
            let fifoProcess = try proc.process(105, exe: "/app/bin/tool")
            try FileManager.default.createDirectory(at: fifoProcess.appendingPathComponent("root"), withIntermediateDirectories: true)
            // A FIFO with no writer would block a plain open(2) forever.
            #expect(mkfifo(fifoProcess.appendingPathComponent("root/.flatpak-info").path, 0o644) == 0)
            #expect(proc.identify(105).id == "unknown-pid-105")
            #expect(proc.identify(105).kind == .flatpak)

            let linkProcess = try proc.process(106, exe: "/app/bin/tool")
            let target = proc.root.appendingPathComponent("real-info")
            try Data("[Application]\nname=org.gnome.Maps\n".utf8).write(to: target)
            try FileManager.default.createDirectory(at: linkProcess.appendingPathComponent("root"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: linkProcess.appendingPathComponent("root/.flatpak-info").path, withDestinationPath: target.path)
            #expect(proc.identify(106).id == "unknown-pid-106")
        }
    }

    @Test func snapLabelGivesTheSnapName() throws {
        try withFakeProc { proc in
            try proc.process(
                200, exe: "/snap/spotify/80/usr/share/spotify/spotify", label: "snap.spotify.spotify (enforce)\n",
                cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/snap.spotify.spotify-1a2b.scope\n"
            )
            let identity = proc.identify(200)
            #expect(identity == AppIdentity(id: "snap.spotify", kind: .snap, executable: "/snap/spotify/80/usr/share/spotify/spotify", isSandboxed: true))
        }
    }

    @Test func apparmorSpecificLabelFileComesFirst() throws {
        try withFakeProc { proc in
            let folder = try proc.process(201, exe: "/snap/foo/1/bin/foo", label: "snap.foo.foo (complain)\u{0}", labelFile: "attr/apparmor/current")
            // Under another major LSM, attr/current holds that LSM's context.
            try Data("system_u:system_r:unconfined_t:s0\n".utf8).write(to: folder.appendingPathComponent("attr/current"))
            #expect(proc.identify(201).id == "snap.foo")
        }
    }

    @Test func malformedSnapLabelIsAnUnnamedSandbox() throws {
        try withFakeProc { proc in
            try proc.process(202, exe: "/snap/x/1/x", label: "snap.Not_A..Snap (enforce)")
            let identity = proc.identify(202)
            #expect(identity.id == "unknown-pid-202")
            #expect(identity.kind == .snap)
            #expect(identity.isSandboxed)
        }
    }

    @Test func unconfinedLabelFallsThrough() throws {
        try withFakeProc { proc in
            try proc.process(203, exe: "/usr/bin/CompatClients", label: "unconfined\n")
            #expect(proc.identify(203) == AppIdentity(id: "CompatClients", kind: .executable, executable: "/usr/bin/CompatClients", isSandboxed: false))
        }
    }

    @Test(arguments: [
        ("app-gnome-org.gnome.Maps-12345.scope", "org.gnome.Maps"),   // launcher and random suffix
        ("app-org.gnome.Maps-12345.scope", "org.gnome.Maps"),         // no launcher
        ("app-gnome-org.gnome.Maps@3f2a9c.scope", "org.gnome.Maps"),  // @random
        ("app-org.kde.konsole@a1b2.service", "org.kde.konsole"),      // service with @random
        ("app-kde-org.kde.dolphin@0.service", "org.kde.dolphin"),     // service, launcher and @random
        ("app-firefox.service", "firefox"),                           // service without random
        ("app-gnome-google\\x2dchrome-9876.scope", "google-chrome"),  // escaped dash in the app id
    ])
    func systemdAppUnitGivesTheAppID(unit: String, expected: String) throws {
        try withFakeProc { proc in
            let cgroup = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/\(unit)\n"
            try proc.process(300, exe: "/usr/bin/gnome-maps", cgroup: cgroup)
            #expect(proc.identify(300) == AppIdentity(id: expected, kind: .systemdScope, executable: "/usr/bin/gnome-maps", isSandboxed: false))
        }
    }

    @Test func legacyCgroupHierarchyUsesTheNameSystemdLine() throws {
        try withFakeProc { proc in
            let cgroup = """
                12:memory:/user.slice/user-1000.slice
                1:name=systemd:/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Maps-77.scope

                """
            try proc.process(301, exe: "/usr/bin/gnome-maps", cgroup: cgroup)
            #expect(proc.identify(301).id == "org.gnome.Maps")
        }
    }

    @Test(arguments: [
        // A shell in a terminal: the terminal's slice is not the unit, vte-spawn is not an app unit.
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/vte-spawn-3c1d.scope\n",
        "0::/user.slice/user-1000.slice/session-2.scope\n",
        "0::/system.slice/ssh.service\n",
        "0::/\n",
        "0::/user.slice/app-gnome-some-unescaped-name-1.scope\n",     // ambiguous: too many parts
        "0::/user.slice/app-gnome-org.gnome.Maps.scope\n",           // scope without a random part
        "0::/user.slice/app-org.gnome.Maps-.scope\n",                 // empty random part
        "0::/user.slice/app-bad\\x2g-1.scope\n",                       // broken escape
        "0::/user.slice/app-a\\x0ab-1.scope\n",                        // escape to a control character
        "garbage without colons\n" + String(repeating: "z", count: 70_000), // longer than the limit
    ])
    func otherUnitsFallBackToTheExecutable(cgroup: String) throws {
        try withFakeProc { proc in
            try proc.process(302, exe: "/usr/bin/CompatClients", cgroup: cgroup)
            #expect(proc.identify(302) == AppIdentity(id: "CompatClients", kind: .executable, executable: "/usr/bin/CompatClients", isSandboxed: false))
        }
    }

    @Test func plainExecutable() throws {
        try withFakeProc { proc in
            try proc.process(400, exe: "/opt/compat/bin/CompatClients")
            let identity = proc.identify(400)
            #expect(identity == AppIdentity(id: "CompatClients", kind: .executable, executable: "/opt/compat/bin/CompatClients", isSandboxed: false))
            #expect(identity.isIdentified)
        }
    }

    @Test func deletedExecutable() throws {
        try withFakeProc { proc in
            try proc.process(401, exe: "/usr/bin/CompatClients (deleted)")
            #expect(proc.identify(401) == AppIdentity(id: "CompatClients", kind: .executable, executable: "/usr/bin/CompatClients", isSandboxed: false))
        }
    }

    @Test func missingEverythingIsUnidentified() throws {
        try withFakeProc { proc in
            // No folder for the pid at all: the process is gone.
            #expect(proc.identify(4242) == AppIdentity(id: "unknown-pid-4242", kind: .executable, executable: nil, isSandboxed: false))
            // A folder with nothing readable in it (a kernel thread has no exe).
            try proc.process(4243)
            let identity = proc.identify(4243)
            #expect(identity.id == "unknown-pid-4243")
            #expect(!identity.isIdentified)
            // Nonsense pids.
            #expect(proc.identify(0).id == "unknown-pid-0")
            #expect(proc.identify(-5).id == "unknown-pid--5")
        }
    }

    @Test func executableNameThatIsNotAnAppIDIsUnidentified() throws {
        try withFakeProc { proc in
            try proc.process(402, exe: "/tmp/evil\nname")
            try proc.process(403, exe: "/tmp/unknown-pid-1")
            try proc.process(404, exe: "/")
            #expect(proc.identify(402).id == "unknown-pid-402")
            #expect(proc.identify(403).id == "unknown-pid-403")
            #expect(proc.identify(404).id == "unknown-pid-404")
        }
    }

    @Test func statFileWithAStableStartTimeDoesNotDisturb() throws {
        try withFakeProc { proc in
            let stat = "405 (Compat (x) Clients) S 1 405 405 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100 18446744073709551615\n"
            try proc.process(405, exe: "/usr/bin/CompatClients", stat: stat)
            #expect(proc.identify(405).id == "CompatClients")
        }
    }

    @Test func theTestProcessItself() throws {
        let identity = AppIdentity.identify(pid: getpid())
        let binary = try #require(URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().lastPathComponent as String?)
        #expect(identity.isIdentified)
        #expect(identity.executable.map { URL(fileURLWithPath: $0).lastPathComponent } == binary)
        if identity.kind == .executable {
            #expect(identity.id == binary)
        } else {
            // Run from a desktop terminal inside a systemd app scope, or inside a sandbox: still named.
            #expect(identity.kind == .systemdScope || identity.isSandboxed)
        }
    }

    @Test func displayNameNeverTrustsTheHint() {
        let identity = AppIdentity(id: "CompatClients", kind: .executable, executable: "/usr/bin/CompatClients", isSandboxed: false)
        #expect(identity.displayName(hint: nil) == "CompatClients [executable]")
        #expect(identity.displayName(hint: "") == "CompatClients [executable]")
        #expect(identity.displayName(hint: "CompatClients") == "CompatClients [executable]")
        #expect(identity.displayName(hint: "org.gnome.Maps") == "CompatClients [executable, hint \"org.gnome.Maps\"]")
        #expect(identity.displayName(hint: "evil\nline") == "CompatClients [executable, hint \"evil\\u{A}line\"]")
        let long = identity.displayName(hint: String(repeating: "h", count: 500))
        #expect(long.hasSuffix("\(String(repeating: "h", count: 64))…(436 more)\"]"))
    }

    @Test func identityIsCodable() throws {
        let identity = AppIdentity(id: "snap.spotify", kind: .snap, executable: "/snap/spotify/80/spotify", isSandboxed: true)
        let data = try JSONEncoder().encode(identity)
        #expect(try JSONDecoder().decode(AppIdentity.self, from: data) == identity)
    }
}
