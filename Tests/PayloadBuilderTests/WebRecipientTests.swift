import XCTest
import PayloadBuilder

/// Browser recipients: an `fcm_web` token and a `webpush` subscription are
/// decoded with every rule of the contract, each refusal naming its field
/// (down to `recipients[N].keys.p256dh`), and rendered as API.md and
/// docs/DECISIONS.md describe.
final class WebRecipientTests: XCTestCase {
    /// A P-256 public key (uncompressed, base64url without padding) and a
    /// 16-byte auth secret, as a browser's `PushSubscription.toJSON()` gives them.
    static let p256dh = "BN-CILFtP24qn5A-U3X30DvoBoAvIpZLpZusO4_VaDDq_uP9J_pkhxPfOGmEeyApnQQHqlfkOqxwQR9mwkOuHWg"
    static let auth = "az4WCWHqbMtI0obZLLPsvA"
    static let endpoint = "https://fcm.googleapis.com/fcm/send/dpH5lCsTSSM:APA91bHqjZxM0VImWWqDRN7U0a3Aycj"

    static func subscription(endpoint: String = endpoint, p256dh: JSONValue = .string(p256dh),
                             auth: JSONValue = .string(auth)) -> JSONValue {
        .object([("platform", .string("webpush")), ("endpoint", .string(endpoint)),
                 ("keys", .object([("p256dh", p256dh), ("auth", auth)]))])
    }

    /// The base event with `recipient` as its fourth recipient (index 3).
    static func withFourth(_ recipient: JSONValue) -> [UInt8] {
        EventFixture.eventBytes { event in
            guard case var .array(items)? = event["recipients"] else { return }
            items.append(.object([("platform", .string("fcm_web")), ("token", .string("web-token-1"))]))
            items.append(recipient)
            event[path: "recipients"] = .array(items)
        }
    }

    private func assertRefused(_ body: [UInt8], config: RenderConfig = EventFixture.demo, field: String,
                               containing words: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let error = expectEventError({ () throws(EventError) in try EventDecoder(config: config).decode(body) },
                                           file: file, line: line) else { return }
        XCTAssertEqual(error.code, .invalidEvent, file: file, line: line)
        XCTAssertEqual(error.field, field, file: file, line: line)
        XCTAssertTrue(error.message.contains(words), "\(error.message)", file: file, line: line)
    }

    // MARK: decoding

    func testASubscriptionDecodesToItsEndpointAndKeyBytes() throws {
        let (event, _) = try XCTUnwrap(decodeEventOrFail(Self.withFourth(Self.subscription())))
        XCTAssertEqual(event.recipients.map(\.platform), [.fcm, .apns, .fcmWeb, .webpush])
        let browser = event.recipients[3]
        XCTAssertEqual(browser.token, Self.endpoint)
        let keys = try XCTUnwrap(browser.webPushKeys)
        XCTAssertEqual(keys.p256dh.count, 65)
        XCTAssertEqual(keys.p256dh.first, 0x04)
        // Independent: Foundation's base64 of the same text, made standard and padded.
        let standard = Self.auth.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "=="
        XCTAssertEqual(keys.auth, Array(try XCTUnwrap(Data(base64Encoded: standard))))
        XCTAssertNil(event.recipients[2].webPushKeys)
    }

    func testPaddedKeysAreAcceptedAsTheSameBytes() throws {
        let (plain, _) = try XCTUnwrap(decodeEventOrFail(Self.withFourth(Self.subscription())))
        let padded = Self.subscription(p256dh: .string(Self.p256dh + "="), auth: .string(Self.auth + "=="))
        let (event, _) = try XCTUnwrap(decodeEventOrFail(Self.withFourth(padded)))
        XCTAssertEqual(event.recipients[3].webPushKeys, plain.recipients[3].webPushKeys)
    }

