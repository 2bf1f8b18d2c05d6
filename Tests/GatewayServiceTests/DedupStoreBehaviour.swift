import GatewayService
import PayloadBuilder
import TestSupport
import XCTest

/// What every `DedupStore` does, in-process or in Redis, as the notify
/// pipeline relies on it: written once and run against each store by its
/// own test class (`DedupStoreTests`, `RedisDedupStoreTests`). Time here is
/// real (a store across the network keeps its own): claims and records
/// lapse after short holds, waited for as conditions.
struct DedupStoreBehaviour {
    let store: any DedupStore
    /// Who holds the claim on `key` now, as the store keeps it
    /// (`DedupClaimOwner.description`); nil when nobody does.
    let claimHolder: @Sendable (String) async throws -> String?
    let owners = DedupClaimOwner.Source()

    static let event = RecordedEvent(results: [RecordedResult(RecipientResult(platform: .fcm, token: "t", status: .sent))])

    /// Records `event` under `key` for `keepFor`, as a dispatch that claimed it does.
    func keep(_ key: String, _ event: RecordedEvent, for keepFor: Duration = .seconds(60)) async throws {
        let owner = owners.next()
        let claim = await store.claim(key, by: owner, holdFor: .seconds(30))
        guard case .claimed = claim else { throw DedupBehaviourFailure("\(key) could not be claimed: \(claim)") }
        if let failure = await store.record(key, event, keepFor: keepFor, releasing: owner) { throw failure }
    }

    /// What a claim now reads of `key`, the claim given back at once.
    func peek(_ key: String) async throws -> RecordedEvent? {
        let owner = owners.next()
        let claim = await store.claim(key, by: owner, holdFor: .seconds(1))
        await store.release(key, by: owner)
        guard case let .claimed(recorded) = claim else { throw DedupBehaviourFailure("\(key) is not free: \(claim)") }
        return recorded
    }

    func theFirstOwnerHoldsTheClaimUntilItRecordsAndTheNextClaimReadsTheRecord() async throws {
        let (first, second) = (owners.next(), owners.next())
        let taken = await store.claim("k", by: first, holdFor: .seconds(30))
        let refused = await store.claim("k", by: second, holdFor: .seconds(30))
        let renewed = await store.claim("k", by: first, holdFor: .seconds(30))
        XCTAssertEqual(taken, .claimed(nil))
        XCTAssertEqual(refused, .held(nil), "a second owner waits")
        XCTAssertEqual(renewed, .claimed(nil), "its owner claims it again")
        let holder = try await claimHolder("k")
        XCTAssertEqual(holder, first.description)
        await store.record("k", Self.event, keepFor: .seconds(60), releasing: first)
        let afterRecord = try await claimHolder("k")
        XCTAssertNil(afterRecord, "recording releases the claim")
        let next = await store.claim("k", by: second, holdFor: .seconds(30))
        XCTAssertEqual(next, .claimed(Self.event))
    }

    func aLookupReadsTheRecordAndTakesNoClaim() async throws {
        let none = await store.lookup("k")
        XCTAssertEqual(try none.get(), nil)
        let afterMiss = try await claimHolder("k")
        XCTAssertNil(afterMiss, "a lookup of nothing leaves no claim behind")
        try await keep("k", Self.event)
        let owner = owners.next()
        _ = await store.claim("k", by: owner, holdFor: .seconds(30))
        let read = await store.lookup("k")
        XCTAssertEqual(try read.get(), Self.event, "a held claim's record is read as it stands")
        let holder = try await claimHolder("k")
        XCTAssertEqual(holder, owner.description, "the lookup leaves the dispatch's claim alone")
        await store.release("k", by: owner)
        _ = await store.lookup("k")
        let afterLookup = try await claimHolder("k")
        XCTAssertNil(afterLookup, "a lookup takes no claim")
    }

    func aHeldClaimShowsTheRecordSoFar() async throws {
        try await keep("k", Self.event)
        _ = await store.claim("k", by: owners.next(), holdFor: .seconds(30))
        let held = await store.claim("k", by: owners.next(), holdFor: .seconds(30))
        XCTAssertEqual(held, .held(Self.event))
    }

    func everyFieldOfEveryResultComesBackAsRecorded() async throws {
        let results: [RecipientResult] = [
            RecipientResult(platform: .apns, token: String(repeating: "ab", count: 32), status: .sent,
                            providerID: "6B2A4C8E-1F3D-4E5A-9B7C-0D1E2F3A4B5C"),
            RecipientResult(platform: .fcm, token: "bk3RNwTe3H0:CI2k_HHwgIpo", status: .invalidToken, reason: "UNREGISTERED",
                            retryable: false, invalidSince: 1_767_225_600_123),
            RecipientResult(platform: .fcm, token: "t2", status: .failed, reason: "Unavailable — 503, \u{1F3A7}", retryable: true),
            RecipientResult(platform: .apns, token: "", status: .skipped, providerID: "", reason: ""),
        ]
        let recorded = RecordedEvent(results: results.map(RecordedResult.init))
        try await keep("évènement-{🎧}-1", recorded)
        try await keep("empty", RecordedEvent(results: []))
        let hit = try await peek("évènement-{🎧}-1")
        let empty = try await peek("empty")
        let other = try await peek("évènement-{🎧}-2")
        XCTAssertEqual(hit, recorded)
        XCTAssertEqual(empty, RecordedEvent(results: []))
        XCTAssertNil(other)
    }

