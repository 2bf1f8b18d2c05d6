import Foundation
import PushGWDemo
import GatewayService
import PayloadBuilder
import XCTest
import TestSupport

/// The whole gateway configured from the environment, as an operator
/// would, behind a real HTTP proxy (tinyproxy, started by the test): APNs,
/// FCM and FCM's OAuth grant all go through it, or around it for NO_PROXY
/// hosts.
final class GatewayThroughProxyTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(TinyproxyTestServer.isInstalled, "tinyproxy is not installed (scripts/install-deps)")
    }

    private func configuration(_ providers: DemoProviders, _ extra: [String: String]) throws -> GatewayConfiguration {
        var environment = Dictionary(uniqueKeysWithValues: providers.gatewayEnvironment.map { ($0.name, $0.value) })
        environment["PUSHGW_LISTEN"] = "127.0.0.1:0"
        environment["PUSHGW_BEARER_TOKENS"] = ServiceTestbed.bearer
        environment.merge(extra) { $1 }
        return try ConfigurationLoader(environment: environment).load()
    }

    private func notify(_ gateway: Gateway, id: String = "c-1:m-1") async throws -> (status: Int, results: [JSONValue]) {
        let answer = try await ServiceTestbed.call("http://127.0.0.1:\(gateway.server.port)", "POST", "/v1/notify",
                                                   body: ServiceTestbed.event(id: id, tokens: [ServiceTestbed.token(1)],
                                                                              fcmTokens: ["fcm-token-1"]),
                                                   bearer: ServiceTestbed.bearer)
        guard case let .array(results)? = try JSONParser.parse(answer.body)["results"] else {
            XCTFail(String(decoding: answer.body, as: UTF8.self))
            return (answer.status, [])
        }
        return (answer.status, results)
    }

    func testPushgwProxyURLSendsBothProvidersAndTheOAuthGrantThroughTheProxy() async throws {
        let proxy = try TinyproxyTestServer(.init(credentials: ("alice", "s3cret-pw")))
        let providers = try DemoProviders()
        defer { providers.stop() }
        // One connection per provider, so that the tunnels can be counted.
        let gateway = try Gateway(configuration: configuration(providers, ["PUSHGW_PROXY_URL": proxy.url, "PUSHGW_APNS_CONNECTIONS": "1",
                                                                           "PUSHGW_FCM_CONNECTIONS": "1"]),
                                  logger: Logger(minimumLevel: .error))
        let (status, results) = try await notify(gateway)
        await gateway.shutdown(drain: .seconds(2))
        XCTAssertEqual(status, 200)
        XCTAssertEqual(results.map { $0["status"] }, [.string("sent"), .string("sent")])
        let targets = proxy.connectTargets
        XCTAssertEqual(targets.filter { $0 == "127.0.0.1:\(providers.apns.port)" }.count, 1, "\(targets)")
        // FCM's OAuth grant (libcurl) and its HTTP/2 connection: two tunnels to its origin.
        XCTAssertEqual(targets.filter { $0 == "127.0.0.1:\(providers.fcm.port)" }.count, 2, "\(targets)")
        XCTAssertEqual(providers.fcm.statistics.grantsIssued, 1)
    }

    func testHTTPSProxyIsHonouredAndNoProxyHostsAreReachedDirectly() async throws {
        let proxy = try TinyproxyTestServer()
        let providers = try DemoProviders()
        defer { providers.stop() }
        let gateway = try Gateway(configuration: configuration(providers, ["HTTPS_PROXY": proxy.url, "NO_PROXY": "localhost,127.0.0.1"]),
                                  logger: Logger(minimumLevel: .error))
        let (status, results) = try await notify(gateway)
        await gateway.shutdown(drain: .seconds(2))
        XCTAssertEqual(status, 200)
        XCTAssertEqual(results.map { $0["status"] }, [.string("sent"), .string("sent")])
        XCTAssertEqual(proxy.connectTargets, [], "the loopback simulators are on the NO_PROXY list")
    }

    func testTheSimulatorsCommandsEnvironmentReachesTheSimulatorsDirectlyDespiteHTTPSProxy() async throws {
        let proxy = try TinyproxyTestServer()
        let providers = try DemoProviders()
        defer { providers.stop() }
        var environment = Dictionary(uniqueKeysWithValues: providers.simulatorsCommandEnvironment.map { ($0.name, $0.value) })
        environment["PUSHGW_LISTEN"] = "127.0.0.1:0"
        environment["PUSHGW_BEARER_TOKENS"] = ServiceTestbed.bearer
        environment["HTTPS_PROXY"] = proxy.url
        let gateway = try Gateway(configuration: ConfigurationLoader(environment: environment).load(),
                                  logger: Logger(minimumLevel: .error))
        let (status, results) = try await notify(gateway)
        await gateway.shutdown(drain: .seconds(2))
        XCTAssertEqual(status, 200)
        XCTAssertEqual(results.map { $0["status"] }, [.string("sent"), .string("sent")])
        XCTAssertEqual(proxy.connectTargets, [], "a shell's HTTPS_PROXY must not carry the demo's loopback sends")
    }

    func testAProxyThatRefusesOurCredentialsFailsTheDevicesFinallyAndSaysWhy() async throws {
        let proxy = try TinyproxyTestServer(.init(credentials: ("alice", "s3cret-pw")))
        let providers = try DemoProviders()
        defer { providers.stop() }
        let url = proxy.url(user: "alice", password: "wrong-pw")
        // FCM's grant fails too and is retried until the deadline: a short one.
        let gateway = try Gateway(configuration: configuration(providers, ["PUSHGW_PROXY_URL": url, "PUSHGW_REQUEST_DEADLINE_SECONDS": "2"]),
                                  logger: Logger(minimumLevel: .error))
        let (_, results) = try await notify(gateway)
        await gateway.shutdown(drain: .seconds(2))
        let apns = try XCTUnwrap(results.first { $0["platform"] == .string("apns") })
        XCTAssertEqual(apns["status"], .string("failed"))
        XCTAssertEqual(apns["reason"], .string("proxy_refused"))
        XCTAssertEqual(apns["retryable"], .bool(false))
        XCTAssertEqual(providers.apns.statistics.acceptedTotal, 0)
        // FCM never gets its OAuth token through the proxy: retried, then failed.
        let fcm = try XCTUnwrap(results.first { $0["platform"] == .string("fcm") })
        XCTAssertEqual(fcm["status"], .string("failed"))
        XCTAssertEqual(fcm["reason"], .string("access_token_unavailable"))
        XCTAssertEqual(fcm["retryable"], .bool(true))
        XCTAssertEqual(providers.fcm.statistics.grantsIssued, 0)
    }
}
