import APNsSimulator
import PushGWDemo
import Foundation
import GatewayService
@testable import GatewayHTTP
import PayloadBuilder
import XCTest
import TestSupport

/// Retries and the per-request deadline, end to end through the gateway,
/// the real clients and the strict simulators (regression: one
/// device's long Retry-After stopped every other device's retries, and an
/// attempt to a silent provider ran past the deadline to the client's own
/// request timeout).
final class RetryDeadlineEndToEndTests: XCTestCase {
    func testALongRetryAfterForOneDeviceLeavesTheOthersRetried() async throws {
        var settings = Dispatcher.Settings()
        settings.retry.initialDelay = .milliseconds(5)
        let testbed = try ServiceTestbed(settings: settings)
        let apns = ServiceTestbed.token(1)
        let (waitsLong, recovers) = ("fcm-token-waits-long", "fcm-token-recovers")
        testbed.fcmSimulator.always(token: waitsLong, .quotaExceeded(retryAfter: 60))
        testbed.fcmSimulator.script(token: recovers, responses: [.unavailable()], thereafter: .success)
        testbed.simulator.script(token: apns, responses: [.serviceUnavailable], thereafter: .success)
        let answer = try await testbed.call("POST", "/v1/notify",
                                            body: ServiceTestbed.event(tokens: [apns], fcmTokens: [waitsLong, recovers]))
        XCTAssertEqual(answer.status, 502, "one device failed")
        let json = try JSONParser.parse(answer.body)
        guard case let .array(results)? = json["results"] else { return XCTFail(String(decoding: answer.body, as: UTF8.self)) }
        XCTAssertEqual(results[0]["status"], .string("sent"), "APNs, retried after its 503")
        XCTAssertEqual(results[1]["status"], .string("failed"))
        XCTAssertEqual(results[1]["retryable"], .bool(true))
        XCTAssertEqual(results[1]["reason"], .string("QUOTA_EXCEEDED"))
        XCTAssertEqual(results[2]["status"], .string("sent"), "FCM, retried after its 503")
    }

