import GatewayService
import PayloadBuilder
import PushGWSync
import TestSupport
import XCTest

/// The in-process dedup store: the behaviour every store shares
/// (`DedupStoreBehaviour`), and its own: records remembered until expiry on
/// the caller's clock and bounded in size, claims lapsing on that clock,
/// and how a store across the network waits by asking again.
final class DedupStoreTests: XCTestCase {
    private let event = RecordedEvent(results: [RecordedResult(RecipientResult(platform: .fcm, token: "t", status: .sent))])
    private static let owners = DedupClaimOwner.Source(instance: 7)

    /// Records `event` under `key` until `expires`, as a dispatch that claimed it does.
    private static func keep(_ store: InMemoryDedupStore, _ key: String, _ event: RecordedEvent,
                             at now: ContinuousClock.Instant = .now, until expires: ContinuousClock.Instant) async {
        let owner = owners.next()
        _ = await store.claim(key, by: owner, now: now, holdFor: .seconds(30))
        await store.record(key, event, now: now, keepFor: expires - now, releasing: owner)
    }

    /// What a claim at `now` reads of `key`, the claim given back at once.
    private static func peek(_ store: InMemoryDedupStore, _ key: String, now: ContinuousClock.Instant) async -> RecordedEvent? {
        let owner = owners.next()
        let claim = await store.claim(key, by: owner, now: now, holdFor: .seconds(1))
        await store.release(key, by: owner)
        guard case let .claimed(recorded) = claim else { XCTFail("\(key) is held"); return nil }
        return recorded
    }

    func testAnEventIsRememberedUntilItExpires() async {
        let store = InMemoryDedupStore()
        let now = ContinuousClock.now
        await Self.keep(store, "a", event, until: now + .seconds(60))
        let hit = await Self.peek(store, "a", now: now + .seconds(59))
        let miss = await Self.peek(store, "a", now: now + .seconds(60))
        XCTAssertEqual(hit, event)
        XCTAssertNil(miss)
    }

    func testMemoryStaysBoundedUnderAnyLoad() async {
        let store = InMemoryDedupStore(capacity: 100)
        let expires = ContinuousClock.now + .seconds(600)
        for index in 0..<1_000 { await Self.keep(store, "event-\(index)", event, until: expires) }
        XCTAssertEqual(store.count, 100)
        let newest = await Self.peek(store, "event-999", now: ContinuousClock.now)
        let oldest = await Self.peek(store, "event-0", now: ContinuousClock.now)
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
        for index in 0..<200 { await Self.keep(store, "large-\(index)", large, until: expires) }
        XCTAssertLessThanOrEqual(store.recordBytes, budget)
        XCTAssertGreaterThan(store.count, 10, "as many as fit are kept")
        XCTAssertLessThan(store.count, 200)
        let newest = await Self.peek(store, "large-199", now: ContinuousClock.now)
        let oldest = await Self.peek(store, "large-0", now: ContinuousClock.now)
        XCTAssertTrue(newest == large, "the newest is kept")
        XCTAssertTrue(oldest == nil, "the oldest is forgotten")
    }

    func testExpiredEntriesAreSweptAsNewOnesArrive() async {
        let store = InMemoryDedupStore()
        let now = ContinuousClock.now
        await Self.keep(store, "old", event, at: now - .seconds(120), until: now - .seconds(60))
        await Self.keep(store, "new", event, until: ContinuousClock.now + .seconds(60))
        XCTAssertEqual(store.count, 1)
    }

    // MARK: the behaviour every store shares

    private func behaviour() -> DedupStoreBehaviour {
        let store = InMemoryDedupStore()
        return DedupStoreBehaviour(store: store, claimHolder: { store.claimOwner(of: $0)?.description })
    }

    func testTheFirstOwnerHoldsTheClaimUntilItRecordsAndTheNextClaimReadsTheRecord() async throws {
        try await behaviour().theFirstOwnerHoldsTheClaimUntilItRecordsAndTheNextClaimReadsTheRecord()
    }

    func testAHeldClaimShowsTheRecordSoFar() async throws { try await behaviour().aHeldClaimShowsTheRecordSoFar() }

    func testALookupReadsTheRecordAndTakesNoClaim() async throws { try await behaviour().aLookupReadsTheRecordAndTakesNoClaim() }

    func testEveryFieldOfEveryResultComesBackAsRecorded() async throws {
        try await behaviour().everyFieldOfEveryResultComesBackAsRecorded()
    }

    func testRecordingAKeyAgainReplacesItsEvent() async throws { try await behaviour().recordingAKeyAgainReplacesItsEvent() }

    func testAWindowOfZeroReleasesAndKeepsNothing() async throws { try await behaviour().aWindowOfZeroReleasesAndKeepsNothing() }

    func testARecordLapsesAfterTheWindow() async throws { try await behaviour().aRecordLapsesAfterTheWindow() }

