import APNsHTTP2
import Foundation
@testable import OpenSSLCrypto
import PushGWSync
import TestSupport
import XCTest

/// Several replicas (instances of ``FleetProviderTokenCache``) sharing one
/// store double, driven by a test clock over simulated hours.
final class FleetProviderTokenCacheTests: XCTestCase {
    private static let keyID = "ABC123DEFG"
    private static let teamID = "DEF123GHIJ"
    private let minute: Int64 = 60
    private let key = ProviderTokenStoreKey(teamID: teamID, keyID: keyID)

    /// What the replicas reported, in order.
    private final class ReportLog: Sendable {
        let entries = Locked<[(replica: Int, report: FleetProviderTokenCache.StoreReport)]>([])
    }

    /// N replicas on one store double and one clock.
    private final class Fleet: Sendable {
        let clock: TestClock
        let store: SharedProviderTokenStoreDouble
        let replicas: [FleetProviderTokenCache]
        let reports = ReportLog()
        let start: Int64

        init(count: Int, refreshAge: Duration = .seconds(40 * 60), lockAttempts: Int = 5) throws {
            let clock = TestClock(epochSeconds: 1_700_000_000)
            let store = SharedProviderTokenStoreDouble(now: { clock.instant })
            let reports = self.reports
            let key = try ES256SigningKey.generate()
            var settings = FleetProviderTokenCache.Settings()
            settings.refreshAge = refreshAge
            settings.lockAttempts = lockAttempts
            let storeKey = ProviderTokenStoreKey(teamID: FleetProviderTokenCacheTests.teamID, keyID: FleetProviderTokenCacheTests.keyID)
            replicas = try (0..<count).map { index in
                try FleetProviderTokenCache(
                    keyID: FleetProviderTokenCacheTests.keyID, teamID: FleetProviderTokenCacheTests.teamID, signingKey: key,
                    store: store, settings: settings, replica: "replica-\(index)", now: { clock.epochSeconds },
                    // A replica that finds the lock held waits, boundedly, until it is free:
                    // real time does not pass in these tests, the test clock does.
                    wait: { _ in
                        for _ in 0..<1000 where store.lockOwner(for: storeKey) != nil { await Task.yield() }
                    },
                    report: { report in reports.entries.withLock { $0.append((index, report)) } })
            }
            self.clock = clock
            self.store = store
            start = clock.epochSeconds
        }

        var now: Int64 { clock.epochSeconds }
        var mintCount: Int { replicas.reduce(0) { $0 + $1.mintCount } }

        /// Every replica refreshes once, one after the other in `order`.
        func refreshInTurn(_ order: [Int]) async {
            for index in order { await replicas[index].refresh() }
        }

        /// Every replica refreshes once, all at the same time.
        func refreshTogether() async {
            await withTaskGroup(of: Void.self) { group in
                for replica in replicas { group.addTask { await replica.refresh() } }
            }
        }

        /// The token each replica presents now.
        func presented() throws -> [String] {
            let now = self.now
            return try replicas.map { try $0.token(now: now) }
        }

        func reports(of replica: Int) -> [FleetProviderTokenCache.StoreReport] {
            reports.entries.withLock { $0.filter { $0.replica == replica }.map(\.report) }
        }
    }

    private func issuedAt(_ jwt: String) throws -> Int64 {
        try XCTUnwrap(TokenTestSupport.claims(of: jwt)["iat"] as? NSNumber).int64Value
    }

    /// Runs the fleet for `duration` in steps of `step`: each step every
    /// replica refreshes (in a random order, or all at once every third
    /// step), then each presents its token, which is checked and recorded.
    /// Returns the distinct tokens presented, by issue time.
    @discardableResult
    private func run(_ fleet: Fleet, for duration: Int64, step: Int64 = 15, seed: UInt64 = 24,
                     sameTokenEveryStep: Bool = true, file: StaticString = #filePath, line: UInt = #line) async throws -> [Int64: String] {
        var random = SplitMix64(seed: seed)
        var seen: [Int64: String] = [:]
        let end = fleet.now + duration
        var round = 0
        while fleet.now < end {
            if round % 3 == 2 {
                await fleet.refreshTogether()
            } else {
                await fleet.refreshInTurn(Array(fleet.replicas.indices).shuffled(using: &random))
            }
            let tokens = try fleet.presented()
            if sameTokenEveryStep {
                XCTAssertEqual(Set(tokens).count, 1, "replicas disagree at +\(fleet.now - fleet.start) s", file: file, line: line)
            }
            for token in tokens {
                let iat = try issuedAt(token)
                XCTAssertLessThan(fleet.now - iat, 55 * minute, "a token handed out too old", file: file, line: line)
                if let known = seen[iat], known != token, sameTokenEveryStep {
                    XCTFail("two tokens issued at \(iat)", file: file, line: line)
                }
                seen[iat] = token
            }
            fleet.clock.advance(by: .seconds(step))
            round += 1
        }
        return seen
    }

