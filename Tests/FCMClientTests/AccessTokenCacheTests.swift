@testable import FCMClient
import Synchronization
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
            if delay > .zero { try? await Task.sleep(for: delay) }
            if failing.load(ordering: .relaxed) { throw AccessTokenError(.unavailable, "down", httpStatus: 503) }
            let number = grants.add(1, ordering: .relaxed).newValue
            return AccessTokenGrant(accessToken: "token-\(number)", expiresIn: lifetime)
        }
    }

    func testConcurrentCallersWaitForTheSameGrant() async throws {
        let fetcher = CountingFetcher(delay: .milliseconds(100))
        let clock = TestClock(1_000_000)
        let cache = AccessTokenCache(fetcher: fetcher, now: { clock.now })
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
        let fetcher = CountingFetcher()
        let clock = TestClock(1_000_000)
        let cache = AccessTokenCache(fetcher: fetcher, now: { clock.now })
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
        let fetcher = CountingFetcher()
        let clock = TestClock(1_000_000)
        let cache = AccessTokenCache(fetcher: fetcher, now: { clock.now })
        let first = try await cache.accessToken()
        fetcher.failing.store(true, ordering: .relaxed)
        clock.advance(3500)  // inside the refresh margin, not expired
        let kept = try await cache.accessToken()
        XCTAssertEqual(kept, first)
        XCTAssertEqual(cache.failedGrantCount, 1)
        let keptDuringTheHoldOff = try await cache.accessToken()
        XCTAssertEqual(keptDuringTheHoldOff, first, "the hold-off does not hide a token that has not expired")
        XCTAssertEqual(cache.failedGrantCount, 1)
        clock.advance(100)  // expired
        do {
            _ = try await cache.accessToken()
            XCTFail("an expired token was handed out")
        } catch {
            XCTAssertEqual(error.kind, .unavailable)
        }
        fetcher.failing.store(false, ordering: .relaxed)
        clock.advance(2)  // past the hold-off after two failures in a row (1 s, then 2 s)
        let fresh = try await cache.accessToken()
        XCTAssertEqual(fresh, "token-2")
    }

    /// An endpoint that is down is not asked again by every caller: after a
    /// failed grant, callers get its error at once for 1 s, 2 s, 4 s … (up
    /// to 60 s), or the endpoint's Retry-After; a success ends it.
    func testAfterAFailedGrantNoNewGrantStartsUntilTheHoldOffEnds() async throws {
        let fetcher = CountingFetcher()
        let clock = TestClock(1_000_000)
        let cache = AccessTokenCache(fetcher: fetcher, now: { clock.now })
        fetcher.failing.store(true, ordering: .relaxed)
        var attempts: [Int] = []
        for step: Int64 in [0, 0, 1, 1, 1, 2, 4] {
            clock.advance(step)
            _ = try? await cache.accessToken()
            attempts.append(fetcher.calls.load(ordering: .relaxed))
        }
        // Grants at 0 s, then 1 s after it, then 2 s after that, then 4 s after that.
        XCTAssertEqual(attempts, [1, 1, 2, 2, 3, 3, 4])
        XCTAssertTrue(cache.isHoldingOffGrants)
        fetcher.failing.store(false, ordering: .relaxed)
        clock.advance(8)
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
