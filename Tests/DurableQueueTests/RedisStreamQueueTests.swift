import DurableQueue
import Foundation
import RedisClient
import TestSupport
import XCTest

/// The queue against a real `redis-server`: what is enqueued is delivered
/// once, stays pending until acknowledged, is taken over from a consumer
/// that went silent, survives nothing of a restarted server's lost data
/// without the consumers noticing, and a full stream refuses.
final class RedisStreamQueueTests: XCTestCase {
    func testEnqueuedMessagesAreDeliveredOnceAndAcknowledged() async throws {
        let server = try makeServer()
        let queue = try makeQueue(server)
        let consumer = try makeConsumer(queue, "chat", "replica-a")
        // The group is made by the first read; what was enqueued before it is not skipped.
        let first = try await queue.enqueue("chat", name: "e1", payload: "one".bytes, note: "k1".bytes)
        let second = try await queue.enqueue("chat", name: "e2", payload: "two".bytes, note: "k2".bytes)
        let taken = try await consumer.receive(count: 10, wait: .milliseconds(100))
        XCTAssertEqual(taken, [QueuedMessage(id: first, name: "e1", payload: "one".bytes, deliveries: 1),
                               QueuedMessage(id: second, name: "e2", payload: "two".bytes, deliveries: 1)])
        let nothingNew = try await consumer.receive(count: 10, wait: .milliseconds(50))
        XCTAssertEqual(nothingNew, [], "a message was delivered twice to the group")
        let status = try await queue.status("chat", name: "e1")
        XCTAssertEqual(status, QueuedStatus(state: .queued, id: first, note: "k1".bytes))
        let busy = try await queue.depth("chat")
        XCTAssertEqual(busy.length, 2)
        XCTAssertEqual(busy.pending, 2)

        try await queue.acknowledge("chat", id: first, name: "e1", outcome: .done)
        try await queue.acknowledge("chat", id: second, name: "e2", outcome: .failed)
        let done = try await queue.status("chat", name: "e1")
        XCTAssertEqual(done?.state, .done)
        let failed = try await queue.status("chat", name: "e2")
        XCTAssertEqual(failed?.state, .failed)
        let unknown = try await queue.status("chat", name: "never")
        XCTAssertNil(unknown)
        let empty = try await queue.depth("chat")
        XCTAssertEqual(empty, QueueDepth(length: 0, pending: 0, oldestAge: .zero))
        // Acknowledged: nobody takes them over.
        let other = try makeConsumer(queue, "chat", "replica-b")
        let reclaimed = try await other.reclaim(idleFor: .zero, count: 10)
        XCTAssertEqual(reclaimed, [])
    }

    func testTheQueueWorksOverTLSForItsConsumersToo() async throws {
        try XCTSkipUnless(RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps)")
        let server = try RedisTestServer(RedisTestServer.Options(tls: true))
        let configuration = RedisConfiguration(url: try RedisURL(server.url), caFile: server.caFile, connectTimeout: .seconds(10),
                                               commandTimeout: .seconds(5))
        let redis = try RedisConnection(configuration: configuration)
        defer { redis.close() }
        let queue = RedisStreamQueue(redis: redis, consumerConfiguration: configuration)
        let consumer = try makeConsumer(queue, "chat", "r")
        let id = try await queue.enqueue("chat", name: "e1", payload: "over tls".bytes, note: [])
        let taken = try await consumer.receive(count: 1, wait: .milliseconds(500))
        XCTAssertEqual(taken, [QueuedMessage(id: id, name: "e1", payload: "over tls".bytes, deliveries: 1)])
        try await queue.acknowledge("chat", id: id, name: "e1", outcome: .done)
    }

    func testQueuesOfTwoAppsAreApartAndNamesWithBracesStayInOneSlot() async throws {
        let server = try makeServer()
        let queue = try makeQueue(server)
        _ = try await queue.enqueue("chat", name: "e1", payload: "chat".bytes, note: [])
        _ = try await queue.enqueue("odd{app}", name: "e{1}", payload: "odd".bytes, note: [])
        let odd = try makeConsumer(queue, "odd{app}", "r")
        let taken = try await odd.receive(count: 10, wait: .milliseconds(50))
        XCTAssertEqual(taken.map(\.payload), ["odd".bytes])
        XCTAssertEqual(taken.first?.name, "e{1}")
    }

