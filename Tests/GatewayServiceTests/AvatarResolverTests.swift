@testable import GatewayService
@testable import GatewayHTTP
import PayloadBuilder
import XCTest
import TestSupport

/// Downloads against a local HTTP server: what is accepted, what is dropped
/// and why, and that limits stop the download rather than only judge it.
final class AvatarResolverTests: XCTestCase {
    func testEachImageTypeResolvesByItsMagicBytesWithSizeAndDigest() async throws {
        let server = try startServer([
            "/a.png": .body(status: 200, contentType: "application/octet-stream", bytes: AvatarFixtures.png),
            "/a.jpg": .body(status: 200, contentType: "text/plain", bytes: AvatarFixtures.jpeg),
            "/a.gif": .body(status: 200, contentType: nil, bytes: AvatarFixtures.gif),
            "/a.webp": .body(status: 200, contentType: "image/png", bytes: AvatarFixtures.webp),
        ])
        let resolver = AvatarResolver(policy: .localTesting)
        let cases: [(String, String, [UInt8])] = [
            ("/a.png", "image/png", AvatarFixtures.png),
            ("/a.jpg", "image/jpeg", AvatarFixtures.jpeg),
            ("/a.gif", "image/gif", AvatarFixtures.gif),
            ("/a.webp", "image/webp", AvatarFixtures.webp),
        ]
        for (path, mime, bytes) in cases {
            let url = server.url(path)
            let state = await resolver.resolve(url)
            XCTAssertEqual(state, .ok(url: url, mime: mime, bytes: bytes.count, sha256: SHA256.hexDigest(bytes)), path)
            XCTAssertEqual(state.forwardedURL, url)
        }
    }

    func testThePNGDigestMatchesAnIndependentSHA256() async throws {
        let server = try startServer(["/a.png": .body(status: 200, contentType: "image/png", bytes: AvatarFixtures.png)])
        let state = await AvatarResolver(policy: .localTesting).resolve(server.url("/a.png"))
        XCTAssertEqual(state, .ok(url: server.url("/a.png"), mime: "image/png", bytes: 69, sha256: AvatarFixtures.pngSHA256))
    }

    func testAnHTMLBodyLabelledAsAnImageIsNotAnImage() async throws {
        let server = try startServer([
            "/page": .body(status: 200, contentType: "image/png", bytes: AvatarFixtures.html),
            "/empty": .body(status: 200, contentType: "image/jpeg", bytes: []),
        ])
        let resolver = AvatarResolver(policy: .localTesting)
        assertDropped(await resolver.resolve(server.url("/page")), .notAnImage)
        assertDropped(await resolver.resolve(server.url("/empty")), .notAnImage)
    }

    func testAnImageTypeOutsideThePolicyIsRefused() async throws {
        let server = try startServer(["/a.gif": .body(status: 200, contentType: "image/gif", bytes: AvatarFixtures.gif)])
        var policy = AvatarPolicy.localTesting
        policy.allowedTypes = [.png, .jpeg]
        assertDropped(await AvatarResolver(policy: policy).resolve(server.url("/a.gif")), .typeNotAllowed)
    }

    func testAMissingImageIsDroppedWithItsStatus() async throws {
        let server = try startServer([
            "/gone": .body(status: 410, contentType: "text/html", bytes: AvatarFixtures.html),
        ])
        let resolver = AvatarResolver(policy: .localTesting)
        let state = await resolver.resolve(server.url("/missing.png"))
        XCTAssertEqual(state, .dropped(url: server.url("/missing.png"), reason: "http_status_404"))
        XCTAssertNil(state.forwardedURL)
        assertDropped(await resolver.resolve(server.url("/gone")), .httpStatus(410))
    }

    func testABodyOverTheCapIsTooLargeAndTheDownloadStopsEarly() async throws {
        let total = 64 << 20
        let server = try startServer([
            "/huge.png": .stream(contentType: "image/png", chunk: AvatarFixtures.png + AvatarFixtures.filler(65_467), total: total, declareLength: false),
        ])
        var policy = AvatarPolicy.localTesting
        policy.maxBytes = 64 << 10
        let started = ContinuousClock.now
        assertDropped(await AvatarResolver(policy: policy).resolve(server.url("/huge.png")), .tooLarge)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(2))

