import MotionAuthorization
import Testing

@Suite("Parsers of procfs text")
struct ParserTests {
    @Test(arguments: [
        ("snap.spotify.spotify (enforce)", ProcessIdentityParser.SnapLabel.snap(id: "snap.spotify")),
        ("snap.spotify.spotify (enforce)\n\u{0}", .snap(id: "snap.spotify")),
        ("snap.spotify.spotify (enforce)\r\n", .snap(id: "snap.spotify")),           // CRLF: one Character
        ("snap.firefox.geckodriver (complain)", .snap(id: "snap.firefox")),
        ("snap.lxd.hook.configure (enforce)", .snap(id: "snap.lxd")),
        ("snap.spotify_beta.spotify (enforce)", .snap(id: "snap.spotify_beta")),      // parallel install
        ("snap.foo.bar//child (enforce)", .snap(id: "snap.foo")),                      // child profile
        ("lxd-c1_</var/snap/lxd/common/lxd>//&:lxd-c1_<var-snap-lxd-common-lxd>:snap.spotify.spotify (enforce)", .snap(id: "snap.spotify")),
        ("unconfined", .notSnap),
        ("/usr/bin/man (enforce)", .notSnap),
        ("snap-update-ns.spotify (enforce)", .notSnap),
        ("system_u:system_r:unconfined_t:s0", .notSnap),
        ("", .notSnap),
        ("snap.spotify (enforce)", .malformedSnap),                                    // no app
        ("snap.Spotify.spotify (enforce)", .malformedSnap),                            // capital letter
        ("snap.-x.app (enforce)", .malformedSnap),                                     // leading hyphen
        ("snap.a--b.app (enforce)", .malformedSnap),                                   // double hyphen
        ("snap.123.app (enforce)", .malformedSnap),                                    // no letter
        ("snap.foo_TOOLONGKEY1.app (enforce)", .malformedSnap),                        // bad instance key
        ("snap.foo.app.extra (enforce)", .malformedSnap),
        ("snap.foo.app name (enforce)", .malformedSnap),
    ])
    func snapLabels(label: String, expected: ProcessIdentityParser.SnapLabel) {
        #expect(ProcessIdentityParser.snapLabel(label) == expected)
    }

    @Test func flatpakInfoSyntax() {
        let spaced = "# comment\r\n  [Application]  \r\n name = org.example.App \r\nname[de]=org.example.Other\n"
        #expect(ProcessIdentityParser.flatpakAppID(fromInfo: spaced) == "org.example.App")
        // `name` in other groups is not the app's.
        #expect(ProcessIdentityParser.flatpakAppID(fromInfo: "[Instance]\nname=org.evil.App\n[Application]\nname=org.good.App\n") == "org.good.App")
        // A repeated [Application] group still may not name the app twice.
        #expect(ProcessIdentityParser.flatpakAppID(fromInfo: "[Application]\nname=org.a.A\n[Application]\nname=org.b.B\n") == nil)
        // The application wins over the runtime.
        #expect(ProcessIdentityParser.flatpakAppID(fromInfo: "[Runtime]\nname=org.r.R\n[Application]\nname=org.a.A\n") == "org.a.A")
    }

    @Test(arguments: [
        ("org.gnome.Maps", true), ("com.example.my-app", true), ("io._x.y", true), ("a.b", true),
        ("org", false), ("org..Maps", false), ("org.1gnome.Maps", false), (".org.Maps", false),
        ("org.gnome.Maps.", false), ("org.gnome/Maps", false), ("org.gnome.Mäps", false),
    ])
    func dbusStyleNames(name: String, valid: Bool) {
        #expect(ProcessIdentityParser.isDBusStyleName(name) == valid)
    }

    @Test func unitFromCgroup() {
        #expect(ProcessIdentityParser.systemdUnit(fromCgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-x-1.scope\n") == "app-x-1.scope")
        // Below the user manager, not the manager itself.
        #expect(ProcessIdentityParser.systemdUnit(fromCgroup: "0::/user.slice/user-1000.slice/user@1000.service/init.scope\n") == "init.scope")
        // A process in a sub-cgroup of its unit.
        #expect(ProcessIdentityParser.systemdUnit(fromCgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.x.Y@1.service/worker\n") == "app-org.x.Y@1.service")
        // A path that contains colons.
        #expect(ProcessIdentityParser.systemdUnit(fromCgroup: "0::/system.slice/weird:name.service\n") == "weird:name.service")
        #expect(ProcessIdentityParser.systemdUnit(fromCgroup: "0::/\n") == nil)
        #expect(ProcessIdentityParser.systemdUnit(fromCgroup: "") == nil)
        #expect(ProcessIdentityParser.systemdUnit(fromCgroup: "junk\n\n::::\n") == nil)
    }

    @Test func startTimeFromStat() {
        let stat = "1234 (a) (b) c) S 1 1234 1234 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100 18446744073709551615\n"
        #expect(ProcessIdentityParser.processStartTime(fromStat: stat) == 987_654)
        #expect(ProcessIdentityParser.processStartTime(fromStat: "1234 (short) S 1 2 3") == nil)
        #expect(ProcessIdentityParser.processStartTime(fromStat: "no parenthesis at all") == nil)
    }

    @Test func executableLinkTargets() {
        #expect(ProcessIdentityParser.executableID(fromLinkTarget: Array("/usr/bin/CompatClients".utf8))?.id == "CompatClients")
        let deleted = ProcessIdentityParser.executableID(fromLinkTarget: Array("/usr/bin/CompatClients (deleted)".utf8))
        #expect(deleted?.id == "CompatClients")
        #expect(deleted?.path == "/usr/bin/CompatClients")
        #expect(ProcessIdentityParser.executableID(fromLinkTarget: Array("/memfd:jit (deleted)".utf8))?.id == "memfd:jit")
        #expect(ProcessIdentityParser.executableID(fromLinkTarget: [0x2F, 0xC3, 0x28]) == nil)   // not UTF-8
        #expect(ProcessIdentityParser.executableID(fromLinkTarget: []) == nil)
    }
}
