import APNsHTTP2
@testable import HTTP2Client
import Foundation
@testable import OpenSSLCrypto
import TestSupport
import XCTest

/// The provider-token refresh rules of ``ProviderTokenCache``, driven only by
/// the `now` argument.
final class ProviderTokenCacheTests: XCTestCase {
    private let keyID = "ABC123DEFG"
    private let teamID = "DEF123GHIJ"
    private let t0: Int64 = 1_700_000_000
    private let minute: Int64 = 60

    private func makeCache(refreshAge: Duration = ProviderTokenCache.defaultRefreshAge) throws -> ProviderTokenCache {
        try ProviderTokenCache(keyID: keyID, teamID: teamID, signingKey: ES256SigningKey.generate(), refreshAge: refreshAge)
    }

    private func issuedAt(_ jwt: String) throws -> Int64 {
        try XCTUnwrap(TokenTestSupport.claims(of: jwt)["iat"] as? NSNumber).int64Value
    }

    // MARK: Reuse and refresh

    func testFiftyCallsAtTheSameTimeMintOnce() throws {
        let cache = try makeCache()
        XCTAssertEqual(cache.mintCount, 0)
        let tokens = try (0..<50).map { _ in try cache.token(now: t0) }
        XCTAssertEqual(Set(tokens).count, 1)
        XCTAssertEqual(cache.mintCount, 1)
        XCTAssertEqual(try issuedAt(tokens[0]), t0)
    }

    func testTheTokenIsRefreshedExactlyAtTheDefaultFortyMinutesAndNotBefore() throws {
        let cache = try makeCache()
        let first = try cache.token(now: t0)
        XCTAssertEqual(try cache.token(now: t0 + 40 * minute - 1), first)
        XCTAssertEqual(cache.mintCount, 1)
        let second = try cache.token(now: t0 + 40 * minute)
        XCTAssertNotEqual(second, first)
        XCTAssertEqual(try issuedAt(second), t0 + 40 * minute)
        XCTAssertEqual(cache.mintCount, 2)
        XCTAssertEqual(try cache.token(now: t0 + 80 * minute - 1), second)
        XCTAssertEqual(cache.mintCount, 2)
    }

    func testAConfiguredRefreshAgeIsHonouredToTheSecond() throws {
        for minutes: Int64 in [20, 25, 50] {
            let cache = try makeCache(refreshAge: .seconds(minutes * minute))
            let first = try cache.token(now: t0)
            XCTAssertEqual(try cache.token(now: t0 + minutes * minute - 1), first, "refreshed before \(minutes) min")
            XCTAssertNotEqual(try cache.token(now: t0 + minutes * minute), first, "not refreshed at \(minutes) min")
            XCTAssertEqual(cache.mintCount, 2)
        }
    }

    func testRefreshAgesOutsideTwentyToFiftyMinutesAreRefused() throws {
        let key = try ES256SigningKey.generate()
        for age: Duration in [.zero, .seconds(20 * 60 - 1), .milliseconds(20 * 60 * 1000 - 1), .seconds(50 * 60 + 1), .seconds(3600), .seconds(-2400)] {
            XCTAssertThrowsError(try ProviderTokenCache(keyID: keyID, teamID: teamID, signingKey: key, refreshAge: age)) {
                XCTAssertEqual($0 as? ProviderTokenError, .refreshAgeOutOfRange(age))
            }
        }
        XCTAssertEqual(try ProviderTokenCache(keyID: keyID, teamID: teamID, signingKey: key, refreshAge: .seconds(20 * 60)).refreshAge, .seconds(1200))
        XCTAssertEqual(try ProviderTokenCache(keyID: keyID, teamID: teamID, signingKey: key, refreshAge: .seconds(50 * 60)).refreshAge, .seconds(3000))
        XCTAssertEqual(try ProviderTokenCache(keyID: keyID, teamID: teamID, signingKey: key).refreshAge, .seconds(2400))
    }

    func testMalformedIDsAreRefusedWhenTheCacheIsMade() throws {
        let key = try ES256SigningKey.generate()
        XCTAssertThrowsError(try ProviderTokenCache(keyID: "short", teamID: teamID, signingKey: key)) {
            XCTAssertEqual($0 as? ProviderTokenError, .invalidKeyID("short"))
        }
        XCTAssertThrowsError(try ProviderTokenCache(keyID: keyID, teamID: "def123ghij", signingKey: key)) {
            XCTAssertEqual($0 as? ProviderTokenError, .invalidTeamID("def123ghij"))
        }
    }

