import GatewayService
@testable import GatewayHTTP
import PayloadBuilder
import XCTest

/// The avatar resolver in the service: a hostile avatar never reaches the
/// payload, and `/v1/render` says why it was dropped.
final class AvatarEndToEndTests: XCTestCase {
    func testAnAvatarOnALoopbackAddressIsDroppedAndItsURLLeftOutOfThePayload() async throws {
        let metrics = MetricsRegistry()
        let testbed = try ServiceTestbed(avatars: AvatarResolver(metrics: metrics))
        let body = ServiceTestbed.event(tokens: [ServiceTestbed.token(5)], avatarURL: "https://127.0.0.1:9/avatar.png")
        let render = try await testbed.call("POST", "/v1/render", body: body)
        let json = try JSONParser.parse(render.body)
        XCTAssertEqual(json["avatar"]?["state"], .string("dropped"))
        XCTAssertEqual(json["avatar"]?["reason"], .string("private_address"))
        guard case let .array(requests)? = json["requests"], let payload = requests.first?["body"] else { return XCTFail() }
        XCTAssertEqual(payload["avatar_url"], .string(""), "a dropped avatar's data key is empty (the SDK's extension needs the key)")
        XCTAssertNil(payload["notifee_options"]?["ios"]?["communicationInfo"]?["sender"]?["avatar"])
        XCTAssertEqual(metrics.value(GatewayMetrics.avatarFetch, ["private_address"]), 1)

        let notify = try await testbed.call("POST", "/v1/notify", body: body)
        XCTAssertEqual(notify.status, 200, "a dropped avatar does not stop the notification")
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)
    }

    /// The avatar may take at most half the time a notify has left to
    /// send: with a 2 s deadline a stalled avatar is dropped after about a
    /// second and the notification sent (regression: the avatar's own
    /// 3 s timeout used up the whole deadline, and nothing was sent).
    func testASlowAvatarLeavesTheNotificationTimeToBeSent() async throws {
        let server = try startServer(["/stalled.png": .stall])
        var settings = Dispatcher.Settings()
        settings.requestDeadline = .seconds(2)
        let metrics = MetricsRegistry()
        let testbed = try ServiceTestbed(settings: settings,
                                         avatars: AvatarResolver(policy: AvatarPolicy(allowHTTP: true, allowPrivateAddresses: true),
                                                                 metrics: metrics))
        let body = ServiceTestbed.event(tokens: [ServiceTestbed.token(8)], avatarURL: server.url("/stalled.png"))
        let notify = try await testbed.call("POST", "/v1/notify", body: body)
        XCTAssertEqual(notify.status, 200, String(decoding: notify.body, as: UTF8.self))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)
        XCTAssertEqual(metrics.value(GatewayMetrics.avatarFetch, ["timeout"]), 1)
    }

    func testPlainHTTPAvatarsAreDroppedByDefault() async throws {
        let testbed = try ServiceTestbed(avatars: AvatarResolver())
        let body = ServiceTestbed.event(tokens: [ServiceTestbed.token(6)], avatarURL: "http://example.com/a.png")
        let json = try JSONParser.parse(try await testbed.call("POST", "/v1/render", body: body).body)
        XCTAssertEqual(json["avatar"]?["state"], .string("dropped"))
        XCTAssertEqual(json["avatar"]?["reason"], .string("scheme_not_allowed"))
    }

    /// A resolved avatar whose URL leaves no room (a long presigned CDN URL)
    /// is left out, not the event refused: the answer would otherwise depend
    /// on whether the CDN is up. Render says why; metrics count it.
    func testAResolvedAvatarThatCannotFitIsLeftOutAndTheNotificationSent() async throws {
        let path = "/" + String(repeating: "a", count: 1990) + ".png"
        let server = try startServer([path: .body(status: 200, contentType: "image/png", bytes: AvatarFixtures.png)])
        let url = "http://127.0.0.1:\(server.port)\(path)"
        let testbed = try ServiceTestbed(avatars: AvatarResolver(policy: AvatarPolicy(allowHTTP: true, allowPrivateAddresses: true)))
        let body = ServiceTestbed.event(tokens: [ServiceTestbed.token(7)], avatarURL: url)

        let render = try await testbed.call("POST", "/v1/render", body: body)
        XCTAssertEqual(render.status, 200, String(decoding: render.body, as: UTF8.self))
        let json = try JSONParser.parse(render.body)
        XCTAssertEqual(json["avatar"]?["state"], .string("dropped"))
        XCTAssertEqual(json["avatar"]?["reason"], .string("does_not_fit"))

        let notify = try await testbed.call("POST", "/v1/notify", body: body)
        XCTAssertEqual(notify.status, 200, String(decoding: notify.body, as: UTF8.self))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)
        XCTAssertEqual(testbed.metrics.registry.value(GatewayMetrics.avatarFetch, ["does_not_fit"]), 1)
        XCTAssertEqual(server.seen.requests.count, 1, "fetched once, then cached")
    }

    /// A duplicate is answered from the record before its avatar is looked
    /// at, whichever entry point takes it: it adds nothing to the
    /// avatar metrics (it added a refusal or a cache hit per duplicate).
    func testADuplicateLooksUpNoAvatar() async throws {
        let metrics = MetricsRegistry()
        let testbed = try ServiceTestbed(avatars: AvatarResolver(metrics: metrics))
        let body = ServiceTestbed.event(id: "dup-avatar", tokens: [ServiceTestbed.token(8)], avatarURL: "https://127.0.0.1:9/avatar.png")
        let first = try await testbed.call("POST", "/v1/notify", body: body)
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(metrics.value(GatewayMetrics.avatarFetch, ["private_address"]), 1)
        for _ in 0..<3 {
            let again = try await testbed.call("POST", "/v1/notify", body: body)
            XCTAssertEqual(try JSONParser.parse(again.body)["duplicate"], .bool(true))
        }
        XCTAssertEqual(metrics.value(GatewayMetrics.avatarFetch, ["private_address"]), 1)
        XCTAssertEqual(metrics.value(GatewayMetrics.avatarFetch, ["cached"]), 0)
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)
    }
}
