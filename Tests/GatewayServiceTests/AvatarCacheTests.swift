@testable import GatewayService
@testable import GatewayHTTP
import PayloadBuilder
import XCTest

/// The LRU cache and the resolver's admit/finish state machine, without
/// sockets or threads.
final class AvatarCacheTests: XCTestCase {
    private let start = ContinuousClock.now

    func testAnEntryLivesUntilItsExpiryAndNotAnInstantLonger() {
        var cache = AvatarCache<Int>(capacity: 4)
        cache.insert(1, for: "a", expires: start + .seconds(10))
        XCTAssertEqual(cache.value(for: "a", now: start + .seconds(9)), 1)
        XCTAssertNil(cache.value(for: "a", now: start + .seconds(10)))
        XCTAssertEqual(cache.count, 0, "an expired entry is removed when seen")
    }

    func testTheLeastRecentlyUsedEntryIsEvictedFirst() {
        var cache = AvatarCache<Int>(capacity: 2)
        let later = start + .seconds(60)
        cache.insert(1, for: "a", expires: later)
        cache.insert(2, for: "b", expires: later)
        XCTAssertEqual(cache.value(for: "a", now: start), 1)  // "b" is now the oldest
        cache.insert(3, for: "c", expires: later)
        XCTAssertNil(cache.value(for: "b", now: start))
        XCTAssertEqual(cache.value(for: "a", now: start), 1)
        XCTAssertEqual(cache.value(for: "c", now: start), 3)
        XCTAssertEqual(cache.count, 2)
    }

    func testReplacingAKeyKeepsOneEntryAndSlotsAreReused() {
        var cache = AvatarCache<Int>(capacity: 3)
        let later = start + .seconds(60)
        for round in 0..<100 {
            cache.insert(round, for: "k\(round % 5)", expires: later)
            cache.insert(round, for: "k\(round % 5)", expires: later)
        }
        XCTAssertEqual(cache.count, 3)
        XCTAssertEqual(cache.value(for: "k4", now: start), 99)
        XCTAssertEqual(cache.value(for: "k3", now: start), 98)
        XCTAssertEqual(cache.value(for: "k2", now: start), 97)
        XCTAssertNil(cache.value(for: "k1", now: start))
    }

    /// The key asked for last is found by comparing bytes with the newest
    /// entry: the same answers as through the dictionary, expiry and
    /// canonically equivalent keys included.
    func testTheNewestEntryAnswersARepeatedKeyAsTheDictionaryWould() {
        var cache = AvatarCache<Int>(capacity: 3)
        let later = start + .seconds(60)
        cache.insert(1, for: "caf\u{E9}", expires: later)
        cache.insert(2, for: "b", expires: start + .seconds(5))
        XCTAssertEqual(cache.value(for: "b", now: start), 2)
        XCTAssertEqual(cache.value(for: "b", now: start), 2, "asked again: the newest entry")
        // Other bytes, the same string by `==`: through the dictionary.
        XCTAssertEqual(cache.value(for: "cafe\u{301}", now: start), 1)
        XCTAssertEqual(cache.value(for: "caf\u{E9}", now: start), 1)
        XCTAssertNil(cache.value(for: "c", now: start))
        XCTAssertEqual(cache.value(for: "b", now: start + .seconds(4)), 2)
        XCTAssertNil(cache.value(for: "b", now: start + .seconds(5)), "the newest entry expires too")
        XCTAssertNil(cache.value(for: "b", now: start))
        XCTAssertEqual(cache.count, 1)
        XCTAssertEqual(cache.value(for: "caf\u{E9}", now: start), 1)
    }

    func testCapacityZeroCachesNothing() {
        var cache = AvatarCache<Int>(capacity: 0)
        cache.insert(1, for: "a", expires: start + .seconds(60))
        XCTAssertNil(cache.value(for: "a", now: start))
    }

    func testConcurrentResolvesOfOneURLShareOneFetchAndAllGetTheResult() {
        var state = AvatarResolverState<Int>(capacity: 8, positiveTTL: .seconds(600), negativeTTL: .seconds(60))
        XCTAssertEqual(state.admit("u", waiter: 1, now: start), .fetch)
        XCTAssertEqual(state.admit("u", waiter: 2, now: start), .joined)
        XCTAssertEqual(state.admit("v", waiter: 3, now: start), .fetch)
        XCTAssertEqual(state.fetchesInFlight, 2)
        let ok = AvatarState.ok(url: "u", mime: "image/png", bytes: 1, sha256: "00")
        XCTAssertEqual(state.finish("u", result: ok, now: start), [1, 2])
        XCTAssertEqual(state.admit("u", waiter: 4, now: start + .seconds(599)), .cached(ok))
        XCTAssertEqual(state.admit("u", waiter: 5, now: start + .seconds(600)), .fetch)
    }

