@testable import APNsHTTP2
import TestSupport
import XCTest

/// The fleet's provider-token rules as a value type: every action the
/// refresh asks of the store is answered by hand here, with no store, no
/// lock and no clock.
final class FleetTokenRefreshStateTests: XCTestCase {
    private let t0: Int64 = 1_700_000_000
    private let minute: Int64 = 60
    private var mints: [Int64] = []

    private func mint() -> FleetTokenRefreshState.Mint {
        { [unowned self] issuedAt throws(ProviderTokenError) in
            mints.append(issuedAt)
            return "h.\(issuedAt).\(mints.count)"
        }
    }

    private func shared(_ issuedAt: Int64, _ name: String = "s") -> SharedProviderToken {
        SharedProviderToken(jwt: "h.\(name)\(issuedAt).sig", issuedAt: issuedAt)
    }

    private func fleetState() -> FleetTokenRefreshState { FleetTokenRefreshState(refreshAge: 40 * minute) }

    // MARK: Adopting

    func testAFreshSharedTokenIsAdoptedWithoutTheLockOrAMint() throws {
        var state = fleetState()
        let token = shared(t0 - 5 * minute)
        XCTAssertEqual(state.beginRefresh(), .read)
        XCTAssertEqual(state.read(token, now: t0, mint: mint()), .done)
        XCTAssertEqual(try state.token(now: t0, mint: mint()), token.jwt)
        XCTAssertTrue(state.currentIsShared)
        XCTAssertEqual(mints, [])
    }

    func testANewerSharedTokenReplacesTheCopyAtTheNextRefresh() throws {
        var state = fleetState()
        _ = state.beginRefresh()
        _ = state.read(shared(t0), now: t0 + 1, mint: mint())
        let newer = shared(t0 + 40 * minute)
        _ = state.beginRefresh()
        XCTAssertEqual(state.read(newer, now: t0 + 40 * minute + 3, mint: mint()), .done)
        XCTAssertEqual(try state.token(now: t0 + 40 * minute + 3, mint: mint()), newer.jwt)
        XCTAssertEqual(mints, [])
    }

    // MARK: Minting under the lock

    func testAMissingSharedTokenIsMintedUnderTheLockAndPublishedToExpireAtFiftyFiveMinutes() throws {
        var state = fleetState()
        XCTAssertEqual(state.beginRefresh(), .read)
        XCTAssertEqual(state.read(nil, now: t0, mint: mint()), .acquireLock)
        XCTAssertEqual(state.lockAnswered(taken: true, now: t0, mint: mint()), .read)
        XCTAssertEqual(mints, [], "nothing is minted before the read under the lock")
        guard case let .publish(token, seconds) = state.read(nil, now: t0, mint: mint()) else { return XCTFail("no publish") }
        XCTAssertEqual(mints, [t0])
        XCTAssertEqual(token.issuedAt, t0)
        XCTAssertEqual(seconds, 55 * minute)
        XCTAssertFalse(state.currentIsShared)
        XCTAssertEqual(state.published(now: t0), .releaseLock)
        XCTAssertTrue(state.currentIsShared)
        XCTAssertEqual(state.released(), .done)
        XCTAssertEqual(try state.token(now: t0 + 1, mint: mint()), token.jwt)
    }

    func testASharedTokenAtTheRefreshAgeIsReplacedButOneASecondYoungerIsNot() throws {
        var state = fleetState()
        let old = shared(t0)
        _ = state.beginRefresh()
        XCTAssertEqual(state.read(old, now: t0 + 40 * minute - 1, mint: mint()), .done)
        _ = state.beginRefresh()
        XCTAssertEqual(state.read(old, now: t0 + 40 * minute, mint: mint()), .acquireLock)
        XCTAssertEqual(mints, [])
    }

