import DurableQueue
import Foundation
import RedisClient
import TestSupport
import XCTest

/// A `RedisStreamQueue` on a test `redis-server`, closed at the end of the test.
extension XCTestCase {
    func makeServer() throws -> RedisTestServer {
        try XCTSkipUnless(RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps)")
        return try RedisTestServer()
    }

    func configuration(_ server: RedisTestServer) throws -> RedisConfiguration {
        RedisConfiguration(url: try RedisURL(server.url), connectTimeout: .seconds(10), commandTimeout: .seconds(5),
                           reconnectDelay: .milliseconds(20), maximumReconnectDelay: .milliseconds(200))
    }

    func makeQueue(_ server: RedisTestServer, settings: RedisStreamQueue.Settings = RedisStreamQueue.Settings()) throws -> RedisStreamQueue {
        let redis = try RedisConnection(configuration: try configuration(server))
        addTeardownBlock { redis.close() }
        return RedisStreamQueue(redis: redis, consumerConfiguration: try configuration(server), settings: settings)
    }

    func makeConsumer(_ queue: RedisStreamQueue, _ app: String, _ name: String) throws -> any QueueConsumer {
        let consumer = try queue.makeConsumer(of: app, named: name)
        addTeardownBlock { consumer.close() }
        return consumer
    }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}