    func testAClaimNobodyReleasesLapsesAndItsOwnerCanNoLongerReleaseTheNext() async throws {
        try await behaviour().aClaimNobodyReleasesLapsesAndItsOwnerCanNoLongerReleaseTheNext()
    }

    func testAWaitingCopyIsToldOfTheRecordAndClaims() async throws { try await behaviour().aWaitingCopyIsToldOfTheRecordAndClaims() }

    func testAWaitingCopyGivesUpAtItsDeadline() async throws { try await behaviour().aWaitingCopyGivesUpAtItsDeadline() }

    func testAWaitingCopyClaimsWhenTheHeldClaimLapses() async throws {
        try await behaviour().aWaitingCopyClaimsWhenTheHeldClaimLapses()
    }

    func testManyCopiesWaitingTakeTurns() async throws { try await behaviour().manyCopiesWaitingTakeTurns() }

    // MARK: claims on the caller's clock

    func testAClaimNobodyReleasesLapsesAfterItsHold() async {
        let store = InMemoryDedupStore()
        let (dead, next) = (Self.owners.next(), Self.owners.next())
        let now = ContinuousClock.now
        _ = await store.claim("k", by: dead, now: now, holdFor: .seconds(35))
        let early = await store.claim("k", by: next, now: now + .seconds(34), holdFor: .seconds(35))
        let late = await store.claim("k", by: next, now: now + .seconds(35), holdFor: .seconds(35))
        XCTAssertEqual(early, .held(nil))
        XCTAssertEqual(late, .claimed(nil))
        await store.release("k", by: dead)
        XCTAssertEqual(store.claimOwner(of: "k", now: now + .seconds(35)), next, "the lapsed owner cannot release the new claim")
        await store.record("k", event, now: now, keepFor: .seconds(60), releasing: dead)
        XCTAssertEqual(store.claimOwner(of: "k", now: now + .seconds(35)), next, "nor release it by recording")
        XCTAssertEqual(store.count, 1, "its record is written all the same")
    }

    // MARK: waiting by asking again

    func testAStoreThatPollsClaimsOnceTheClaimIsReleased() async throws {
        let store = PollingStore()
        let (first, second) = (Self.owners.next(), Self.owners.next())
        _ = await store.claim("k", by: first, now: .now, holdFor: .seconds(30))
        let waiting = Task { await store.awaitClaim("k", by: second, holdFor: .seconds(30), until: .now + .seconds(30)) }
        try await waitUntil("the copy asked again") { store.claims >= 3 }
        await store.record("k", event, now: .now, keepFor: .seconds(60), releasing: first)
        let claim = await waiting.value
        XCTAssertEqual(claim, .claimed(event))
    }

    func testAStoreThatPollsGivesUpAtTheDeadline() async {
        let store = PollingStore()
        _ = await store.claim("k", by: Self.owners.next(), now: .now, holdFor: .seconds(30))
        let claim = await store.awaitClaim("k", by: Self.owners.next(), holdFor: .seconds(30), until: .now + .milliseconds(60))
        XCTAssertEqual(claim, .held(nil))
        XCTAssertLessThan(store.claims, 12, "a few looks in 60 ms, not a busy loop")
    }

    func testThePausesBetweenLooksGrowToABound() {
        var backoff = DedupClaimPolling.Backoff()
        let pauses = (0..<8).map { _ in backoff.next(jitter: 0) }
        XCTAssertEqual(pauses, [10, 20, 40, 80, 160, 250, 250, 250].map { .milliseconds($0) })
        var jittered = DedupClaimPolling.Backoff()
        XCTAssertEqual(jittered.next(jitter: 1), .milliseconds(5), "jitter takes at most half away")
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

/// The in-process store behind `AsyncDedupStore`, without its own
/// `awaitClaim`: it waits by asking again, as a store across the network does.
private final class PollingStore: AsyncDedupStore {
    private let store = InMemoryDedupStore()
    private let counted = Locked(0)

    /// Claims asked for.
    var claims: Int { counted.withLock { $0 } }

    var currentFailure: DedupStoreFailure? { nil }

    func takeClaim(_ key: String, by owner: DedupClaimOwner, now: ContinuousClock.Instant, holdFor: Duration) async -> DedupClaim {
        counted.withLock { $0 += 1 }
        return await store.claim(key, by: owner, now: now, holdFor: holdFor)
    }

    func keepRecord(_ key: String, _ event: RecordedEvent, now: ContinuousClock.Instant, keepFor: Duration,
                    releasing owner: DedupClaimOwner) async -> DedupStoreFailure? {
        await store.record(key, event, now: now, keepFor: keepFor, releasing: owner)
    }

    func dropClaim(_ key: String, by owner: DedupClaimOwner) async -> DedupStoreFailure? {
        await store.release(key, by: owner)
    }
}
