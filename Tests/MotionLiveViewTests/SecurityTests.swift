import Foundation
@testable import MotionLiveView
import Testing

@Suite("Hostile pages: DNS rebinding, other origins, security headers, tokens", .serialized)
struct SecurityTests {
    @Test("the loopback test is on addresses, not names; localhost listens on 127.0.0.1")
    func loopbackAddresses() throws {
        for host in ["127.0.0.1", "127.255.255.254", "127.0.0.2", "::1", "[::1]", "0:0:0:0:0:0:0:1", "localhost", "LOCALHOST"] {
            #expect(LiveViewAccess.isLoopback(host), "\(host)")
        }
        for host in ["127.0.0.1.evil.example", "127.evil", "127.0.0.1:80", "128.0.0.1", "0.0.0.0", "::", "::2", "0177.0.0.1",
                     "::ffff:127.0.0.1", "localhost.evil.example", "", "[127.0.0.1]"] {
            #expect(!LiveViewAccess.isLoopback(host), "\(host)")
        }
        #expect(try LiveViewAccess(host: "localhost", token: nil).host == "127.0.0.1")
        #expect(try LiveViewAccess(host: "[::1]", token: nil).host == "::1")
        #expect(throws: LiveViewAccessError.tokenRequired(host: "127.0.0.1.nip.io")) { try LiveViewAccess(host: "127.0.0.1.nip.io", token: nil) }
    }

