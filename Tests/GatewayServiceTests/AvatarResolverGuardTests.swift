@testable import GatewayService
@testable import GatewayHTTP
import Glibc
import PayloadBuilder
import XCTest

/// The SSRF guard end to end: schemes, the host allow-list, private
/// addresses in every notation, after DNS and after redirects, each proven
/// by a local server that never saw a connection.
final class AvatarResolverGuardTests: XCTestCase {
    private let image: AvatarTestServer.Reply = .body(status: 200, contentType: "image/png", bytes: AvatarFixtures.png)

    func testTheDefaultPolicyRefusesLoopbackWithoutConnecting() async throws {
        let server = try startServer(["/a.png": image])
        let rig = AvatarTestRig(AvatarPolicy())
        let url = "https://127.0.0.1:\(server.port)/a.png"
        let state = await rig.resolver.resolve(url)
        XCTAssertEqual(state, .dropped(url: url, reason: "private_address"))
        XCTAssertEqual(rig.counts, ["private_address": 1])
        XCTAssertEqual(server.seen.connections, 0)
    }

    func testTheDefaultPolicyRefusesPlainHTTP() async throws {
        let server = try startServer(["/a.png": image])
        let resolver = AvatarResolver()
        assertDropped(await resolver.resolve(server.url("/a.png")), .schemeNotAllowed)
        assertDropped(await resolver.resolve("http://example.com/a.png"), .schemeNotAllowed)
        XCTAssertEqual(server.seen.connections, 0)
    }

    func testAllowHTTPLetsPlainHTTPThrough() async throws {
        let server = try startServer(["/a.png": image])
        let state = await AvatarResolver(policy: AvatarPolicy(allowHTTP: true, allowPrivateAddresses: true)).resolve(server.url("/a.png"))
        XCTAssertEqual(state, .ok(url: server.url("/a.png"), mime: "image/png", bytes: 69, sha256: AvatarFixtures.pngSHA256))
    }

    /// Every spelling of 127.0.0.1 that reaches an IPv4 listener when allowed.
    private func loopbackSpellings(_ port: UInt16) -> [String] {
        [
            "http://127.0.0.1:\(port)/a.png",
            "http://[::ffff:127.0.0.1]:\(port)/a.png",
            "http://[::ffff:7f00:1]:\(port)/a.png",
            "http://[0:0:0:0:0:ffff:127.0.0.1]:\(port)/a.png",
            "http://0x7f.1:\(port)/a.png",
            "http://0x7f.0x0.0x0.0x1:\(port)/a.png",
            "http://0177.0.0.1:\(port)/a.png",
            "http://2130706433:\(port)/a.png",
            "http://127.1:\(port)/a.png",
            "http://%31%32%37.0.0.1:\(port)/a.png",
            "http://localhost:\(port)/a.png",
            "http://LocalHost:\(port)/a.png",
        ]
    }

    func testLoopbackInEveryNotationIsRefusedWithoutConnecting() async throws {
        let server = try startServer(["/a.png": image])
        let resolver = AvatarResolver(policy: AvatarPolicy(allowHTTP: true))
        for url in loopbackSpellings(server.port) + ["http://[::1]:\(server.port)/a.png", "http://[::127.0.0.1]:\(server.port)/"] {
            assertDropped(await resolver.resolve(url), .privateAddress)
        }
        XCTAssertEqual(server.seen.connections, 0)
    }

    func testTheSameSpellingsReachTheServerWhenPrivateAddressesAreAllowed() async throws {
        // Proves the refusals above are the policy's, not an unreachable address.
        let server = try startServer(["/a.png": image])
        let resolver = AvatarResolver(policy: .localTesting)
        for url in loopbackSpellings(server.port) {
            let state = await resolver.resolve(url)
            XCTAssertEqual(state, .ok(url: url, mime: "image/png", bytes: 69, sha256: AvatarFixtures.pngSHA256), url)
        }
        XCTAssertEqual(server.seen.requests.count, loopbackSpellings(server.port).count)
    }

    func testANameIsCheckedOnTheAddressItResolvesTo() async throws {
        // `localhost` is not a literal, so nothing refuses it before DNS: the
        // open-socket callback does, for 127.0.0.1 and ::1 alike.
        let server = try startServer(["/a.png": image])
        let policy = AvatarPolicy(allowHTTP: true)
        let url = server.url("/a.png").replacingOccurrences(of: "127.0.0.1", with: "localhost")
        guard case .passed = policy.check(url) else { return XCTFail("localhost must pass the pre-DNS check") }
        assertDropped(await AvatarResolver(policy: policy).resolve(url), .privateAddress)
        XCTAssertEqual(server.seen.connections, 0)
    }

    func testMetadataAndOtherPrivateLiteralsAreRefusedBeforeConnecting() async {
        let resolver = AvatarResolver(policy: AvatarPolicy(allowHTTP: true))
        for url in [
            "http://0x7f.1/", "http://[::ffff:127.0.0.1]/", "https://10.0.0.1/a.png", "https://192.168.1.1/a.png",
            "http://169.254.169.254/latest/meta-data/", "https://[fd00:ec2::254]/latest/meta-data/",
            "http://[::ffff:169.254.169.254]/", "http://[::ffff:a9fe:a9fe]/", "http://0xa9fea9fe/",
            "http://100.100.100.200/latest/meta-data/", "http://[fe80::1%25eth0]/", "http://0.0.0.0:80/",
        ] {
            assertDropped(await resolver.resolve(url), .privateAddress)
        }
    }

