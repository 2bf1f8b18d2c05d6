import Foundation
import GatewayService
import PushGWSync
import RedisClient
import TestSupport
import XCTest

/// The Redis dedup store against a real `redis-server`: the behaviour every
/// store shares (`DedupStoreBehaviour`), over plain TCP and over TLS as an
/// ACL user allowed only the gateway's keys and commands; the keys and
/// expiries as documented; records of another key or another format read
/// as none; a store that is down, slow, and back.
final class RedisDedupStoreTests: XCTestCase {
    private let prefix = "pushgw:"

    /// A store on `server`, and a behaviour that reads claims with a connection of its own.
    private func behaviour(_ server: RedisTestServer, url: String? = nil) throws -> (DedupStoreBehaviour, RedisConnection) {
        let store = RedisDedupStore(connections: [try redisConnection(url ?? server.url, caFile: server.options.tls ? server.caFile : nil)],
                                    prefix: prefix)
        let observer = try redisConnection(server.url.replacingOccurrences(of: "://", with: "://:admin-pw@"),
                                           caFile: server.options.tls ? server.caFile : nil)
        let prefix = self.prefix
        let behaviour = DedupStoreBehaviour(store: store, claimHolder: { key in
            try await observer.send(RedisCommand("GET", RedisDedupStore.keys(for: key, prefix: prefix).claim)).string
        })
        return (behaviour, observer)
    }

    /// The server with a password on `default` (the observer's) and the store's URL with it.
    private func plainStore() throws -> DedupStoreBehaviour {
        let server = try makeRedis(RedisTestServer.Options(password: "admin-pw"))
        return try behaviour(server, url: "redis://:admin-pw@127.0.0.1:\(server.port)").0
    }

    func testTheFirstOwnerHoldsTheClaimUntilItRecordsAndTheNextClaimReadsTheRecord() async throws {
        try await plainStore().theFirstOwnerHoldsTheClaimUntilItRecordsAndTheNextClaimReadsTheRecord()
    }

    func testAHeldClaimShowsTheRecordSoFar() async throws { try await plainStore().aHeldClaimShowsTheRecordSoFar() }

    func testALookupReadsTheRecordAndTakesNoClaim() async throws { try await plainStore().aLookupReadsTheRecordAndTakesNoClaim() }

    /// `GET /v1/events/{event_id}` reads through `lookup`: one plain GET of
    /// the record, no claim script, so a status poll never holds the key a
    /// consumer is about to claim (which would make that consumer wait).
    func testALookupIsOnePlainReadWithoutAScript() async throws {
        let server = try makeRedis(RedisTestServer.Options(password: "admin-pw"))
        let (behaviour, observer) = try behaviour(server, url: "redis://:admin-pw@127.0.0.1:\(server.port)")
        try await behaviour.keep("k", DedupStoreBehaviour.event)
        _ = await observer.reply("CONFIG", "RESETSTAT")
        let read = await behaviour.store.lookup("k")
        XCTAssertEqual(try read.get(), DedupStoreBehaviour.event)
        let stats = await observer.reply("INFO", "commandstats")?.string ?? ""
        XCTAssertFalse(stats.contains("cmdstat_evalsha"), "no script ran: \(stats)")
        XCTAssertFalse(stats.contains("cmdstat_eval:"), "no script ran: \(stats)")
        XCTAssertTrue(stats.contains("cmdstat_get:calls=1,"), stats)
    }

    func testEveryFieldOfEveryResultComesBackAsRecorded() async throws {
        try await plainStore().everyFieldOfEveryResultComesBackAsRecorded()
    }

    func testRecordingAKeyAgainReplacesItsEvent() async throws { try await plainStore().recordingAKeyAgainReplacesItsEvent() }

    func testAWindowOfZeroReleasesAndKeepsNothing() async throws { try await plainStore().aWindowOfZeroReleasesAndKeepsNothing() }

    func testARecordLapsesAfterTheWindow() async throws { try await plainStore().aRecordLapsesAfterTheWindow() }

    func testAClaimNobodyReleasesLapsesAndItsOwnerCanNoLongerReleaseTheNext() async throws {
        try await plainStore().aClaimNobodyReleasesLapsesAndItsOwnerCanNoLongerReleaseTheNext()
    }