    func testRefusalsAreCachedForTheShorterTTL() {
        var state = AvatarResolverState<Int>(capacity: 8, positiveTTL: .seconds(600), negativeTTL: .seconds(60))
        let dropped = AvatarState.dropped(url: "u", reason: "timeout")
        XCTAssertEqual(state.admit("u", waiter: 1, now: start), .fetch)
        XCTAssertEqual(state.finish("u", result: dropped, now: start), [1])
        XCTAssertEqual(state.admit("u", waiter: 2, now: start + .seconds(59)), .cached(dropped))
        XCTAssertEqual(state.admit("u", waiter: 3, now: start + .seconds(60)), .fetch)
    }

    /// A download that was never tried (queue full, waited too long) says
    /// nothing about the URL: the next event tries it again.
    func testAnUntriedDownloadIsNotRemembered() {
        var state = AvatarResolverState<Int>(capacity: 8, positiveTTL: .seconds(600), negativeTTL: .seconds(60))
        XCTAssertEqual(state.admit("u", waiter: 1, now: start), .fetch)
        XCTAssertEqual(state.admit("u", waiter: 2, now: start), .joined)
        let untried = AvatarState.dropped(url: "u", reason: "queue_full")
        XCTAssertEqual(state.finish("u", result: untried, now: start, remember: false), [1, 2])
        XCTAssertEqual(state.admit("u", waiter: 3, now: start), .fetch)
    }

    func testPolicyDecisionsAreRememberedForTheirTTL() {
        var state = AvatarResolverState<Int>(capacity: 8, positiveTTL: .seconds(600), negativeTTL: .seconds(60))
        XCTAssertNil(state.decision(for: "u", now: start))
        state.remember(.refused(.hostNotAllowed), for: "u", now: start)
        state.remember(.passed(host: "v.example"), for: "v", now: start)
        XCTAssertEqual(state.decision(for: "u", now: start + .seconds(1)), .refused(.hostNotAllowed))
        XCTAssertEqual(state.decision(for: "v", now: start + .seconds(1)), .passed(host: "v.example"))
        let ttl = AvatarResolverState<Int>.decisionTTL
        XCTAssertEqual(state.decision(for: "u", now: start + ttl - .seconds(1)), .refused(.hostNotAllowed))
        XCTAssertNil(state.decision(for: "u", now: start + ttl))
        XCTAssertEqual(state.admit("v", waiter: 1, now: start), .fetch, "a remembered decision is not a cached result")
    }

    func testWithNoCacheNoDecisionIsRemembered() {
        var state = AvatarResolverState<Int>(capacity: 0, positiveTTL: .seconds(600), negativeTTL: .seconds(60))
        state.remember(.passed(host: "u.example"), for: "u", now: start)
        XCTAssertNil(state.decision(for: "u", now: start))
    }

    func testAWaiterThatStopsWaitingDoesNotGetTheResult() {
        var state = AvatarResolverState<Int>(capacity: 8, positiveTTL: .seconds(600), negativeTTL: .seconds(60))
        XCTAssertEqual(state.admit("u", waiter: 1, now: start), .fetch)
        XCTAssertEqual(state.admit("u", waiter: 2, now: start), .joined)
        XCTAssertEqual(state.withdraw("u", where: { $0 == 1 }), 1)
        XCTAssertNil(state.withdraw("u", where: { $0 == 1 }), "once only")
        XCTAssertNil(state.withdraw("v", where: { _ in true }))
        let ok = AvatarState.ok(url: "u", mime: "image/png", bytes: 1, sha256: "00")
        XCTAssertEqual(state.finish("u", result: ok, now: start), [2])
        XCTAssertEqual(state.admit("u", waiter: 3, now: start), .cached(ok), "the result is cached all the same")
    }

    /// A passed URL is remembered with its host as libcurl parsed it,
    /// lowercased, without port or path: the download pool's per-host key,
    /// so one host on several ports or spellings shares one limit.
    func testAPassedDecisionKeepsTheParsedHostAsThePoolKey() {
        let policy = AvatarPolicy()
        XCTAssertEqual(AvatarPolicyDecision(policy.check("https://CDN.Example.com:8443/a.png?x=1#f")), .passed(host: "cdn.example.com"))
        XCTAssertEqual(AvatarPolicyDecision(policy.check("https://cdn.example.com/b.png")), .passed(host: "cdn.example.com"))
        XCTAssertEqual(AvatarPolicyDecision(policy.check("https://[2001:DB8::1]:8080/a")), .refused(.privateAddress))
    }
}