    func testARedirectToAPrivateAddressIsRefusedBeforeConnecting() async throws {
        // 127.0.0.1 is let through by an exception, so the first hop works;
        // 127.0.0.2 (another loopback address, its own server) is not.
        let inside = try startServer(address: "127.0.0.2", ["/a.png": image])
        let outside = try startServer([
            "/a.png": image,
            "/to-inside": .redirect(status: 302, location: inside.url("/a.png")),
            "/to-v6-loopback": .redirect(status: 302, location: "http://[::1]:\(inside.port)/a.png"),
            "/to-metadata": .redirect(status: 302, location: "http://169.254.169.254/latest/meta-data/"),
        ])
        let policy = AvatarPolicy(allowHTTP: true, privateAddressExceptions: [try XCTUnwrap(AvatarAddressRange("127.0.0.1/32"))])
        let resolver = AvatarResolver(policy: policy)
        if case .ok = await resolver.resolve(outside.url("/a.png")) {} else { XCTFail("the exception admits 127.0.0.1") }
        assertDropped(await resolver.resolve(outside.url("/to-inside")), .privateAddress)
        assertDropped(await resolver.resolve(outside.url("/to-v6-loopback")), .privateAddress)
        assertDropped(await resolver.resolve(outside.url("/to-metadata")), .privateAddress)
        XCTAssertEqual(inside.seen.connections, 0)
        XCTAssertEqual(outside.seen.requests, ["/a.png", "/to-inside", "/to-v6-loopback", "/to-metadata"])
    }

    func testProxiesFromTheEnvironmentAreIgnored() async throws {
        // libcurl's own reading of the proxy variables is off: the gateway's
        // proxy setting (the policy's route, direct here) alone decides.
        let proxy = try startServer([:])
        let server = try startServer(["/a.png": image])
        let variables = ["http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]
        for name in variables { setenv(name, proxy.url(""), 1) }
        defer { for name in variables { unsetenv(name) } }
        if case .ok = await AvatarResolver(policy: .localTesting).resolve(server.url("/a.png")) {} else { XCTFail("direct download") }
        XCTAssertEqual(proxy.seen.connections, 0)
        XCTAssertEqual(server.seen.requests, ["/a.png"])
    }

    func testTheAllowListAdmitsListedHostsOnly() async throws {
        let listed = try startServer(["/a.png": image])
        let unlisted = try startServer(address: "127.0.0.2", ["/a.png": image])
        let bouncer = try startServer(["/away": .redirect(status: 302, location: unlisted.url("/a.png"))])
        var policy = AvatarPolicy.localTesting
        policy.allowedHosts = ["127.0.0.1", "*.example.com"]
        let resolver = AvatarResolver(policy: policy)
        if case .ok = await resolver.resolve(listed.url("/a.png")) {} else { XCTFail("127.0.0.1 is listed") }
        assertDropped(await resolver.resolve(unlisted.url("/a.png")), .hostNotAllowed)
        assertDropped(await resolver.resolve(bouncer.url("/away")), .hostNotAllowed)
        assertDropped(await resolver.resolve("http://localhost:\(listed.port)/a.png"), .hostNotAllowed)
        XCTAssertEqual(unlisted.seen.connections, 0)
        XCTAssertEqual(listed.seen.requests, ["/a.png"])
    }

    func testAllowListEntriesMatchExactHostsAndStrictSubdomains() {
        let policy = AvatarPolicy(allowedHosts: ["cdn.example.com", "*.avatars.example.net", "Mixed.Example.ORG."])
        for host in ["cdn.example.com", "CDN.Example.Com", "cdn.example.com.", "a.avatars.example.net", "a.b.avatars.example.net", "mixed.example.org"] {
            XCTAssertTrue(policy.admits(host: host), host)
        }
        for host in ["example.com", "xcdn.example.com", "cdn.example.com.evil", "avatars.example.net", "aavatars.example.net", "evil.net"] {
            XCTAssertFalse(policy.admits(host: host), host)
        }
        XCTAssertTrue(AvatarPolicy().admits(host: "anything.example"), "no list admits every host")
        XCTAssertFalse(AvatarPolicy(allowedHosts: []).admits(host: "cdn.example.com"), "an empty list admits none")
        XCTAssertFalse(AvatarPolicy(allowedHosts: ["*."]).admits(host: "a."), "a bare wildcard admits nothing")
    }

    func testMalformedURLsAndCredentialsAreRefusedWithoutTheNetwork() async {
        let resolver = AvatarResolver()
        let expectations: [(String, AvatarDropReason)] = [
            ("not a url", .badURL), ("", .badURL), ("https://exa mple.com/a.png", .badURL), ("https://", .badURL),
            ("https://example.com/a.png\u{0}@evil.example", .badURL), ("https://example.com:99999/", .badURL),
            ("https://example.com/" + String(repeating: "a", count: 2100), .badURL),
            ("javascript:alert(1)", .badURL), ("ftp://example.com/a.png", .schemeNotAllowed),
            ("file:///etc/passwd", .schemeNotAllowed), ("gopher://example.com/", .schemeNotAllowed),
            ("https://user:secret@example.com/a.png", .credentialsInURL), ("https://example.com@127.0.0.1/", .credentialsInURL),
        ]
        for (url, reason) in expectations {
            assertDropped(await resolver.resolve(url), reason)
        }
        let none = await resolver.resolve(nil)
        XCTAssertEqual(none, AvatarState.none)
    }
}