    func testAClockThatGoesBackwardsKeepsTheCurrentToken() throws {
        let cache = try makeCache()
        let first = try cache.token(now: t0)
        XCTAssertEqual(try cache.token(now: t0 - 3 * 3600), first)
        XCTAssertEqual(try cache.token(now: .min), first)
        XCTAssertEqual(cache.mintCount, 1)
    }

    func testCachedTokensVerifyIndependently() throws {
        let key = try ES256SigningKey.generate()
        let cache = try ProviderTokenCache(keyID: keyID, teamID: teamID, signingKey: key)
        let parts = try cache.token(now: t0).split(separator: ".").map(String.init)
        let signature = try XCTUnwrap(TokenTestSupport.base64URLDecode(parts[2]))
        XCTAssertTrue(try TokenTestSupport.verify(rawSignature: signature, message: Array((parts[0] + "." + parts[1]).utf8), publicKeyPEM: key.publicKeyPEM))
    }

    // MARK: Rejections

    func testExpiredProviderTokenOnATokenTwentyMinutesOldMintsAndSaysRetry() throws {
        let cache = try makeCache()
        let old = try cache.token(now: t0)
        let decision = cache.tokenWasRejected(old, reason: .expiredProviderToken, now: t0 + 20 * minute)
        guard case .retryWithNewToken(let fresh) = decision else {
            return XCTFail("expected retryWithNewToken, got \(decision)")
        }
        XCTAssertNotEqual(fresh, old)
        XCTAssertEqual(try issuedAt(fresh), t0 + 20 * minute)
        XCTAssertEqual(cache.mintCount, 2)
        XCTAssertEqual(try cache.token(now: t0 + 20 * minute + 1), fresh)
        XCTAssertEqual(cache.mintCount, 2)
    }

    func testExpiredProviderTokenOnAYoungTokenDoesNotMintAndBlamesTheClock() throws {
        let cache = try makeCache()
        let young = try cache.token(now: t0)
        let decision = cache.tokenWasRejected(young, reason: .expiredProviderToken, now: t0 + 20 * minute - 1)
        XCTAssertEqual(decision, .doNotRetry(.clockSkew(tokenAgeSeconds: 20 * minute - 1)))
        XCTAssertEqual(cache.mintCount, 1)
        XCTAssertEqual(try cache.token(now: t0 + 20 * minute - 1), young)
        guard case .doNotRetry(let problem) = decision else { return XCTFail() }
        XCTAssertTrue(problem.description.hasPrefix("configuration error: check the clock"), problem.description)
    }

    func testExpiredProviderTokenOnATokenAlreadyReplacedAnswersWithTheCurrentOneWithoutMinting() throws {
        let cache = try makeCache()
        let old = try cache.token(now: t0)
        guard case .retryWithNewToken(let fresh) = cache.tokenWasRejected(old, reason: .expiredProviderToken, now: t0 + 45 * minute) else {
            return XCTFail("first rejection did not mint")
        }
        // Other requests that carried the old token come back a moment later.
        for offset: Int64 in [0, 1, 30] {
            XCTAssertEqual(cache.tokenWasRejected(old, reason: .expiredProviderToken, now: t0 + 45 * minute + offset), .retryWithNewToken(fresh))
        }
        XCTAssertEqual(cache.mintCount, 2)
    }

    func testExpiredProviderTokenBeforeAnyMintMintsTheFirstToken() throws {
        let cache = try makeCache()
        let decision = cache.tokenWasRejected("foreign.token.value", reason: .expiredProviderToken, now: t0)
        XCTAssertEqual(decision, .retryWithNewToken(try cache.token(now: t0)))
        XCTAssertEqual(cache.mintCount, 1)
    }

    func testTooManyProviderTokenUpdatesNeverMintsAndKeepsTheCurrentToken() throws {
        let cache = try makeCache()
        let current = try cache.token(now: t0)
        for now in [t0, t0 + 1, t0 + 19 * minute, t0 + 21 * minute, t0 + 45 * minute] {
            XCTAssertEqual(cache.tokenWasRejected(current, reason: .tooManyProviderTokenUpdates, now: now), .retryWithCurrentToken(current))
        }
        XCTAssertEqual(cache.tokenWasRejected("some.other.token", reason: .tooManyProviderTokenUpdates, now: t0 + 2), .retryWithCurrentToken(current))
        XCTAssertEqual(cache.mintCount, 1)
    }