    func testEachBadKeyIsRefusedNamingItsField() {
        let shortPoint = String(Self.p256dh.dropLast(3))  // 84 characters: 63 bytes
        let compressed = "Ag" + String(Self.p256dh.dropFirst(2))  // first byte 0x02
        let cases: [(JSONValue, JSONValue, String, String)] = [
            (.string(Self.p256dh.replacingOccurrences(of: "-", with: "+")), .string(Self.auth), "p256dh", "base64url"),
            (.string(shortPoint), .string(Self.auth), "p256dh", "65 bytes"),
            (.string(compressed), .string(Self.auth), "p256dh", "0x04"),
            (.string(Self.p256dh + "AB"), .string(Self.auth), "p256dh", "partial byte"),
            (.string(Self.p256dh + "A"), .string(Self.auth), "p256dh", "this one has 66"),
            (.string(Self.p256dh), .string(Self.auth + "AAAA"), "auth", "16-byte"),
            (.string(Self.p256dh), .string("az4WCWHqbMtI0obZLLPsvB"), "auth", "canonical"),
            (.string(Self.p256dh), .int(16), "auth", "must be a string"),
            (.string(Self.p256dh), .string(""), "auth", "must not be empty"),
            (.string(String(repeating: "A", count: 200)), .string(Self.auth), "p256dh", "longer than 128"),
        ]
        for (p256dh, auth, field, words) in cases {
            assertRefused(Self.withFourth(Self.subscription(p256dh: p256dh, auth: auth)),
                          field: "recipients[3].keys.\(field)", containing: words)
        }
    }

    func testMissingAndUnknownKeyMembersAreRefused() {
        var noAuth = Self.subscription()
        noAuth[path: "keys.auth"] = nil
        assertRefused(Self.withFourth(noAuth), field: "recipients[3].keys.auth", containing: "is required")
        var noKeys = Self.subscription()
        noKeys[path: "keys"] = nil
        assertRefused(Self.withFourth(noKeys), field: "recipients[3].keys", containing: "is required")
        var extra = Self.subscription()
        extra[path: "keys.expirationTime"] = .null
        assertRefused(Self.withFourth(extra), field: "recipients[3].keys.expirationTime", containing: "unknown field")
        var notObject = Self.subscription()
        notObject[path: "keys"] = .string("p256dh")
        assertRefused(Self.withFourth(notObject), field: "recipients[3].keys", containing: "must be an object")
    }

    func testEndpointsMustBeHTTPSWithAHostAndBounded() {
        let cases: [(String, String)] = [
            ("http://push.example.com/sub/1", "https://"),
            ("https:///sub/1", "host"),
            ("https://user@push.example.com/sub/1", "user information"),
            ("https://push.example.com/sub/1#frag", "fragment"),
            ("https://push.example.com/sub/ü", "printable ASCII"),
            ("https://push.example.com/" + String(repeating: "a", count: 2048), "longer than 2048"),
            ("push.example.com/sub/1", "https://"),
        ]
        for (endpoint, words) in cases {
            assertRefused(Self.withFourth(Self.subscription(endpoint: endpoint)), field: "recipients[3].endpoint", containing: words)
        }
        let upper = Self.withFourth(Self.subscription(endpoint: "HTTPS://push.example.com/sub/1"))
        XCTAssertNotNil(decodeEventOrFail(upper))
    }

    func testTokensAndSubscriptionMembersStayWithTheirPlatform() {
        var tokened = Self.subscription()
        tokened[path: "token"] = .string("abc")
        assertRefused(Self.withFourth(tokened), field: "recipients[3].token", containing: "endpoint and keys")
        var noEndpoint = Self.subscription()
        noEndpoint[path: "endpoint"] = nil
        assertRefused(Self.withFourth(noEndpoint), field: "recipients[3].endpoint", containing: "is required")
        let fcmWithEndpoint = JSONValue.object([("platform", .string("fcm")), ("token", .string("t-2")),
                                                ("endpoint", .string(Self.endpoint))])
        assertRefused(Self.withFourth(fcmWithEndpoint), field: "recipients[3].endpoint", containing: "only a webpush")
        let webWithKeys = JSONValue.object([("platform", .string("fcm_web")), ("token", .string("t-3")),
                                            ("keys", .object([("p256dh", .string(Self.p256dh)), ("auth", .string(Self.auth))]))])
        assertRefused(Self.withFourth(webWithKeys), field: "recipients[3].keys", containing: "only a webpush")
        var nullToken = Self.subscription()
        nullToken[path: "token"] = .null
        assertRefused(Self.withFourth(nullToken), field: "recipients[3].token", containing: "endpoint and keys")
        let fcmWithNullKeys = JSONValue.object([("platform", .string("fcm")), ("token", .string("t-4")), ("keys", .null)])
        assertRefused(Self.withFourth(fcmWithNullKeys), field: "recipients[3].keys", containing: "only a webpush")
        let badWebToken = JSONValue.object([("platform", .string("fcm_web")), ("token", .string("has space"))])
        assertRefused(Self.withFourth(badWebToken), field: "recipients[3].token", containing: "printable ASCII")
        let unknown = JSONValue.object([("platform", .string("web")), ("token", .string("t"))])
        assertRefused(Self.withFourth(unknown), field: "recipients[3].platform", containing: "\"fcm_web\" or \"webpush\"")
    }

