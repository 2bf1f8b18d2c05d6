import APNsSimulator
import Foundation
import GatewayService
import HTTP2Client
import NetworkSockets
import PayloadBuilder
import TestSupport
import WebPush
import WebPushClient
import XCTest

/// `/v1/notify` with `webpush` subscriptions beside APNs and FCM devices,
/// against the strict web push service simulator (it checks VAPID and the
/// headers and decrypts each message with the subscription's private key).
final class WebPushEndToEndTests: XCTestCase {
    /// A web push simulator, the app's VAPID key, and the gateway's testbed
    /// sending through a sender made from the app's settings.
    final class Setup {
        let pushService: WebPushSimulator
        let key: VAPIDKey
        let keyFile: String
        let caFile: String
        let testbed: ServiceTestbed
        let sender: WebPushSender

        init(settings: Dispatcher.Settings = Dispatcher.Settings(), servesHTTP11: Bool = false, route: ProxyRoute = .direct,
             configure: (inout GatewayConfiguration.WebPushSettings) -> Void = { _ in }) throws {
            pushService = try WebPushSimulator(configuration: WebPushSimulatorConfiguration(servesHTTP11: servesHTTP11))
            try pushService.start()
            let folder = NSTemporaryDirectory() + "pushgw-webpush-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            caFile = folder + "/ca.pem"
            try pushService.writeCA(to: caFile)
            key = try VAPIDKey.generate()
            keyFile = folder + "/vapid.pem"
            try key.privateKeyPEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
            var webPush = GatewayConfiguration.WebPushSettings(vapidKeyFile: keyFile, vapidSubject: "mailto:ops@example.com")
            // The loopback simulator, allowed explicitly: its host, and private addresses.
            webPush.allowedHosts = ["127.0.0.1"]
            webPush.allowPrivateAddresses = true
            webPush.caFile = caFile
            configure(&webPush)
            var options = HTTP2ConnectionOptions()
            options.route = route
            sender = try webPush.makeSender(options: options)
            testbed = try ServiceTestbed(settings: settings, webPush: sender)
        }

        deinit {
            pushService.stop()
            try? FileManager.default.removeItem(atPath: (keyFile as NSString).deletingLastPathComponent)
        }

        /// A browser's subscription to the app's VAPID key.
        func subscribe() throws -> WebPushSubscription {
            try pushService.makeSubscription(applicationServerKey: key.publicKeyBase64URL)
        }
    }