    func testTheLockHolderThatFindsAFreshTokenOnItsSecondReadAdoptsItAndMintsNothing() throws {
        var state = fleetState()
        _ = state.beginRefresh()
        XCTAssertEqual(state.read(shared(t0), now: t0 + 41 * minute, mint: mint()), .acquireLock)
        XCTAssertEqual(state.lockAnswered(taken: true, now: t0 + 41 * minute, mint: mint()), .read)
        let published = shared(t0 + 41 * minute, "other")
        XCTAssertEqual(state.read(published, now: t0 + 41 * minute, mint: mint()), .releaseLock)
        XCTAssertEqual(state.released(), .done)
        XCTAssertEqual(try state.token(now: t0 + 41 * minute, mint: mint()), published.jwt)
        XCTAssertEqual(mints, [])
    }

    func testAReplicaThatFindsTheLockHeldWaitsReadsAgainAndAdoptsTheWinnersToken() throws {
        var state = fleetState()
        _ = state.beginRefresh()
        XCTAssertEqual(state.read(nil, now: t0, mint: mint()), .acquireLock)
        XCTAssertEqual(state.lockAnswered(taken: false, now: t0, mint: mint()), .wait)
        XCTAssertEqual(state.waited(), .read)
        let winners = shared(t0)
        XCTAssertEqual(state.read(winners, now: t0, mint: mint()), .done)
        XCTAssertEqual(try state.token(now: t0, mint: mint()), winners.jwt)
        XCTAssertEqual(mints, [])
    }

    func testAReplicaGivesUpTheRoundAfterFindingTheLockHeldLockAttemptsTimes() throws {
        var state = FleetTokenRefreshState(refreshAge: 40 * minute, lockAttempts: 3)
        _ = state.beginRefresh()
        var actions: [FleetTokenRefreshState.Action] = []
        var action = state.read(shared(t0), now: t0 + 45 * minute, mint: mint())
        while action != .done, actions.count < 20 {
            actions.append(action)
            switch action {
            case .acquireLock: action = state.lockAnswered(taken: false, now: t0 + 45 * minute, mint: mint())
            case .wait: action = state.waited()
            case .read: action = state.read(shared(t0), now: t0 + 45 * minute, mint: mint())
            default: XCTFail("unexpected \(action)"); action = .done
            }
        }
        XCTAssertEqual(actions, [.acquireLock, .wait, .read, .acquireLock, .wait, .read, .acquireLock])
        XCTAssertFalse(state.isRefreshing)
        XCTAssertEqual(state.beginRefresh(), .read, "the next round tries again")
        XCTAssertEqual(mints, [])
    }

    func testARoundInProgressRefusesASecond() {
        var state = fleetState()
        XCTAssertEqual(state.beginRefresh(), .read)
        XCTAssertEqual(state.beginRefresh(), .done)
    }

    // MARK: The hot path

    func testTheHotPathKeepsADueSharedTokenWhileTheRefreshReplacesItAndMintsOnlyAtFiftyFiveMinutes() throws {
        var state = fleetState()
        let token = shared(t0)
        _ = state.beginRefresh()
        _ = state.read(token, now: t0, mint: mint())
        XCTAssertEqual(try state.token(now: t0 + 45 * minute, mint: mint()), token.jwt)
        XCTAssertEqual(try state.token(now: t0 + 55 * minute - 1, mint: mint()), token.jwt)
        XCTAssertEqual(mints, [])
        let own = try state.token(now: t0 + 55 * minute, mint: mint())
        XCTAssertNotEqual(own, token.jwt)
        XCTAssertEqual(mints, [t0 + 55 * minute])
        XCTAssertTrue(state.isUsingLocalToken)
    }

    func testTheHotPathMintsOnceWhenThereIsNoTokenYet() throws {
        var state = fleetState()
        let first = try state.token(now: t0, mint: mint())
        XCTAssertEqual(try state.token(now: t0 + 1, mint: mint()), first)
        XCTAssertEqual(mints, [t0])
    }

    // MARK: Fallback

    func testAStoreFailureKeepsAFreshTokenAndCountsOneFallback() throws {
        var state = fleetState()
        let token = shared(t0)
        _ = state.beginRefresh()
        _ = state.read(token, now: t0, mint: mint())
        for offset in [1, 2, 3] as [Int64] {
            XCTAssertEqual(state.beginRefresh(), .read)
            XCTAssertEqual(state.storeFailed(now: t0 + offset * minute, mint: mint()), .done)
        }
        XCTAssertTrue(state.storeUnreachable)
        XCTAssertEqual(state.fallbackCount, 1)
        XCTAssertEqual(try state.token(now: t0 + 3 * minute, mint: mint()), token.jwt)
        XCTAssertEqual(mints, [])
    }