    func recordingAKeyAgainReplacesItsEvent() async throws {
        let later = RecordedEvent(results: [RecordedResult(RecipientResult(platform: .apns, token: "t", status: .failed, retryable: true))])
        try await keep("a", Self.event)
        try await keep("a", later)
        let hit = try await peek("a")
        XCTAssertEqual(hit, later)
    }

    func aWindowOfZeroReleasesAndKeepsNothing() async throws {
        let owner = owners.next()
        _ = await store.claim("k", by: owner, holdFor: .seconds(30))
        await store.record("k", Self.event, keepFor: .zero, releasing: owner)
        let holder = try await claimHolder("k")
        XCTAssertNil(holder)
        let kept = try await peek("k")
        XCTAssertNil(kept)
    }

    func aRecordLapsesAfterTheWindow() async throws {
        try await keep("brief", Self.event, for: .milliseconds(200))
        let kept = try await peek("brief")
        XCTAssertEqual(kept, Self.event, "read within its window")
        try await waitUntil("the record lapsed") { try await peek("brief") == nil }
    }

    func aClaimNobodyReleasesLapsesAndItsOwnerCanNoLongerReleaseTheNext() async throws {
        let (dead, next) = (owners.next(), owners.next())
        _ = await store.claim("k", by: dead, holdFor: .milliseconds(100))
        let early = await store.claim("k", by: next, holdFor: .seconds(30))
        XCTAssertEqual(early, .held(nil))
        try await waitUntil("the dead owner's claim lapsed") { await store.claim("k", by: next, holdFor: .seconds(30)) == .claimed(nil) }
        await store.release("k", by: dead)
        let afterRelease = try await claimHolder("k")
        XCTAssertEqual(afterRelease, next.description, "the lapsed owner cannot release the new claim")
        await store.record("k", Self.event, keepFor: .seconds(60), releasing: dead)
        let afterRecord = try await claimHolder("k")
        XCTAssertEqual(afterRecord, next.description, "nor release it by recording")
        let held = await store.claim("k", by: owners.next(), holdFor: .seconds(30))
        XCTAssertEqual(held, .held(Self.event), "its record is written all the same")
    }

    func aWaitingCopyIsToldOfTheRecordAndClaims() async throws {
        let (first, second) = (owners.next(), owners.next())
        _ = await store.claim("k", by: first, holdFor: .seconds(30))
        let store = self.store
        let waiting = Task { await store.awaitClaim("k", by: second, holdFor: .seconds(30), until: .now + .seconds(30)) }
        await store.record("k", Self.event, keepFor: .seconds(60), releasing: first)
        let claim = await waiting.value
        XCTAssertEqual(claim, .claimed(Self.event))
        let holder = try await claimHolder("k")
        XCTAssertEqual(holder, second.description)
    }

    func aWaitingCopyGivesUpAtItsDeadline() async throws {
        let (first, second) = (owners.next(), owners.next())
        _ = await store.claim("k", by: first, holdFor: .seconds(30))
        let claim = await store.awaitClaim("k", by: second, holdFor: .seconds(30), until: .now + .milliseconds(50))
        XCTAssertEqual(claim, .held(nil))
        let holder = try await claimHolder("k")
        XCTAssertEqual(holder, first.description)
    }

    func aWaitingCopyClaimsWhenTheHeldClaimLapses() async throws {
        let (dead, second) = (owners.next(), owners.next())
        _ = await store.claim("k", by: dead, holdFor: .milliseconds(50))
        let claim = await store.awaitClaim("k", by: second, holdFor: .seconds(30), until: .now + .seconds(30))
        XCTAssertEqual(claim, .claimed(nil))
        let holder = try await claimHolder("k")
        XCTAssertEqual(holder, second.description)
    }

    func manyCopiesWaitingTakeTurns() async throws {
        let first = owners.next()
        _ = await store.claim("k", by: first, holdFor: .seconds(30))
        let (store, owners) = (self.store, self.owners)
        let waiters = (0..<8).map { _ in
            Task {
                let owner = owners.next()
                let claim = await store.awaitClaim("k", by: owner, holdFor: .seconds(30), until: .now + .seconds(30))
                await store.release("k", by: owner)
                return claim
            }
        }
        await store.release("k", by: first)
        var claims: [DedupClaim] = []
        for waiter in waiters { claims.append(await waiter.value) }
        XCTAssertEqual(claims, Array(repeating: .claimed(nil), count: 8), "each claims in turn once the one before releases")
        let holder = try await claimHolder("k")
        XCTAssertNil(holder)
    }
}

/// A step of a dedup behaviour that could not be taken.
struct DedupBehaviourFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