    /// An event for APNs `tokens`, FCM `fcmTokens` and web push `subscriptions` (endpoint, p256dh, auth).
    static func event(id: String = "c-1:m-1", tokens: [String] = [], fcmTokens: [String] = [],
                      subscriptions: [(endpoint: String, p256dh: String, auth: String)], text: String = "hello") -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("event_id", id)
        writer.key("conversation"); writer.beginObject(); writer.member("id", "c-1"); writer.endObject()
        writer.key("message"); writer.beginObject(); writer.member("id", "m-1"); writer.member("text", text); writer.endObject()
        writer.key("sender"); writer.beginObject(); writer.member("id", "u-1"); writer.member("display_name", "Alice"); writer.endObject()
        writer.key("recipients")
        writer.beginArray()
        for token in tokens {
            writer.beginObject(); writer.member("platform", "apns"); writer.member("token", token); writer.endObject()
        }
        for token in fcmTokens {
            writer.beginObject(); writer.member("platform", "fcm"); writer.member("token", token); writer.endObject()
        }
        for subscription in subscriptions {
            writer.beginObject()
            writer.member("platform", "webpush")
            writer.member("endpoint", subscription.endpoint)
            writer.key("keys"); writer.beginObject()
            writer.member("p256dh", subscription.p256dh); writer.member("auth", subscription.auth)
            writer.endObject()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    static func event(id: String = "c-1:m-1", tokens: [String] = [], fcmTokens: [String] = [],
                      subscriptions: [WebPushSubscription], text: String = "hello") -> [UInt8] {
        event(id: id, tokens: tokens, fcmTokens: fcmTokens, subscriptions: subscriptions.map { ($0.endpoint, $0.p256dh, $0.auth) },
              text: text)
    }

    private func results(_ body: [UInt8]) throws -> [JSONValue] {
        guard case let .array(items)? = try JSONParser.parse(body)["results"] else {
            throw NSError(domain: "no results: " + String(decoding: body, as: UTF8.self), code: 1)
        }
        return items
    }

    func testAMixedEventReachesAPNsFCMAndTheBrowserWithTheRenderedPlaintext() async throws {
        let setup = try Setup()
        let browser = try setup.subscribe()
        let body = Self.event(tokens: [ServiceTestbed.token(1)], fcmTokens: ["fcm-token-1"], subscriptions: [browser])
        let render = try JSONParser.parse(try await setup.testbed.call("POST", "/v1/render", body: body).body)
        let answer = try await setup.testbed.call("POST", "/v1/notify", body: body)
        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        let items = try results(answer.body)
        XCTAssertEqual(items.map { $0["status"] }, [.string("sent"), .string("sent"), .string("sent")])
        XCTAssertEqual(items[2]["platform"], .string("webpush"))
        XCTAssertEqual(items[2]["token"], .string(browser.endpoint))
        guard case let .string(location)? = items[2]["provider_id"] else { return XCTFail("no Location") }
        XCTAssertTrue(location.contains("/message/"), location)
        XCTAssertEqual(setup.testbed.simulator.statistics.acceptedTotal, 1)
        XCTAssertEqual(setup.testbed.fcmSimulator.statistics.acceptedTotal, 1)

        let messages = setup.pushService.messages(for: browser.id)
        XCTAssertEqual(messages.count, 1)
        let message = try XCTUnwrap(messages.first)
        guard case let .array(requests)? = render["requests"],
              let shown = requests.first(where: { $0["platform"] == .string("webpush") }) else {
            return XCTFail("/v1/render shows no webpush request: \(render)")
        }
        XCTAssertEqual(try JSONParser.parse(message.plaintext), shown["body"], "the browser decrypts what /v1/render shows")
        guard case let .string(title)? = try JSONParser.parse(message.plaintext)["title"] else { return XCTFail() }
        XCTAssertEqual(title, "Alice")
        XCTAssertEqual(shown["url"], .string(browser.endpoint))
        XCTAssertEqual(shown["headers"]?["authorization"], .string("vapid <redacted>"))
        XCTAssertEqual(message.ttl, 86400)
        XCTAssertEqual(message.urgency, "high")
        XCTAssertEqual(message.topic?.count, 32)
        XCTAssertEqual(message.topic, shown["headers"]?["topic"].flatMap { if case let .string(text) = $0 { text } else { nil } })
        XCTAssertEqual(message.vapidSubject, "mailto:ops@example.com")
        XCTAssertEqual(message.vapidPublicKey, setup.key.publicKeyBase64URL)
        let sent = setup.testbed.metrics.registry.value(GatewayMetrics.notifications, ["webpush", "sent"])
        XCTAssertEqual(sent, 1, "counted under provider webpush")
    }

    func testAGoneSubscriptionIsRejectedAndTheOthersAreSent() async throws {
        let setup = try Setup()
        let gone = try setup.subscribe()
        let live = try setup.subscribe()
        XCTAssertTrue(setup.pushService.unsubscribe(gone.id))
        let answer = try await setup.testbed.call("POST", "/v1/notify", body: Self.event(subscriptions: [gone, live]))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        XCTAssertEqual(try JSONParser.parse(answer.body)["rejected"], .array([.string(gone.endpoint)]))
        let items = try results(answer.body)
        XCTAssertEqual(items[0]["status"], .string("invalid_token"))
        XCTAssertEqual(items[0]["reason"], .string("subscription_gone"))
        XCTAssertEqual(items[1]["status"], .string("sent"))
    }

    func testTooManyRequestsIsRetriedAfterRetryAfter() async throws {
        let setup = try Setup()
        let busy = try setup.subscribe()
        setup.pushService.script(busy.id, responses: [.tooManyRequests(retryAfter: 1)], thereafter: .success)
        let start = ContinuousClock.now
        let answer = try await setup.testbed.call("POST", "/v1/notify", body: Self.event(subscriptions: [busy]))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        XCTAssertEqual(try results(answer.body)[0]["status"], .string("sent"))
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .seconds(1), "Retry-After is honoured")
        XCTAssertEqual(setup.pushService.messages(for: busy.id).count, 1)
        XCTAssertEqual(setup.pushService.statistics.rejectedPerReason["TooManyRequests"], 1)
    }

