@testable import GatewayService
@testable import GatewayHTTP
import PayloadBuilder
import XCTest

/// The cache and download coalescing, observed from the server's side: how
/// many requests reached it. Cache expiry runs on the injected clock.
final class AvatarResolverCachingTests: XCTestCase {
    private let image: AvatarTestServer.Reply = .body(status: 200, contentType: "image/png", bytes: AvatarFixtures.png)

    func testASecondResolveIsServedFromTheCache() async throws {
        let server = try startServer(["/a.png": image])
        let rig = AvatarTestRig(.localTesting)
        let first = await rig.resolver.resolve(server.url("/a.png"))
        let second = await rig.resolver.resolve(server.url("/a.png"))
        XCTAssertEqual(first, second)
        XCTAssertEqual(server.seen.requests, ["/a.png"])
        XCTAssertEqual(rig.counts, ["ok": 1, "cached": 1])
    }

    func testARefusalIsCachedToo() async throws {
        let server = try startServer([:])
        let rig = AvatarTestRig(.localTesting)
        assertDropped(await rig.resolver.resolve(server.url("/missing.png")), .httpStatus(404))
        assertDropped(await rig.resolver.resolve(server.url("/missing.png")), .httpStatus(404))
        XCTAssertEqual(server.seen.requests, ["/missing.png"])
        XCTAssertEqual(rig.counts, ["http_status_404": 1, "cached": 1])
    }

    /// The render path's lookup without waiting, in each state of a URL:
    /// not judged yet, allowed but not downloaded (twice: the decision is
    /// remembered then), downloaded (a cache hit), and expired.
    func testTheLookupWithoutWaitingInEachStateOfAURL() async throws {
        let server = try startServer(["/a.png": image])
        let rig = AvatarTestRig(.localTesting)
        let url = server.url("/a.png")
        XCTAssertNil(rig.resolver.resolveWithoutWaiting(url), "not judged yet: allowed, not downloaded")
        XCTAssertNil(rig.resolver.resolveWithoutWaiting(url), "judged: still not downloaded")
        let downloaded = await rig.resolver.resolve(url)
        XCTAssertEqual(rig.resolver.resolveWithoutWaiting(url), downloaded)
        XCTAssertEqual(rig.resolver.resolveWithoutWaiting(url), downloaded)
        rig.clock.advance(by: .seconds(601))
        XCTAssertNil(rig.resolver.resolveWithoutWaiting(url), "expired: a download is needed again")
        XCTAssertEqual(server.seen.requests, ["/a.png"], "the lookup never downloads")
        XCTAssertEqual(rig.counts, ["ok": 1, "cached": 2])
    }

    func testTwentyConcurrentResolvesOfOneURLMakeOneRequest() async throws {
        let server = try startServer(["/a.png": .delayed(.milliseconds(300), image)])
        let rig = AvatarTestRig(.localTesting)
        let url = server.url("/a.png")
        let resolver = rig.resolver
        let results = await withTaskGroup(of: AvatarState.self) { group in
            for _ in 0..<20 { group.addTask { await resolver.resolve(url) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(results.count, 20)
        XCTAssertEqual(Set(results.map { "\($0)" }).count, 1, "every waiter gets the same result")
        XCTAssertEqual(results.first, .ok(url: url, mime: "image/png", bytes: 69, sha256: AvatarFixtures.pngSHA256))
        XCTAssertEqual(server.seen.requests, ["/a.png"])
        XCTAssertEqual(server.seen.connections, 1)
        XCTAssertEqual(rig.counts, ["ok": 1, "coalesced": 19])
    }

    /// Six slow downloads of different URLs: they overlap, at most four at
    /// a time (the pool's threads), and all complete.
    func testDifferentURLsDownloadInParallelUpToTheLimit() async throws {
        let paths = (0..<6).map { "/\($0).png" }
        let server = try startServer(Dictionary(uniqueKeysWithValues: paths.map { ($0, .delayed(.milliseconds(300), image)) }))
        let resolver = AvatarResolver(policy: .localTesting)  // 4 threads
        let states = await withTaskGroup(of: AvatarState.self) { group in
            for path in paths { group.addTask { await resolver.resolve(server.url(path)) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(states.filter { if case .ok = $0 { return true } else { return false } }.count, 6)
        XCTAssertEqual(server.seen.requests.count, 6)
        XCTAssertGreaterThanOrEqual(server.seen.peakAnswering, 2, "downloads overlap")
        XCTAssertLessThanOrEqual(server.seen.peakAnswering, 4, "no more at once than the pool's threads")
    }

    func testAnEntryIsFetchedAgainOnceItsTTLHasPassed() async throws {
        let server = try startServer(["/a.png": image])
        let rig = AvatarTestRig(.localTesting)  // 10 minutes
        let url = server.url("/a.png")
        _ = await rig.resolver.resolve(url)
        rig.clock.advance(by: .seconds(599))
        _ = await rig.resolver.resolve(url)
        XCTAssertEqual(server.seen.requests.count, 1)
        rig.clock.advance(by: .seconds(2))
        _ = await rig.resolver.resolve(url)
        XCTAssertEqual(server.seen.requests.count, 2)
        XCTAssertEqual(rig.counts, ["ok": 2, "cached": 1])
    }

    func testARefusalExpiresAfterTheShorterNegativeTTL() async throws {
        let server = try startServer([:])
        let rig = AvatarTestRig(.localTesting)  // 60 seconds
        let url = server.url("/missing.png")
        _ = await rig.resolver.resolve(url)
        rig.clock.advance(by: .seconds(59))
        _ = await rig.resolver.resolve(url)
        XCTAssertEqual(server.seen.requests.count, 1)
        rig.clock.advance(by: .seconds(2))
        _ = await rig.resolver.resolve(url)
        XCTAssertEqual(server.seen.requests.count, 2)
    }

    func testRefusalsBeforeTheNetworkAreReportedButNotCached() async {
        let rig = AvatarTestRig(AvatarPolicy())
        _ = await rig.resolver.resolve("http://example.com/a.png")
        _ = await rig.resolver.resolve("http://example.com/a.png")
        _ = await rig.resolver.resolve(nil)
        XCTAssertEqual(rig.counts, ["scheme_not_allowed": 2], "nil is not a fetch")
    }

    func testARememberedRefusalIsStillReportedEveryTimeOnBothPaths() async {
        let rig = AvatarTestRig(AvatarPolicy(allowedHosts: ["cdn.example.com"]))
        let refused = "https://other.example.com/a.png"
        let expected = AvatarState.dropped(url: refused, reason: AvatarDropReason.hostNotAllowed.rawValue)
        XCTAssertEqual(rig.resolver.resolveWithoutWaiting(refused), expected)
        XCTAssertEqual(rig.resolver.resolveWithoutWaiting(refused), expected)
        let resolved = await rig.resolver.resolve(refused)
        XCTAssertEqual(resolved, expected)
        XCTAssertNil(rig.resolver.resolveWithoutWaiting("https://cdn.example.com/a.png"), "an allowed URL needs a download")
        XCTAssertEqual(rig.counts, ["host_not_allowed": 3])
    }
}