    @Test("without a token, Host must name the bound address and Origin must be the view's own, whatever Host says")
    func hostAndOriginRules() throws {
        let v4 = try LiveViewAccess(host: "127.0.0.1", token: nil)
        #expect(v4.ownOrigins(port: 8765) == ["http://127.0.0.1:8765", "http://localhost:8765"])
        for host in ["127.0.0.1:8765", "localhost:8765", "LOCALHOST:8765"] { #expect(v4.admits(host: host, port: 8765), "\(host)") }
        for host in ["evil.example:8765", "127.0.0.1:8766", "127.0.0.1", "[::1]:8765", "127.0.0.2:8765", "127.0.0.1.evil.example:8765",
                     "user@127.0.0.1:8765", "127.0.0.1:8765/x", "127.0.0.1:", "127.0.0.1:+8765", "", "[127.0.0.1]:8765"] {
            #expect(!v4.admits(host: host, port: 8765), "\(host)")
        }
        #expect(!v4.admits(host: nil, port: 8765))
        // The DNS-rebinding page: its Origin matches its own Host, and both are refused.
        #expect(!v4.admits(origin: "http://evil.example:8765", host: "evil.example:8765", port: 8765))
        #expect(!v4.admits(origin: "http://evil.example:8765", host: "127.0.0.1:8765", port: 8765))
        #expect(!v4.admits(origin: "null", host: "127.0.0.1:8765", port: 8765))
        #expect(!v4.admits(origin: "https://127.0.0.1:8765", host: "127.0.0.1:8765", port: 8765))
        #expect(v4.admits(origin: "http://127.0.0.1:8765", host: "127.0.0.1:8765", port: 8765))
        #expect(v4.admits(origin: "http://localhost:8765", host: "127.0.0.1:8765", port: 8765))
        #expect(v4.admits(origin: nil, host: "127.0.0.1:8765", port: 8765))
        let v6 = try LiveViewAccess(host: "::1", token: nil)
        #expect(v6.ownOrigins(port: 9000) == ["http://[::1]:9000", "http://localhost:9000"])
        #expect(v6.admits(host: "[::1]:9000", port: 9000))
        #expect(v6.admits(host: "[0:0:0:0:0:0:0:1]:9000", port: 9000))
        #expect(!v6.admits(host: "127.0.0.1:9000", port: 9000))
        #expect(!v6.admits(host: "::1:9000", port: 9000))
        // With a token any name may reach the view; the Origin must still be the page's own.
        let guarded = try LiveViewAccess(host: "0.0.0.0", token: "secret-token")
        #expect(guarded.admits(host: "phone-bridge.lan:8765", port: 8765))
        #expect(guarded.admits(origin: "http://phone-bridge.lan:8765", host: "phone-bridge.lan:8765", port: 8765))
        #expect(!guarded.admits(origin: "http://evil.example", host: "phone-bridge.lan:8765", port: 8765))
    }

    /// The finding: a page of evil.example, its name rebound to 127.0.0.1, opened the stream with
    /// `Host: evil.example:PORT` and `Origin: http://evil.example:PORT` and read 34 KB of motion in 2 s.
    @Test("a DNS-rebinding page gets neither the page nor the stream; the view's own page gets both (real loopback socket)")
    func dnsRebinding() async throws {
        try await withServer(source: FloodSource(channels: 1)) { port, _ in
            try await blocking {
                let evil = "evil.example:\(port)"
                let rebound = try RawWebSocket(port: port, origin: "http://\(evil)", host: evil)
                // HummingbirdWebSocket answers a refused upgrade 400 and closes the connection.
                #expect(rebound.statusLine.contains(" 400 ") && !rebound.upgraded, "\(rebound.statusLine)")
                #expect(try rebound.receive() == nil)
                #expect(try RawWebSocket(port: port, host: evil).upgraded == false)
                #expect(try RawWebSocket(port: port, path: "/", upgrade: false, host: evil).statusLine.contains(" 421 "))
                #expect(try RawWebSocket(port: port, path: "/view.js", upgrade: false, host: evil).statusLine.contains(" 421 "))
                #expect(try RawWebSocket(port: port, host: "127.0.0.1.evil.example:\(port)").upgraded == false)
                #expect(try RawWebSocket(port: port, host: "127.0.0.1:\(port + 1)").upgraded == false)
                #expect(try RawWebSocket(port: port, host: .some(nil)).upgraded == false)
                #expect(try RawWebSocket(port: port, extraHeaders: ["Host: evil.example"]).upgraded == false)
                // The right Host but another page's Origin, or a sandboxed one.
                #expect(try RawWebSocket(port: port, origin: "http://evil.example").upgraded == false)
                #expect(try RawWebSocket(port: port, origin: "null").upgraded == false)
                #expect(try RawWebSocket(port: port, origin: "http://127.0.0.1:\(port)", extraHeaders: ["Origin: http://evil.example"]).upgraded == false)
                // A bidirectional override in the Origin is refused (and escaped in the log line).
                #expect(try RawWebSocket(port: port, origin: "http://\u{202E}elpmaxe.live").upgraded == false)
                // Nothing but GET (and HEAD) is served.
                #expect(try RawWebSocket(port: port, path: "/", upgrade: false, method: "POST").statusLine.contains(" 405 "))
                // The view's own page, under its address or localhost.
                #expect(try RawWebSocket(port: port, origin: "http://127.0.0.1:\(port)").upgraded)
                let own = try RawWebSocket(port: port, origin: "http://localhost:\(port)", host: "localhost:\(port)")
                #expect(own.upgraded)
                #expect(try own.receive(until: { $0.contains("\"type\":\"samples\"") }) != nil)
                #expect(try RawWebSocket.get(port: port, path: "/").contains(" 200 "))
            }
        }
    }

    @Test("a refused peer's Host and Origin reach the log escaped")
    func refusalLogIsEscaped() throws {
        let access = try LiveViewAccess(host: "127.0.0.1", token: nil)
        let refusal = try #require(LiveViewServer.refusal(
            method: .get, authority: "evil.example\u{1B}[2J:1", fields: [.origin: "http://\u{202E}elpmaxe.live"],
            access: access, port: 1))
        let (message, metadata) = RefusalLog.line(refusal, what: "a request", unlogged: 3)
        #expect(message.contains("refused a request"))
        #expect(metadata["origin"] == "http://\\u{202E}elpmaxe.live")
        #expect(metadata["host"] == "evil.example\\u{1B}[2J:1")
        #expect(metadata["refusedWithoutLogLine"] == "3")
    }

    @Test("every response carries the content security policy, X-Frame-Options, nosniff and no-referrer")
    func securityHeaders() async throws {
        try await withServer(source: FloodSource(channels: 1), token: nil) { port, _ in
            try await blocking {
                for (path, status, host) in [
                    ("/", " 200 ", "127.0.0.1:\(port)"), ("/view.js", " 200 ", "127.0.0.1:\(port)"),
                    ("/view.css", " 200 ", "localhost:\(port)"), ("/nothing.txt", " 404 ", "127.0.0.1:\(port)"),
                    ("/a/b/../../etc/passwd", " 404 ", "127.0.0.1:\(port)"), ("/", " 421 ", "evil.example:\(port)"),
                ] {
                    let answer = try RawWebSocket(port: port, path: path, upgrade: false, host: host)
                    #expect(answer.statusLine.contains(status), "\(path): \(answer.statusLine)")
                    let policy = try #require(answer.header("Content-Security-Policy"), "\(path)")
                    for directive in [
                        "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src data:",
                        "connect-src 'self' ws://127.0.0.1:\(port) ws://localhost:\(port)", "frame-ancestors 'none'",
                        "base-uri 'none'", "form-action 'none'",
                    ] {
                        #expect(policy.contains(directive), "\(path): \(policy)")
                    }
                    #expect(!policy.contains("unsafe"))
                    #expect(!policy.contains("evil"))
                    #expect(answer.header("X-Frame-Options") == "DENY", "\(path)")
                    #expect(answer.header("X-Content-Type-Options") == "nosniff", "\(path)")
                    #expect(answer.header("Referrer-Policy") == "no-referrer", "\(path)")
                }
            }
        }
        try await withServer(source: FloodSource(channels: 1), token: "secret-token") { port, _ in
            try await blocking {
                let refused = try RawWebSocket(port: port, path: "/?token=wrong", upgrade: false)
                #expect(refused.statusLine.contains(" 403 "))
                #expect(refused.header("X-Frame-Options") == "DENY")
                let page = try RawWebSocket(port: port, path: "/?token=secret-token", upgrade: false)
                #expect(try #require(page.header("Content-Security-Policy")).contains("connect-src 'self' ws://127.0.0.1:\(port);"))
            }
        }
    }

    /// The policy forbids inline script and style: the page must have none (nor event-handler
    /// attributes), and load only its own files.
    @Test("the page works under its policy: no inline script, style or handler; only its own files")
    func pageFitsThePolicy() async throws {
        try await withServer(source: FloodSource(channels: 1)) { port, _ in
            try await blocking {
                let page = try RawWebSocket(port: port, path: "/", upgrade: false)
                #expect(page.statusLine.contains(" 200 "))
                let html = try page.readToEnd().lowercased()
                #expect(html.contains("<script src=\"view.js\"></script>"))
                #expect(html.contains("<link rel=\"stylesheet\" href=\"view.css\">"))
                #expect(html.components(separatedBy: "<script").count - 1 == html.components(separatedBy: "<script src=\"").count - 1)
                #expect(!html.contains("<style"))
                #expect(!html.contains(" style="))
                #expect(html.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil)
                #expect(html.range(of: #"(src|href)="(https?:)?//"#, options: .regularExpression) == nil)
                let script = try RawWebSocket(port: port, path: "/view.js", upgrade: false).readToEnd()
                #expect(!script.contains("eval("))
                #expect(!script.contains("new Function"))
                #expect(!script.contains("setAttribute(\"style\""))
            }
        }
    }

    @Test("the token comes from --token-file or COREMOTION_VIEW_TOKEN as well as --token")
    func tokenSources() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coremotion-view-token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("token")
        try Data("from-the-file-1\n".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        let environment = [LiveViewToken.environmentVariable: "from-the-environment"]
        #expect(try LiveViewToken.resolve(option: nil, file: file.path, environment: environment)
            == LiveViewToken.Resolved(token: "from-the-file-1", warning: nil))
        #expect(try LiveViewToken.resolve(option: nil, file: nil, environment: environment).token == "from-the-environment")
        #expect(try LiveViewToken.resolve(option: "from-argv-1", file: nil, environment: environment).token == "from-argv-1")
        #expect(try LiveViewToken.resolve(option: nil, file: nil, environment: [:]).token == nil)
        #expect(try LiveViewToken.resolve(option: nil, file: nil, environment: [LiveViewToken.environmentVariable: ""]).token == nil)
        #expect(throws: LiveViewTokenError.bothOptions) { try LiveViewToken.resolve(option: "from-argv-1", file: file.path, environment: [:]) }
        // A file other users can read works, with a warning.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        #expect(try LiveViewToken.resolve(option: nil, file: file.path, environment: [:]).warning?.contains("chmod 600") == true)
        // CRLF, empty, too large, missing.
        try Data("crlf-token-1\r\n".utf8).write(to: file)
        #expect(try LiveViewToken.resolve(option: nil, file: file.path, environment: [:]).token == "crlf-token-1")
        try Data("\n".utf8).write(to: file)
        #expect(throws: LiveViewTokenError.empty(path: file.path)) { try LiveViewToken.resolve(option: nil, file: file.path, environment: [:]) }
        try Data(repeating: 0x61, count: LiveViewToken.maximumFileSize + 1).write(to: file)
        #expect(throws: LiveViewTokenError.tooLarge(path: file.path)) { try LiveViewToken.resolve(option: nil, file: file.path, environment: [:]) }
        #expect(throws: LiveViewTokenError.self) { try LiveViewToken.resolve(option: nil, file: folder.appendingPathComponent("none").path, environment: [:]) }
        // The token read is then checked as any other.
        #expect(throws: LiveViewAccessError.tokenTooShort) { try LiveViewAccess(host: "0.0.0.0", token: "short") }
    }
}