    func testPayloadTooLargeIsFinalWithAClearReason() async throws {
        let setup = try Setup()
        let small = try setup.subscribe()
        setup.pushService.always(small.id, .payloadTooLarge)
        let answer = try await setup.testbed.call("POST", "/v1/notify", body: Self.event(subscriptions: [small]))
        let item = try results(answer.body)[0]
        XCTAssertEqual(item["status"], .string("failed"))
        XCTAssertEqual(item["reason"], .string("payload_too_large"))
        XCTAssertEqual(item["retryable"], .bool(false))
        XCTAssertEqual(setup.pushService.statistics.rejectedPerReason["PayloadTooLarge"], 1, "sent once, not retried")
    }

    func testARefusedVAPIDAuthorizationIsAConfigurationError() async throws {
        let setup = try Setup()
        // Subscribed with another application server key: the push service refuses ours (403).
        let other = try VAPIDKey.generate()
        let foreign = try setup.pushService.makeSubscription(applicationServerKey: other.publicKeyBase64URL)
        let unauthorized = try setup.subscribe()
        setup.pushService.always(unauthorized.id, WebPushSimulatorResponse(status: 401, reason: "BadJWT"))
        let answer = try await setup.testbed.call("POST", "/v1/notify", body: Self.event(subscriptions: [foreign, unauthorized]))
        let items = try results(answer.body)
        XCTAssertEqual(items[0]["status"], .string("failed"))
        XCTAssertEqual(items[0]["reason"], .string("vapid_forbidden"))
        XCTAssertEqual(items[0]["retryable"], .bool(false))
        XCTAssertEqual(items[1]["reason"], .string("vapid_unauthorized"))
        XCTAssertEqual(items[1]["retryable"], .bool(false))
        XCTAssertEqual(setup.pushService.statistics.rejectedPerReason["VAPIDKeyMismatch"], 1)
        XCTAssertEqual(try JSONParser.parse(answer.body)["rejected"], .array([]), "the subscriptions are not dropped")
    }

    func testAnEndpointOffTheAllowListIsRefusedForItsDeviceOnly() async throws {
        let setup = try Setup()
        let browser = try setup.subscribe()
        let stranger = (endpoint: "https://push.attacker.example/p/1", p256dh: browser.p256dh, auth: browser.auth)
        let body = Self.event(subscriptions: [stranger, (browser.endpoint, browser.p256dh, browser.auth)])
        let answer = try await setup.testbed.call("POST", "/v1/notify", body: body)
        XCTAssertEqual(answer.status, 200, "a skip settles: sending the event again cannot send it")
        let items = try results(answer.body)
        XCTAssertEqual(items[0]["status"], .string("skipped"))
        XCTAssertEqual(items[0]["reason"], .string("endpoint_host_not_allowed"))
        XCTAssertEqual(try JSONParser.parse(answer.body)["rejected"], .array([]), "the subscription is not dropped")
        XCTAssertEqual(items[1]["status"], .string("sent"))
    }

    func testTheDefaultAllowListRefusesTheLoopbackSimulator() async throws {
        let setup = try Setup { $0 = GatewayConfiguration.WebPushSettings(vapidKeyFile: $0.vapidKeyFile, vapidSubject: $0.vapidSubject) }
        XCTAssertEqual(setup.sender.policy.allowedHosts, WebPushEndpointPolicy.defaultAllowedHosts)
        let browser = try setup.subscribe()
        let answer = try await setup.testbed.call("POST", "/v1/notify", body: Self.event(subscriptions: [browser]))
        XCTAssertEqual(try results(answer.body)[0]["status"], .string("skipped"))
        XCTAssertEqual(try results(answer.body)[0]["reason"], .string("endpoint_host_not_allowed"))
        XCTAssertEqual(setup.pushService.statistics.connectionsAccepted, 0)
    }

