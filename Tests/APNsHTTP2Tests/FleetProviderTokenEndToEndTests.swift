import APNsHTTP2
@testable import HTTP2Client
import APNsSimulator
import TestSupport
import XCTest

/// Two real `APNsClient`s, each with its own `FleetProviderTokenCache` (two
/// replicas) on one store double, against the strict APNs simulator, which
/// verifies every JWT and tracks token updates per connection.
final class FleetProviderTokenEndToEndTests: XCTestCase {
    func testTwoReplicasClientsPresentTheSameProviderTokenAndTheSameReplacement() async throws {
        let testbed = try APNsTestbed(simulatorOnTestClock: true) { $0.recordsNotifications = true }
        let clock = testbed.clock
        let store = SharedProviderTokenStoreDouble(now: { clock.instant })
        let caches = try (0..<2).map { index in
            try FleetProviderTokenCache(keyID: APNsTestbed.keyID, teamID: APNsTestbed.teamID, signingKey: testbed.key,
                                        store: store, replica: "replica-\(index)", now: { clock.epochSeconds })
        }
        for cache in caches { await cache.prepare() }
        let clients = try caches.map { cache in
            try APNsClient(origin: testbed.simulator.url, tls: TLSConfiguration(caFile: testbed.caFile), tokens: cache,
                           connections: 1, now: { clock.epochSeconds })
        }
        defer { for client in clients { client.shutdown() } }
        let requests = try testbed.requests(count: 8)

        for (index, client) in clients.enumerated() {
            for outcome in await client.send(Array(requests[(index * 2)..<(index * 2 + 2)])) {
                guard case .success(.accepted) = outcome else { return XCTFail("not accepted: \(outcome)") }
            }
        }
        var notifications = testbed.simulator.statistics.notifications
        XCTAssertEqual(Set(notifications.map(\.connectionNumber)).count, 2, "one connection per replica")
        let first = Set(notifications.map(\.providerToken))
        XCTAssertEqual(first.count, 1, "both replicas presented one token")
        XCTAssertEqual(first.first, store.entry(for: caches[0].storeKey)?.jwt)

        // 41 minutes on, each replica's refresh: one mints, the other adopts.
        clock.advance(by: .seconds(41 * 60))
        for cache in caches { await cache.refresh() }
        testbed.simulator.resetStatistics()
        for (index, client) in clients.enumerated() {
            for outcome in await client.send(Array(requests[(4 + index * 2)..<(4 + index * 2 + 2)])) {
                guard case .success(.accepted) = outcome else { return XCTFail("not accepted after the refresh: \(outcome)") }
            }
        }
        notifications = testbed.simulator.statistics.notifications
        let second = Set(notifications.map(\.providerToken))
        XCTAssertEqual(second.count, 1, "both replicas presented the replacement")
        XCTAssertNotEqual(second, first)
        XCTAssertEqual(caches[0].mintCount + caches[1].mintCount, 2)
        XCTAssertEqual(testbed.simulator.statistics.rejectedTotal, 0)
    }
}
