import APNsSimulator
import GatewayService
import PayloadBuilder
import Foundation
import XCTest

/// Browsers beside a phone, through the gateway against the strict
/// simulators: an `fcm_web` token goes through the app's FCM project (the
/// FCM simulator validates its `webpush` block), a `webpush` subscription
/// is answered per device as `skipped` / `platform_not_configured` (no
/// transport sends it yet), and neither holds up the phone.
final class WebRecipientsEndToEndTests: XCTestCase {
    static let endpoint = "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABl2kX8-end-to-end"

    static func event() -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("conversation"); writer.beginObject(); writer.member("id", "c-web"); writer.endObject()
        writer.key("message"); writer.beginObject(); writer.member("id", "m-1"); writer.member("text", "hello browsers"); writer.endObject()
        writer.key("sender"); writer.beginObject(); writer.member("id", "u-1"); writer.member("display_name", "Alice"); writer.endObject()
        writer.key("recipients")
        writer.beginArray()
        writer.beginObject(); writer.member("platform", "apns"); writer.member("token", ServiceTestbed.token(1)); writer.endObject()
        writer.beginObject(); writer.member("platform", "fcm_web"); writer.member("token", "web-token-1"); writer.endObject()
        writer.beginObject()
        writer.member("platform", "webpush")
        writer.member("endpoint", endpoint)
        writer.key("keys")
        writer.beginObject()
        writer.member("p256dh", "BN-CILFtP24qn5A-U3X30DvoBoAvIpZLpZusO4_VaDDq_uP9J_pkhxPfOGmEeyApnQQHqlfkOqxwQR9mwkOuHWg")
        writer.member("auth", "az4WCWHqbMtI0obZLLPsvA")
        writer.endObject()
        writer.endObject()
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    func testABrowserTokenIsSentThroughFCMAndASubscriptionIsAnsweredAsNotConfigured() async throws {
        let testbed = try ServiceTestbed()
        let answer = try await testbed.call("POST", "/v1/notify", body: Self.event())
        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        let json = try JSONParser.parse(answer.body)
        guard case let .array(items)? = json["results"] else { return XCTFail("no results") }
        XCTAssertEqual(items.map { $0["platform"] }, [.string("apns"), .string("fcm_web"), .string("webpush")])
        XCTAssertEqual(items.map { $0["status"] }, [.string("sent"), .string("sent"), .string("skipped")])
        guard case let .string(name)? = items[1]["provider_id"] else { return XCTFail("no FCM message name") }
        XCTAssertTrue(name.hasPrefix("projects/pushgw-test/messages/"), name)
        XCTAssertEqual(items[2]["token"], .string(Self.endpoint))
        XCTAssertEqual(items[2]["reason"], .string("platform_not_configured"))
        XCTAssertEqual(json["rejected"], .array([]))
        XCTAssertEqual(testbed.fcmSimulator.statistics.acceptedTotal, 1)
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)

        let metrics = String(decoding: try await testbed.call("GET", "/metrics").body, as: UTF8.self)
        XCTAssertTrue(metrics.contains("pushgw_notifications_total{provider=\"fcm_web\",status=\"sent\"} 1"), metrics)
        XCTAssertTrue(metrics.contains("pushgw_notifications_total{provider=\"webpush\",status=\"skipped\"} 1"), metrics)
    }

    func testRenderShowsTheSubscriptionsPlaintext() async throws {
        let testbed = try ServiceTestbed()
        let answer = try await testbed.call("POST", "/v1/render", body: Self.event())
        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        let json = try JSONParser.parse(answer.body)
        XCTAssertEqual(value(json, "skipped.0.platform"), .string("webpush"))
        XCTAssertEqual(value(json, "skipped.0.plaintext.body"), .string("hello browsers"))
        XCTAssertEqual(value(json, "skipped.0.plaintext.tag"), .string("c-web"))
        XCTAssertEqual(value(json, "requests.1.platform"), .string("fcm_web"))
        XCTAssertNotNil(value(json, "requests.1.body.message.webpush.headers.Topic"))
        XCTAssertEqual(testbed.fcmSimulator.statistics.acceptedTotal, 0, "render sends nothing")
    }
}

/// The value at a dotted path (`skipped.0.plaintext.body`), array positions as numbers.
private func value(_ json: JSONValue, _ path: String) -> JSONValue? {
    var current: JSONValue? = json
    for step in path.split(separator: ".") {
        if let index = Int(step) {
            guard case let .array(items)? = current, items.indices.contains(index) else { return nil }
            current = items[index]
        } else {
            current = current?[String(step)]
        }
    }
    return current
}