    func testWhileTheStoreIsDownTheReplicaMintsItsOwnAtTheRefreshAgeAndNotBefore() throws {
        var state = fleetState()
        _ = state.beginRefresh()
        _ = state.read(shared(t0), now: t0, mint: mint())
        _ = state.beginRefresh()
        _ = state.storeFailed(now: t0 + minute, mint: mint())
        XCTAssertEqual(try state.token(now: t0 + 40 * minute - 1, mint: mint()), shared(t0).jwt)
        let own = try state.token(now: t0 + 40 * minute, mint: mint())
        XCTAssertEqual(mints, [t0 + 40 * minute])
        XCTAssertEqual(try state.token(now: t0 + 80 * minute - 1, mint: mint()), own)
        XCTAssertEqual(mints.count, 1)
        _ = try state.token(now: t0 + 80 * minute, mint: mint())
        XCTAssertEqual(mints, [t0 + 40 * minute, t0 + 80 * minute])
    }

    func testWhenTheStoreReturnsAReplicaWithTheNewerTokenPublishesItInsteadOfMinting() throws {
        var state = fleetState()
        _ = state.beginRefresh()
        _ = state.read(shared(t0), now: t0, mint: mint())
        _ = state.beginRefresh()
        _ = state.storeFailed(now: t0 + 40 * minute, mint: mint())
        XCTAssertEqual(mints, [t0 + 40 * minute], "the failed round replaced the due token")
        let own = try XCTUnwrap(state.current)
        // The store is back, still holding the old token (now 41 minutes old).
        XCTAssertEqual(state.beginRefresh(), .read)
        XCTAssertEqual(state.read(shared(t0), now: t0 + 41 * minute, mint: mint()), .acquireLock)
        XCTAssertEqual(state.lockAnswered(taken: true, now: t0 + 41 * minute, mint: mint()), .read)
        XCTAssertEqual(state.read(shared(t0), now: t0 + 41 * minute, mint: mint()),
                       .publish(own, expiresAfterSeconds: 54 * minute))
        XCTAssertEqual(state.published(now: t0 + 41 * minute), .releaseLock)
        XCTAssertTrue(state.storeUnreachable, "until the round ends")
        XCTAssertEqual(state.released(), .done)
        XCTAssertFalse(state.storeUnreachable)
        XCTAssertEqual(mints.count, 1)
    }

    func testWhenTheStoreReturnsWithAYoungerSharedTokenTheReplicaGoesBackToIt() throws {
        var state = fleetState()
        _ = state.beginRefresh()
        _ = state.storeFailed(now: t0, mint: mint())
        XCTAssertTrue(state.isUsingLocalToken)
        let fleets = shared(t0 - 5 * minute)
        _ = state.beginRefresh()
        XCTAssertEqual(state.read(fleets, now: t0 + minute, mint: mint()), .done)
        XCTAssertEqual(try state.token(now: t0 + minute, mint: mint()), fleets.jwt)
        XCTAssertFalse(state.isUsingLocalToken)
    }

    func testAfterGoingBackToTheSharedTokenTheReplicaStillNeverMintsWithinTwentyMinutesOfItsLastMint() throws {
        var state = FleetTokenRefreshState(refreshAge: 20 * minute)
        _ = state.beginRefresh()
        _ = state.storeFailed(now: t0 + 10 * minute, mint: mint())
        XCTAssertEqual(mints, [t0 + 10 * minute])
        let ownFromFallback = try XCTUnwrap(state.current)
        // Back on a shared token issued before this replica's own; it comes due first.
        _ = state.beginRefresh()
        _ = state.read(shared(t0 + 5 * minute), now: t0 + 12 * minute, mint: mint())
        _ = state.beginRefresh()
        XCTAssertEqual(state.read(shared(t0 + 5 * minute), now: t0 + 25 * minute, mint: mint()), .acquireLock)
        _ = state.lockAnswered(taken: true, now: t0 + 25 * minute, mint: mint())
        XCTAssertEqual(state.read(shared(t0 + 5 * minute), now: t0 + 25 * minute, mint: mint()),
                       .publish(ownFromFallback, expiresAfterSeconds: 40 * minute))
        XCTAssertEqual(mints.count, 1)
    }

