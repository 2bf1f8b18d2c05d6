import Foundation
import GatewayService
import RedisClient
import TestSupport
import XCTest

/// A real `redis-server` for the service's Redis stores, kept until the end
/// of the test, and connections to it closed then.
extension XCTestCase {
    func makeRedis(_ options: RedisTestServer.Options = RedisTestServer.Options()) throws -> RedisTestServer {
        try XCTSkipUnless(RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps)")
        let server = try RedisTestServer(options)
        // Kept until the test ends, whoever else holds it.
        addTeardownBlock { server.stop() }
        return server
    }

    /// A connection as the gateway makes one, with short reconnects.
    func redisConnection(_ url: String, caFile: String? = nil, commandTimeout: Duration = .seconds(5)) throws -> RedisConnection {
        let connection = try RedisConnection(configuration: RedisConfiguration(
            url: try RedisURL(url), caFile: caFile, connectTimeout: .seconds(10), commandTimeout: commandTimeout,
            reconnectDelay: .milliseconds(20), maximumReconnectDelay: .milliseconds(200)))
        addTeardownBlock { connection.close() }
        return connection
    }
}

extension RedisConnection {
    /// A command's reply, or nil on any failure (for conditions waited on).
    func reply(_ arguments: String...) async -> RESPValue? {
        try? await send(RedisCommand(arguments.first!, arguments: Array(arguments.dropFirst())))
    }
}