    // MARK: One token for the fleet

    func testFourReplicasOverSixHoursMintOncePerRefreshPeriodAndPresentOneToken() async throws {
        let fleet = try Fleet(count: 4)
        for replica in fleet.replicas { await replica.prepare() }
        let seen = try await run(fleet, for: 6 * 60 * minute)
        let issued = seen.keys.sorted()
        XCTAssertEqual(issued, (0..<9).map { fleet.start + Int64($0) * 40 * minute }, "one mint every 40 minutes")
        XCTAssertEqual(fleet.mintCount, 9, "no mint that was not presented")
        XCTAssertEqual(fleet.store.published.map(\.issuedAt), issued)
        XCTAssertEqual(fleet.store.counts.failures, 0)
        for replica in fleet.replicas {
            XCTAssertFalse(replica.isUsingLocalToken)
            XCTAssertEqual(replica.fallbackCount, 0)
        }
    }

    func testWithTheShortestRefreshAgeNoTwoMintsOfTheFleetAreWithinTwentyMinutes() async throws {
        let fleet = try Fleet(count: 3, refreshAge: .seconds(20 * 60))
        let seen = try await run(fleet, for: 3 * 60 * minute, step: 7)
        let issued = seen.keys.sorted()
        XCTAssertEqual(issued.count, fleet.mintCount)
        for (earlier, later) in zip(issued, issued.dropFirst()) {
            XCTAssertGreaterThanOrEqual(later - earlier, 20 * minute)
            XCTAssertLessThan(later - earlier, 20 * minute + 7)
        }
        XCTAssertEqual(issued.count, 9)
    }

    func testEightReplicasStartingTogetherOnAnEmptyStoreMintOnce() async throws {
        let fleet = try Fleet(count: 8)
        await withTaskGroup(of: Void.self) { group in
            for replica in fleet.replicas { group.addTask { await replica.prepare() } }
        }
        XCTAssertEqual(fleet.mintCount, 1)
        XCTAssertEqual(Set(try fleet.presented()).count, 1)
        XCTAssertEqual(try fleet.presented()[0], fleet.store.entry(for: key)?.jwt)
        XCTAssertEqual(fleet.store.counts.publishes, 1)
        XCTAssertNil(fleet.store.lockOwner(for: key), "the lock is released")
    }

    // MARK: The store fails

    func testWithTheStoreDownEachReplicaFallsBackSaysSoOnceAndComesBackToOneSharedToken() async throws {
        let fleet = try Fleet(count: 3)
        for replica in fleet.replicas { await replica.prepare() }
        try await run(fleet, for: 10 * minute)
        fleet.store.isReachable = false
        let during = try await run(fleet, for: 90 * minute, sameTokenEveryStep: false)
        for (index, replica) in fleet.replicas.enumerated() {
            XCTAssertEqual(fleet.reports(of: index), [.unreachable(.unavailable("the test double is switched off"))],
                           "one report, not one per refresh or request")
            XCTAssertEqual(replica.fallbackCount, 1)
            XCTAssertTrue(replica.isStoreUnreachable)
            XCTAssertTrue(replica.isUsingLocalToken)
            // Its own tokens, at the in-process rules' pace: at 40 and 80 minutes.
            XCTAssertEqual(replica.mintCount, index == 0 ? 3 : 2)
        }
        XCTAssertEqual(Set(during.keys), [fleet.start, fleet.start + 40 * minute, fleet.start + 80 * minute])
        XCTAssertEqual(fleet.mintCount, 1 + 2 * 3)

        fleet.store.isReachable = true
        // Back at +100 minutes; the replicas' own tokens (issued at +80) are due at +120.
        try await run(fleet, for: 15 * minute)
        for (index, replica) in fleet.replicas.enumerated() {
            XCTAssertEqual(fleet.reports(of: index).last, .reachable)
            XCTAssertEqual(fleet.reports(of: index).count, 2)
            XCTAssertFalse(replica.isUsingLocalToken)
        }
        XCTAssertEqual(fleet.mintCount, 7, "back on the store, a replica's own token became the fleet's without a mint")
        let shared = try XCTUnwrap(fleet.store.entry(for: key))
        XCTAssertEqual(Set(try fleet.presented()), [shared.jwt])
    }

