import APNsSimulator
import Foundation
import GatewayService
import PayloadBuilder
import RedisClient
import TestSupport
import XCTest

/// Several gateway replicas on one real `redis-server`, as a fleet behind a
/// load balancer: a retry on another replica is answered from the first
/// one's record, copies posted at once reach each device once, the fleet
/// presents one APNs provider token, and a store that dies refuses (or,
/// when so configured, sends without dedup) and is served again once it is
/// back, without restarting the replicas; over TLS too.
final class FleetEndToEndTests: XCTestCase {
    func testAnEventAnsweredByOneReplicaAndRetriedToAnotherIsADuplicateAndSendsNothing() async throws {
        let fleet = try await FleetTestbed(self, replicas: 2)
        let body = FleetTestbed.event("room-1:msg-1")
        let first = try await fleet.notify(0, body)
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(first.body["duplicate"], .bool(false))
        XCTAssertEqual(fleet.accepted, 3)

        let retried = try await fleet.notify(1, body)
        XCTAssertEqual(retried.status, 200)
        XCTAssertEqual(retried.body["duplicate"], .bool(true))
        XCTAssertEqual(retried.body["results"], first.body["results"], "the recorded results, apns-ids included")
        XCTAssertEqual(fleet.accepted, 3, "nothing sent again")
        await fleet.shutdown()
    }

    func testOneEventPostedAtOnceToThreeReplicasReachesEachDeviceOnce() async throws {
        let fleet = try await FleetTestbed(self, replicas: 3)
        // Slow answers keep the first replica's claim held while the copies arrive.
        fleet.apns.setFaults(APNsSimulatorFaults(responseDelay: .milliseconds(200)))
        let body = FleetTestbed.event("room-2:msg-1")
        let urls = (0..<3).map(fleet.url)
        let answers = try await withThrowingTaskGroup(of: (status: Int, body: JSONValue).self) { group in
            for url in urls { group.addTask { try await FleetTestbed.notify(url, body) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(answers.map(\.status), [200, 200, 200])
        XCTAssertEqual(answers.filter { $0.body["duplicate"] == .bool(false) }.count, 1, "one replica sent; the copies waited for it")
        XCTAssertEqual(fleet.apns.statistics.acceptedPerToken, [ServiceTestbed.token(1): 1, ServiceTestbed.token(2): 1])
        XCTAssertEqual(fleet.providers.fcm.statistics.acceptedTotal, 1)
        await fleet.shutdown()
    }

    func testThreeReplicasPresentOneAPNsProviderToken() async throws {
        let fleet = try await FleetTestbed(self, replicas: 3)
        for replica in 0..<3 {
            let answer = try await fleet.notify(replica, FleetTestbed.event("room-3:msg-\(replica)"))
            XCTAssertEqual(answer.status, 200)
        }
        let tokens = Set(fleet.apns.statistics.notifications.map(\.providerToken))
        XCTAssertEqual(fleet.apns.statistics.notifications.count, 6)
        XCTAssertEqual(tokens.count, 1, "one JWT for the team and key, whichever replica sent")
        let observer = try redisConnection(fleet.redis.url)
        let stored = await observer.reply("GET", "pushgw:apns-token:{DEMOTEAM01.DEMOKEY001}")
        XCTAssertEqual(stored?.string?.split(separator: " ").last.map(String.init), tokens.first, "the token the store shares")
        await fleet.shutdown()
    }

    func testAStoreThatDiesRefusesWithStoreUnavailableAndIsServedAgainOnceBackWithoutARestart() async throws {
        let fleet = try await FleetTestbed(self, replicas: 2)
        fleet.redis.kill()
        for replica in 0..<2 {
            try await waitUntil("replica \(replica) is not ready") { try await fleet.readiness(replica).status == 503 }
            let readiness = try await fleet.readiness(replica)
            XCTAssertTrue(readiness.body.contains("dedup store unavailable"), readiness.body)
            let refused = try await fleet.notify(replica, FleetTestbed.event("room-4:msg-1"))
            XCTAssertEqual(refused.status, 503)
            XCTAssertEqual(refused.body["error"]?["code"], .string("store_unavailable"))
        }
        XCTAssertEqual(fleet.accepted, 0, "nothing sent while the store is down")

        try fleet.redis.start()
        for replica in 0..<2 {
            try await waitUntil("replica \(replica) is ready again", within: .seconds(20)) { try await fleet.readiness(replica).status == 200 }
        }
        let served = try await fleet.notify(1, FleetTestbed.event("room-4:msg-1"))
        XCTAssertEqual(served.status, 200)
        XCTAssertEqual(served.body["duplicate"], .bool(false))
        let retried = try await fleet.notify(0, FleetTestbed.event("room-4:msg-1"))
        XCTAssertEqual(retried.body["duplicate"], .bool(true), "shared again")
        XCTAssertEqual(fleet.accepted, 3)
        await fleet.shutdown()
    }

    func testSendingWithoutDedupWhileTheStoreIsDownSendsAndCountsIt() async throws {
        let fleet = try await FleetTestbed(self, replicas: 2, environment: ["PUSHGW_REDIS_ON_FAILURE": "send_without_dedup"])
        fleet.redis.kill()
        try await waitUntil("replica 0 says it is degraded") { try await fleet.readiness(0).body.contains("degraded") }
        let readiness = try await fleet.readiness(0)
        XCTAssertEqual(readiness.status, 200, readiness.body)
        let body = FleetTestbed.event("room-5:msg-1")
        let first = try await fleet.notify(0, body)
        let second = try await fleet.notify(1, body)
        XCTAssertEqual([first.status, second.status], [200, 200])
        XCTAssertEqual(second.body["duplicate"], .bool(false))
        XCTAssertEqual(fleet.accepted, 6, "no dedup: the retry is sent again")
        for replica in 0..<2 {
            let metrics = try await fleet.metrics(replica)
            XCTAssertTrue(metrics.contains("pushgw_dedup_bypassed_total 1"), metrics)
        }
        await fleet.shutdown()
    }

    func testAFleetOnATLSStoreAsAnACLUserSharesItsRecords() async throws {
        let options = RedisTestServer.Options(tls: true, users: [RedisDedupStoreTests.gatewayUser])
        let fleet = try await FleetTestbed(self, replicas: 2, redis: options,
                                           redisURL: { "rediss://gw:gw-secret@127.0.0.1:\($0.port)" })
        let body = FleetTestbed.event("room-6:msg-1")
        let first = try await fleet.notify(0, body)
        XCTAssertEqual(first.status, 200)
        let retried = try await fleet.notify(1, body)
        XCTAssertEqual(retried.body["duplicate"], .bool(true))
        XCTAssertEqual(fleet.accepted, 3)
        XCTAssertEqual(Set(fleet.apns.statistics.notifications.map(\.providerToken)).count, 1)
        await fleet.shutdown()
    }
}
