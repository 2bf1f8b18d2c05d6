import Foundation
import RedisClient
import TestSupport
import XCTest

/// `rediss://` against a real `redis-server` listening on TLS only.
final class RedisTLSTests: XCTestCase {
    func testCommandsAndPipelinesGoOverTLS() async throws {
        let server = try makeServer(RedisTestServer.Options(tls: true, users: [["gw", "on", ">tls-secret", "~*", "&*", "+@all"]]))
        let redis = try connect("rediss://gw:tls-secret@127.0.0.1:\(server.port)/1", caFile: server.caFile)
        try await expectReply(redis, RedisCommand("ACL", "WHOAMI"), .bulk("gw"))
        let payload = [UInt8](repeating: 0xAB, count: 200_000)
        try await expectReply(redis, RedisCommand(arguments: [Array("SET".utf8), Array("big".utf8), payload]), .simpleString("OK"))
        try await expectReply(redis, RedisCommand("GET", "big"), .bulkString(payload))
        let results = await redis.send((1 ... 1000).map { RedisCommand("INCRBY", "n", String($0)) })
        XCTAssertEqual(try results.map { try $0.get() }, (1 ... 1000).map { .integer(Int64($0 * ($0 + 1) / 2)) })
        let info = try await redis.send(RedisCommand("CLIENT", "INFO"))
        XCTAssertTrue(info.string?.contains("db=1") ?? false, "\(info)")
    }

    func testTheServerNameIsVerifiedByDNSNameToo() async throws {
        let server = try makeServer(RedisTestServer.Options(tls: true))
        let redis = try connect("rediss://localhost:\(server.port)", caFile: server.caFile)
        try await expectReply(redis, RedisCommand("PING"), .simpleString("PONG"))
    }

    func testACertificateNotTrustedIsRefusedAndNotRetryable() async throws {
        let server = try makeServer(RedisTestServer.Options(tls: true))
        // The system's CAs: the test CA is not among them.
        let redis = try connect(server.url)
        do {
            _ = try await redis.send(RedisCommand("PING"))
            XCTFail("PING went to a server whose certificate is not trusted")
        } catch {
            XCTAssertEqual(error.kind, .certificateRejected, "\(error)")
            XCTAssertFalse(error.isRetryable)
            XCTAssertFalse(error.mayHaveExecuted)
        }
        XCTAssertFalse(redis.isConnected)
    }

    func testAPlainURLToATLSServerDoesNotConnect() async throws {
        let server = try makeServer(RedisTestServer.Options(tls: true))
        let redis = try connect("redis://:pw@127.0.0.1:\(server.port)")
        do {
            _ = try await redis.send(RedisCommand("PING"))
            XCTFail("a plain-text PING got an answer from a TLS port")
        } catch {
            XCTAssertTrue(error.isRetryable || error.kind == .authenticationFailed || error.kind == .protocolError, "\(error)")
        }
    }
}