    func testAStoreThatFailsAndReturnsWithinOneTokensLifeCausesNoMint() async throws {
        let fleet = try Fleet(count: 2)
        for replica in fleet.replicas { await replica.prepare() }
        fleet.store.isReachable = false
        try await run(fleet, for: 5 * minute)
        fleet.store.isReachable = true
        try await run(fleet, for: 5 * minute)
        XCTAssertEqual(fleet.mintCount, 1)
        XCTAssertEqual(fleet.replicas.map(\.fallbackCount), [1, 1])
        XCTAssertEqual(fleet.reports(of: 0), [.unreachable(.unavailable("the test double is switched off")), .reachable])
    }

    func testAStoreThatLosesItsDataMidPeriodGetsTheFleetsTokenBackWithoutAMint() async throws {
        let fleet = try Fleet(count: 3)
        for replica in fleet.replicas { await replica.prepare() }
        try await run(fleet, for: 10 * minute)
        fleet.store.forgetEverything()
        try await run(fleet, for: 20 * minute)
        XCTAssertEqual(fleet.mintCount, 1)
        XCTAssertEqual(fleet.store.entry(for: key)?.issuedAt, fleet.start)
    }

    func testAnUnreadableEntryIsReplacedUnderTheLockAndIsNotAStoreFailure() async throws {
        let fleet = try Fleet(count: 2)
        for replica in fleet.replicas { await replica.prepare() }
        fleet.clock.advance(by: .seconds(30 * 60))
        fleet.store.corruptEntry(for: key)
        await fleet.refreshInTurn([0, 1])
        XCTAssertEqual(fleet.mintCount, 1, "the replica's fresh token is published over it, no mint")
        XCTAssertEqual(fleet.store.entry(for: key)?.issuedAt, fleet.start)
        XCTAssertEqual(fleet.replicas.map(\.fallbackCount), [0, 0])
        XCTAssertEqual(Set(try fleet.presented()).count, 1)
    }

    // MARK: A replica dies holding the lock

    func testALockLeftByADeadReplicaLapsesAndTheFleetRefreshesOnItsNextRound() async throws {
        let fleet = try Fleet(count: 3)
        for replica in fleet.replicas { await replica.prepare() }
        try await run(fleet, for: 40 * minute)
        XCTAssertEqual(fleet.mintCount, 1)
        // At the refresh age, a replica takes the lock and dies before publishing.
        let taken = try await fleet.store.acquireMintLock(for: key, owner: "dead-replica", expiresAfter: .seconds(10))
        XCTAssertTrue(taken)
        await fleet.refreshInTurn([0, 1, 2])
        XCTAssertEqual(fleet.mintCount, 1, "nobody mints while the lock is held")
        XCTAssertEqual(Set(try fleet.presented()).count, 1, "the due token is still presented")
        fleet.clock.advance(by: .seconds(10))
        XCTAssertNil(fleet.store.lockOwner(for: key))
        await fleet.refreshInTurn([2, 0, 1])
        XCTAssertEqual(fleet.mintCount, 2)
        let tokens = try fleet.presented()
        XCTAssertEqual(Set(tokens).count, 1)
        XCTAssertEqual(try issuedAt(tokens[0]), fleet.start + 40 * minute + 10)
    }

    // MARK: Rejections

    func testAnExpiredRejectionOnOneReplicaGivesTheWholeFleetItsNewTokenAtTheNextRound() async throws {
        let fleet = try Fleet(count: 3)
        for replica in fleet.replicas { await replica.prepare() }
        try await run(fleet, for: 25 * minute)
        let old = try fleet.presented()[1]
        let decision = fleet.replicas[1].tokenWasRejected(old, reason: .expiredProviderToken, now: fleet.now)
        guard case .retryWithNewToken(let fresh) = decision else { return XCTFail("\(decision)") }
        XCTAssertEqual(fleet.mintCount, 2)
        // Its refresh publishes the new token; the others' next refresh adopts it.
        await fleet.refreshInTurn([1, 0, 2])
        XCTAssertEqual(try fleet.presented(), [fresh, fresh, fresh])
        // The other replicas see the old token rejected too, after adopting the new one.
        XCTAssertEqual(fleet.replicas[2].tokenWasRejected(old, reason: .expiredProviderToken, now: fleet.now), .retryWithNewToken(fresh))
        XCTAssertEqual(fleet.mintCount, 2)
        // The next routine refresh is 40 minutes after the new token.
        let seen = try await run(fleet, for: 60 * minute)
        XCTAssertEqual(seen.keys.sorted(), [fleet.start + 25 * minute, fleet.start + 65 * minute])
    }

