import APNsSimulator
import GatewayService
import GatewayHTTP
import PayloadBuilder
import TestSupport
import XCTest

/// A dedup store that cannot be reached (a test double that fails or stalls
/// on demand): the event is refused with 503 `store_unavailable` and
/// nothing sent, or sent without dedup when so configured; a record that
/// cannot be written leaves the answer alone; `/readyz` says so; the
/// gateway recovers when the store does, without a restart.
final class DedupStoreFailureTests: XCTestCase {
    private func notify(_ testbed: ServiceTestbed, id: String, tokens: [String]) async -> HTTPResponse {
        await testbed.dispatcher.notify(body: ServiceTestbed.event(id: id, tokens: tokens))
    }

    private func value(_ testbed: ServiceTestbed, _ family: MetricsRegistry.Family, _ labels: [String] = []) -> Double {
        testbed.metrics.registry.value(family, labels)
    }

    func testAStoreThatCannotBeReachedRefusesTheEventAndSendsNothing() async throws {
        let store = DedupStoreTestDouble()
        store.set(.fails(DedupStoreTestDouble.down))
        let testbed = try ServiceTestbed(dedup: store)
        let answer = await notify(testbed, id: "down", tokens: [ServiceTestbed.token(1)])
        XCTAssertEqual(answer.status, 503)
        let error = try JSONParser.parse(answer.body)["error"]
        XCTAssertEqual(error?["code"], .string("store_unavailable"))
        XCTAssertEqual(error?["field"], .null)
        XCTAssertEqual(answer.headers.first { $0.name == "Retry-After" }?.value, "1")
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal + testbed.simulator.statistics.rejectedTotal, 0, "nothing sent")
        XCTAssertEqual(value(testbed, GatewayMetrics.events, ["store_unavailable"]), 1)
        XCTAssertEqual(value(testbed, GatewayMetrics.dedupStoreErrors, ["claim"]), 1)
        XCTAssertEqual(value(testbed, GatewayMetrics.dedupBypassed), 0)

        store.set(.works)
        let again = await notify(testbed, id: "down", tokens: [ServiceTestbed.token(1)])
        XCTAssertEqual(again.status, 200, "the store back, the event is sent: no restart")
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)
    }

    func testAStoreThatStallsIsAnsweredWhenItsCommandTimesOut() async throws {
        let store = DedupStoreTestDouble()
        store.set(.stalls(.milliseconds(200)), for: [.claim])
        let testbed = try ServiceTestbed(dedup: store)
        let answer = await notify(testbed, id: "stall", tokens: [ServiceTestbed.token(1)])
        XCTAssertEqual(answer.status, 503)
        XCTAssertEqual(try JSONParser.parse(answer.body)["error"]?["code"], .string("store_unavailable"))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 0)
    }

    func testSendingWithoutDedupSendsEveryTimeAndCountsIt() async throws {
        let store = DedupStoreTestDouble()
        store.set(.fails(DedupStoreTestDouble.down))
        var settings = Dispatcher.Settings()
        settings.onStoreFailure = .sendWithoutDedup
        let testbed = try ServiceTestbed(settings: settings, dedup: store)
        let first = await notify(testbed, id: "bypass", tokens: [ServiceTestbed.token(1)])
        let second = await notify(testbed, id: "bypass", tokens: [ServiceTestbed.token(1)])
        XCTAssertEqual([first.status, second.status], [200, 200])
        XCTAssertEqual(try JSONParser.parse(second.body)["duplicate"], .bool(false))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 2, "no dedup: the retry is sent again")
        XCTAssertEqual(value(testbed, GatewayMetrics.dedupBypassed), 2)
        XCTAssertEqual(store.calls(.record), 0, "an event sent without its claim records nothing")
    }

    func testARecordThatFailsLeavesTheAnswerAndTheClaimLapsesBeforeARetrySends() async throws {
        let store = DedupStoreTestDouble()
        store.set(.fails(DedupStoreTestDouble.down), for: [.record])
        var settings = Dispatcher.Settings()
        settings.requestDeadline = .milliseconds(500)
        settings.claimMargin = .seconds(2)
        let testbed = try ServiceTestbed(settings: settings, dedup: store)
        let token = ServiceTestbed.token(1)
        let sent = await notify(testbed, id: "unrecorded", tokens: [token])
        XCTAssertEqual(sent.status, 200, "the device was sent: the answer says so")
        XCTAssertEqual(value(testbed, GatewayMetrics.dedupStoreErrors, ["record"]), 1)

        store.set(.works)
        let waited = await notify(testbed, id: "unrecorded", tokens: [token])
        XCTAssertEqual(waited.status, 409, "the claim is still held: the retry waits for its deadline")
        let error = try JSONParser.parse(waited.body)["error"]
        XCTAssertEqual(error?["code"], .string("in_progress"))
        XCTAssertEqual(error?["field"], .string("event_id"))
        XCTAssertEqual(value(testbed, GatewayMetrics.events, ["in_progress"]), 1)
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)

        try await waitUntil("the claim lapsed", within: .seconds(10)) { store.store.claimsHeld() == 0 }
        let resent = await notify(testbed, id: "unrecorded", tokens: [token])
        XCTAssertEqual(resent.status, 200)
        XCTAssertEqual(try JSONParser.parse(resent.body)["duplicate"], .bool(false), "nothing was recorded: the device is sent again")
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 2)
    }

    func testReadinessSaysWhenTheStoreIsDown() async throws {
        let store = DedupStoreTestDouble()
        let testbed = try ServiceTestbed(dedup: store)
        let ready = try await testbed.call("GET", "/readyz", bearer: nil)
        XCTAssertEqual(ready.status, 200)
        store.set(.fails(DedupStoreTestDouble.down))
        let down = try await testbed.call("GET", "/readyz", bearer: nil)
        XCTAssertEqual(down.status, 503)
        let reasons = try JSONParser.parse(down.body)["reasons"]
        guard case let .array(items)? = reasons, case let .string(reason)? = items.first else {
            return XCTFail(String(decoding: down.body, as: UTF8.self))
        }
        XCTAssertTrue(reason.hasPrefix("dedup store unavailable"), reason)
        store.set(.works)
        let back = try await testbed.call("GET", "/readyz", bearer: nil)
        XCTAssertEqual(back.status, 200, "ready again once the store answers, without a restart")
    }

    func testSendingWithoutDedupStaysReadyAndSaysItIsDegraded() async throws {
        let store = DedupStoreTestDouble()
        store.set(.fails(DedupStoreTestDouble.down))
        var settings = Dispatcher.Settings()
        settings.onStoreFailure = .sendWithoutDedup
        let testbed = try ServiceTestbed(settings: settings, dedup: store)
        let answer = try await testbed.call("GET", "/readyz", bearer: nil)
        XCTAssertEqual(answer.status, 200)
        let body = try JSONParser.parse(answer.body)
        XCTAssertEqual(body["status"], .string("ready"))
        guard case let .array(items)? = body["degraded"] else { return XCTFail(String(decoding: answer.body, as: UTF8.self)) }
        XCTAssertEqual(items.count, 1)
    }

}