    func testAWaitingCopyIsToldOfTheRecordAndClaims() async throws { try await plainStore().aWaitingCopyIsToldOfTheRecordAndClaims() }

    func testAWaitingCopyGivesUpAtItsDeadline() async throws { try await plainStore().aWaitingCopyGivesUpAtItsDeadline() }

    func testAWaitingCopyClaimsWhenTheHeldClaimLapses() async throws {
        try await plainStore().aWaitingCopyClaimsWhenTheHeldClaimLapses()
    }

    func testManyCopiesWaitingTakeTurns() async throws { try await plainStore().manyCopiesWaitingTakeTurns() }

    // MARK: TLS and a narrow ACL user

    /// The ACL the README recommends: the prefix's keys and the commands the stores use, nothing else.
    static let gatewayUser = ["gw", "on", ">gw-secret", "~pushgw:*", "+get", "+set", "+del", "+pexpire", "+eval", "+evalsha", "+ping"]

    private func tlsStore() throws -> DedupStoreBehaviour {
        let server = try makeRedis(RedisTestServer.Options(tls: true, users: [Self.gatewayUser], password: "admin-pw"))
        return try behaviour(server, url: "rediss://gw:gw-secret@127.0.0.1:\(server.port)").0
    }

    func testOverTLSAsTheGatewaysACLUserTheClaimAndRecordWork() async throws {
        try await tlsStore().theFirstOwnerHoldsTheClaimUntilItRecordsAndTheNextClaimReadsTheRecord()
        try await tlsStore().everyFieldOfEveryResultComesBackAsRecorded()
        try await tlsStore().aClaimNobodyReleasesLapsesAndItsOwnerCanNoLongerReleaseTheNext()
    }

    func testOverTLSAWaitingCopyIsToldOfTheRecord() async throws {
        try await tlsStore().aWaitingCopyIsToldOfTheRecordAndClaims()
    }

    // MARK: keys and values

    func testTheKeysAreThePrefixTheDigestInAHashTagAndTheirPart() async throws {
        let server = try makeRedis(RedisTestServer.Options(password: "admin-pw"))
        let (behaviour, observer) = try behaviour(server, url: "redis://:admin-pw@127.0.0.1:\(server.port)")
        let key = "demo\u{0}room:{1}:7\u{0}9f3a"
        let owner = behaviour.owners.next()
        _ = await behaviour.store.claim(key, by: owner, holdFor: .seconds(35))
        let keys = RedisDedupStore.keys(for: key, prefix: prefix)
        XCTAssertTrue(keys.claim.hasPrefix("pushgw:{") && keys.claim.hasSuffix("}:claim"), keys.claim)
        let digest = keys.claim.dropFirst("pushgw:{".count).dropLast("}:claim".count)
        XCTAssertEqual(digest.count, 32, "128 bits in hex")
        XCTAssertTrue(digest.allSatisfy(\.isHexDigit))
        XCTAssertEqual(keys.record, "pushgw:{\(digest)}:record", "one hash tag for both")
        let claimTTLReply = await observer.reply("PTTL", keys.claim)
        let claimTTL = try XCTUnwrap(claimTTLReply?.integer)
        XCTAssertTrue((34_000...35_000).contains(claimTTL), "the claim lapses after its hold: \(claimTTL) ms")
        let holder = await observer.reply("GET", keys.claim)
        XCTAssertEqual(holder?.string, owner.description)

        await behaviour.store.record(key, DedupStoreBehaviour.event, keepFor: .seconds(600), releasing: owner)
        let all = await observer.reply("KEYS", "*")
        XCTAssertEqual(all?.array?.compactMap(\.string), [keys.record], "the claim released, the record kept")
        let recordTTLReply = await observer.reply("PTTL", keys.record)
        let recordTTL = try XCTUnwrap(recordTTLReply?.integer)
        XCTAssertTrue((599_000...600_000).contains(recordTTL), "the record lapses after the window: \(recordTTL) ms")
        let valueReply = await observer.reply("GET", keys.record)
        let value = try XCTUnwrap(valueReply?.bytes)
        XCTAssertEqual(value.first, 1, "the format byte")
        XCTAssertNotNil(value.firstRange(of: Array(key.utf8)), "the record keeps the key itself")
        XCTAssertEqual(RedisDedupStore.keys(for: key, prefix: "chat:").claim, "chat:{\(digest)}:claim")
    }

