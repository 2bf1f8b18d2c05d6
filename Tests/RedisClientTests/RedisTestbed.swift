import Foundation
import RedisClient
import TestSupport
import XCTest

/// A connection to a test `redis-server`, closed at the end of the test.
extension XCTestCase {
    func makeServer(_ options: RedisTestServer.Options = RedisTestServer.Options()) throws -> RedisTestServer {
        try XCTSkipUnless(RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps)")
        return try RedisTestServer(options)
    }

    func connect(_ url: String, caFile: String? = nil, commandTimeout: Duration = .seconds(10)) throws -> RedisConnection {
        let connection = try RedisConnection(configuration: RedisConfiguration(
            url: try RedisURL(url), caFile: caFile, connectTimeout: .seconds(10), commandTimeout: commandTimeout,
            reconnectDelay: .milliseconds(20), maximumReconnectDelay: .milliseconds(200)))
        addTeardownBlock { connection.close() }
        return connection
    }

    /// Waits until the connection is up (connected, logged in).
    func waitUntilConnected(_ connection: RedisConnection) async throws {
        try await waitUntil("the Redis connection is up") { connection.isConnected }
    }
}

extension RESPValue {
    static func bulk(_ text: String) -> RESPValue { .bulkString(Array(text.utf8)) }
}

/// Sends `command` and checks its reply.
func expectReply(_ redis: RedisConnection, _ command: RedisCommand, _ expected: RESPValue,
                 file: StaticString = #filePath, line: UInt = #line) async throws {
    let reply = try await redis.send(command)
    XCTAssertEqual(reply, expected, file: file, line: line)
}