    func testAMessageOfAConsumerThatDiedIsTakenOverAfterTheVisibilityTimeout() async throws {
        let server = try makeServer()
        let queue = try makeQueue(server)
        let dying = try queue.makeConsumer(of: "chat", named: "replica-a")
        let id = try await queue.enqueue("chat", name: "e1", payload: "one".bytes, note: [])
        let taken = try await dying.receive(count: 1, wait: .milliseconds(100))
        XCTAssertEqual(taken.map(\.id), [id])
        dying.close()  // its connection gone, nothing acknowledged

        let survivor = try makeConsumer(queue, "chat", "replica-b")
        // Not idle long enough yet: a live consumer's message is left to it.
        let early = try await survivor.reclaim(idleFor: .seconds(600), count: 10)
        XCTAssertEqual(early, [])
        var reclaimed: [QueuedMessage] = []
        try await waitUntil("replica-b takes over e1") {
            reclaimed = try await survivor.reclaim(idleFor: .milliseconds(200), count: 10)
            return !reclaimed.isEmpty
        }
        XCTAssertEqual(reclaimed, [QueuedMessage(id: id, name: "e1", payload: "one".bytes, deliveries: 2)])
        // Each take-over counts, so a message that kills its consumers can be given up on.
        var again: [QueuedMessage] = []
        try await waitUntil("e1 is taken over once more") {
            again = try await survivor.reclaim(idleFor: .milliseconds(200), count: 10)
            return !again.isEmpty
        }
        XCTAssertEqual(again.first?.deliveries, 3)
        try await queue.acknowledge("chat", id: id, name: "e1", outcome: .done)
        let depth = try await queue.depth("chat")
        XCTAssertEqual(depth.pending, 0)
    }

    /// A replica gone for good stays in the consumer group until another
    /// removes it: only once it has nothing pending (its messages taken
    /// over) and has been idle past the bound, and never the caller itself.
    func testAConsumerGoneForGoodIsRemovedOnceItsMessagesAreTakenOver() async throws {
        let server = try makeServer()
        let queue = try makeQueue(server)
        let observer = try RedisConnection(configuration: try configuration(server))
        addTeardownBlock { observer.close() }
        func consumers() async throws -> [String] {
            let reply = try await observer.send(RedisCommand(arguments: [Array("XINFO".utf8), Array("CONSUMERS".utf8),
                                                                         Array("pushgw:{chat}:events".utf8), Array("pushgw".utf8)]))
            return (reply.array ?? []).compactMap { $0.array?[1].string }.sorted()
        }
        let gone = try queue.makeConsumer(of: "chat", named: "replica-gone")
        let id = try await queue.enqueue("chat", name: "e1", payload: "one".bytes, note: [])
        let taken = try await gone.receive(count: 1, wait: .milliseconds(100))
        XCTAssertEqual(taken.map(\.id), [id])
        gone.close()
        let survivor = try makeConsumer(queue, "chat", "replica-b")
        _ = try await survivor.receive(count: 1, wait: .milliseconds(1))
        let whileHolding = try await queue.removeIdleConsumers(of: "chat", idleFor: .milliseconds(1), keeping: "replica-b")
        XCTAssertEqual(whileHolding, [], "a consumer with a message pending was removed (its pending entry would be lost)")
        var reclaimed: [QueuedMessage] = []
        try await waitUntil("replica-b takes over e1") {
            reclaimed = try await survivor.reclaim(idleFor: .milliseconds(50), count: 10)
            return !reclaimed.isEmpty
        }
        let early = try await queue.removeIdleConsumers(of: "chat", idleFor: .seconds(600), keeping: "replica-b")
        XCTAssertEqual(early, [], "a consumer idle for less than the bound was removed")
        var removed: [String] = []
        try await waitUntil("the consumer gone for good is removed") {
            removed += try await queue.removeIdleConsumers(of: "chat", idleFor: .milliseconds(20), keeping: "replica-b")
            return !removed.isEmpty
        }
        XCTAssertEqual(removed, ["replica-gone"])
        let left = try await consumers()
        XCTAssertEqual(left, ["replica-b"], "the caller keeps itself, and its pending message")
        try await queue.acknowledge("chat", id: id, name: "e1", outcome: .done)
        let none = try await queue.removeIdleConsumers(of: "nothing-here", idleFor: .milliseconds(1), keeping: "replica-b")
        XCTAssertEqual(none, [], "a queue never used has no consumers to remove")
    }

