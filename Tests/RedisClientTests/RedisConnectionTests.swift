import Foundation
import PushGWSync
import RedisClient
import TestSupport
import XCTest

/// Commands, pipelining, AUTH and SELECT against a real `redis-server` over plain TCP.
final class RedisConnectionTests: XCTestCase {
    func testCommandsGetTheirReplies() async throws {
        let server = try makeServer()
        let redis = try connect(server.url)
        let binary: [UInt8] = [0, 13, 10, 255, 36, 42, 13, 10]
        try await expectReply(redis, RedisCommand("PING"), .simpleString("PONG"))
        try await expectReply(redis, RedisCommand(arguments: [Array("SET".utf8), Array("k\r\n".utf8), binary]), .simpleString("OK"))
        try await expectReply(redis, RedisCommand(arguments: [Array("GET".utf8), Array("k\r\n".utf8)]), .bulkString(binary))
        try await expectReply(redis, RedisCommand("GET", "missing"), .null)
        try await expectReply(redis, RedisCommand("INCRBY", "n", "41"), .integer(41))
        try await expectReply(redis, RedisCommand("SET", "once", "1", "NX", "PX", "60000"), .simpleString("OK"))
        try await expectReply(redis, RedisCommand("SET", "once", "2", "NX", "PX", "60000"), .null)
        _ = try await redis.send(RedisCommand("RPUSH", "list", "a", "b"))
        try await expectReply(redis, RedisCommand("LRANGE", "list", "0", "-1"), .array([.bulk("a"), .bulk("b")]))
    }

    func testAnErrorReplyIsAServerErrorThatIsNotRetryable() async throws {
        let server = try makeServer()
        let redis = try connect(server.url)
        _ = try await redis.send(RedisCommand("SET", "s", "text"))
        do {
            _ = try await redis.send(RedisCommand("LPUSH", "s", "x"))
            XCTFail("LPUSH on a string succeeded")
        } catch {
            XCTAssertEqual(error.kind, .server)
            XCTAssertEqual(error.serverCode, "WRONGTYPE")
            XCTAssertFalse(error.isRetryable)
        }
        // The connection goes on: the error was an answer, not a failure.
        try await expectReply(redis, RedisCommand("GET", "s"), .bulk("text"))
    }

    func testPipelinedCommandsAreAnsweredInOrder() async throws {
        let server = try makeServer()
        let redis = try connect(server.url)
        let commands = (0 ..< 2000).map { index in index % 2 == 0 ? RedisCommand("INCR", "counter") : RedisCommand("ECHO", "m\(index)") }
        let results = await redis.send(commands)
        XCTAssertEqual(results.count, commands.count)
        for (index, result) in results.enumerated() {
            XCTAssertEqual(try result.get(), index % 2 == 0 ? .integer(Int64(index / 2 + 1)) : .bulk("m\(index)"), "reply \(index)")
        }
    }

    func testCallbackCommandsSentTogetherAreAnsweredInOrder() throws {
        let server = try makeServer()
        let redis = try connect(server.url)
        let replies = Locked<[Int64]>([])
        for _ in 0 ..< 500 {
            redis.send(RedisCommand("INCR", "c")) { result in
                if case let .success(.integer(value)) = result { replies.withLock { $0.append(value) } }
            }
        }
        try blockUntil("500 replies") { replies.withLock { $0.count } == 500 }
        XCTAssertEqual(replies.withLock { $0 }, Array(1 ... 500))
    }

    func testScriptsRunByEvalAndEvalSHA() async throws {
        let server = try makeServer()
        let redis = try connect(server.url)
        let script = "return redis.call('SET', KEYS[1], ARGV[1], 'NX') and 1 or 0"
        try await expectReply(redis, .eval(script, keys: [Array("claim".utf8)], arguments: [Array("a".utf8)]), .integer(1))
        let loaded = try await redis.send(RedisCommand("SCRIPT", "LOAD", script))
        let sha = try XCTUnwrap(loaded.string)
        try await expectReply(redis, .evalSHA(sha, keys: [Array("claim".utf8)], arguments: [Array("b".utf8)]), .integer(0))
        do {
            _ = try await redis.send(.evalSHA(String(repeating: "0", count: 40)))
            XCTFail("an unknown script ran")
        } catch {
            XCTAssertEqual(error.serverCode, "NOSCRIPT")
        }
    }

