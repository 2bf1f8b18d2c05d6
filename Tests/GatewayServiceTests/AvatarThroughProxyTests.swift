@testable import GatewayService
import NetworkSockets
import PayloadBuilder
import XCTest
import TestSupport

/// Avatars through a real HTTP proxy (tinyproxy, started by the test): the
/// download is tunnelled, and the address guard applies to the avatar's
/// host, not to the proxy. The proxy listens on 127.0.0.1 and the avatar
/// servers on 127.0.0.2, so that a policy can admit one and not the other.
final class AvatarThroughProxyTests: XCTestCase {
    private let image: AvatarTestServer.Reply = .body(status: 200, contentType: "image/png", bytes: AvatarFixtures.png)

    override func setUpWithError() throws {
        try XCTSkipUnless(TinyproxyTestServer.isInstalled, "tinyproxy is not installed (scripts/install-deps)")
    }

    private func policy(proxy: TinyproxyTestServer, admitting network: String, noProxy: String = "") throws -> AvatarPolicy {
        var policy = AvatarPolicy(allowHTTP: true, privateAddressExceptions: [try XCTUnwrap(AvatarAddressRange(network))])
        policy.route = ProxyRoute(proxy: try OutboundProxy(url: proxy.url), bypass: ProxyBypassList(noProxy))
        return policy
    }

    func testAnAvatarIsFetchedThroughTheProxysTunnel() async throws {
        let proxy = try TinyproxyTestServer(.init(credentials: ("alice", "s3cret-pw")))
        let server = try startServer(address: "127.0.0.2", ["/a.png": image])
        let rig = AvatarTestRig(try policy(proxy: proxy, admitting: "127.0.0.2/32"))
        let url = server.url("/a.png")
        let state = await rig.resolver.resolve(url)
        XCTAssertEqual(state, .ok(url: url, mime: "image/png", bytes: 69, sha256: AvatarFixtures.pngSHA256))
        // Plain http is tunnelled too: the proxy never fetches for us.
        XCTAssertEqual(proxy.connectTargets, ["127.0.0.2:\(server.port)"], proxy.log)
        XCTAssertEqual(server.seen.requests, ["/a.png"])
    }

    func testTheGuardChecksTheAvatarHostNotTheProxy() async throws {
        // The proxy's address (127.0.0.2) is admitted, the avatar host's
        // (localhost: 127.0.0.1, or ::1) is not: checking the socket libcurl
        // opens, to the proxy, would let the proxy fetch it. A name, so that
        // the check after DNS is the one that refuses.
        let proxy = try TinyproxyTestServer(.init(address: "127.0.0.2"))
        let server = try startServer(["/a.png": image])
        let rig = AvatarTestRig(try policy(proxy: proxy, admitting: "127.0.0.2/32"))
        assertDropped(await rig.resolver.resolve("http://localhost:\(server.port)/a.png"), .privateAddress)
        XCTAssertEqual(proxy.connectTargets, [], "nothing was asked of the proxy")
        XCTAssertEqual(server.seen.connections, 0)
    }

    func testARedirectToAPrivateAddressIsRefusedThroughTheProxyToo() async throws {
        let proxy = try TinyproxyTestServer()
        let inside = try startServer(address: "127.0.0.3", ["/secret.png": image])
        let server = try startServer(address: "127.0.0.2", ["/a.png": .redirect(status: 302, location: inside.url("/secret.png"))])
        let rig = AvatarTestRig(try policy(proxy: proxy, admitting: "127.0.0.2/32"))
        assertDropped(await rig.resolver.resolve(server.url("/a.png")), .privateAddress)
        XCTAssertEqual(proxy.connectTargets, ["127.0.0.2:\(server.port)"])
        XCTAssertEqual(inside.seen.connections, 0)
    }

    func testAProxyThatRefusesDropsTheAvatarAsAConnectFailure() async throws {
        let proxy = try TinyproxyTestServer(.init(credentials: ("alice", "s3cret-pw")))
        let server = try startServer(address: "127.0.0.2", ["/a.png": image])
        var policy = try policy(proxy: proxy, admitting: "127.0.0.2/32")
        policy.route.proxy = try OutboundProxy(url: proxy.url(user: "alice", password: "wrong"))
        let rig = AvatarTestRig(policy)
        assertDropped(await rig.resolver.resolve(server.url("/a.png")), .connectFailed)
        XCTAssertEqual(server.seen.connections, 0)
    }

    func testNoProxyAvatarHostsAreFetchedDirectlyAndCheckedAsEver() async throws {
        let proxy = try TinyproxyTestServer()
        let server = try startServer(address: "127.0.0.2", ["/a.png": image])
        let rig = AvatarTestRig(try policy(proxy: proxy, admitting: "127.0.0.2/32", noProxy: "127.0.0.2"))
        let url = server.url("/a.png")
        let state = await rig.resolver.resolve(url)
        XCTAssertEqual(state, .ok(url: url, mime: "image/png", bytes: 69, sha256: AvatarFixtures.pngSHA256))
        XCTAssertEqual(proxy.connectTargets, [])
    }
}