        // The server learns the peer has gone when a send fails; wait for it.
        try await waitUntil("the client closed the connection mid-body") { server.seen.streamCutShort }
        let seen = server.seen
        XCTAssertLessThan(seen.streamedBytes, total / 4, "sent \(seen.streamedBytes) of \(total) bytes")
    }

    func testABodyOfExactlyMaxBytesIsAcceptedAndOneByteMoreIsNot() async throws {
        let server = try startServer([
            "/exact.png": .body(status: 200, contentType: "image/png", bytes: AvatarFixtures.png),
            "/unannounced.png": .stream(contentType: "image/png", chunk: AvatarFixtures.png, total: 69, declareLength: false),
        ])
        var policy = AvatarPolicy.localTesting
        policy.maxBytes = 69
        if case .ok = await AvatarResolver(policy: policy).resolve(server.url("/exact.png")) {} else { XCTFail("69 bytes fit") }
        if case .ok = await AvatarResolver(policy: policy).resolve(server.url("/unannounced.png")) {} else { XCTFail("69 bytes fit") }
        policy.maxBytes = 68
        assertDropped(await AvatarResolver(policy: policy).resolve(server.url("/exact.png")), .tooLarge)
        assertDropped(await AvatarResolver(policy: policy).resolve(server.url("/unannounced.png")), .tooLarge)
    }

    func testAnAnnouncedLengthOverTheCapIsRefusedBeforeTheBody() async throws {
        let total = 64 << 20
        let server = try startServer([
            "/huge.png": .stream(contentType: "image/png", chunk: AvatarFixtures.png + AvatarFixtures.filler(65_467), total: total, declareLength: true),
        ])
        var policy = AvatarPolicy.localTesting
        policy.maxBytes = 64 << 10
        let started = ContinuousClock.now
        assertDropped(await AvatarResolver(policy: policy).resolve(server.url("/huge.png")), .tooLarge)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(2))
    }

    func testAStalledServerTimesOutWithinTheBound() async throws {
        let server = try startServer(["/slow.png": .stall])
        var policy = AvatarPolicy.localTesting
        policy.totalTimeout = .milliseconds(500)
        let started = ContinuousClock.now
        assertDropped(await AvatarResolver(policy: policy).resolve(server.url("/slow.png")), .timeout)
        let elapsed = ContinuousClock.now - started
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(450))
        XCTAssertLessThan(elapsed, .milliseconds(1_500))
        XCTAssertEqual(server.seen.requests, ["/slow.png"])
    }

    func testNoCallWaitsLongerThanTheBoundBehindQueuedDownloads() async throws {
        let server = try startServer(["/a.png": .stall, "/b.png": .stall, "/c.png": .stall, "/d.png": .stall])
        var policy = AvatarPolicy.localTesting
        policy.totalTimeout = .milliseconds(500)
        policy.maxConcurrentFetches = 1  // one download at a time: the fourth would start after 1.5 s
        let resolver = AvatarResolver(policy: policy)
        let urls = ["/a.png", "/b.png", "/c.png", "/d.png"].map { server.url($0) }
        let started = ContinuousClock.now
        let waits = await withTaskGroup(of: (AvatarState, Duration).self) { group in
            for url in urls { group.addTask { (await resolver.resolve(url), ContinuousClock.now - started) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        for (state, _) in waits { assertDropped(state, .timeout) }
        XCTAssertLessThan(waits.map(\.1).max()!, .milliseconds(1_300), "each call waits at most about the bound")
    }

    func testTheTimeoutSpansRedirectHops() async throws {
        let server = try startServer([
            "/1": .delayed(.milliseconds(300), .redirect(status: 302, location: "/2")),
            "/2": .delayed(.milliseconds(300), .redirect(status: 302, location: "/3")),
            "/3": .delayed(.milliseconds(300), .body(status: 200, contentType: "image/png", bytes: AvatarFixtures.png)),
        ])
        var policy = AvatarPolicy.localTesting
        policy.totalTimeout = .milliseconds(700)
        let started = ContinuousClock.now
        assertDropped(await AvatarResolver(policy: policy).resolve(server.url("/1")), .timeout)
        XCTAssertLessThan(ContinuousClock.now - started, .milliseconds(1_200))
    }

    func testAPortWithNoListenerIsConnectFailed() async throws {
        let port = try AvatarTestServer.closedPort()
        assertDropped(await AvatarResolver(policy: .localTesting).resolve("http://127.0.0.1:\(port)/a.png"), .connectFailed)
    }

    func testRedirectsWithinTheLimitAreFollowedAndTheOriginalURLIsForwarded() async throws {
        let target = try startServer(["/a.png": .body(status: 200, contentType: "image/png", bytes: AvatarFixtures.png)])
        let chain = try startServer([
            "/start": .redirect(status: 301, location: "/hop/one"),
            "/hop/one": .redirect(status: 302, location: "two"),
            "/hop/two": .redirect(status: 307, location: target.url("/a.png")),
        ])
        let state = await AvatarResolver(policy: .localTesting).resolve(chain.url("/start"))
        XCTAssertEqual(state, .ok(url: chain.url("/start"), mime: "image/png", bytes: 69, sha256: AvatarFixtures.pngSHA256))
        XCTAssertEqual(chain.seen.requests, ["/start", "/hop/one", "/hop/two"])
        XCTAssertEqual(target.seen.requests, ["/a.png"])
    }

    func testOneRedirectMoreThanTheLimitIsTooManyRedirects() async throws {
        let server = try startServer([
            "/r0": .redirect(status: 302, location: "/r1"),
            "/r1": .redirect(status: 302, location: "/r2"),
            "/r2": .redirect(status: 302, location: "/r3"),
            "/r3": .redirect(status: 302, location: "/r4"),
            "/r4": .body(status: 200, contentType: "image/png", bytes: AvatarFixtures.png),
        ])
        let resolver = AvatarResolver(policy: .localTesting)  // maxRedirects 3
        assertDropped(await resolver.resolve(server.url("/r0")), .tooManyRedirects)
        XCTAssertEqual(server.seen.requests, ["/r0", "/r1", "/r2", "/r3"], "the fourth redirect is not followed")
        if case .ok = await resolver.resolve(server.url("/r1")) {} else { XCTFail("three redirects are within the limit") }
    }

    func testARedirectToAnotherSchemeIsRefused() async throws {
        let server = try startServer(["/r": .redirect(status: 302, location: "ftp://127.0.0.1/a.png")])
        assertDropped(await AvatarResolver(policy: .localTesting).resolve(server.url("/r")), .schemeNotAllowed)
    }
}