    func testASubscriptionNamedTwiceIsRefusedAtItsEndpoint() {
        let body = EventFixture.eventBytes { event in
            event[path: "recipients"] = .array([Self.subscription(), Self.subscription()])
        }
        assertRefused(body, field: "recipients[1].endpoint", containing: "the same endpoint as recipients[0]")
    }

    func testAnFCMWebTokenNeedsFCMCredentialsButASubscriptionIsNotRefused() {
        let apnsOnly = EventFixture.config("""
            {"apps": [{"name": "ios", "apns": {"topic": "com.example.ios"}}]}
            """)
        let web = EventFixture.eventBytes { event in
            event[path: "recipients"] = .array([.object([("platform", .string("apns")), ("token", .string(EventFixture.apnsToken))]),
                                                .object([("platform", .string("fcm_web")), ("token", .string("web-1"))])])
        }
        assertRefused(web, config: apnsOnly, field: "recipients[1].platform", containing: "no fcm credentials")
        let subscribed = EventFixture.eventBytes { event in
            event[path: "recipients"] = .array([.object([("platform", .string("apns")), ("token", .string(EventFixture.apnsToken))]),
                                                Self.subscription()])
        }
        XCTAssertNotNil(decodeEventOrFail(subscribed, config: apnsOnly))
    }

    // MARK: rendering

    func testAWebTokenGetsTheWebpushBlockAndNoPhoneBlocks() throws {
        let (event, app) = try XCTUnwrap(decodeEventOrFail(Self.withFourth(Self.subscription())))
        let rendered = try EventRenderer(config: EventFixture.demo).render(event, app: app, avatar: .none, now: 1_700_000_000)
        let web = try XCTUnwrap(rendered.requests.first { $0.platform == .fcmWeb })
        XCTAssertEqual(web.url, "https://fcm.googleapis.com/v1/projects/pushgw-demo/messages:send")
        let message = try XCTUnwrap(parseJSONOrFail(web.body)["message"])
        XCTAssertEqual(message.memberKeys, ["token", "data", "webpush"])
        XCTAssertEqual(message[path: "webpush.headers"]?.memberKeys, ["TTL", "Urgency", "Topic"])
        XCTAssertEqual(message[path: "webpush.notification.tag"], .string("37791233165968"))
        XCTAssertEqual(message[path: "webpush.notification.renotify"], .bool(true))
        // Not resolved: no icon; the demo app has no link template: no fcm_options.
        XCTAssertNil(message[path: "webpush.notification.icon"])
        XCTAssertNil(message[path: "webpush.fcm_options"])
        let phone = try XCTUnwrap(rendered.requests.first { $0.platform == .fcm })
        XCTAssertEqual(message["data"], parseJSONOrFail(phone.body)[path: "message.data"])
    }

    func testASubscriptionIsSkippedPerDeviceWithItsPlaintext() throws {
        let (event, app) = try XCTUnwrap(decodeEventOrFail(Self.withFourth(Self.subscription())))
        let avatar = AvatarState.ok(url: "https://example.com/avatar/64x64.jpeg", mime: "image/jpeg", bytes: 10,
                                    sha256: String(repeating: "ab", count: 32))
        let rendered = try EventRenderer(config: EventFixture.demo).render(event, app: app, avatar: avatar, now: 1_700_000_000)
        XCTAssertEqual(rendered.requests.map(\.platform), [.fcm, .apns, .fcmWeb])
        XCTAssertEqual(rendered.skipped.count, 1)
        let skip = try XCTUnwrap(rendered.skipped.first)
        XCTAssertEqual(skip.recipientIndex, 3)
        XCTAssertEqual(skip.platform, .webpush)
        XCTAssertEqual(skip.token, Self.endpoint)
        XCTAssertEqual(skip.reason, "platform_not_configured")
        let plaintext = parseJSONOrFail(try XCTUnwrap(skip.plaintext))
        XCTAssertEqual(plaintext.memberKeys, ["title", "body", "tag", "icon", "data"])
        XCTAssertEqual(plaintext["icon"], .string("https://example.com/avatar/64x64.jpeg"))
        let phone = try XCTUnwrap(rendered.requests.first { $0.platform == .fcm })
        XCTAssertEqual(plaintext["data"], parseJSONOrFail(phone.body)[path: "message.data"])
        XCTAssertEqual(plaintext["body"], parseJSONOrFail(phone.body)[path: "message.notification.body"])
        // The /v1/render answer shows it, and both writers agree.
        let report = parseJSONOrFail(try EventRenderer(config: EventFixture.demo)
            .renderReport(event, app: app, avatar: avatar, now: 1_700_000_000))
        XCTAssertEqual(report[path: "skipped.0.plaintext"], plaintext)
        XCTAssertEqual(report, parseJSONOrFail(RenderReport.json(rendered, pretty: false)))
    }

