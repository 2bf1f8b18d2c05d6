import APNsSimulator
import GatewayService
@testable import GatewayHTTP
import PayloadBuilder
import XCTest
import TestSupport

/// The dispatcher's two ways to answer a notify: on the provider
/// connections' threads when nothing has to wait, or in a task. Both must
/// give the same answer, and the hand-over between them (copies in flight,
/// recorded events, retries) must send nothing twice.
final class NotifyPathsTests: XCTestCase {
    private static func callback(_ dispatcher: Dispatcher, _ body: [UInt8]) async -> HTTPResponse {
        await withCheckedContinuation { continuation in
            dispatcher.notify(body: body) { continuation.resume(returning: $0) }
        }
    }

    /// The answer without what differs from one event id to another.
    private func shape(_ response: HTTPResponse) throws -> [String] {
        let document = try JSONParser.parse(response.body)
        guard case let .array(results)? = document["results"] else { return ["no results"] }
        return ["\(response.status)", "\(String(describing: document["duplicate"]))", "\(String(describing: document["rejected"]))"]
            + results.map { result in
                ["platform", "token", "status", "reason", "retryable"].map { "\($0)=\(String(describing: result[$0]))" }.joined(separator: " ")
                    + (result["provider_id"] == nil ? "" : " provider_id")
            }
    }

    func testBothPathsGiveTheSameAnswer() async throws {
        let testbed = try ServiceTestbed()
        let apnsTokens = [ServiceTestbed.token(1), ServiceTestbed.token(2), ServiceTestbed.token(3)]
        let fcmTokens = ["fcm-token-1", "fcm-token-2"]
        testbed.simulator.always(token: apnsTokens[1], .unregistered(timestampMilliseconds: 1_767_225_600_000))
        testbed.fcmSimulator.always(token: fcmTokens[1], .unregistered)
        let viaTask = await testbed.dispatcher.notify(body: ServiceTestbed.event(id: "task", tokens: apnsTokens, fcmTokens: fcmTokens))
        let viaCallback = await Self.callback(testbed.dispatcher, ServiceTestbed.event(id: "callback", tokens: apnsTokens, fcmTokens: fcmTokens))
        XCTAssertEqual(try shape(viaCallback), try shape(viaTask))
        XCTAssertEqual(viaCallback.status, 200, String(decoding: viaCallback.body, as: UTF8.self))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 4, "two events × two live APNs devices")
    }

    func testARecordedEventIsAnsweredAsADuplicateWithoutSendingAgain() async throws {
        let testbed = try ServiceTestbed()
        let body = ServiceTestbed.event(id: "again", tokens: [ServiceTestbed.token(1)], fcmTokens: ["fcm-token-1"])
        let first = await Self.callback(testbed.dispatcher, body)
        let second = await Self.callback(testbed.dispatcher, body)
        XCTAssertEqual(try JSONParser.parse(first.body)["duplicate"], .bool(false))
        XCTAssertEqual(try JSONParser.parse(second.body)["duplicate"], .bool(true))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)
        XCTAssertEqual(testbed.fcmSimulator.statistics.acceptedTotal, 1)
    }

    func testCopiesInFlightOnBothPathsSendOnce() async throws {
        let testbed = try ServiceTestbed()
        testbed.simulator.setFaults(APNsSimulatorFaults(responseDelay: .milliseconds(100)))
        let body = ServiceTestbed.event(id: "copies", tokens: [ServiceTestbed.token(1)])
        let dispatcher = testbed.dispatcher
        async let first = Self.callback(dispatcher, body)
        try await waitUntil("the first copy is being sent") { testbed.providerRequestsInFlight("apns") > 0 }
        async let second = dispatcher.notify(body: body)
        async let third = Self.callback(dispatcher, body)
        let answers = await [first, second, third]
        XCTAssertEqual(answers.map(\.status), [200, 200, 200])
        let duplicates = try answers.map { try JSONParser.parse($0.body)["duplicate"] }
        XCTAssertEqual(duplicates, [.bool(false), .bool(true), .bool(true)])
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)
    }

    func testARetryAfterTheFirstAttemptContinuesInATaskAndSettles() async throws {
        let testbed = try ServiceTestbed()
        let token = ServiceTestbed.token(1)
        testbed.simulator.script(token: token, responses: [.serviceUnavailable], thereafter: .success)
        let answer = await Self.callback(testbed.dispatcher, ServiceTestbed.event(id: "retry", tokens: [token]))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)
        XCTAssertEqual(testbed.simulator.statistics.rejectedPerReason["ServiceUnavailable"], 1)
    }

    func testABadBodyIsAnsweredAtOnce() async throws {
        let testbed = try ServiceTestbed()
        let answer = await Self.callback(testbed.dispatcher, Array(#"{"event_id":"x"}"#.utf8))
        XCTAssertEqual(answer.status, 400)
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal + testbed.simulator.statistics.rejectedTotal, 0)
    }
}
