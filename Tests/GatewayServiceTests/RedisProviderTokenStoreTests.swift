import APNsHTTP2
import Foundation
import GatewayService
import OpenSSLCrypto
import RedisClient
import TestSupport
import XCTest

/// The fleet's APNs provider token in a real `redis-server`: the entry and
/// its mint lock under the documented keys and expiries, set-if-absent and
/// compare-and-delete, entries that are not tokens, a store that is down;
/// and replicas on it that mint once.
final class RedisProviderTokenStoreTests: XCTestCase {
    private let key = ProviderTokenStoreKey(teamID: "TEAM123456", keyID: "KEYID12345")
    private let token = SharedProviderToken(jwt: "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJURUFNIn0.c2ln", issuedAt: 1_767_225_600)

    private func store(_ server: RedisTestServer, prefix: String = "pushgw:") throws -> (RedisProviderTokenStore, RedisConnection) {
        (RedisProviderTokenStore(connection: try redisConnection(server.url), prefix: prefix), try redisConnection(server.url))
    }

    func testAPublishedTokenIsReadBackUnderItsKeyUntilItExpires() async throws {
        let server = try makeRedis()
        let (store, observer) = try store(server)
        let none = try await store.token(for: key)
        XCTAssertNil(none)
        try await store.publish(token, for: key, expiresAfter: .seconds(3300))
        let read = try await store.token(for: key)
        XCTAssertEqual(read, token)
        let stored = await observer.reply("GET", "pushgw:apns-token:{TEAM123456.KEYID12345}")
        XCTAssertEqual(stored?.string, "1767225600 \(token.jwt)")
        let ttl = await observer.reply("PTTL", "pushgw:apns-token:{TEAM123456.KEYID12345}")
        XCTAssertTrue((3_299_000...3_300_000).contains(ttl?.integer ?? 0), "\(String(describing: ttl))")

        try await store.publish(token, for: key, expiresAfter: .milliseconds(100))
        try await waitUntil("the entry expired") { try await store.token(for: self.key) == nil }
    }

    func testTheMintLockIsTakenOnceReleasedOnlyByItsOwnerAndLapses() async throws {
        let server = try makeRedis()
        let (store, observer) = try store(server, prefix: "fleet:")
        let taken = try await store.acquireMintLock(for: key, owner: "a:1", expiresAfter: .seconds(10))
        let refused = try await store.acquireMintLock(for: key, owner: "b:2", expiresAfter: .seconds(10))
        XCTAssertEqual([taken, refused], [true, false])
        let lockKey = "fleet:apns-token-lock:{TEAM123456.KEYID12345}"
        let ttl = await observer.reply("PTTL", lockKey)
        XCTAssertTrue((9_000...10_000).contains(ttl?.integer ?? 0), "\(String(describing: ttl))")
        try await store.releaseMintLock(for: key, owner: "b:2")
        let stillHeld = await observer.reply("GET", lockKey)
        XCTAssertEqual(stillHeld?.string, "a:1", "another owner's release leaves the lock alone")
        try await store.releaseMintLock(for: key, owner: "a:1")
        let released = await observer.reply("EXISTS", lockKey)
        XCTAssertEqual(released?.integer, 0)

        let brief = try await store.acquireMintLock(for: key, owner: "c:3", expiresAfter: .milliseconds(100))
        XCTAssertTrue(brief)
        try await waitUntil("the lock lapsed and another replica takes it") {
            try await store.acquireMintLock(for: self.key, owner: "d:4", expiresAfter: .seconds(10))
        }
    }

    func testAnEntryThatIsNotATokenIsMalformed() async throws {
        let server = try makeRedis()
        let (store, observer) = try store(server)
        let tokenKey = key.storeKeys(prefix: "pushgw:").token
        for value in ["not a token", "12 a.b", "x eyJ.eyJ.c2ln", ""] {
            _ = await observer.reply("SET", tokenKey, value)
            do {
                _ = try await store.token(for: key)
                XCTFail("\(value) was read as a token")
            } catch {
                XCTAssertEqual(error, .malformedEntry, value)
            }
        }
        _ = await observer.reply("DEL", tokenKey)
        _ = await observer.reply("RPUSH", tokenKey, "x")
        do {
            _ = try await store.token(for: key)
            XCTFail("a list was read as a token")
        } catch {
            XCTAssertEqual(error, .malformedEntry)
        }
        try await store.publish(token, for: key, expiresAfter: .seconds(60))
        let replaced = try await store.token(for: key)
        XCTAssertEqual(replaced, token, "the next publish replaces it")
    }

    func testAStoreThatIsDownIsUnavailableAndTheTokenIsNeverInTheError() async throws {
        let server = try makeRedis()
        let (store, _) = try store(server)
        try await store.publish(token, for: key, expiresAfter: .seconds(60))
        server.kill()
        try await waitUntil("the store is seen down") {
            do {
                _ = try await store.token(for: self.key)
                return false
            } catch {
                guard case let .unavailable(detail)? = error as? SharedProviderTokenStoreError else { return false }
                XCTAssertFalse(detail.contains(self.token.jwt))
                return true
            }
        }
        do {
            try await store.publish(token, for: key, expiresAfter: .seconds(60))
            XCTFail("published to a store that is down")
        } catch {
            guard case let .unavailable(detail) = error else { return XCTFail("\(error)") }
            XCTAssertFalse(detail.contains(token.jwt), detail)
        }
    }

    func testThreeReplicasOnTheStoreMintOneToken() async throws {
        let server = try makeRedis()
        let signingKey = try ES256SigningKey.generate()
        let now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
        let caches = try (0..<3).map { index in
            try FleetProviderTokenCache(keyID: key.keyID, teamID: key.teamID, signingKey: signingKey,
                                        store: RedisProviderTokenStore(connection: try redisConnection(server.url), prefix: "pushgw:"),
                                        replica: "replica-\(index)", now: now)
        }
        await withTaskGroup(of: Void.self) { group in
            for cache in caches { group.addTask { await cache.prepare() } }
        }
        XCTAssertEqual(caches.reduce(0) { $0 + $1.mintCount }, 1, "one replica minted")
        let tokens = try caches.map { try $0.token(now: now()) }
        XCTAssertEqual(Set(tokens).count, 1, "all present the one token")
        XCTAssertEqual(caches.map(\.isUsingLocalToken), [false, false, false])
    }
}
