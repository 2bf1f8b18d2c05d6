import APNsSimulator
import DurableQueue
import Foundation
import GatewayService
import OpenSSLCrypto
import PayloadBuilder
import TestSupport
import XCTest

/// The feedback webhook against a real receiver on loopback: what a queued
/// event's caller must act on is posted, signed, and retried with back-off
/// until the receiver takes it.
final class FeedbackWebhookTests: XCTestCase {
    func testHMACSHA256MatchesRFC4231() {
        // RFC 4231, test case 2.
        XCTAssertEqual(HMACSHA256.hex(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)),
                       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    func testRejectedTokensArePostedSignedAndRetriedUntilTaken() async throws {
        try XCTSkipUnless(RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps)")
        let receiver = try FeedbackReceiver(statuses: [500, 503, 200])
        defer { receiver.stop() }
        let server = try RedisTestServer()
        let queue = try makeQueue(server)
        let testbed = try ServiceTestbed(queue: queue)
        let secret = Array("feedback-secret-0123456789".utf8)
        var delivery = FeedbackWebhooks.Settings()
        delivery.initialBackoff = .milliseconds(20)
        let webhooks = FeedbackWebhooks(targets: ["demo": FeedbackWebhooks.Target(url: receiver.url, secret: secret)],
                                        settings: delivery, metrics: testbed.metrics)
        defer { webhooks.stop() }
        let worker = QueueWorker(queue: queue, dispatcher: testbed.dispatcher, consumer: "r", settings: fastWorker(),
                                 feedback: webhooks)
        try worker.start()
        let dead = ServiceTestbed.token(66)
        testbed.simulator.always(token: dead, .unregistered(timestampMilliseconds: 1_767_225_600_000))
        let queued = try await testbed.call("POST", "/v1/notify?mode=async",
                                            body: ServiceTestbed.event(id: "c-5:m-5", tokens: [ServiceTestbed.token(5), dead]))
        XCTAssertEqual(queued.status, 202)
        try await waitUntil("the receiver took the feedback on the third attempt") { receiver.requests.count >= 3 }
        await worker.stop()

        let requests = receiver.requests
        XCTAssertEqual(requests.count, 3, "the feedback went on after the receiver took it")
        for request in requests {
            let timestamp = try XCTUnwrap(request.headers["x-pushgw-timestamp"].flatMap { Int64($0) })
            let expected = "v1=" + HMACSHA256.hex(key: secret, message: Array("\(timestamp).".utf8) + request.body)
            XCTAssertEqual(request.headers["x-pushgw-signature"], expected)
            XCTAssertEqual(request.headers["content-type"], "application/json")
        }
        XCTAssertEqual(requests[0].body, requests[2].body, "a retry posted another body")
        let feedback = try JSONParser.parse(requests[2].body)
        XCTAssertEqual(feedback["event_id"], .string("c-5:m-5"))
        XCTAssertEqual(feedback["app"], .string("demo"))
        guard case let .array(rejected)? = feedback["rejected"] else { return XCTFail("no rejected list: \(feedback)") }
        XCTAssertEqual(rejected.count, 1)
        XCTAssertEqual(rejected.first?["token"], .string(dead))
        XCTAssertEqual(rejected.first?["reason"], .string("Unregistered"))
        XCTAssertEqual(feedback["failed"], .array([]))
        XCTAssertEqual(testbed.metrics.registry.value(FeedbackWebhooks.deliveries, ["retried"]), 2)
        XCTAssertEqual(testbed.metrics.registry.value(FeedbackWebhooks.deliveries, ["delivered"]), 1)
    }

    func testDeliveryGivesUpAfterItsAttemptsWithoutHoldingTheAcknowledgement() async throws {
        try XCTSkipUnless(RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps)")
        let receiver = try FeedbackReceiver(statuses: [500])
        defer { receiver.stop() }
        let server = try RedisTestServer()
        let queue = try makeQueue(server)
        let testbed = try ServiceTestbed(queue: queue)
        var delivery = FeedbackWebhooks.Settings()
        delivery.initialBackoff = .milliseconds(10)
        delivery.maximumAttempts = 3
        let webhooks = FeedbackWebhooks(targets: ["demo": FeedbackWebhooks.Target(url: receiver.url, secret: [1, 2, 3])],
                                        settings: delivery, metrics: testbed.metrics, logger: Logger(minimumLevel: .error))
        defer { webhooks.stop() }
        let worker = QueueWorker(queue: queue, dispatcher: testbed.dispatcher, consumer: "r", settings: fastWorker(),
                                 feedback: webhooks)
        try worker.start()
        let dead = ServiceTestbed.token(67)
        testbed.simulator.always(token: dead, .unregistered(timestampMilliseconds: 1_767_225_600_000))
        _ = try await testbed.call("POST", "/v1/notify?mode=async", body: ServiceTestbed.event(id: "c-6:m-6", tokens: [dead]))
        try await waitUntil("the event is acknowledged") {
            let status = try await testbed.call("GET", "/v1/events/c-6:m-6")
            return try JSONParser.parse(status.body)["status"] == .string("done")
        }
        try await waitUntil("the webhook gives up") {
            testbed.metrics.registry.value(FeedbackWebhooks.deliveries, ["failed"]) == 1
        }
        await worker.stop()
        XCTAssertEqual(receiver.requests.count, 3)
    }
}