    func testARecordOfAnotherKeyOrAnotherFormatIsReadAsNone() async throws {
        let server = try makeRedis(RedisTestServer.Options(password: "admin-pw"))
        let (behaviour, observer) = try behaviour(server, url: "redis://:admin-pw@127.0.0.1:\(server.port)")
        try await behaviour.keep("other", DedupStoreBehaviour.event)
        let otherReply = await observer.reply("GET", RedisDedupStore.keys(for: "other", prefix: prefix).record)
        let otherValue = try XCTUnwrap(otherReply?.bytes)
        // As if "mine" and "other" had one digest: "other"'s record under "mine"'s key.
        let mine = RedisDedupStore.keys(for: "mine", prefix: prefix).record
        _ = try await observer.send(RedisCommand(arguments: [Array("SET".utf8), Array(mine.utf8), otherValue]))
        let collided = try await behaviour.peek("mine")
        XCTAssertNil(collided, "another key's record is not this key's")
        for garbage: [UInt8] in [[], [1], [2] + otherValue.dropFirst(), Array(otherValue.dropLast()), otherValue + [0],
                                 [1, 255, 255, 255, 255]] {
            _ = try await observer.send(RedisCommand(arguments: [Array("SET".utf8), Array(mine.utf8), garbage]))
            let read = try await behaviour.peek("mine")
            XCTAssertNil(read, "\(garbage.prefix(8))…")
        }
        _ = try await observer.send(RedisCommand("DEL", mine))
        _ = try await observer.send(RedisCommand("HSET", mine, "field", "value"))
        let wrongType = await behaviour.store.claim("mine", by: behaviour.owners.next(), holdFor: .seconds(1))
        guard case let .unavailable(failure) = wrongType else { return XCTFail("\(wrongType)") }
        XCTAssertEqual(failure.kind, .refused, "\(failure)")
    }

    // MARK: failures

    func testAStoreThatIsDownAnswersUnavailableAndIsReadyAgainOnceItIsBack() async throws {
        let server = try makeRedis()
        let store = RedisDedupStore(connections: [try redisConnection(server.url), try redisConnection(server.url)], prefix: prefix)
        let owners = DedupClaimOwner.Source()
        try await waitUntil("the store is ready") { store.currentFailure == nil }
        server.kill()
        try await waitUntil("the store knows it is down") { store.currentFailure != nil }
        XCTAssertEqual(store.currentFailure?.kind, .unreachable)
        let claim = await store.claim("k", by: owners.next(), holdFor: .seconds(30))
        guard case let .unavailable(failure) = claim else { return XCTFail("\(claim)") }
        XCTAssertEqual(failure.kind, .unreachable, "\(failure)")
        let recorded = await store.record("k", DedupStoreBehaviour.event, keepFor: .seconds(60), releasing: owners.next())
        XCTAssertEqual(recorded?.kind, .unreachable)
        let released = await store.release("k", by: owners.next())
        XCTAssertEqual(released?.kind, .unreachable)

        try server.start()
        try await waitUntil("the store is ready again, without a new store") { store.currentFailure == nil }
        let again = await store.claim("k", by: owners.next(), holdFor: .seconds(30))
        XCTAssertEqual(again, .claimed(nil))
    }

    func testAStoreThatDoesNotAnswerInTimeAnswersTimedOutAndSaysSoUntilACallSucceeds() async throws {
        let server = try makeRedis()
        let store = RedisDedupStore(connections: [try redisConnection(server.url, commandTimeout: .milliseconds(200))], prefix: prefix)
        let blocker = try redisConnection(server.url)
        let owners = DedupClaimOwner.Source()
        try await waitUntil("the store is ready") { store.currentFailure == nil }
        async let sleeping = blocker.reply("DEBUG", "SLEEP", "1")
        try await waitUntil("the server sleeps: a claim times out") {
            guard case let .unavailable(failure) = await store.claim("k", by: owners.next(), holdFor: .seconds(1)) else { return false }
            return failure.kind == .timedOut
        }
        XCTAssertEqual(store.currentFailure?.kind, .timedOut)
        _ = await sleeping
        try await waitUntil("a probe found the store answering again") { store.currentFailure == nil }
    }
}
