import APNsSimulator
import GatewayService
import PayloadBuilder
import Foundation
import XCTest

/// `/v1/notify` with APNs and FCM recipients, against both strict simulators.
final class BothProvidersEndToEndTests: XCTestCase {
    private func results(_ body: [UInt8]) throws -> [JSONValue] {
        guard case let .array(items)? = try JSONParser.parse(body)["results"] else { throw XCTSkip("no results") }
        return items
    }

    func testTheSeedEventReachesBothProviders() async throws {
        let testbed = try ServiceTestbed()
        // The fixture's avatar is a public URL: the testbed forwards it unchecked (no DNS).
        let body = try ServiceTestbed.seedEvent()
        let answer = try await testbed.call("POST", "/v1/notify", body: body)
        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        let items = try results(answer.body)
        XCTAssertEqual(items.map { $0["status"] }, [.string("sent"), .string("sent")])
        XCTAssertEqual(items[0]["platform"], .string("fcm"))
        guard case let .string(name)? = items[0]["provider_id"] else { return XCTFail("no FCM message name") }
        XCTAssertTrue(name.hasPrefix("projects/pushgw-test/messages/"))
        XCTAssertEqual(testbed.fcmSimulator.statistics.acceptedTotal, 1)
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)
    }

    func testOneOAuthGrantAndOneProviderTokenServeFiftyEvents() async throws {
        let testbed = try ServiceTestbed()
        for index in 0..<50 {
            let body = ServiceTestbed.event(id: "e-\(index)", tokens: [ServiceTestbed.token(index)], fcmTokens: ["fcm-token-\(index)"])
            let answer = try await testbed.call("POST", "/v1/notify", body: body)
            XCTAssertEqual(answer.status, 200)
        }
        XCTAssertEqual(testbed.accessTokens.grantCount, 1)
        XCTAssertEqual(testbed.fcmSimulator.statistics.grantsIssued, 1)
        XCTAssertEqual(testbed.tokens.mintCount, 1)
        XCTAssertEqual(testbed.fcmSimulator.statistics.acceptedTotal, 50)
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 50)
    }

    func testAnUnregisteredFCMTokenIsRejectedAndListed() async throws {
        let testbed = try ServiceTestbed()
        testbed.fcmSimulator.always(token: "gone-token-1", .unregistered)
        let answer = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(tokens: [], fcmTokens: ["gone-token-1", "ok-token-2"]))
        XCTAssertEqual(answer.status, 200, "invalid_token is a settled outcome")
        let json = try JSONParser.parse(answer.body)
        XCTAssertEqual(json["rejected"], .array([.string("gone-token-1")]))
        let items = try results(answer.body)
        XCTAssertEqual(items[0]["status"], .string("invalid_token"))
        XCTAssertEqual(items[0]["reason"], .string("UNREGISTERED"))
        XCTAssertEqual(items[1]["status"], .string("sent"))
    }

    func testQuotaExceededIsRetriedAfterRetryAfter() async throws {
        let testbed = try ServiceTestbed()
        testbed.fcmSimulator.script(token: "busy-token", responses: [.quotaExceeded(retryAfter: 1)], thereafter: .success)
        let start = ContinuousClock.now
        let answer = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(tokens: [], fcmTokens: ["busy-token"]))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .seconds(1), "Retry-After is honoured")
        XCTAssertEqual(testbed.fcmSimulator.statistics.acceptedTotal, 1)
    }

    func testAProviderThatAlwaysFailsEndsIn502WithRetryableResults() async throws {
        var settings = Dispatcher.Settings()
        settings.retry.initialDelay = .milliseconds(5)
        settings.retry.maximumAttempts = 3
        let testbed = try ServiceTestbed(settings: settings)
        testbed.fcmSimulator.always(token: "broken-token", .internalError)
        let answer = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(tokens: [], fcmTokens: ["broken-token"]))
        XCTAssertEqual(answer.status, 502)
        let item = try results(answer.body)[0]
        XCTAssertEqual(item["status"], .string("failed"))
        XCTAssertEqual(item["retryable"], .bool(true))
        XCTAssertEqual(testbed.fcmSimulator.statistics.rejectedPerErrorCode["INTERNAL"], 3)
    }

    func testARetriedEventSendsOnlyWhatFailedTheFirstTime() async throws {
        var settings = Dispatcher.Settings()
        settings.retry.maximumAttempts = 1
        let testbed = try ServiceTestbed(settings: settings)
        testbed.fcmSimulator.script(token: "flaky-token", responses: [.unavailable()], thereafter: .success)
        let body = ServiceTestbed.event(tokens: [ServiceTestbed.token(3)], fcmTokens: ["flaky-token"])
        let first = try await testbed.call("POST", "/v1/notify", body: body)
        XCTAssertEqual(first.status, 502)
        let second = try await testbed.call("POST", "/v1/notify", body: body)
        XCTAssertEqual(second.status, 200, String(decoding: second.body, as: UTF8.self))
        XCTAssertEqual(try JSONParser.parse(second.body)["duplicate"], .bool(true))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1, "the APNs device is not notified twice")
        XCTAssertEqual(testbed.fcmSimulator.statistics.acceptedTotal, 1)
    }
}