    func testAnExpiredRejectionOfAYoungSharedTokenBlamesTheClockOnEveryReplica() async throws {
        let fleet = try Fleet(count: 2)
        for replica in fleet.replicas { await replica.prepare() }
        fleet.clock.advance(by: .seconds(19 * 60))
        let token = try fleet.presented()[0]
        for replica in fleet.replicas {
            XCTAssertEqual(replica.tokenWasRejected(token, reason: .expiredProviderToken, now: fleet.now),
                           .doNotRetry(.clockSkew(tokenAgeSeconds: 19 * 60)))
            XCTAssertEqual(replica.tokenWasRejected(token, reason: .tooManyProviderTokenUpdates, now: fleet.now),
                           .retryWithCurrentToken(token))
            XCTAssertEqual(replica.tokenWasRejected(token, reason: .invalidProviderToken, now: fleet.now),
                           .doNotRetry(.credentialsRejected(.invalidProviderToken)))
        }
        XCTAssertEqual(fleet.mintCount, 1)
    }

    // MARK: Background refresh and settings

    func testTheBackgroundRefreshPublishesAndAdoptsUntilStopped() async throws {
        let store = SharedProviderTokenStoreDouble()
        let key = try ES256SigningKey.generate()
        var settings = FleetProviderTokenCache.Settings()
        settings.refreshInterval = .milliseconds(5)
        let now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
        let first = try FleetProviderTokenCache(keyID: Self.keyID, teamID: Self.teamID, signingKey: key, store: store,
                                                settings: settings, now: now)
        let second = try FleetProviderTokenCache(keyID: Self.keyID, teamID: Self.teamID, signingKey: key, store: store,
                                                 settings: settings, now: now)
        first.start()
        try await waitUntil("the first replica published") { store.entry(for: self.key) != nil }
        second.start()
        try await waitUntil("the second adopted it") { second.currentIssuedAt != nil }
        XCTAssertFalse(second.isUsingLocalToken)
        XCTAssertEqual(try second.token(now: now()), try first.token(now: now()))
        first.stop()
        second.stop()
        let reads = store.counts.reads
        XCTAssertEqual(first.mintCount + second.mintCount, 1)
        XCTAssertGreaterThanOrEqual(reads, 2)
    }

    func testRefreshAgesOutsideTwentyToFiftyMinutesAndMalformedIDsAreRefused() throws {
        let key = try ES256SigningKey.generate()
        let store = SharedProviderTokenStoreDouble()
        for age: Duration in [.seconds(20 * 60 - 1), .seconds(50 * 60 + 1)] {
            var settings = FleetProviderTokenCache.Settings()
            settings.refreshAge = age
            XCTAssertThrowsError(try FleetProviderTokenCache(keyID: Self.keyID, teamID: Self.teamID, signingKey: key, store: store,
                                                             settings: settings, now: { 0 })) {
                XCTAssertEqual($0 as? ProviderTokenError, .refreshAgeOutOfRange(age))
            }
        }
        XCTAssertThrowsError(try FleetProviderTokenCache(keyID: "short", teamID: Self.teamID, signingKey: key, store: store, now: { 0 }))
    }

    func testTwoInstancesHaveDistinctLockOwners() throws {
        let key = try ES256SigningKey.generate()
        let store = SharedProviderTokenStoreDouble()
        let owners = try (0..<2).map { _ in
            try FleetProviderTokenCache(keyID: Self.keyID, teamID: Self.teamID, signingKey: key, store: store, replica: "a", now: { 0 }).owner
        }
        XCTAssertNotEqual(owners[0], owners[1])
        XCTAssertTrue(owners.allSatisfy { $0.hasPrefix("a:") })
    }

    // MARK: The store's names and values

    func testStoreKeysShareOneHashTagAndValuesRoundTrip() {
        let keys = key.storeKeys(prefix: "pushgw:")
        XCTAssertEqual(keys.token, "pushgw:apns-token:{DEF123GHIJ.ABC123DEFG}")
        XCTAssertEqual(keys.lock, "pushgw:apns-token-lock:{DEF123GHIJ.ABC123DEFG}")
        let token = SharedProviderToken(jwt: "aGVhZA.Y2xhaW1z.c2ln", issuedAt: 1_700_000_000)
        XCTAssertEqual(token.storedValue, "1700000000 aGVhZA.Y2xhaW1z.c2ln")
        XCTAssertEqual(SharedProviderToken(storedValue: token.storedValue), token)
        for bad in ["", "1700000000", "x aGVhZA.Y2xhaW1z.c2ln", "1700000000 aGVhZA.Y2xhaW1z", "1700000000 a..c", "1 a.b.c d"] {
            XCTAssertNil(SharedProviderToken(storedValue: bad), bad)
        }
        XCTAssertFalse(String(describing: token).contains("c2ln"), "the description hides the JWT")
    }
}
