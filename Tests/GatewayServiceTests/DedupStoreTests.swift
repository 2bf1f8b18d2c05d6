import GatewayService
import PayloadBuilder
import XCTest

/// The in-process dedup window: remembered until expiry, bounded in size.
final class DedupStoreTests: XCTestCase {
    private let event = RecordedEvent(results: [RecordedResult(RecipientResult(platform: .fcm, token: "t", status: .sent))])

    func testAnEventIsRememberedUntilItExpires() async {
        let store = InMemoryDedupStore()
        let now = ContinuousClock.now
        await store.record("a", event, expires: now + .seconds(60))
        let hit = await store.lookup("a", now: now + .seconds(59))
        let miss = await store.lookup("a", now: now + .seconds(60))
        XCTAssertEqual(hit, event)
        XCTAssertNil(miss)
    }

    func testMemoryStaysBoundedUnderAnyLoad() async {
        let store = InMemoryDedupStore(capacity: 100)
        let expires = ContinuousClock.now + .seconds(600)
        for index in 0..<1_000 { await store.record("event-\(index)", event, expires: expires) }
        XCTAssertEqual(store.count, 100)
        let newest = await store.lookup("event-999", now: ContinuousClock.now)
        let oldest = await store.lookup("event-0", now: ContinuousClock.now)
        XCTAssertNotNil(newest, "the most recent events are kept")
        XCTAssertNil(oldest, "the oldest are forgotten first")
    }

    /// Events of 500 devices pack to ~35 KB each: a count alone would let
    /// 20,000 of them take 0.7 GB. The byte
    /// budget forgets the oldest first, and keeps the newest.
    func testLargeEventsAreBoundedByTheByteBudget() async {
        let results = (0..<500).map { index in
            RecordedResult(RecipientResult(platform: .apns, token: String(repeating: "ab", count: 31) + String(format: "%02x", index % 256),
                                           status: .sent, providerID: "6b2a4c8e-1f3d-4e5a-9b7c-\(index)"))
        }
        let large = RecordedEvent(results: results)
        let budget = 1 << 20
        let store = InMemoryDedupStore(capacity: 20_000, byteCapacity: budget)
        let expires = ContinuousClock.now + .seconds(600)
        for index in 0..<200 { await store.record("large-\(index)", large, expires: expires) }
        XCTAssertLessThanOrEqual(store.recordBytes, budget)
        XCTAssertGreaterThan(store.count, 10, "as many as fit are kept")
        XCTAssertLessThan(store.count, 200)
        let newest = await store.lookup("large-199", now: ContinuousClock.now)
        let oldest = await store.lookup("large-0", now: ContinuousClock.now)
        XCTAssertTrue(newest == large, "the newest is kept")
        XCTAssertTrue(oldest == nil, "the oldest is forgotten")
    }

    func testExpiredEntriesAreSweptAsNewOnesArrive() async {
        let store = InMemoryDedupStore()
        await store.record("old", event, expires: ContinuousClock.now - .seconds(1))
        await store.record("new", event, expires: ContinuousClock.now + .seconds(60))
        XCTAssertEqual(store.count, 1)
    }

    func testEveryFieldOfEveryResultComesBackAsRecorded() async {
        let results: [RecipientResult] = [
            RecipientResult(platform: .apns, token: String(repeating: "ab", count: 32), status: .sent,
                            providerID: "6B2A4C8E-1F3D-4E5A-9B7C-0D1E2F3A4B5C"),
            RecipientResult(platform: .fcm, token: "bk3RNwTe3H0:CI2k_HHwgIpo", status: .invalidToken, reason: "UNREGISTERED",
                            retryable: false),
            RecipientResult(platform: .fcm, token: "t2", status: .failed, reason: "Unavailable — 503, \u{1F3A7}", retryable: true),
            RecipientResult(platform: .apns, token: "", status: .skipped, providerID: "", reason: ""),
        ]
        let recorded = RecordedEvent(results: results.map(RecordedResult.init))
        let store = InMemoryDedupStore()
        let now = ContinuousClock.now
        await store.record("évènement-🎧-1", recorded, expires: now + .seconds(60))
        await store.record("empty", RecordedEvent(results: []), expires: now + .seconds(60))
        let hit = await store.lookup("évènement-🎧-1", now: now)
        let empty = await store.lookup("empty", now: now)
        let other = await store.lookup("évènement-🎧-2", now: now)
        XCTAssertEqual(hit, recorded)
        XCTAssertEqual(empty, RecordedEvent(results: []))
        XCTAssertNil(other)
    }

    func testRecordingAKeyAgainReplacesItsEvent() async {
        let store = InMemoryDedupStore()
        let now = ContinuousClock.now
        let later = RecordedEvent(results: [RecordedResult(RecipientResult(platform: .apns, token: "t", status: .failed, retryable: true))])
        await store.record("a", event, expires: now + .seconds(60))
        await store.record("a", later, expires: now + .seconds(60))
        let hit = await store.lookup("a", now: now)
        XCTAssertEqual(hit, later)
        XCTAssertEqual(store.count, 1)
    }

    func testTheStoreKeepsAFingerprintOfTheDeviceNotItsToken() {
        let token = String(repeating: "ab", count: 32)
        let kept = RecordedResult(RecipientResult(platform: .apns, token: token, status: .sent, providerID: "id"))
        XCTAssertTrue(kept.isFor(Recipient(platform: .apns, token: token)))
        XCTAssertFalse(kept.isFor(Recipient(platform: .apns, token: String(repeating: "ab", count: 31) + "ac")))
        XCTAssertFalse(kept.isFor(Recipient(platform: .fcm, token: token)), "the same token on another platform is another device")
        XCTAssertEqual(kept.result(token: token), RecipientResult(platform: .apns, token: token, status: .sent, providerID: "id"))
        XCTAssertFalse(String(describing: kept).contains(token))
    }
}