    func testAScriptIsLoadedOnFirstUseAndRunByItsSHA1After() async throws {
        let server = try makeServer()
        let redis = try connect(server.url)
        let claim = RedisScript("return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) and 1 or 0")
        XCTAssertEqual(claim.sha1, RedisScript(claim.source).sha1)
        try await expectReply(redis, RedisCommand("SCRIPT", "EXISTS", claim.sha1), .array([.integer(0)]))
        let first = try await redis.run(claim, keys: [Array("event:{e1}".utf8)], arguments: [Array("a".utf8), Array("60000".utf8)])
        XCTAssertEqual(first, .integer(1))
        // Loaded by the EVAL that followed NOSCRIPT, under the SHA-1 computed here.
        try await expectReply(redis, RedisCommand("SCRIPT", "EXISTS", claim.sha1), .array([.integer(1)]))
        let second = try await redis.run(claim, keys: [Array("event:{e1}".utf8)], arguments: [Array("b".utf8), Array("60000".utf8)])
        XCTAssertEqual(second, .integer(0))
    }

    func testTheDatabaseOfTheURLIsSelected() async throws {
        let server = try makeServer()
        let third = try connect(server.url + "/3")
        let first = try connect(server.url)
        _ = try await third.send(RedisCommand("SET", "where", "db3"))
        try await expectReply(third, RedisCommand("GET", "where"), .bulk("db3"))
        try await expectReply(first, RedisCommand("GET", "where"), .null)
        _ = try await first.send(RedisCommand("SELECT", "3"))
        try await expectReply(first, RedisCommand("GET", "where"), .bulk("db3"))
    }

    func testAnACLUserAndThePasswordOfTheDefaultUserLogIn() async throws {
        let server = try makeServer(RedisTestServer.Options(users: [["gw-user", "on", ">p@ss word", "~*", "&*", "+@all"]],
                                                            password: "default-secret"))
        let user = try connect("redis://gw-user:p%40ss%20word@127.0.0.1:\(server.port)/2")
        try await expectReply(user, RedisCommand("ACL", "WHOAMI"), .bulk("gw-user"))
        let byPassword = try connect("redis://:default-secret@127.0.0.1:\(server.port)")
        try await expectReply(byPassword, RedisCommand("ACL", "WHOAMI"), .bulk("default"))
        let anonymous = try connect(server.url)
        do {
            _ = try await anonymous.send(RedisCommand("GET", "k"))
            XCTFail("a command ran without AUTH")
        } catch {
            XCTAssertEqual(error.serverCode, "NOAUTH")
        }
    }

    func testAWrongPasswordIsAnAuthenticationFailureThatIsNotRetryable() async throws {
        let server = try makeServer(RedisTestServer.Options(users: [["gw-user", "on", ">right", "~*", "+@all"]]))
        let redis = try connect("redis://gw-user:wrong@127.0.0.1:\(server.port)")
        do {
            _ = try await redis.send(RedisCommand("PING"))
            XCTFail("PING succeeded with a wrong password")
        } catch {
            XCTAssertEqual(error.kind, .authenticationFailed)
            XCTAssertFalse(error.isRetryable)
            XCTAssertFalse(error.detail.contains("wrong"), "the password is in the error: \(error)")
        }
        // Commands sent while it stays refused fail at once, with the same refusal.
        do {
            _ = try await redis.send(RedisCommand("PING"))
            XCTFail("PING succeeded with a wrong password")
        } catch {
            XCTAssertEqual(error.kind, .authenticationFailed)
        }
    }
}