    func testTheDeadlineBoundsAnAttemptToASilentProvider() async throws {
        var settings = Dispatcher.Settings()
        settings.requestDeadline = .seconds(1)
        let testbed = try ServiceTestbed(settings: settings, providerTimeout: .seconds(30))
        testbed.simulator.setFaults(APNsSimulatorFaults(silent: true))
        let started = ContinuousClock.now
        let answer = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(tokens: [ServiceTestbed.token(1)]))
        let elapsed = ContinuousClock.now - started
        XCTAssertEqual(answer.status, 502)
        let json = try JSONParser.parse(answer.body)
        guard case let .array(results)? = json["results"] else { return XCTFail(String(decoding: answer.body, as: UTF8.self)) }
        XCTAssertEqual(results[0]["status"], .string("failed"))
        XCTAssertEqual(results[0]["retryable"], .bool(true))
        XCTAssertEqual(results[0]["reason"], .string("timeout"))
        // Not a speed check: the provider timeout is 30 s, the deadline 1 s.
        XCTAssertLessThan(elapsed, .seconds(15), "answered at the deadline, not at the provider timeout")
    }

    /// A provider that refuses connections: the event is answered within
    /// about a second (a few quick attempts, each ending as connect_failed
    /// once the pool's connections are backing off), not after the whole
    /// deadline with each attempt waiting out the back-off (regression: 30.15 s, three attempts of ~10 s); the other provider's
    /// device is sent meanwhile.
    func testAnUnreachableProviderFailsItsDevicesQuicklyAndTheOthersAreSent() async throws {
        let providers = try DemoProviders()
        defer { providers.stop() }
        var environment = Dictionary(uniqueKeysWithValues: providers.gatewayEnvironment.map { ($0.name, $0.value) })
        environment["PUSHGW_LISTEN"] = "127.0.0.1:0"
        environment["PUSHGW_BEARER_TOKENS"] = ServiceTestbed.bearer
        environment["PUSHGW_FCM_BASE_URL"] = "https://127.0.0.1:\(try Self.closedPort())"
        let gateway = try Gateway(configuration: ConfigurationLoader(environment: environment).load(), logger: Logger(minimumLevel: .error))
        defer { Task { await gateway.shutdown(drain: .zero) } }
        let base = "http://127.0.0.1:\(gateway.server.port)"
        let started = ContinuousClock.now
        let answer = try await ServiceTestbed.call(base, "POST", "/v1/notify", body: try ServiceTestbed.seedEvent(),
                                                   bearer: ServiceTestbed.bearer)
        let elapsed = ContinuousClock.now - started
        XCTAssertEqual(answer.status, 502)
        guard case let .array(results)? = try JSONParser.parse(answer.body)["results"] else { return XCTFail("no results") }
        XCTAssertEqual(results[0]["status"], .string("failed"))
        XCTAssertEqual(results[0]["reason"], .string("connect_failed"))
        XCTAssertEqual(results[0]["retryable"], .bool(true))
        XCTAssertEqual(results[1]["status"], .string("sent"))
        // Not a speed check: the deadline is 30 s; attempts that waited out
        // the back-off took ~10 s each.
        XCTAssertLessThan(elapsed, .seconds(8), "answered after a few quick attempts, not at the deadline")
    }

    /// A port on 127.0.0.1 that nobody listens on (bound, read, closed).
    private static func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw XCTSkip("cannot bind a loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A retry that hangs (its provider went silent) holds up no other
    /// device's retry: the FCM retry, due a second later, is sent while the
    /// APNs one is still out (regression: it waited for the APNs
    /// attempt to end at the deadline).
    func testARetryThatHangsHoldsUpNoOtherDevicesRetry() async throws {
        var settings = Dispatcher.Settings()
        settings.requestDeadline = .seconds(4)
        settings.retry.initialDelay = .milliseconds(200)
        let testbed = try ServiceTestbed(settings: settings, providerTimeout: .seconds(30))
        let apns = ServiceTestbed.token(1)
        testbed.simulator.script(token: apns, responses: [.serviceUnavailable], thereafter: .success)
        testbed.fcmSimulator.script(token: "fcm-waits-a-second", responses: [.quotaExceeded(retryAfter: 1)], thereafter: .success)
        let simulator = testbed.simulator
        let silencer = Task {
            // Once APNs has refused the first attempt, it answers nothing more.
            try await waitUntil("APNs refuses the first attempt", every: .milliseconds(1)) { simulator.statistics.rejectedTotal > 0 }
            simulator.setFaults(APNsSimulatorFaults(silent: true))
        }
        let answer = try await testbed.call("POST", "/v1/notify",
                                            body: ServiceTestbed.event(tokens: [apns], fcmTokens: ["fcm-waits-a-second"]))
        try await silencer.value
        let json = try JSONParser.parse(answer.body)
        guard case let .array(results)? = json["results"] else { return XCTFail(String(decoding: answer.body, as: UTF8.self)) }
        XCTAssertEqual(results[1]["status"], .string("sent"), "the FCM retry went out while the APNs one hung")
        XCTAssertEqual(results[0]["status"], .string("failed"))
        XCTAssertEqual(results[0]["retryable"], .bool(true))
    }

    /// While the OAuth token endpoint is down, the access-token cache holds
    /// new grants off; an FCM device is retried no sooner than that allows
    /// (regression: it was retried after 100, 200 and 400 ms, each
    /// attempt failed at once from the held error, and each spent the retry
    /// budget every app and provider share). Here the endpoint's Retry-After
    /// of 30 s falls past the 3 s deadline: no retry at all.
    func testAnFCMDeviceWithoutAnAccessTokenIsRetriedNoSoonerThanTheHoldOff() async throws {
        var settings = Dispatcher.Settings()
        settings.requestDeadline = .seconds(3)
        let testbed = try ServiceTestbed(settings: settings)
        testbed.fcmSimulator.setTokenEndpointDown(true, retryAfter: 30)
        let answer = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(tokens: [], fcmTokens: ["fcm-held-off"]))
        XCTAssertEqual(answer.status, 502)
        let json = try JSONParser.parse(answer.body)
        guard case let .array(results)? = json["results"] else { return XCTFail(String(decoding: answer.body, as: UTF8.self)) }
        XCTAssertEqual(results[0]["reason"], .string("access_token_unavailable"))
        XCTAssertEqual(results[0]["retryable"], .bool(true))
        XCTAssertEqual(testbed.fcmSimulator.statistics.grantsRefused["unavailable"], 1)
        let metrics = String(decoding: try await testbed.call("GET", "/metrics", bearer: nil).body, as: UTF8.self)
        XCTAssertTrue(metrics.contains(#"pushgw_provider_retries_total{provider="fcm"} 0"#), metrics)
    }
}
