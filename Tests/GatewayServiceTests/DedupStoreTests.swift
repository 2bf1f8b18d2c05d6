import GatewayService
import PayloadBuilder
import XCTest

/// The in-process dedup window: remembered until expiry, bounded in size.
final class DedupStoreTests: XCTestCase {
    private let event = RecordedEvent(results: [RecipientResult(platform: .fcm, token: "t", status: .sent)])

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

    func testExpiredEntriesAreSweptAsNewOnesArrive() async {
        let store = InMemoryDedupStore()
        await store.record("old", event, expires: ContinuousClock.now - .seconds(1))
        await store.record("new", event, expires: ContinuousClock.now + .seconds(60))
        XCTAssertEqual(store.count, 1)
    }
}