    func testAStoreThatAnswersReadsButFailsWritesStaysUnreachableWithoutComingAndGoing() throws {
        var state = fleetState()
        _ = state.beginRefresh()
        _ = state.read(shared(t0), now: t0, mint: mint())
        for round: Int64 in 0..<10 {
            let now = t0 + 40 * minute + round * 15
            XCTAssertEqual(state.beginRefresh(), .read)
            XCTAssertEqual(state.read(shared(t0), now: now, mint: mint()), .acquireLock)
            XCTAssertEqual(state.storeFailed(now: now, mint: mint()), .done)
            XCTAssertTrue(state.storeUnreachable)
        }
        XCTAssertEqual(state.fallbackCount, 1)
        XCTAssertEqual(mints, [t0 + 40 * minute], "its own token, once")
    }

    // MARK: Rejections

    func testExpiredProviderTokenIsJudgedAgainstTheSharedTokensIssueTime() throws {
        var state = fleetState()
        let token = shared(t0)
        _ = state.beginRefresh()
        _ = state.read(token, now: t0 + 15 * minute, mint: mint())
        XCTAssertEqual(state.rejected(token.jwt, reason: .expiredProviderToken, now: t0 + 20 * minute - 1, mint: mint()),
                       .doNotRetry(.clockSkew(tokenAgeSeconds: 20 * minute - 1)))
        XCTAssertEqual(mints, [])
        guard case .retryWithNewToken(let fresh) = state.rejected(token.jwt, reason: .expiredProviderToken, now: t0 + 20 * minute, mint: mint()) else {
            return XCTFail("no new token")
        }
        XCTAssertEqual(mints, [t0 + 20 * minute])
        XCTAssertTrue(state.isUsingLocalToken)
        XCTAssertEqual(state.rejected(token.jwt, reason: .expiredProviderToken, now: t0 + 20 * minute + 5, mint: mint()),
                       .retryWithNewToken(fresh))
        XCTAssertEqual(mints.count, 1)
    }

    func testATokenMintedForARejectionIsPublishedByTheNextRefreshOverTheRejectedSharedOne() throws {
        var state = fleetState()
        let token = shared(t0)
        _ = state.beginRefresh()
        _ = state.read(token, now: t0, mint: mint())
        guard case .retryWithNewToken = state.rejected(token.jwt, reason: .expiredProviderToken, now: t0 + 25 * minute, mint: mint()) else {
            return XCTFail("no new token")
        }
        let own = try XCTUnwrap(state.current)
        _ = state.beginRefresh()
        XCTAssertEqual(state.read(token, now: t0 + 25 * minute, mint: mint()), .acquireLock)
        _ = state.lockAnswered(taken: true, now: t0 + 25 * minute, mint: mint())
        XCTAssertEqual(state.read(token, now: t0 + 25 * minute, mint: mint()), .publish(own, expiresAfterSeconds: 55 * minute))
        XCTAssertEqual(state.published(now: t0 + 25 * minute), .releaseLock)
        XCTAssertFalse(state.isUsingLocalToken)
        XCTAssertEqual(mints.count, 1)
    }

