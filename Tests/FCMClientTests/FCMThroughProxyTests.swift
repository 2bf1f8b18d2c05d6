@testable import FCMClient
import HTTP2Client
import NetworkSockets
import Curl
import Foundation
import XCTest
import TestSupport

/// FCM and its OAuth token exchange through a real HTTP proxy (tinyproxy,
/// started by the test): the same route decides for the HTTP/2
/// connection and for libcurl's token request.
final class FCMThroughProxyTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(TinyproxyTestServer.isInstalled, "tinyproxy is not installed (scripts/install-deps)")
    }

    private func route(_ url: String, noProxy: String = "") throws -> ProxyRoute {
        ProxyRoute(proxy: try OutboundProxy(url: url), bypass: ProxyBypassList(noProxy))
    }

    private func tokenPost(_ testbed: FCMTestbed, route: ProxyRoute) -> HTTPSPost {
        HTTPSPost(url: testbed.simulator.tokenURI, headers: ["Content-Type: application/x-www-form-urlencoded"],
                  body: Array("grant_type=x".utf8), caFile: testbed.caFile, connectTimeout: .seconds(5),
                  timeout: .seconds(5), maximumResponseBytes: 4096, route: route)
    }

    func testAMessageAndItsOAuthGrantBothGoThroughTheProxy() async throws {
        let proxy = try TinyproxyTestServer(.init(credentials: ("alice", "s3cret-pw")))
        let testbed = try FCMTestbed()
        let route = try route(proxy.url)
        var endpoint = testbed.tokenEndpoint
        endpoint.route = route
        let tokens = AccessTokenCache(serviceAccount: testbed.serviceAccount, configuration: endpoint)
        var options = HTTP2ConnectionOptions()
        options.route = route
        let client = try FCMClient(baseURL: testbed.simulator.url, projectID: FCMTestbed.projectID,
                                   tls: TLSConfiguration(caFile: testbed.caFile), tokens: tokens, options: options)
        defer { client.shutdown() }
        let outcome = try await client.send(try testbed.requests(count: 1)[0])
        guard case .accepted = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(testbed.simulator.statistics.grantsIssued, 1)
        // One tunnel for the token request (libcurl), one for the HTTP/2
        // connection: the simulator serves both on one origin.
        XCTAssertEqual(proxy.connectTargets, Array(repeating: "127.0.0.1:\(testbed.simulator.port)", count: 2), proxy.log)
    }

    func testTheTokenRequestUsesTheProxyAndItsCredentials() async throws {
        let proxy = try TinyproxyTestServer(.init(credentials: ("alice", "s3cret-pw")))
        let testbed = try FCMTestbed()
        testbed.simulator.setTokenEndpointDown(true, retryAfter: 3)
        let response = try await tokenPost(testbed, route: route(proxy.url)).send(on: DispatchQueue(label: "test")).get()
        XCTAssertEqual(response.status, 503, "the endpoint's own answer, through the tunnel")
        XCTAssertEqual(response.httpMajorVersion, 2, "ALPN h2 end to end through the tunnel")
        XCTAssertEqual(proxy.connectTargets, ["127.0.0.1:\(testbed.simulator.port)"])

        let refused = await tokenPost(testbed, route: try route(proxy.url(user: "alice", password: "wrong-pw")))
            .send(on: DispatchQueue(label: "test"))
        guard case let .failure(failure) = refused else { return XCTFail("a wrong proxy password was accepted") }
        XCTAssertEqual(failure.kind, .proxyRefused(401), "\(failure)")
        XCTAssertTrue(failure.beforeSending)
        XCTAssertFalse(failure.description.contains("wrong-pw"), failure.description)
    }

    func testAFailedProxyFailsTheGrantAsATransportError() async throws {
        let testbed = try FCMTestbed()
        let closedPort = try RedisTestServer.freeLoopbackPort()
        var endpoint = testbed.tokenEndpoint
        endpoint.route = try route("http://alice:s3cret-pw@127.0.0.1:\(closedPort)")
        let fetcher = ServiceAccountTokenFetcher(serviceAccount: testbed.serviceAccount, configuration: endpoint)
        do throws(AccessTokenError) {
            _ = try await fetcher.fetch(now: testbed.clock.epochSeconds)
            XCTFail("a grant came through a proxy that is not there")
        } catch {
            XCTAssertEqual(error.kind, .transport, "\(error)")
            XCTAssertFalse("\(error)".contains("s3cret-pw"), "\(error)")
        }
        XCTAssertEqual(testbed.simulator.statistics.grantsIssued, 0)
    }

    func testLibcurlsOwnReadingOfTheProxyVariablesIsOff() async throws {
        // The route (direct here) decides, not HTTPS_PROXY as libcurl reads it.
        let proxy = try TinyproxyTestServer()
        let testbed = try FCMTestbed()
        let variables = ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]
        for name in variables { setenv(name, proxy.url, 1) }
        defer { for name in variables { unsetenv(name) } }
        let response = try await tokenPost(testbed, route: .direct).send(on: DispatchQueue(label: "test")).get()
        XCTAssertEqual(response.status, 400, "the endpoint's answer to a bad grant")
        XCTAssertEqual(proxy.connectTargets, [])
    }

    func testNoProxyHostsGetTheirTokenDirectly() async throws {
        let proxy = try TinyproxyTestServer()
        let testbed = try FCMTestbed()
        let response = try await tokenPost(testbed, route: route(proxy.url, noProxy: "127.0.0.1"))
            .send(on: DispatchQueue(label: "test")).get()
        XCTAssertEqual(response.status, 400, "the endpoint's answer to a bad grant")
        XCTAssertEqual(proxy.connectTargets, [])
    }
}