    func testAFullStreamRefusesRetryablyAndDropsNothing() async throws {
        let server = try makeServer()
        let queue = try makeQueue(server, settings: RedisStreamQueue.Settings(maximumLength: 2))
        let first = try await queue.enqueue("chat", name: "e1", payload: "1".bytes, note: [])
        _ = try await queue.enqueue("chat", name: "e2", payload: "2".bytes, note: [])
        do {
            _ = try await queue.enqueue("chat", name: "e3", payload: "3".bytes, note: [])
            XCTFail("a full stream took a third message")
        } catch {
            XCTAssertEqual(error.kind, .full)
            XCTAssertTrue(error.isRetryable)
        }
        let refused = try await queue.status("chat", name: "e3")
        XCTAssertNil(refused, "a refused message was noted as queued")
        // Taken but not acknowledged still counts: nothing is trimmed away.
        let consumer = try makeConsumer(queue, "chat", "r")
        let taken = try await consumer.receive(count: 10, wait: .milliseconds(50))
        XCTAssertEqual(taken.map(\.payload), ["1".bytes, "2".bytes])
        do {
            _ = try await queue.enqueue("chat", name: "e3", payload: "3".bytes, note: [])
            XCTFail("a stream full of pending messages took another")
        } catch {
            XCTAssertEqual(error.kind, .full)
        }
        try await queue.acknowledge("chat", id: first, name: "e1", outcome: .done)
        _ = try await queue.enqueue("chat", name: "e3", payload: "3".bytes, note: [])
    }

    func testTheOldestMessagesAgeIsMeasuredOnTheServersClock() async throws {
        let server = try makeServer()
        let queue = try makeQueue(server)
        _ = try await queue.enqueue("chat", name: "e1", payload: "1".bytes, note: [])
        try await waitUntil("the oldest message is older than 20 ms") {
            try await queue.depth("chat").oldestAge >= .milliseconds(20)
        }
        let depth = try await queue.depth("chat")
        XCTAssertEqual(depth.length, 1)
        XCTAssertEqual(depth.pending, 0, "pending counts only what a consumer took")
    }

    func testConsumersRecoverFromARedisRestartThatLostTheStream() async throws {
        let server = try makeServer()
        let queue = try makeQueue(server)
        let consumer = try makeConsumer(queue, "chat", "r")
        let observer = try RedisConnection(configuration: try configuration(server))
        defer { observer.close() }
        _ = try await queue.enqueue("chat", name: "e1", payload: "1".bytes, note: [])
        let before = try await consumer.receive(count: 1, wait: .milliseconds(50))
        XCTAssertEqual(before.count, 1)
        // A blocked read when the server dies fails retryably.
        async let blocked = consumer.receive(count: 1, wait: .seconds(30))
        try await waitUntil("the read is blocked on the server") {
            let info = try await observer.send(RedisCommand("INFO", "clients")).string ?? ""
            return info.contains("blocked_clients:1")
        }
        server.kill()
        do {
            _ = try await blocked
            XCTFail("a read on a killed server answered")
        } catch {
            XCTAssertEqual((error as? QueueFailure)?.isRetryable, true, "\(error)")
        }
        try server.start()  // no persistence: stream and group are gone
        var id = ""
        try await waitUntil("the queue takes messages again") {
            do {
                id = try await queue.enqueue("chat", name: "e2", payload: "2".bytes, note: [])
                return true
            } catch { return false }
        }
        var after: [QueuedMessage] = []
        try await waitUntil("the consumer reads again, its group made anew") {
            do {
                after = try await consumer.receive(count: 1, wait: .milliseconds(50))
                return !after.isEmpty
            } catch { return false }
        }
        XCTAssertEqual(after.map(\.id), [id])
    }
}
