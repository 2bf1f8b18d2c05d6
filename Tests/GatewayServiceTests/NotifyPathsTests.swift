import APNsSimulator
import GatewayService
@testable import GatewayHTTP
import PayloadBuilder
import PushGWSync
import XCTest
import TestSupport

/// The notify pipeline's hand-overs: an event that needs no wait, one whose
/// dedup store answers later, copies in flight at once, a retry after the
/// first attempt, a body refused before anything starts. Whichever stage
/// waits, nothing is sent twice and the answer is the same.
final class NotifyPathsTests: XCTestCase {
    private static func callback(_ dispatcher: Dispatcher, _ body: [UInt8]) async -> HTTPResponse {
        await withCheckedContinuation { continuation in
            dispatcher.notify(body: body) { continuation.resume(returning: $0) }
        }
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

    func testCopiesInFlightThroughBothEntryPointsSendOnce() async throws {
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

    func testAStoreThatAnswersLaterGivesTheSameAnswersAndSendsOnce() async throws {
        let store = LaterDedupStore()
        let testbed = try ServiceTestbed(dedup: store)
        let (gone, live) = (ServiceTestbed.token(1), ServiceTestbed.token(2))
        testbed.simulator.always(token: gone, .unregistered(timestampMilliseconds: 1_767_225_600_000))
        let body = ServiceTestbed.event(id: "later", tokens: [gone, live], fcmTokens: ["fcm-token-1"])
        let dispatcher = testbed.dispatcher
        async let first = Self.callback(dispatcher, body)
        async let copy = dispatcher.notify(body: body)
        let answers = await [first, copy]
        let again = await Self.callback(dispatcher, body)
        XCTAssertEqual((answers + [again]).map(\.status), [200, 200, 200])
        let duplicates = try (answers + [again]).map { try JSONParser.parse($0.body)["duplicate"] }
        XCTAssertEqual(duplicates.filter { $0 == .bool(false) }.count, 1, "one of the copies sends, the other reads its record")
        XCTAssertEqual(duplicates.last, .bool(true))
        XCTAssertEqual(try JSONParser.parse(again.body)["rejected"], .array([.string(gone)]))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)
        XCTAssertEqual(testbed.fcmSimulator.statistics.acceptedTotal, 1)
        XCTAssertEqual(store.records, 1, "the copy that sent records; a duplicate records nothing")
        try await waitUntil("both duplicates gave their claims back") { store.releases == 2 }
    }

    func testARetryAfterTheFirstAttemptContinuesAndSettles() async throws {
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

/// A dedup store that answers from a task after a short wait, as one across
/// the network would: the in-process store behind `AsyncDedupStore` (which
/// waits for a held claim by asking again).
private final class LaterDedupStore: AsyncDedupStore {
    private let store = InMemoryDedupStore()
    private let counted = Locked((records: 0, releases: 0))

    var records: Int { counted.withLock { $0.records } }
    var releases: Int { counted.withLock { $0.releases } }

    var currentFailure: DedupStoreFailure? { nil }

    func takeClaim(_ key: String, by owner: DedupClaimOwner, now: ContinuousClock.Instant, holdFor: Duration) async -> DedupClaim {
        try? await Task.sleep(for: .milliseconds(5))
        return await store.claim(key, by: owner, now: now, holdFor: holdFor)
    }

    func keepRecord(_ key: String, _ event: RecordedEvent, now: ContinuousClock.Instant, keepFor: Duration,
                    releasing owner: DedupClaimOwner) async -> DedupStoreFailure? {
        counted.withLock { $0.records += 1 }
        try? await Task.sleep(for: .milliseconds(5))
        return await store.record(key, event, now: now, keepFor: keepFor, releasing: owner)
    }

    func dropClaim(_ key: String, by owner: DedupClaimOwner) async -> DedupStoreFailure? {
        counted.withLock { $0.releases += 1 }
        try? await Task.sleep(for: .milliseconds(5))
        return await store.release(key, by: owner)
    }
}
