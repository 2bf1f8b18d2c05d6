import APNsSimulator
import Foundation
import GatewayService
import PayloadBuilder
import XCTest

/// Retries and the per-request deadline, end to end through the gateway,
/// the real clients and the strict simulators (found in review: one
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

    /// A retry that hangs (its provider went silent) holds up no other
    /// device's retry: the FCM retry, due a second later, is sent while the
    /// APNs one is still out (found in review: it waited for the APNs
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
            while simulator.statistics.rejectedTotal == 0 { try await Task.sleep(for: .milliseconds(2)) }
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
}