    func testALoopbackAddressIsRefusedAfterDNSUnlessAllowed() async throws {
        // The host is on the list, but private addresses are not allowed: the guard refuses 127.0.0.1 before connecting.
        let setup = try Setup { $0.allowPrivateAddresses = false }
        let browser = try setup.subscribe()
        let answer = try await setup.testbed.call("POST", "/v1/notify", body: Self.event(subscriptions: [browser]))
        let item = try results(answer.body)[0]
        XCTAssertEqual(item["status"], .string("failed"))
        XCTAssertEqual(item["reason"], .string("address_refused"))
        XCTAssertEqual(item["retryable"], .bool(false))
        XCTAssertEqual(setup.pushService.statistics.connectionsAccepted, 0)
    }

    /// Through the outbound proxy the endpoint's host is resolved and checked
    /// here, and the tunnel goes to the admitted address: the proxy never
    /// resolves the name to an address the rule did not see.
    func testThroughAProxyTheTunnelGoesToTheCheckedAddressOverBothProtocols() async throws {
        try XCTSkipUnless(TinyproxyTestServer.isInstalled, "tinyproxy is not installed (scripts/install-deps)")
        for servesHTTP11 in [false, true] {
            let proxy = try TinyproxyTestServer()
            let route = ProxyRoute(proxy: try OutboundProxy(url: proxy.url))
            let setup = try Setup(servesHTTP11: servesHTTP11, route: route)
            let browser = try setup.subscribe()
            let answer = try await setup.testbed.call("POST", "/v1/notify", body: Self.event(subscriptions: [browser]))
            XCTAssertEqual(try results(answer.body)[0]["status"], .string("sent"), "HTTP/1.1: \(servesHTTP11)")
            XCTAssertEqual(setup.pushService.messages(for: browser.id).count, 1)
            XCTAssertFalse(proxy.connectTargets.isEmpty, "sent through the proxy")
            XCTAssertTrue(proxy.connectTargets.allSatisfy { $0 == "127.0.0.1:\(setup.pushService.port)" }, "\(proxy.connectTargets)")
        }
    }

    /// An endpoint named by host name: the tunnel is asked for the address
    /// the rule admitted, never for the name (which the proxy would resolve
    /// again, perhaps elsewhere).
    func testThroughAProxyTheTunnelIsAskedForTheAddressNotTheName() async throws {
        try XCTSkipUnless(TinyproxyTestServer.isInstalled, "tinyproxy is not installed (scripts/install-deps)")
        let proxy = try TinyproxyTestServer()
        let setup = try Setup(route: ProxyRoute(proxy: try OutboundProxy(url: proxy.url))) { $0.allowedHosts = ["localhost"] }
        let browser = try setup.subscribe()
        let byName = browser.endpoint.replacingOccurrences(of: "https://127.0.0.1:", with: "https://localhost:")
        _ = try await setup.testbed.call("POST", "/v1/notify", body: Self.event(subscriptions: [(byName, browser.p256dh, browser.auth)]))
        // The simulator itself then refuses the JWT, whose audience names
        // localhost rather than the origin it serves: only the tunnel matters here.
        XCTAssertFalse(proxy.connectTargets.isEmpty, "sent through the proxy")
        XCTAssertTrue(proxy.connectTargets.allSatisfy { $0 == "127.0.0.1:\(setup.pushService.port)" }, "\(proxy.connectTargets)")
        XCTAssertGreaterThan(setup.pushService.statistics.connectionsAccepted, 0)
    }

