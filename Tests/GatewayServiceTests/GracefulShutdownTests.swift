import APNsSimulator
import PushGWDemo
import Foundation
import GatewayService
@testable import GatewayHTTP
import PayloadBuilder
import XCTest
import TestSupport

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

    /// A keep-alive connection opened before the shutdown may still send
    /// requests during the drain: a new notification is refused 503
    /// `shutting_down` with nothing sent, other requests are answered, and
    /// every answer closes its connection, so the client goes elsewhere.
    func testANotificationArrivingDuringTheDrainIsRefusedWithNothingSentAndAnswersCloseTheConnection() async throws {
        let providers = try DemoProviders()
        defer { providers.stop() }
        let gateway = try Self.gateway(providers)
        providers.apns.setFaults(APNsSimulatorFaults(responseDelay: .milliseconds(1_500)))
        let base = "http://127.0.0.1:\(gateway.server.port)"
        let seed = try ServiceTestbed.seedEvent()
        let kept = try RawConnection(port: gateway.server.port)
        let host = "Host: 127.0.0.1\r\n"
        XCTAssertTrue(kept.send("GET /healthz HTTP/1.1\r\n\(host)\r\n"))
        guard case let .response(200, before, _) = kept.readReply() else { return XCTFail("healthz before the shutdown") }
        XCTAssertNotEqual(before["connection"]?.lowercased(), "close", "keep-alive before the shutdown")
        let readiness = try RawConnection(port: gateway.server.port)

        let inFlight = Task { try await ServiceTestbed.call(base, "POST", "/v1/notify", body: seed, bearer: ServiceTestbed.bearer) }
        try await waitUntil("the event is in flight") { gateway.server.activeRequests == 1 }
        let shutdown = Task { await gateway.shutdown(drain: .seconds(20)) }
        try await waitUntil("new connections are refused") { (try? RawConnection(port: gateway.server.port)) == nil }

        let event = ServiceTestbed.event(id: "drain:late", tokens: [ServiceTestbed.token(7)])
        XCTAssertTrue(kept.send(Array(("POST /v1/notify HTTP/1.1\r\n\(host)Authorization: Bearer \(ServiceTestbed.bearer)\r\n" +
                                      "Content-Type: application/json\r\nContent-Length: \(event.count)\r\n\r\n").utf8) + event))
        guard case let .response(status, headers, body) = kept.readReply() else { return XCTFail("no answer to the late event") }
        XCTAssertEqual(status, 503)
        XCTAssertEqual(try JSONParser.parse(body)["error"]?["code"], .string("shutting_down"))
        XCTAssertTrue(String(decoding: body, as: UTF8.self).contains("sent nothing"), String(decoding: body, as: UTF8.self))
        XCTAssertEqual(headers["connection"]?.lowercased(), "close")
        XCTAssertEqual(kept.readReply(timeout: .seconds(2)), .closed, "the server closed the connection after that answer")

        XCTAssertTrue(readiness.send("GET /readyz HTTP/1.1\r\n\(host)\r\n"))
        guard case let .response(503, readyHeaders, readyBody) = readiness.readReply() else { return XCTFail("readyz during the drain") }
        XCTAssertTrue(String(decoding: readyBody, as: UTF8.self).contains("shutting down"))
        XCTAssertEqual(readyHeaders["connection"]?.lowercased(), "close")

        let answer = try await inFlight.value
        await shutdown.value
        XCTAssertEqual(answer.status, 200, "the event taken before the shutdown is delivered")
        XCTAssertEqual(providers.apns.statistics.acceptedTotal, 1, "the late event sent nothing")
    }

    /// A notification whose body is still uploading when the shutdown
    /// starts is waited for, and answered 503 `shutting_down` with nothing
    /// sent, not cut off with no answer.
    func testARequestStillUploadingWhenTheShutdownStartsIsAnswered() async throws {
        let providers = try DemoProviders()
        defer { providers.stop() }
        let gateway = try Self.gateway(providers)
        let event = ServiceTestbed.event(id: "drain:uploading", tokens: [ServiceTestbed.token(5)])
        let uploading = try RawConnection(port: gateway.server.port)
        XCTAssertTrue(uploading.send(Array(("POST /v1/notify HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ServiceTestbed.bearer)\r\n"
            + "Content-Length: \(event.count)\r\n\r\n").utf8) + event.prefix(10)))
        try await waitUntil("the request is arriving") { gateway.server.requestsBeingReceived == 1 }

        let shutdown = Task { await gateway.shutdown(drain: .seconds(5)) }
        try await waitUntil("new connections are refused") { (try? RawConnection(port: gateway.server.port)) == nil }
        XCTAssertTrue(uploading.send(Array(event.dropFirst(10))))

        guard case let .response(status, _, body) = uploading.readReply() else { return XCTFail("no answer to the upload") }
        XCTAssertEqual(status, 503)
        XCTAssertEqual(try JSONParser.parse(body)["error"]?["code"], .string("shutting_down"))
        await shutdown.value
        XCTAssertEqual(providers.apns.statistics.acceptedTotal, 0, "nothing sent")
    }

    /// The shutdown delay: `/readyz` turns 503 at once while a new
    /// connection is still taken and a notification on it delivered, and
    /// answers close their connections; once the delay is over, new
    /// connections are refused.
    func testDuringTheShutdownDelayReadinessFailsAndNotificationsAreStillDelivered() async throws {
        let providers = try DemoProviders()
        defer { providers.stop() }
        let gateway = try Self.gateway(providers)
        let base = "http://127.0.0.1:\(gateway.server.port)"
        let shutdown = Task { await gateway.shutdown(delay: .seconds(3), drain: .seconds(5)) }
        var ready = try await ServiceTestbed.call(base, "GET", "/readyz")
        try await waitUntil("readiness fails as the shutdown starts", within: .seconds(2), every: .milliseconds(20)) {
            ready = try await ServiceTestbed.call(base, "GET", "/readyz")
            return ready.status == 503
        }
        XCTAssertTrue(String(decoding: ready.body, as: UTF8.self).contains("shutting down"))
        let kept = try RawConnection(port: gateway.server.port)
        XCTAssertTrue(kept.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        guard case let .response(200, headers, _) = kept.readReply() else { return XCTFail("healthz during the delay") }
        XCTAssertEqual(headers["connection"]?.lowercased(), "close", "kept-alive clients are moved to new connections")
        let event = ServiceTestbed.event(id: "delay:1", tokens: [ServiceTestbed.token(3)])
        let answer = try await ServiceTestbed.call(base, "POST", "/v1/notify", body: event, bearer: ServiceTestbed.bearer)
        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        XCTAssertEqual(providers.apns.statistics.acceptedTotal, 1, "sent during the delay")
        try await waitUntil("new connections are refused after the delay", within: .seconds(10)) {
            (try? RawConnection(port: gateway.server.port)) == nil
        }
        await shutdown.value
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
        try await waitUntil("the silent provider's send has ended") {
            gateway.metrics.registry.value(GatewayMetrics.providerInFlight, ["apns"]) == 0
        }
        XCTAssertEqual(gateway.server.openConnections, 0)
    }

    private static func gateway(_ providers: DemoProviders) throws -> Gateway {
        try Gateway(configuration: providers.gatewayConfiguration(), logger: Logger(minimumLevel: .error))
    }
}
