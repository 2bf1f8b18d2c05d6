import APNsHTTP2
import Foundation
@testable import GatewayService
import PayloadBuilder
import PushGWDemo
import PushGWSync
import TestSupport
import XCTest

/// Two gateways (replicas) built with a shared APNs token store: one
/// provider token for both, the store's failure said once per replica in
/// the log and counted in the metrics, and the recovery.
final class FleetTokenGatewayTests: XCTestCase {
    /// The log lines written, in order.
    private final class LogLines: Sendable {
        let lines = Locked<[String]>([])
        func messages(containing text: String) -> Int {
            lines.withLock { $0.filter { $0.contains(text) }.count }
        }
    }

    func testTwoGatewaysOnOneStorePresentOneAPNsTokenAndReportTheStoresFailureOnce() async throws {
        let providers = try DemoProviders()
        defer { providers.stop() }
        let configuration = try providers.gatewayConfiguration()
        let store = SharedProviderTokenStoreDouble()
        var settings = FleetProviderTokenCache.Settings()
        settings.refreshInterval = .milliseconds(5)
        let logs = LogLines()
        let logger = Logger(minimumLevel: .info, sink: { line in logs.lines.withLock { $0.append(String(decoding: line, as: UTF8.self)) } })
        let gateways = try ["replica-a", "replica-b"].map { replica in
            try Gateway(configuration: configuration, logger: logger, apnsTokens: .shared(store: store, replica: replica, settings: settings))
        }
        for gateway in gateways { await gateway.prepareProviderTokens() }
        for gateway in gateways {
            let answer = try await ServiceTestbed.call("http://127.0.0.1:\(gateway.server.port)", "POST", "/v1/notify",
                                                       body: ServiceTestbed.seedEvent(), bearer: ServiceTestbed.bearer)
            XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        }
        XCTAssertEqual(providers.apns.statistics.acceptedTotal, 2, "the strict simulator took both replicas' tokens")
        let caches = try gateways.map { try XCTUnwrap($0.apnsTokens.first?.fleet) }
        let shared = try XCTUnwrap(store.entry(for: caches[0].storeKey))
        XCTAssertEqual(caches.map(\.currentIssuedAt), [shared.issuedAt, shared.issuedAt])
        XCTAssertEqual(caches.map(\.isUsingLocalToken), [false, false])
        XCTAssertEqual(caches.reduce(0) { $0 + $1.mintCount }, 1)

        store.isReachable = false
        try await waitUntil("many refreshes failed") { store.counts.failures >= 40 }
        let unreachable = "APNs provider token store unreachable"
        XCTAssertEqual(logs.messages(containing: unreachable), 2, "one line per replica, not one per refresh")
        for gateway in gateways {
            let metrics = try await ServiceTestbed.call("http://127.0.0.1:\(gateway.server.port)", "GET", "/metrics", bearer: nil)
            let text = String(decoding: metrics.body, as: UTF8.self)
            XCTAssertTrue(text.contains(#"pushgw_provider_token_fallback_total{provider="apns"} 1"#), text)
            XCTAssertTrue(text.contains(#"pushgw_provider_token_local{provider="apns"} 0"#), "the shared token is still fresh: \(text)")
        }

        store.isReachable = true
        let reads = store.counts.reads
        try await waitUntil("both replicas read the store again") { store.counts.reads >= reads + 40 }
        XCTAssertEqual(logs.messages(containing: "APNs provider token store reachable again"), 2)
        XCTAssertEqual(logs.messages(containing: unreachable), 2)
        XCTAssertEqual(caches.reduce(0) { $0 + $1.mintCount }, 1)
        XCTAssertEqual(caches.map(\.isRefreshingInBackground), [true, true])
        for gateway in gateways { await gateway.shutdown(drain: .seconds(2)) }
        XCTAssertEqual(caches.map(\.isRefreshingInBackground), [false, false], "the background refresh stops with the gateway")
    }

    func testWithoutASharedStoreEachAppHasAnInProcessCache() async throws {
        let providers = try DemoProviders()
        defer { providers.stop() }
        let gateway = try Gateway(configuration: providers.gatewayConfiguration(), logger: Logger(minimumLevel: .error))
        defer { Task { await gateway.shutdown(drain: .zero) } }
        guard case .inProcess? = gateway.apnsTokens.first else { return XCTFail("not the in-process cache") }
        await gateway.prepareProviderTokens()
        XCTAssertEqual(gateway.apnsTokens.first?.mintCount, 0, "nothing to prepare in-process")
    }
}
