@testable import FCMClient
import HTTP2Client
@testable import HTTP2Client
import Synchronization
import TestSupport
import XCTest

/// The cache's rules with a fake fetcher: no network, exact counts.
final class AccessTokenCacheTests: XCTestCase {
    /// Counts grants; each takes `delay` and issues `token-<n>` for `lifetime` seconds.
    final class CountingFetcher: AccessTokenFetcher {
        let grants = Atomic(0)
        /// Every fetch, failed ones included.
        let calls = Atomic(0)
        let failing = Atomic(false)
        let delay: Duration
        let lifetime: Int64

        init(delay: Duration = .zero, lifetime: Int64 = 3600) {
            self.delay = delay
            self.lifetime = lifetime
        }

        func fetch(now: Int64) async throws(AccessTokenError) -> AccessTokenGrant {
            calls.add(1, ordering: .relaxed)
            // A slow token endpoint: the delay is what the tests observe
            // callers doing while a grant is under way.
            if delay > .zero { try? await Task.sleep(for: delay) }
            if failing.load(ordering: .relaxed) { throw AccessTokenError(.unavailable, "down", httpStatus: 503) }
            let number = grants.add(1, ordering: .relaxed).newValue
            return AccessTokenGrant(accessToken: "token-\(number)", expiresIn: lifetime)
        }
    }

    /// A cache over a fresh counting fetcher, on a test clock at 1,000,000 s.
    private func makeCache(delay: Duration = .zero, lifetime: Int64 = 3600) -> (AccessTokenCache, CountingFetcher, TestClock) {
        let fetcher = CountingFetcher(delay: delay, lifetime: lifetime)
        let clock = TestClock(epochSeconds: 1_000_000)
        return (AccessTokenCache(fetcher: fetcher, now: { clock.epochSeconds }), fetcher, clock)
    }