    func testTooManyUpdatesKeepsTheSharedTokenAndCredentialsAreConfiguration() throws {
        var state = fleetState()
        let token = shared(t0)
        _ = state.beginRefresh()
        _ = state.read(token, now: t0, mint: mint())
        XCTAssertEqual(state.rejected(token.jwt, reason: .tooManyProviderTokenUpdates, now: t0 + 30 * minute, mint: mint()),
                       .retryWithCurrentToken(token.jwt))
        for reason: APNsReason in [.invalidProviderToken, .missingProviderToken, .badEnvironmentKeyIDInToken] {
            XCTAssertEqual(state.rejected(token.jwt, reason: reason, now: t0 + 30 * minute, mint: mint()),
                           .doNotRetry(.credentialsRejected(reason)))
        }
        XCTAssertEqual(state.rejected(token.jwt, reason: APNsReason("BadDeviceToken"), now: t0, mint: mint()), .notATokenProblem)
        XCTAssertEqual(mints, [])
    }

    // MARK: Whatever the store answers

    /// Random answers from the store (tokens of any age, a little in the
    /// future too, locks held or taken, failures anywhere), random hot-path
    /// calls and rejections, over six simulated hours per seed: this replica
    /// never mints twice within 20 minutes and never hands out a token
    /// 55 minutes old.
    func testNoSequenceOfStoreAnswersBreaksTheLocalRules() throws {
        for seed: UInt64 in 1...200 {
            var random = SplitMix64(seed: seed)
            var state = FleetTokenRefreshState(refreshAge: Int64.random(in: 20...50, using: &random) * minute,
                                               lockAttempts: Int.random(in: 1...4, using: &random))
            mints = []
            var now = t0
            var others = 0
            func answerShared() -> SharedProviderToken? {
                guard Int.random(in: 0..<4, using: &random) > 0 else { return nil }
                others += 1
                return shared(now - Int64.random(in: -120...(70 * minute), using: &random), "o\(others)-")
            }
            func check(_ jwt: String) {
                let issuedAt = state.current.map { $0.jwt == jwt ? $0.issuedAt : Int64.min } ?? .min
                XCTAssertNotEqual(issuedAt, .min, "seed \(seed): handed out a token that is not the current one")
                XCTAssertLessThan(now - issuedAt, 55 * minute, "seed \(seed): a token 55 minutes old")
            }
            while now < t0 + 6 * 60 * minute {
                now += Int64.random(in: 1...180, using: &random)
                switch Int.random(in: 0..<10, using: &random) {
                case 0...3:
                    check(try state.token(now: now, mint: mint()))
                case 4:
                    let rejected = state.current?.jwt ?? "h.none.sig"
                    let reason: APNsReason = Bool.random(using: &random) ? .expiredProviderToken : .tooManyProviderTokenUpdates
                    switch state.rejected(rejected, reason: reason, now: now, mint: mint()) {
                    case .retryWithNewToken(let jwt):
                        XCTAssertNotEqual(jwt, rejected, "seed \(seed)")
                        check(jwt)
                    case .retryWithCurrentToken(let jwt):
                        check(jwt)
                    default:
                        break
                    }
                default:
                    var action = state.beginRefresh()
                    var steps = 0
                    while action != .done {
                        steps += 1
                        XCTAssertLessThan(steps, 50, "seed \(seed): a round that does not end")
                        let fails = Int.random(in: 0..<12, using: &random) == 0
                        switch action {
                        case .read:
                            action = fails ? state.storeFailed(now: now, mint: mint()) : state.read(answerShared(), now: now, mint: mint())
                        case .acquireLock:
                            action = fails ? state.storeFailed(now: now, mint: mint())
                                : state.lockAnswered(taken: Bool.random(using: &random), now: now, mint: mint())
                        case .wait:
                            action = state.waited()
                        case let .publish(token, seconds):
                            XCTAssertGreaterThan(seconds, 0)
                            XCTAssertLessThanOrEqual(now - token.issuedAt + seconds, 55 * minute, "seed \(seed): published to outlive 55 minutes")
                            action = fails ? state.storeFailed(now: now, mint: mint()) : state.published(now: now)
                        case .releaseLock:
                            action = fails ? state.storeFailed(now: now, mint: mint()) : state.released()
                        case .done:
                            break
                        }
                    }
                }
            }
            for (earlier, later) in zip(mints, mints.dropFirst()) {
                XCTAssertGreaterThanOrEqual(later - earlier, 20 * minute, "seed \(seed): two mints within 20 minutes")
            }
        }
    }
}
