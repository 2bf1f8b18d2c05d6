import APNsHTTP2
@testable import HTTP2Client
import NetworkSockets
import APNsSimulator
import Foundation
import XCTest
import TestSupport

/// APNs through a real HTTP proxy (tinyproxy, started by the test): the
/// HTTP/2 connection is tunnelled with `CONNECT`, TLS and ALPN `h2` end to
/// end with the simulator; a proxy that refuses, dies, or is slow ends a
/// send with a typed error by its deadline.
final class APNsThroughProxyTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(TinyproxyTestServer.isInstalled, "tinyproxy is not installed (scripts/install-deps)")
    }

    private func options(proxy url: String, noProxy: String = "", connectTimeout: Duration = .seconds(10)) throws -> HTTP2ConnectionOptions {
        var options = HTTP2ConnectionOptions()
        options.route = ProxyRoute(proxy: try OutboundProxy(url: url), bypass: ProxyBypassList(noProxy))
        options.connectTimeout = connectTimeout
        return options
    }

    private func simulatorTarget(_ testbed: APNsTestbed) -> String {
        "127.0.0.1:\(testbed.simulator.port)"
    }

    func testANotificationGoesThroughTheProxysTunnelToTheSimulator() async throws {
        let proxy = try TinyproxyTestServer()
        let testbed = try APNsTestbed()
        let client = try testbed.client(options: options(proxy: proxy.url))
        defer { client.shutdown() }
        let request = try testbed.requests(count: 1)[0]
        let outcome = try await client.send(request)
        XCTAssertEqual(outcome, .accepted(apnsID: request.header("apns-id")!))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)
        XCTAssertEqual(proxy.connectTargets, [simulatorTarget(testbed)], proxy.log)
    }

    func testBasicCredentialsAreAcceptedAndWrongOnesAreRefusedWith407() async throws {
        let proxy = try TinyproxyTestServer(.init(credentials: ("alice", "s3cret-pw")))
        let testbed = try APNsTestbed()
        let client = try testbed.client(options: options(proxy: proxy.url))
        defer { client.shutdown() }
        let requests = try testbed.requests(count: 2)
        let outcome = try await client.send(requests[0])
        XCTAssertEqual(outcome, .accepted(apnsID: requests[0].header("apns-id")!))

        let refused = try testbed.client(options: options(proxy: proxy.url(user: "alice", password: "wrong-pw")))
        defer { refused.shutdown() }
        do throws(TransportError) {
            _ = try await refused.send(requests[1])
            XCTFail("a proxy that refuses our credentials let the notification through")
        } catch {
            // tinyproxy answers a wrong password with 401, no credentials with 407.
            XCTAssertEqual(error.kind, .proxyRefused, "\(error)")
            XCTAssertTrue(error.detail.contains("refused our credentials (401"), error.detail)
            XCTAssertFalse(error.detail.contains("wrong-pw"), "the password is never shown: \(error.detail)")
            XCTAssertFalse(error.isRetryable)
            XCTAssertTrue(error.wasNotProcessed)
        }
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)
    }

    func testAProxyWithoutOurCredentialsAnswers407() async throws {
        let proxy = try TinyproxyTestServer(.init(credentials: ("alice", "s3cret-pw")))
        let testbed = try APNsTestbed()
        let client = try testbed.client(options: options(proxy: proxy.url(user: nil)))
        defer { client.shutdown() }
        let request = try testbed.requests(count: 1)[0]
        do throws(TransportError) {
            _ = try await client.send(request)
            XCTFail("sent without credentials")
        } catch {
            XCTAssertEqual(error.kind, .proxyRefused, "\(error)")
            XCTAssertTrue(error.detail.contains("asks for credentials (407"), error.detail)
        }
    }

    func testAProxyThatForbidsTheTargetAnswers403AndIsNotRetried() async throws {
        let proxy = try TinyproxyTestServer(.init(connectPorts: [443]))
        let testbed = try APNsTestbed()
        let client = try testbed.client(options: options(proxy: proxy.url))
        defer { client.shutdown() }
        let request = try testbed.requests(count: 1)[0]
        do throws(TransportError) {
            _ = try await client.send(request)
            XCTFail("a proxy that forbids the port let the notification through")
        } catch {
            XCTAssertEqual(error.kind, .proxyRefused, "\(error)")
            XCTAssertTrue(error.detail.contains("403"), error.detail)
            XCTAssertFalse(error.isRetryable)
        }
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 0)
    }

    func testAProxyThatCannotReachTheTargetIsARetryableConnectFailure() async throws {
        // tinyproxy answers 500 when its own connect to the target fails.
        let proxy = try TinyproxyTestServer()
        let testbed = try APNsTestbed()
        let closedPort = try RedisTestServer.freeLoopbackPort()
        var options = try options(proxy: proxy.url)
        options.route.bypass = .none
        let client = try APNsClient(origin: "https://127.0.0.1:\(closedPort)", tls: TLSConfiguration(caFile: testbed.caFile),
                                    tokens: testbed.tokens, connections: 1, options: options,
                                    now: { [clock = testbed.clock] in clock.epochSeconds })
        defer { client.shutdown() }
        let request = try testbed.requests(count: 1)[0]
        do throws(TransportError) {
            _ = try await client.send(request)
            XCTFail("sent to a closed port")
        } catch {
            XCTAssertEqual(error.kind, .connectFailed, "\(error)")
            XCTAssertTrue(error.detail.contains("could not open a tunnel"), error.detail)
            XCTAssertTrue(error.isRetryable)
        }
        // The pool tries again within the request: each time through the proxy.
        XCTAssertFalse(proxy.connectTargets.isEmpty)
        XCTAssertEqual(Set(proxy.connectTargets), ["127.0.0.1:\(closedPort)"])
    }

    func testAProxyThatRefusesConnectionsIsARetryableConnectFailure() async throws {
        let testbed = try APNsTestbed()
        let closedPort = try RedisTestServer.freeLoopbackPort()
        let client = try testbed.client(options: options(proxy: "http://alice:s3cret-pw@127.0.0.1:\(closedPort)"))
        defer { client.shutdown() }
        let request = try testbed.requests(count: 1)[0]
        do throws(TransportError) {
            _ = try await client.send(request)
            XCTFail("sent through a proxy that is not there")
        } catch {
            XCTAssertEqual(error.kind, .connectFailed, "\(error)")
            XCTAssertTrue(error.detail.contains("proxy http://alice:***@127.0.0.1:\(closedPort)"), error.detail)
            XCTAssertFalse(error.detail.contains("s3cret-pw"))
            XCTAssertTrue(error.isRetryable)
        }
    }

    func testAProxyKilledMidConnectionFailsSendsRetryablyAndTheClientRecoversWhenItIsBack() async throws {
        let proxy = try TinyproxyTestServer()
        let testbed = try APNsTestbed()
        let client = try testbed.client(requestTimeout: .seconds(2), options: options(proxy: proxy.url),
                                        backoff: Backoff(base: .milliseconds(10), maximum: .milliseconds(50)))
        defer { client.shutdown() }
        let requests = try testbed.requests(count: 50)
        _ = try await client.send(requests[0])
        proxy.kill()
        // The tunnel is cut under the HTTP/2 connection: sends fail, each
        // with a retryable error, none hangs past its request timeout.
        do throws(TransportError) {
            _ = try await client.send(requests[1])
            XCTFail("sent through a dead proxy")
        } catch {
            XCTAssertTrue(error.isRetryable, "\(error)")
            XCTAssertTrue([.connectFailed, .connectionLost, .notSent].contains(error.kind), "\(error)")
        }
        try proxy.start()
        var next = 2
        try await waitUntil("a send goes through the proxy again", within: .seconds(20), every: .milliseconds(20)) {
            defer { next += 1 }
            guard next < requests.count else { return false }
            if case .success(.accepted) = await client.send([requests[next]])[0] { return true }
            return false
        }
        XCTAssertGreaterThanOrEqual(proxy.connectTargets.count, 2, proxy.log)
    }

    func testASlowProxyWithinTheConnectTimeoutStillConnects() async throws {
        let proxy = try TinyproxyTestServer()
        let relay = try DelayingRelay(delay: .milliseconds(300), target: proxy.port)
        defer { relay.stop() }
        let testbed = try APNsTestbed()
        let client = try testbed.client(options: options(proxy: "http://127.0.0.1:\(relay.port)", connectTimeout: .seconds(10)))
        defer { client.shutdown() }
        let request = try testbed.requests(count: 1)[0]
        let outcome = try await client.send(request)
        XCTAssertEqual(outcome, .accepted(apnsID: request.header("apns-id")!))
        XCTAssertEqual(relay.accepted, 1)
        XCTAssertEqual(proxy.connectTargets, [simulatorTarget(testbed)])
    }

    func testAProxyThatNeverAnswersEndsTheConnectAtItsDeadline() async throws {
        // The request's own timeout is far longer: had the tunnel no
        // deadline, the send would end as a timeout, not a connect failure.
        let relay = try DelayingRelay(delay: .seconds(3600), target: nil)
        defer { relay.stop() }
        let testbed = try APNsTestbed()
        let client = try testbed.client(requestTimeout: .seconds(120),
                                        options: options(proxy: "http://127.0.0.1:\(relay.port)", connectTimeout: .milliseconds(300)))
        defer { client.shutdown() }
        let request = try testbed.requests(count: 1)[0]
        do throws(TransportError) {
            _ = try await client.send(request)
            XCTFail("a silent proxy answered")
        } catch {
            XCTAssertEqual(error.kind, .connectFailed, "\(error)")
            XCTAssertTrue(error.isRetryable)
        }
        XCTAssertGreaterThanOrEqual(relay.accepted, 1)
    }

    func testNoProxyHostsAreReachedDirectly() async throws {
        let proxy = try TinyproxyTestServer()
        let testbed = try APNsTestbed()
        let client = try testbed.client(options: options(proxy: proxy.url, noProxy: "localhost,127.0.0.1"))
        defer { client.shutdown() }
        let request = try testbed.requests(count: 1)[0]
        let outcome = try await client.send(request)
        XCTAssertEqual(outcome, .accepted(apnsID: request.header("apns-id")!))
        XCTAssertEqual(proxy.connectTargets, [], proxy.log)
    }
}
