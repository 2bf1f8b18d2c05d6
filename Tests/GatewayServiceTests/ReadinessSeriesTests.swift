import APNsSimulator
import GatewayHTTP
import GatewayService
import PayloadBuilder
import XCTest

/// `pushgw_ready` and `pushgw_provider_known_bad` say what `/readyz` says,
/// at every scrape: the alerts on lost readiness and refused credentials
/// read them.
final class ReadinessSeriesTests: XCTestCase {
    private func scrape(_ testbed: ServiceTestbed) async throws -> [String: Double] {
        ExpositionSamples.parse(try await testbed.call("GET", "/metrics", bearer: nil).body)
    }

    func testTheGaugesFollowAProviderRefusingOurCredentialsAndAcceptingAgain() async throws {
        let testbed = try ServiceTestbed()
        let before = try await scrape(testbed)
        XCTAssertEqual(before["pushgw_ready"], 1)
        XCTAssertEqual(before[#"pushgw_provider_known_bad{provider="apns"}"#], 0)
        XCTAssertEqual(before[#"pushgw_provider_known_bad{provider="fcm"}"#], 0)

        let refused = ServiceTestbed.token(1)
        testbed.simulator.always(token: refused, APNsSimulatorResponse(status: 403, reason: "InvalidProviderToken"))
        _ = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(id: "refused-1", tokens: [refused]))
        let notReady = try await testbed.call("GET", "/readyz", bearer: nil)
        XCTAssertEqual(notReady.status, 503)
        let refusing = try await scrape(testbed)
        XCTAssertEqual(refusing["pushgw_ready"], 0)
        XCTAssertEqual(refusing[#"pushgw_provider_known_bad{provider="apns"}"#], 1)
        XCTAssertEqual(refusing[#"pushgw_provider_known_bad{provider="fcm"}"#], 0)

        _ = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(id: "accepted-1", tokens: [ServiceTestbed.token(2)]))
        let ready = try await testbed.call("GET", "/readyz", bearer: nil)
        XCTAssertEqual(ready.status, 200)
        let accepting = try await scrape(testbed)
        XCTAssertEqual(accepting["pushgw_ready"], 1)
        XCTAssertEqual(accepting[#"pushgw_provider_known_bad{provider="apns"}"#], 0)
    }

    func testAnyReadinessReasonOfTheServiceIsNotReady() async throws {
        let testbed = try ServiceTestbed()
        let handler = GatewayHandler(dispatcher: testbed.dispatcher, tokens: BearerTokens([ServiceTestbed.bearer]),
                                     metrics: testbed.metrics, readiness: { ["shutting down"] })
        let answer = handler.respondImmediately(HTTPRequest(method: "GET", path: "/metrics"))
        let samples = ExpositionSamples.parse(answer?.body ?? [])
        XCTAssertEqual(samples["pushgw_ready"], 0)
        XCTAssertEqual(samples[#"pushgw_provider_known_bad{provider="apns"}"#], 0)
    }
}