    func testThroughAProxyARefusedAddressIsNeverTunnelledTo() async throws {
        try XCTSkipUnless(TinyproxyTestServer.isInstalled, "tinyproxy is not installed (scripts/install-deps)")
        let proxy = try TinyproxyTestServer()
        let setup = try Setup(route: ProxyRoute(proxy: try OutboundProxy(url: proxy.url))) { $0.allowPrivateAddresses = false }
        let browser = try setup.subscribe()
        let answer = try await setup.testbed.call("POST", "/v1/notify", body: Self.event(subscriptions: [browser]))
        XCTAssertEqual(try results(answer.body)[0]["reason"], .string("address_refused"))
        XCTAssertEqual(proxy.connectTargets, [])
        XCTAssertEqual(setup.pushService.statistics.connectionsAccepted, 0)
    }

    func testOneVAPIDSignatureServesManySendsToOneOrigin() async throws {
        let setup = try Setup()
        let browsers = try (0..<3).map { _ in try setup.subscribe() }
        for index in 0..<20 {
            let answer = try await setup.testbed.call("POST", "/v1/notify", body: Self.event(id: "e-\(index)", subscriptions: browsers))
            XCTAssertEqual(answer.status, 200)
        }
        XCTAssertEqual(setup.pushService.statistics.acceptedTotal, 60)
        XCTAssertEqual(setup.sender.authorizer.signatureCount, 1, "one JWT per origin, not per message")
        XCTAssertEqual(setup.sender.origins.count, 1)
    }

    func testAPushServiceWithoutHTTP2IsSentOverHTTP11() async throws {
        let setup = try Setup(servesHTTP11: true)
        let browser = try setup.subscribe()
        let other = try setup.subscribe()
        let gone = try setup.subscribe()
        XCTAssertTrue(setup.pushService.unsubscribe(gone.id))
        let body = Self.event(tokens: [ServiceTestbed.token(1)], subscriptions: [browser, other, gone])
        let render = try JSONParser.parse(try await setup.testbed.call("POST", "/v1/render", body: body).body)
        let first = try await setup.testbed.call("POST", "/v1/notify", body: body)
        XCTAssertEqual(first.status, 200, String(decoding: first.body, as: UTF8.self))
        let items = try results(first.body)
        XCTAssertEqual(items.map { $0["status"] }, [.string("sent"), .string("sent"), .string("sent"), .string("invalid_token")])
        XCTAssertEqual(try JSONParser.parse(first.body)["rejected"], .array([.string(gone.endpoint)]))
        XCTAssertEqual(setup.sender.http11OriginList.map(\.serialized), [setup.pushService.url])
        XCTAssertTrue(setup.sender.origins.isEmpty, "the HTTP/2 client of that origin is closed")
        // The next event goes over HTTP/1.1 at once.
        let second = try await setup.testbed.call("POST", "/v1/notify", body: Self.event(id: "c-1:m-2", subscriptions: [browser]))
        XCTAssertEqual(try results(second.body)[0]["status"], .string("sent"))
        let messages = setup.pushService.messages(for: browser.id)
        XCTAssertEqual(messages.count, 2)
        guard case let .array(requests)? = render["requests"],
              let shown = requests.first(where: { $0["platform"] == .string("webpush") }) else { return XCTFail() }
        XCTAssertEqual(try JSONParser.parse(try XCTUnwrap(messages.first).plaintext), shown["body"])
        XCTAssertEqual(setup.sender.authorizer.signatureCount, 1)
        // Each message answered on its first HTTP/1.1 attempt, the concurrent ones too.
        XCTAssertEqual(setup.testbed.metrics.registry.value(GatewayMetrics.retries, ["webpush"]), 0)
    }

    func testTooManyRequestsOverHTTP11IsRetriedAfterRetryAfter() async throws {
        let setup = try Setup(servesHTTP11: true)
        let busy = try setup.subscribe()
        setup.pushService.script(busy.id, responses: [.tooManyRequests(retryAfter: 1)], thereafter: .success)
        let start = ContinuousClock.now
        let answer = try await setup.testbed.call("POST", "/v1/notify", body: Self.event(subscriptions: [busy]))
        XCTAssertEqual(try results(answer.body)[0]["status"], .string("sent"), String(decoding: answer.body, as: UTF8.self))
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .seconds(1), "Retry-After is honoured")
        XCTAssertEqual(setup.pushService.messages(for: busy.id).count, 1)
    }
}
