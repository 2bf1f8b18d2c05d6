import APNsSimulator
import Foundation
import GatewayService
import PayloadBuilder
import XCTest

/// `Gateway.shutdown(drain:)`, what SIGTERM runs: no new connection is
/// taken, a request in flight is answered if its providers answer within
/// the drain, and one that outlives it is answered 503 `shutting_down`
/// (libmicrohttpd aborted the process when stopped with it suspended).
final class GracefulShutdownTests: XCTestCase {
    func testShutdownStopsAcceptingAndAnswersTheRequestInFlight() async throws {
        let providers = try DemoProviders()
        defer { providers.stop() }
        let gateway = try Self.gateway(providers)
        // Every APNs answer is held back, so the event is in flight when
        // shutdown starts.
        providers.apns.setFaults(APNsSimulatorFaults(responseDelay: .milliseconds(700)))
        let base = "http://127.0.0.1:\(gateway.server.port)"
        let seed = try ServiceTestbed.seedEvent()
        let inFlight = Task { try await ServiceTestbed.call(base, "POST", "/v1/notify", body: seed, bearer: ServiceTestbed.bearer) }
        try await waitUntil("the event is in flight") { gateway.server.activeRequests == 1 }
        let shutdown = Task { await gateway.shutdown(drain: .seconds(20)) }
        try await waitUntil("new connections are refused") { (try? RawConnection(port: gateway.server.port)) == nil }
        XCTAssertEqual(gateway.server.activeRequests, 1, "refusing new connections, still holding the one in flight")
        let answer = try await inFlight.value
        await shutdown.value
        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        guard case let .array(results)? = try JSONParser.parse(answer.body)["results"] else { return XCTFail("no results") }
        XCTAssertEqual(results.map { $0["status"] }, [.string("sent"), .string("sent")])
        XCTAssertEqual(providers.apns.statistics.acceptedTotal, 1)
    }

    /// A provider that never answers: shutdown returns once the drain is up,
    /// the client gets 503 `shutting_down` (retry with the same event_id),
    /// and the send that fails afterwards (when the provider connections
    /// close) touches no freed connection.
    func testShutdownCutsARequestThatOutlivesTheDrain() async throws {
        let providers = try DemoProviders()
        defer { providers.stop() }
        let gateway = try Self.gateway(providers)
        providers.apns.setFaults(APNsSimulatorFaults(silent: true))
        let base = "http://127.0.0.1:\(gateway.server.port)"
        let seed = try ServiceTestbed.seedEvent()
        let inFlight = Task { try await ServiceTestbed.call(base, "POST", "/v1/notify", body: seed, bearer: ServiceTestbed.bearer) }
        try await waitUntil("the event is in flight") { gateway.server.activeRequests == 1 }
        await gateway.shutdown(drain: .milliseconds(300))
        let answer = try await inFlight.value
        XCTAssertEqual(answer.status, 503)
        XCTAssertEqual(try JSONParser.parse(answer.body)["error"]?["code"], .string("shutting_down"))
        // The silent provider's streams end when its connections close; the
        // late answer must be dropped, not sent on a connection that is gone.
        providers.stop()
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertEqual(gateway.server.openConnections, 0)
    }

    private static func gateway(_ providers: DemoProviders) throws -> Gateway {
        try Gateway(configuration: providers.gatewayConfiguration(), logger: Logger(minimumLevel: .error))
    }
}