extension BothProvidersEndToEndTests {
    func testALongTextIsShortenedToFitAndRenderShowsExactlyWhatWasSent() async throws {
        let testbed = try ServiceTestbed()
        let text = String(repeating: "Xin chào 👋🏽 thế giới! ", count: 200)
        let body = ServiceTestbed.event(tokens: [ServiceTestbed.token(1)], text: text, fcmTokens: ["long-text-token"])
        let render = try JSONParser.parse(try await testbed.call("POST", "/v1/render", body: body).body)
        let answer = try await testbed.call("POST", "/v1/notify", body: body)
        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))

        let apnsPayload = try XCTUnwrap(testbed.simulator.statistics.notifications.first?.payload)
        XCTAssertLessThanOrEqual(apnsPayload.count, 4096)
        let fcmBody = try XCTUnwrap(testbed.fcmSimulator.statistics.messages.first?.body)
        guard case let .array(requests)? = render["requests"] else { return XCTFail() }
        let rendered = Dictionary(uniqueKeysWithValues: requests.compactMap { request -> (String, JSONValue)? in
            guard case let .string(platform)? = request["platform"], let body = request["body"] else { return nil }
            return (platform, body)
        })
        XCTAssertEqual(try JSONParser.parse(apnsPayload), rendered["apns"], "render == what notify sent to APNs")
        // `apns-expiration` is the clock's second plus the TTL: the render and
        // the notify may fall on either side of a second boundary.
        let (sent, sentExpiration) = Self.withoutExpiration(try JSONParser.parse(fcmBody))
        let (shownFCM, shownExpiration) = Self.withoutExpiration(try XCTUnwrap(rendered["fcm"]))
        XCTAssertEqual(sent, shownFCM, "render == what notify sent to FCM")
        let seconds = try XCTUnwrap(sentExpiration.flatMap(Int64.init)) - (try XCTUnwrap(shownExpiration.flatMap(Int64.init)))
        XCTAssertTrue((0...2).contains(seconds), "the expirations are \(seconds) s apart")
        guard case let .string(shown)? = try JSONParser.parse(apnsPayload)["aps"]?["alert"]?["body"] else { return XCTFail() }
        XCTAssertTrue(shown.hasSuffix("…"))
    }

    /// The FCM message with its `apns.headers.apns-expiration` set aside, and that value.
    private static func withoutExpiration(_ message: JSONValue) -> (JSONValue, String?) {
        guard case var .object(top) = message, let messageIndex = top.firstIndex(where: { $0.key == "message" }),
              case var .object(fields) = top[messageIndex].value,
              let apnsIndex = fields.firstIndex(where: { $0.key == "apns" }), case var .object(apns) = fields[apnsIndex].value,
              let headersIndex = apns.firstIndex(where: { $0.key == "headers" }),
              case var .object(headers) = apns[headersIndex].value,
              let expirationIndex = headers.firstIndex(where: { $0.key == "apns-expiration" }),
              case let .string(expiration) = headers[expirationIndex].value else { return (message, nil) }
        headers[expirationIndex].value = .string("")
        apns[headersIndex].value = .object(headers)
        fields[apnsIndex].value = .object(apns)
        top[messageIndex].value = .object(fields)
        return (.object(top), expiration)
    }
}

/// Where the golden fixtures live, for tests that send them.
enum GoldenFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures/payloads")
}
