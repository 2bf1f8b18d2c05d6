import DurableQueue
import Foundation
import GatewayService
import PayloadBuilder
import PushGWSync
import RedisClient
import TestSupport
import XCTest

/// The async mode in process: the gateway's HTTP server, dispatcher and
/// provider clients in front of the simulators, its queue on a real
/// `redis-server`, and a `QueueWorker` consuming it.
final class AsyncNotifyTests: XCTestCase {
    func testWithoutAQueueAsyncModeIsRefusedNamingMode() async throws {
        let testbed = try ServiceTestbed()
        let event = ServiceTestbed.event(id: "c-1:m-1", tokens: [ServiceTestbed.token(1)])
        let refused = try await testbed.call("POST", "/v1/notify?mode=async", body: event)
        XCTAssertEqual(refused.status, 501)
        let error = try JSONParser.parse(refused.body)["error"]
        XCTAssertEqual(error?["code"], .string("async_unavailable"))
        XCTAssertEqual(error?["field"], .string("mode"))
        let odd = try await testbed.call("POST", "/v1/notify?mode=later", body: event)
        XCTAssertEqual(odd.status, 400)
        XCTAssertEqual(try JSONParser.parse(odd.body)["error"]?["code"], .string("invalid_mode"))
        let status = try await testbed.call("GET", "/v1/events/c-1:m-1")
        XCTAssertEqual(status.status, 501)
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 0, "a refused async event was sent")
        // Sync mode, named or not, is as before.
        let sync = try await testbed.call("POST", "/v1/notify?mode=sync", body: event)
        XCTAssertEqual(sync.status, 200)
    }

    func testAnAsyncEventIsQueuedSentOnceAndItsOutcomeRead() async throws {
        let server = try makeRedis()
        let queue = try makeQueue(server)
        let testbed = try ServiceTestbed(queue: queue)
        let worker = QueueWorker(queue: queue, dispatcher: testbed.dispatcher, consumer: "replica-a", settings: fastWorker())
        try worker.start()
        let token = ServiceTestbed.token(7)
        let event = ServiceTestbed.event(id: "c-9:m-9", tokens: [token], fcmTokens: ["fcm-token-1"])

        let unauthorized = try await testbed.call("POST", "/v1/notify?mode=async", body: event, bearer: nil)
        XCTAssertEqual(unauthorized.status, 401)
        let invalid = try await testbed.call("POST", "/v1/notify?mode=async", body: Array(#"{"event_id":"x"}"#.utf8))
        XCTAssertEqual(invalid.status, 400, "an invalid event was queued")

        let queued = try await testbed.call("POST", "/v1/notify?mode=async", body: event)
        XCTAssertEqual(queued.status, 202)
        XCTAssertEqual(String(decoding: queued.body, as: UTF8.self), #"{"event_id":"c-9:m-9","status":"queued"}"#)
        var answer: JSONValue = .null
        try await waitUntil("the event's outcome is recorded") {
            let status = try await testbed.call("GET", "/v1/events/c-9:m-9")
            answer = try JSONParser.parse(status.body)
            return answer["status"] == .string("done")
        }
        await worker.stop()
        XCTAssertEqual(answer["app"], .string("demo"))
        guard case let .array(results)? = answer["results"] else { return XCTFail("no results: \(answer)") }
        XCTAssertEqual(results.count, 2)
        let apns = results.first { $0["platform"] == .string("apns") }
        XCTAssertEqual(apns?["status"], .string("sent"))
        XCTAssertEqual(apns?["device"], .string(String(SHA256.hexDigest(token.utf8).prefix(32))),
                       "the device is not the token's fingerprint")
        XCTAssertNil(apns?["token"], "the status answer holds a token")
        XCTAssertEqual(testbed.simulator.statistics.acceptedPerToken[token], 1)
        XCTAssertEqual(testbed.fcmSimulator.statistics.acceptedTotal, 1)
        let unknown = try await testbed.call("GET", "/v1/events/never-queued")
        XCTAssertEqual(unknown.status, 404)
        let otherAuth = try await testbed.call("GET", "/v1/events/c-9:m-9", bearer: "wrong-token-0123456789")
        XCTAssertEqual(otherAuth.status, 401)
        let depth = try await queue.depth("demo")
        XCTAssertEqual(depth.length, 0, "an acknowledged event is still in the stream")
    }

    func testAnEventLeftByAConsumerThatDiedIsSentByAnotherWithTheSameAPNsID() async throws {
        let server = try makeRedis()
        let queue = try makeQueue(server)
        let testbed = try ServiceTestbed(queue: queue)
        let token = ServiceTestbed.token(11)
        let queued = try await testbed.call("POST", "/v1/notify?mode=async",
                                            body: ServiceTestbed.event(id: "c-2:m-2", tokens: [token]))
        XCTAssertEqual(queued.status, 202)
        // A replica takes the event and dies before sending it.
        let dying = try queue.makeConsumer(of: "demo", named: "replica-dead")
        let taken = try await dying.receive(count: 10, wait: .milliseconds(200))
        XCTAssertEqual(taken.count, 1)
        dying.close()
        let status = try await testbed.call("GET", "/v1/events/c-2:m-2")
        XCTAssertEqual(try JSONParser.parse(status.body)["status"], .string("queued"))

        var settings = fastWorker()
        settings.visibilityTimeout = .milliseconds(300)
        let worker = QueueWorker(queue: queue, dispatcher: testbed.dispatcher, consumer: "replica-b", settings: settings)
        try worker.start()
        try await waitUntil("replica-b takes the event over and sends it") {
            let status = try await testbed.call("GET", "/v1/events/c-2:m-2")
            return try JSONParser.parse(status.body)["status"] == .string("done")
        }
        await worker.stop()
        let sent = testbed.simulator.statistics.notifications.filter { $0.deviceToken == token }
        XCTAssertEqual(sent.count, 1)
        XCTAssertEqual(sent.first?.apnsID, APNsID(eventID: "c-2:m-2").id(token: token),
                       "a taken-over event's apns-id is not the one its event_id gives")
        XCTAssertEqual(sent.first?.collapseID, "c-2:m-2")
        XCTAssertEqual(testbed.metrics.registry.value(QueueWorker.reclaimedFamily), 1)
    }

    func testAnEventDeliveredTooOftenEndsFailedUnsent() async throws {
        let server = try makeRedis()
        let queue = try makeQueue(server)
        let testbed = try ServiceTestbed(queue: queue)
        _ = try await testbed.call("POST", "/v1/notify?mode=async", body: ServiceTestbed.event(id: "c-3:m-3", tokens: [ServiceTestbed.token(3)]))
        // Taken and dropped twice: its third delivery is past the worker's maximum of two.
        for name in ["dead-1", "dead-2"] {
            let dying = try queue.makeConsumer(of: "demo", named: name)
            var taken: [QueuedMessage] = []
            try await waitUntil("\(name) takes the event") {
                taken = try await dying.reclaim(idleFor: .milliseconds(1), count: 1)
                if taken.isEmpty { taken = try await dying.receive(count: 1, wait: .milliseconds(10)) }
                return !taken.isEmpty
            }
            dying.close()
        }
        var settings = fastWorker()
        settings.visibilityTimeout = .milliseconds(100)
        settings.maximumDeliveries = 2
        let receiver = try FeedbackReceiver(statuses: [200])
        defer { receiver.stop() }
        let webhooks = FeedbackWebhooks(targets: ["demo": FeedbackWebhooks.Target(url: receiver.url, secret: Array("s".utf8))],
                                        metrics: testbed.metrics)
        defer { webhooks.stop() }
        let worker = QueueWorker(queue: queue, dispatcher: testbed.dispatcher, consumer: "replica-c", settings: settings,
                                 feedback: webhooks)
        try worker.start()
        try await waitUntil("the event is given up") {
            let status = try await testbed.call("GET", "/v1/events/c-3:m-3")
            return try JSONParser.parse(status.body)["status"] == .string("failed")
        }
        try await waitUntil("its device is reported as failed for good") { !receiver.requests.isEmpty }
        await worker.stop()
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 0, "an event past its deliveries was sent")
        XCTAssertEqual(testbed.metrics.registry.value(QueueWorker.givenUpFamily, ["demo"]), 1)
        let queueLeft = try await queue.depth("demo")
        XCTAssertEqual(queueLeft.length, 0, "a given-up event stayed in the stream")
        let feedback = try JSONParser.parse(receiver.requests[0].body)
        XCTAssertEqual(feedback["event_id"], .string("c-3:m-3"))
        guard case let .array(failed)? = feedback["failed"] else { return XCTFail("no failed list: \(feedback)") }
        XCTAssertEqual(failed.count, 1)
        XCTAssertEqual(failed.first?["token"], .string(ServiceTestbed.token(3)))
        XCTAssertEqual(failed.first?["retryable"], .bool(false))
    }

    func testAnEventTheDedupStoreKeepsFromSendingStaysQueuedUntilItCanBeSent() async throws {
        let server = try makeRedis()
        let queue = try makeQueue(server)
        let dedup = DedupStoreTestDouble()
        dedup.set(.fails(DedupStoreTestDouble.down))
        let testbed = try ServiceTestbed(dedup: dedup, queue: queue)
        var settings = fastWorker()
        settings.visibilityTimeout = .milliseconds(200)
        let worker = QueueWorker(queue: queue, dispatcher: testbed.dispatcher, consumer: "r", settings: settings)
        try worker.start()
        let queued = try await testbed.call("POST", "/v1/notify?mode=async", body: ServiceTestbed.event(id: "c-4:m-4", tokens: [ServiceTestbed.token(4)]))
        XCTAssertEqual(queued.status, 202)
        try await waitUntil("the consumer tried and left it pending") {
            testbed.metrics.registry.value(QueueWorker.eventsFamily, ["left_pending"]) >= 1
        }
        let pending = try await queue.depth("demo")
        XCTAssertEqual(pending.length, 1, "an event that was not sent was acknowledged")
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 0)
        dedup.set(.works)
        try await waitUntil("the event is taken over and sent once the store is back") {
            try await queue.status("demo", name: "c-4:m-4")?.state == .done
        }
        await worker.stop()
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)
    }

    /// The consumer keeps events in flight one by one, not batch by batch:
    /// an event that cannot finish (its dedup key held elsewhere, as by a
    /// copy being sent on another replica) does not keep the events queued
    /// after it from being read and sent meanwhile.
    func testAnEventThatCannotFinishDoesNotHoldUpTheEventsAfterIt() async throws {
        let server = try makeRedis()
        let queue = try makeQueue(server)
        let dedup = InMemoryDedupStore()
        let testbed = try ServiceTestbed(dedup: dedup, queue: queue)
        let first = try await testbed.call("POST", "/v1/notify?mode=async", body: ServiceTestbed.event(id: "c-5:m-1", tokens: [ServiceTestbed.token(1)]))
        XCTAssertEqual(first.status, 202)
        // Its key held by another owner for longer than the test: the consumer's send waits for it.
        let status = try await queue.status("demo", name: "c-5:m-1")
        let key = try XCTUnwrap(status).note
        let elsewhere = DedupClaimOwner(instance: 1, sequence: 1)
        let held = await dedup.claim(String(decoding: key, as: UTF8.self), by: elsewhere, holdFor: .seconds(600))
        XCTAssertEqual(held, .claimed(nil))
        let worker = QueueWorker(queue: queue, dispatcher: testbed.dispatcher, consumer: "r", settings: fastWorker())
        try worker.start()
        try await waitUntil("the first event is taken") { try await queue.depth("demo").pending == 1 }
        for index in 2...4 {
            let queued = try await testbed.call("POST", "/v1/notify?mode=async",
                                                body: ServiceTestbed.event(id: "c-5:m-\(index)", tokens: [ServiceTestbed.token(index)]))
            XCTAssertEqual(queued.status, 202)
        }
        try await waitUntil("the events after it are sent while it waits", within: .seconds(10)) {
            for index in 2...4 where try await queue.status("demo", name: "c-5:m-\(index)")?.state != .done { return false }
            return true
        }
        let waiting = try await queue.status("demo", name: "c-5:m-1")?.state
        XCTAssertEqual(waiting, .queued)
        await dedup.release(String(decoding: key, as: UTF8.self), by: elsewhere)
        try await waitUntil("the first event is sent once its key is free") {
            try await queue.status("demo", name: "c-5:m-1")?.state == .done
        }
        await worker.stop()
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 4)
    }

    /// Many kept-alive connections at once, each queueing events and
    /// reading their status one request after another, as a client at a
    /// fixed rate does (`bench/async_latency.py`): every request gets its
    /// answer on its own connection, none is left unanswered or closed.
    func testEveryRequestOnManyKeptAliveConnectionsIsAnswered() async throws {
        let server = try makeRedis()
        let queue = try makeQueue(server)
        let testbed = try ServiceTestbed(queue: queue)
        let worker = QueueWorker(queue: queue, dispatcher: testbed.dispatcher, consumer: "r", settings: fastWorker())
        try worker.start()
        let (connections, rounds) = (12, 25)
        let port = testbed.server.port
        let problems = await Task.detached { () -> [String] in
            let found = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: connections) { client in
                func note(_ problem: String) { found.withLock { $0.append(problem) } }
                guard let connection = try? RawConnection(port: port) else { return note("client \(client) could not connect") }
                for round in 0..<rounds {
                    let id = "k-\(client)-\(round)"
                    let body = ServiceTestbed.event(id: id, tokens: [ServiceTestbed.token(client * rounds + round + 1)])
                    connection.send("POST /v1/notify?mode=async HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ServiceTestbed.bearer)\r\n"
                        + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n" + String(decoding: body, as: UTF8.self))
                    let queued = connection.readReply(timeout: .seconds(20))
                    guard queued.status == 202 else { return note("\(id): POST answered \(queued)") }
                    connection.send("GET /v1/events/\(id) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ServiceTestbed.bearer)\r\n\r\n")
                    let status = connection.readReply(timeout: .seconds(20))
                    guard status.status == 200 else { return note("\(id): GET answered \(status)") }
                }
            }
            return found.withLock { $0 }
        }.value
        XCTAssertEqual(problems, [])
        try await waitUntil("every event is sent", within: .seconds(30)) {
            testbed.simulator.statistics.acceptedTotal >= connections * rounds
        }
        await worker.stop()
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, connections * rounds)
    }

    func testAFullQueueAnswers503AndQueuesNothing() async throws {
        let server = try makeRedis()
        let queue = try makeQueue(server, maximumLength: 1)
        let testbed = try ServiceTestbed(queue: queue)
        let first = try await testbed.call("POST", "/v1/notify?mode=async", body: ServiceTestbed.event(id: "a", tokens: [ServiceTestbed.token(1)]))
        XCTAssertEqual(first.status, 202)
        let second = try await testbed.call("POST", "/v1/notify?mode=async", body: ServiceTestbed.event(id: "b", tokens: [ServiceTestbed.token(1)]))
        XCTAssertEqual(second.status, 503)
        XCTAssertEqual(try JSONParser.parse(second.body)["error"]?["code"], .string("queue_full"))
        server.kill()
        let down = try await testbed.call("POST", "/v1/notify?mode=async", body: ServiceTestbed.event(id: "c", tokens: [ServiceTestbed.token(1)]))
        XCTAssertEqual(down.status, 503)
        XCTAssertEqual(try JSONParser.parse(down.body)["error"]?["code"], .string("store_unavailable"))
    }
}

/// Async mode's test parts: a real `redis-server`, a queue on it, a worker that does not wait long.
extension XCTestCase {

    func makeRedis() throws -> RedisTestServer {
        try XCTSkipUnless(RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps)")
        return try RedisTestServer()
    }

    func makeQueue(_ server: RedisTestServer, maximumLength: Int = 100_000) throws -> RedisStreamQueue {
        let configuration = RedisConfiguration(url: try RedisURL(server.url), connectTimeout: .seconds(10), commandTimeout: .seconds(5),
                                               reconnectDelay: .milliseconds(20), maximumReconnectDelay: .milliseconds(200))
        let redis = try RedisConnection(configuration: configuration)
        addTeardownBlock { redis.close() }
        return RedisStreamQueue(redis: redis, consumerConfiguration: configuration,
                                settings: RedisStreamQueue.Settings(maximumLength: maximumLength))
    }

    func fastWorker() -> QueueWorker.Settings {
        var settings = QueueWorker.Settings()
        settings.wait = .milliseconds(50)
        settings.reclaimInterval = .milliseconds(50)
        settings.backoff = .milliseconds(10)
        return settings
    }
}
