import APNsSimulator
@testable import GatewayService
import PayloadBuilder
import XCTest
import TestSupport

/// The dedup window is per device: within it an event (app and `event_id`)
/// reaches each device at most once, however a caller splits, reorders or
/// overlaps its requests for that event.
final class DedupPerDeviceTests: XCTestCase {
    private static func duplicate(_ answer: (status: Int, body: [UInt8], contentType: String?)) throws -> JSONValue? {
        try JSONParser.parse(answer.body)["duplicate"]
    }

    private static func tokens(_ answer: (status: Int, body: [UInt8], contentType: String?)) throws -> [String] {
        guard case let .array(results)? = try JSONParser.parse(answer.body)["results"] else { return [] }
        return results.compactMap { if case let .string(token)? = $0["token"] { return token } else { return nil } }
    }

    func testTwoBatchesOfOneEventInFlightAtOnceAreBothSent() async throws {
        let testbed = try ServiceTestbed()
        testbed.simulator.setFaults(APNsSimulatorFaults(responseDelay: .milliseconds(200)))
        let baseURL = testbed.baseURL
        let first = ServiceTestbed.event(id: "group:1", tokens: [ServiceTestbed.token(1), ServiceTestbed.token(2)])
        let second = ServiceTestbed.event(id: "group:1", tokens: [ServiceTestbed.token(3), ServiceTestbed.token(4)])
        async let firstAnswer = ServiceTestbed.call(baseURL, "POST", "/v1/notify", body: first)
        try await waitUntil("the first batch is being sent") { testbed.providerRequestsInFlight("apns") > 0 }
        async let secondAnswer = ServiceTestbed.call(baseURL, "POST", "/v1/notify", body: second)
        let answers = try await [firstAnswer, secondAnswer]
        XCTAssertEqual(answers.map(\.status), [200, 200], String(decoding: answers[1].body, as: UTF8.self))
        XCTAssertEqual(try Self.tokens(answers[1]), [ServiceTestbed.token(3), ServiceTestbed.token(4)])
        XCTAssertEqual(try Self.duplicate(answers[1]), .bool(false), "nothing of the second batch had been sent")
        for index in 1...4 {
            XCTAssertEqual(testbed.simulator.statistics.acceptedPerToken[ServiceTestbed.token(index)], 1, "device \(index)")
        }
    }