    func testCredentialRejectionsAreConfigurationProblemsWithoutRetryOrMint() throws {
        let cache = try makeCache()
        let current = try cache.token(now: t0)
        for reason: APNsReason in [.invalidProviderToken, .missingProviderToken, .badEnvironmentKeyIDInToken] {
            let decision = cache.tokenWasRejected(current, reason: reason, now: t0 + 30 * minute)
            XCTAssertEqual(decision, .doNotRetry(.credentialsRejected(reason)))
        }
        XCTAssertEqual(APNsReason("InvalidProviderToken"), .invalidProviderToken)
        XCTAssertEqual(cache.mintCount, 1)
    }

    func testReasonsThatAreNotAboutTheTokenAreLeftToTheTransport() throws {
        let cache = try makeCache()
        let current = try cache.token(now: t0)
        for raw in ["UnrelatedKeyIdInToken", "BadDeviceToken", "TooManyRequests", "expiredprovidertoken"] {
            XCTAssertEqual(cache.tokenWasRejected(current, reason: APNsReason(raw), now: t0 + 30 * minute), .notATokenProblem)
        }
        XCTAssertEqual(cache.mintCount, 1)
    }

    // MARK: The 20-minute rule under pressure

    func testEightTasksTimesTwoHundredCallsAtTheSameTimeMintOnce() async throws {
        let cache = try makeCache()
        let now = t0
        let tokens = try await withThrowingTaskGroup(of: Set<String>.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var seen = Set<String>()
                    for _ in 0..<200 { seen.insert(try cache.token(now: now)) }
                    return seen
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.formUnion($1) }
        }
        XCTAssertEqual(tokens.count, 1)
        XCTAssertEqual(cache.mintCount, 1)
    }

    func testConcurrentExpiredRejectionsOfOneTokenShareOneMint() async throws {
        let cache = try makeCache()
        let old = try cache.token(now: t0)
        let now = t0 + 50 * minute
        let decisions = await withTaskGroup(of: ProviderTokenRefreshDecision.self) { group in
            for _ in 0..<64 {
                group.addTask { cache.tokenWasRejected(old, reason: .expiredProviderToken, now: now) }
            }
            return await group.reduce(into: [ProviderTokenRefreshDecision]()) { $0.append($1) }
        }
        XCTAssertEqual(Set(decisions.map { "\($0)" }).count, 1)
        guard case .retryWithNewToken(let fresh)? = decisions.first else { return XCTFail("\(decisions)") }
        XCTAssertNotEqual(fresh, old)
        XCTAssertEqual(cache.mintCount, 2)
    }

    /// A seeded random walk of requests and rejections with a wandering
    /// clock: consecutive mints are always at least 20 minutes apart, and
    /// the token handed out is never older than the refresh age.
    func testARandomWalkNeverMintsTwiceWithinTwentyMinutes() throws {
        var random = SplitMix64(seed: 0x5EED)
        let reasons: [APNsReason] = [.expiredProviderToken, .tooManyProviderTokenUpdates, .invalidProviderToken, .init("BadDeviceToken")]
        for refreshMinutes: Int64 in [20, 33, 50] {
            let cache = try makeCache(refreshAge: .seconds(refreshMinutes * minute))
            var now = t0
            var lastMint: Int64?
            var mints = 0
            for _ in 0..<3_000 {
                now += Int64(random.next() % 240) - 30  // mostly forwards, sometimes back
                let before = cache.mintCount
                let token = try cache.token(now: now)
                if random.next() % 5 == 0 {
                    _ = cache.tokenWasRejected(token, reason: reasons[Int(random.next() % UInt64(reasons.count))], now: now)
                }
                let minted = cache.mintCount - before
                XCTAssertLessThanOrEqual(minted, 1)
                if minted > 0 {
                    if let lastMint { XCTAssertGreaterThanOrEqual(now - lastMint, 20 * minute) }
                    lastMint = now
                    mints += minted
                }
                let current = try cache.token(now: now)
                let age = now - (try issuedAt(current))
                XCTAssertLessThan(age, refreshMinutes * minute)
            }
            XCTAssertEqual(cache.mintCount, mints)
            XCTAssertGreaterThan(mints, 10)
        }
    }
}