    func testConcurrentCallersWaitForTheSameGrant() async throws {
        let (cache, fetcher, _) = makeCache(delay: .milliseconds(100))
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { try await cache.accessToken() } }
            var collected: [String] = []
            for try await token in group { collected.append(token) }
            return collected
        }
        XCTAssertEqual(Set(tokens), ["token-1"])
        XCTAssertEqual(cache.grantCount, 1)
        XCTAssertEqual(fetcher.grants.load(ordering: .relaxed), 1)
    }

    func testInvalidatingTheCurrentTokenRefreshesOnceAndAnOldOneNothing() async throws {
        let (cache, _, _) = makeCache()
        let first = try await cache.accessToken()
        cache.invalidate(first)
        let second = try await cache.accessToken()
        XCTAssertEqual(second, "token-2")
        cache.invalidate(first)  // a late 401 for the replaced token
        let stillSecond = try await cache.accessToken()
        XCTAssertEqual(stillSecond, "token-2")
        XCTAssertEqual(cache.grantCount, 2)
    }

    func testAFailedRefreshKeepsAStillValidTokenAndAnExpiredOneFails() async throws {
        let (cache, fetcher, clock) = makeCache()
        let first = try await cache.accessToken()
        fetcher.failing.store(true, ordering: .relaxed)
        clock.advance(by: .seconds(3500))  // inside the refresh margin, not expired
        let kept = try await cache.accessToken()
        XCTAssertEqual(kept, first)
        try await waitUntil("the failed replacement is counted") { cache.failedGrantCount == 1 }  // the replacement, in the background
        let keptDuringTheHoldOff = try await cache.accessToken()
        XCTAssertEqual(keptDuringTheHoldOff, first, "the hold-off does not hide a token that has not expired")
        XCTAssertEqual(cache.failedGrantCount, 1)
        clock.advance(by: .seconds(100))  // expired
        do {
            _ = try await cache.accessToken()
            XCTFail("an expired token was handed out")
        } catch {
            XCTAssertEqual(error.kind, .unavailable)
        }
        fetcher.failing.store(false, ordering: .relaxed)
        clock.advance(by: .seconds(2))  // past the hold-off after two failures in a row (1 s, then 2 s)
        let fresh = try await cache.accessToken()
        XCTAssertEqual(fresh, "token-2")
    }

    /// Inside the refresh margin the token is still valid: callers get it at
    /// once while one grant replaces it (regression: every caller
    /// waited for that grant, so a slow token endpoint stalled every send
    /// for up to 3 min 45 s before the token had even expired).
    func testInsideTheRefreshMarginTheValidTokenIsHandedOutWhileOneGrantReplacesIt() async throws {
        let (cache, fetcher, clock) = makeCache(delay: .milliseconds(300))
        let first = try await cache.accessToken()
        clock.advance(by: .seconds(3400))  // 200 s before expiry: inside the 225 s margin
        var handedOut: [String] = []
        for _ in 0..<20 { handedOut.append(try await cache.accessToken()) }
        XCTAssertEqual(cache.accessTokenWithoutWaiting(), first)
        XCTAssertEqual(Set(handedOut), [first])
        XCTAssertEqual(fetcher.grants.load(ordering: .relaxed), 1, "nobody waited for the replacement")
        try await waitUntil("the replacement is granted") { cache.grantCount == 2 }
        XCTAssertEqual(fetcher.calls.load(ordering: .relaxed), 2, "one replacement for twenty callers")
        let second = try await cache.accessToken()
        XCTAssertEqual(second, "token-2")
    }

    /// A caller that will not wait (the FCM client's fast path) starts the
    /// replacement too, and gets nil only once the token has expired.
    func testTheFastPathStartsTheReplacementAndNeverHandsOutAnExpiredToken() async throws {
        let (cache, fetcher, clock) = makeCache(delay: .milliseconds(100))
        XCTAssertNil(cache.accessTokenWithoutWaiting(), "no token yet")
        XCTAssertEqual(fetcher.calls.load(ordering: .relaxed), 0, "and no grant started by it")
        let first = try await cache.accessToken()
        clock.advance(by: .seconds(3400))
        XCTAssertEqual(cache.accessTokenWithoutWaiting(), first)
        try await waitUntil("the replacement is granted") { cache.grantCount == 2 }
        XCTAssertEqual(cache.accessTokenWithoutWaiting(), "token-2")
        clock.advance(by: .seconds(3600))  // token-2 counted from its grant at 1,003,400: expired
        XCTAssertNil(cache.accessTokenWithoutWaiting())
    }

    /// A replacement refused as soon as it is used (403 PERMISSION_DENIED:
    /// a missing IAM role, a disabled API) says no new token helps: the
    /// cache keeps it, refusals are final for a minute, then a refusal
    /// is worth one new grant again.
    func testARefusedReplacementMakesRefusalsFinalForAMinute() async throws {
        let (cache, _, clock) = makeCache()
        let first = try await cache.accessToken()
        XCTAssertTrue(cache.invalidate(first))
        let second = try await cache.accessToken()
        XCTAssertEqual(second, "token-2")
        clock.advance(by: .seconds(5))
        XCTAssertFalse(cache.invalidate(second), "the replacement was refused too")
        XCTAssertFalse(cache.invalidate(second))
        let kept = try await cache.accessToken()
        XCTAssertEqual(kept, second)
        XCTAssertEqual(cache.grantCount, 2, "no grant per refusal")
        clock.advance(by: .seconds(61))
        XCTAssertTrue(cache.invalidate(second), "a minute on, a refusal is worth a new token again")
        let third = try await cache.accessToken()
        XCTAssertEqual(third, "token-3")
        clock.advance(by: .seconds(120))
        XCTAssertTrue(cache.invalidate(third), "a token that served two minutes is refused for a new reason")
    }

    /// A token refused at the end of its life (handed out to its last
    /// second while grants were held off) may simply have expired by
    /// Google's clock: its successor is not suspect, and one refusal of it
    /// later is still worth a new token.
    func testARefusalOfATokenInsideItsMarginDoesNotMakeItsSuccessorSuspect() async throws {
        let (cache, _, clock) = makeCache()
        let first = try await cache.accessToken()
        clock.advance(by: .seconds(3599))
        XCTAssertTrue(cache.invalidate(first))
        let second = try await cache.accessToken()
        XCTAssertEqual(second, "token-2")
        clock.advance(by: .seconds(20))
        XCTAssertTrue(cache.invalidate(second), "one refusal of the successor is worth a new token")
        let third = try await cache.accessToken()
        XCTAssertEqual(third, "token-3")
    }

    /// While grants are held off, a caller without a token is told how long
    /// is left, so that its retry waits for the next grant instead of
    /// spending a retry on the same answer.
    func testAHeldOffCallerIsToldHowLongIsLeft() async throws {
        var rules = AccessTokenCacheState(refreshMargin: 225)
        guard case let .start(id) = rules.decide(now: 1000) else { return XCTFail() }
        let failed = rules.finished(id, .failure(AccessTokenError(.unavailable, "down", httpStatus: 503,
                                                                  retryAfter: .seconds(5))), now: 1000)
        guard case let .failure(error) = failed else { return XCTFail() }
        XCTAssertEqual(error.retryAfter, .seconds(5))
        guard case let .fail(held) = rules.decide(now: 1003) else { return XCTFail() }
        XCTAssertEqual(held.retryAfter, .seconds(2))
        XCTAssertEqual(TransportError(accessToken: held).retryAfter, .seconds(2))
    }

    /// The decisions inside the margin, without a cache around them.
    func testTheRulesInsideTheMargin() {
        var rules = AccessTokenCacheState(refreshMargin: 225)
        guard case let .start(id) = rules.decide(now: 0) else { return XCTFail() }
        _ = rules.finished(id, .success(AccessTokenGrant(accessToken: "a", expiresIn: 3600)), now: 0)
        XCTAssertEqual(rules.decide(now: 3374), .use("a"))
        guard case let .useAndRefresh(token, refresh) = rules.decide(now: 3375) else { return XCTFail() }
        XCTAssertEqual(token, "a")
        XCTAssertEqual(rules.decide(now: 3500), .use("a"), "the replacement is in flight")
        XCTAssertEqual(rules.decide(now: 3600), .join(refresh), "expired: wait for it")
    }

    /// An endpoint that is down is not asked again by every caller: after a
    /// failed grant, callers get its error at once for 1 s, 2 s, 4 s … (up
    /// to 60 s), or the endpoint's Retry-After; a success ends it.
    func testAfterAFailedGrantNoNewGrantStartsUntilTheHoldOffEnds() async throws {
        let (cache, fetcher, clock) = makeCache()
        fetcher.failing.store(true, ordering: .relaxed)
        var attempts: [Int] = []
        for step: Int64 in [0, 0, 1, 1, 1, 2, 4] {
            clock.advance(by: .seconds(step))
            _ = try? await cache.accessToken()
            attempts.append(fetcher.calls.load(ordering: .relaxed))
        }
        // Grants at 0 s, then 1 s after it, then 2 s after that, then 4 s after that.
        XCTAssertEqual(attempts, [1, 1, 2, 2, 3, 3, 4])
        XCTAssertTrue(cache.isHoldingOffGrants)
        fetcher.failing.store(false, ordering: .relaxed)
        clock.advance(by: .seconds(8))
        _ = try await cache.accessToken()
        XCTAssertFalse(cache.isHoldingOffGrants, "a success ends the hold-off")
    }

    /// A Retry-After far too long (a broken or hostile endpoint) holds off
    /// for the cap, and does not overflow on the way.
    func testAHugeRetryAfterHoldsOffForTheCap() async throws {
        var rules = AccessTokenCacheState(refreshMargin: 225)
        guard case let .start(id) = rules.decide(now: 1000) else { return XCTFail() }
        let error = AccessTokenError(.unavailable, "down", httpStatus: 503, retryAfter: .seconds(Int64.max))
        _ = rules.finished(id, .failure(error), now: 1000)
        XCTAssertEqual(rules.holdOff?.until, 1000 + AccessTokenCacheState.maximumRetryAfter)
    }
}