    func testARetryInAnotherOrderSendsNothingAgain() async throws {
        let testbed = try ServiceTestbed()
        let (a, b) = (ServiceTestbed.token(1), ServiceTestbed.token(2))
        _ = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(id: "order", tokens: [a, b]))
        let retry = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(id: "order", tokens: [b, a]))
        XCTAssertEqual(retry.status, 200)
        XCTAssertEqual(try Self.duplicate(retry), .bool(true))
        XCTAssertEqual(try Self.tokens(retry), [b, a], "each result stands for its own recipient")
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 2)
    }

    func testARetryOfAnEarlierBatchAfterALaterOneSendsNothingAgain() async throws {
        let testbed = try ServiceTestbed()
        let batch1 = ServiceTestbed.event(id: "batches", tokens: [ServiceTestbed.token(1), ServiceTestbed.token(2)])
        let batch2 = ServiceTestbed.event(id: "batches", tokens: [ServiceTestbed.token(3)])
        _ = try await testbed.call("POST", "/v1/notify", body: batch1)
        let second = try await testbed.call("POST", "/v1/notify", body: batch2)
        XCTAssertEqual(try Self.duplicate(second), .bool(false), "a fresh batch is not a duplicate")
        let retry = try await testbed.call("POST", "/v1/notify", body: batch1)
        XCTAssertEqual(try Self.duplicate(retry), .bool(true))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 3, "three devices, each notified once")
    }

    func testARetryWithoutADeviceToDeleteSendsNothingAgain() async throws {
        let testbed = try ServiceTestbed()
        let (gone, live) = (ServiceTestbed.token(1), ServiceTestbed.token(2))
        testbed.simulator.always(token: gone, .unregistered(timestampMilliseconds: 1_767_225_600_000))
        _ = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(id: "pruned", tokens: [gone, live]))
        let retry = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(id: "pruned", tokens: [live]))
        XCTAssertEqual(try Self.duplicate(retry), .bool(true))
        XCTAssertEqual(testbed.simulator.statistics.acceptedPerToken[live], 1)
    }

    func testAnEventThatCannotFitIsRefusedOnNotifyAsOnRenderAndNothingIsSent() async throws {
        let testbed = try ServiceTestbed()
        let body = Array(("""
            {"event_id":"too-big","conversation":{"id":"c-1"},"message":{"id":"m-1","text":"hi"},
             "sender":{"id":"u-1","display_name":"Alice"},"data":{"k":"\(String(repeating: "x", count: 5000))"},
             "recipients":[{"platform":"apns","token":"\(ServiceTestbed.token(1))"}]}
            """).utf8)
        let render = try await testbed.call("POST", "/v1/render", body: body)
        let notify = try await testbed.call("POST", "/v1/notify", body: body)
        let viaCallback = await withCheckedContinuation { continuation in
            testbed.dispatcher.notify(body: body) { continuation.resume(returning: $0) }
        }
        XCTAssertEqual(render.status, 400)
        XCTAssertEqual(notify.status, 400)
        XCTAssertEqual(notify.body, render.body)
        XCTAssertEqual(viaCallback.status, 400)
        XCTAssertEqual(viaCallback.body, render.body)
        XCTAssertEqual(try JSONParser.parse(notify.body)["error"]?["field"], .string("data"))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 0)
        let again = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(id: "too-big", tokens: [ServiceTestbed.token(1)]))
        XCTAssertEqual(try Self.duplicate(again), .bool(false), "a refused event is not recorded")
    }

    func testTheRecordKeepsOneResultPerDeviceAndAnswersOnlySettledOnes() {
        let (a, b, c) = ("token-a", "token-b", "token-c")
        let first = RecordedEvent.merging(nil, [
            RecipientResult(platform: .apns, token: a, status: .sent, providerID: "id-a"),
            RecipientResult(platform: .apns, token: b, status: .failed, reason: "ServiceUnavailable", retryable: true),
        ])
        let merged = RecordedEvent.merging(first, [
            RecipientResult(platform: .apns, token: b, status: .sent, providerID: "id-b"),
            RecipientResult(platform: .fcm, token: c, status: .invalidToken, reason: "UNREGISTERED"),
        ])
        XCTAssertEqual(merged.results.map(\.status), [.sent, .sent, .invalidToken])
        XCTAssertEqual(merged.results.map(\.providerID), ["id-a", "id-b", nil])

        var answered = [RecipientResult?](repeating: nil, count: 3)
        let recipients = [Recipient(platform: .fcm, token: c), Recipient(platform: .apns, token: c), Recipient(platform: .apns, token: a)]
        XCTAssertTrue(merged.answer(recipients, devices: recipients.map(RecordedDevice.init), into: &answered))
        XCTAssertEqual(answered[0]?.status, .invalidToken)
        XCTAssertNil(answered[1], "the same token on another platform is another device")
        XCTAssertEqual(answered[2]?.providerID, "id-a")

        var none = [RecipientResult?](repeating: nil, count: 1)
        let retried = [Recipient(platform: .apns, token: b)]
        XCTAssertFalse(first.answer(retried, devices: retried.map(RecordedDevice.init), into: &none), "a failed result is sent again")
        XCTAssertNil(none[0])

        // Devices fingerprinted by the caller give the same record.
        let results = [RecipientResult(platform: .apns, token: a, status: .sent, providerID: "id-a")]
        XCTAssertEqual(RecordedEvent.merging(first, results, devices: [RecordedDevice(Recipient(platform: .apns, token: a))]),
                       RecordedEvent.merging(first, results))
    }
}