    func testAnAppWithoutFCMSkipsAHandBuiltWebToken() throws {
        let app = AppProfile(name: "ios", apns: APNsTarget(topic: "com.example.ios"))
        let config = try RenderConfig(apps: [app])
        let event = Event(eventID: "e", conversation: Conversation(id: "c"), message: Message(id: "m", text: "hi"),
                          sender: Sender(id: "s", displayName: "S"), recipients: [Recipient(platform: .fcmWeb, token: "w")])
        let rendered = try EventRenderer(config: config).render(event, app: app, avatar: .none, now: 0)
        XCTAssertEqual(rendered.skipped.map(\.reason), ["platform_not_configured"])
        XCTAssertEqual(rendered.skipped.map(\.platform), [.fcmWeb])
    }

    func testAnAppWithAVAPIDKeyRendersTheSubscriptionAsARequestWithTheSamePlaintext() throws {
        let (event, _) = try XCTUnwrap(decodeEventOrFail(Self.withFourth(Self.subscription(endpoint: Self.endpoint + "?x=1"))))
        var app = EventFixture.demo.apps[0]
        let skipping = try EventRenderer(config: EventFixture.demo).render(event, app: app, avatar: .none, now: 1_700_000_000)
        app.sendsWebPush = true
        let config = try RenderConfig(apps: [app])
        let rendered = try EventRenderer(config: config).render(event, app: app, avatar: .none, now: 1_700_000_000)
        XCTAssertTrue(rendered.skipped.isEmpty)
        let request = try XCTUnwrap(rendered.requests.first { $0.platform == .webpush })
        XCTAssertEqual(request.recipientIndex, 3)
        XCTAssertEqual(request.token, Self.endpoint + "?x=1")
        XCTAssertEqual(request.origin, "https://fcm.googleapis.com")
        XCTAssertEqual(request.path, "/fcm/send/dpH5lCsTSSM:APA91bHqjZxM0VImWWqDRN7U0a3Aycj?x=1")
        XCTAssertEqual(Array(request.body), skipping.skipped.first?.plaintext, "the same plaintext as the skip shows")
        XCTAssertEqual(request.headers.map(\.name), ["ttl", "urgency", "topic", "content-encoding", "content-type"])
        XCTAssertEqual(request.header("content-encoding"), "aes128gcm")
        // The topic is the fcm_web block's, one derivation for both.
        let web = try XCTUnwrap(rendered.requests.first { $0.platform == .fcmWeb })
        XCTAssertEqual(parseJSONOrFail(web.body)[path: "message.webpush.headers.Topic"], .string(try XCTUnwrap(request.header("topic"))))
        XCTAssertEqual(parseJSONOrFail(web.body)[path: "message.webpush.headers.Urgency"], .string(try XCTUnwrap(request.header("urgency"))))
        XCTAssertEqual(request.webPushKeys?.p256dh.count, 65)
        XCTAssertEqual(request.webPushKeys?.auth.count, 16)
        // /v1/render shows it with a redacted VAPID authorization, and both writers agree.
        let report = parseJSONOrFail(try EventRenderer(config: config).renderReport(event, app: app, avatar: .none, now: 1_700_000_000))
        XCTAssertEqual(report, parseJSONOrFail(RenderReport.json(rendered, pretty: false)))
        XCTAssertEqual(report[path: "requests.3.headers.authorization"], .string("vapid <redacted>"))
        XCTAssertEqual(report[path: "requests.3.url"], .string(Self.endpoint + "?x=1"))
    }
}
