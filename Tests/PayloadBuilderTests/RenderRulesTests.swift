import XCTest
@testable import PayloadBuilder

/// Provider requests rendered by `EventRenderer`: headers, bodies, skips,
/// avatar handling, data key names and the 4096-byte payload limit.
final class RenderRulesTests: XCTestCase {
    private static let now: Int64 = 1_700_000_000

    // MARK: helpers

    private func decoded(_ edit: (inout JSONValue) -> Void = { _ in }, config: RenderConfig = EventFixture.demo,
                         file: StaticString = #filePath, line: UInt = #line) throws -> (event: Event, app: AppProfile) {
        try XCTUnwrap(decodeEventOrFail(EventFixture.eventBytes(edit), config: config, file: file, line: line),
                      file: file, line: line)
    }

    private func render(_ edit: (inout JSONValue) -> Void = { _ in }, config: RenderConfig = EventFixture.demo,
                        avatar: AvatarState? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> RenderedEvent {
        let (event, app) = try decoded(edit, config: config, file: file, line: line)
        return try EventRenderer(config: config).render(event, app: app,
                                                        avatar: avatar ?? AvatarState(unresolvedURL: event.sender.avatarURL),
                                                        now: Self.now)
    }

    private func request(_ rendered: RenderedEvent, _ platform: Platform, file: StaticString = #filePath,
                         line: UInt = #line) throws -> ProviderRequest {
        try XCTUnwrap(rendered.requests.first(where: { $0.platform == platform }), "no \(platform) request",
                      file: file, line: line)
    }

    private func body(_ request: ProviderRequest, file: StaticString = #filePath, line: UInt = #line) -> JSONValue {
        parseJSONOrFail(request.body, file: file, line: line)
    }

    private static func compactBytes(_ value: JSONValue) -> Int {
        var writer = JSONWriter()
        writer.value(value)
        return writer.bytes.count
    }

    /// What FCM counts against 4096 bytes: data keys and values, title and
    /// body, and the compact `apns.payload`.
    private static func fcmCountedBytes(_ body: JSONValue) -> Int {
        let data = body[path: "message.data"]?.objectMembers ?? []
        let dataBytes = data.reduce(0) { $0 + $1.key.utf8.count + ($1.value.asString?.utf8.count ?? 0) }
        let title = body[path: "message.notification.title"]?.asString?.utf8.count ?? 0
        let text = body[path: "message.notification.body"]?.asString?.utf8.count ?? 0
        return dataBytes + title + text + compactBytes(body[path: "message.apns.payload"] ?? .null)
    }

    // MARK: APNs headers

    func testAPNsRequestGoesToTheDevicePathWithTheDocumentedHeaders() throws {
        let apns = try request(render(), .apns)
        XCTAssertEqual(apns.method, "POST")
        XCTAssertEqual(apns.url, "https://api.push.apple.com/3/device/\(EventFixture.apnsToken)")
        XCTAssertEqual(apns.header("apns-topic"), "com.example.pushgw")
        XCTAssertEqual(apns.header("apns-push-type"), "alert")
        XCTAssertEqual(apns.header("apns-priority"), "10")
        XCTAssertEqual(apns.header("apns-expiration"), String(Self.now + 86_400))
        XCTAssertEqual(apns.header("apns-collapse-id"), "37791233165968:537")
        XCTAssertEqual(apns.header("apns-id"), APNsID.derive(eventID: "37791233165968:537", token: EventFixture.apnsToken))
        XCTAssertNil(apns.header("authorization"), "the transport adds authorization")
    }

    func testNormalPriorityGivesAPNsPriority5AndAndroidNormal() throws {
        let rendered = try render { $0[path: "notification.priority"] = .string("normal") }
        XCTAssertEqual(try request(rendered, .apns).header("apns-priority"), "5")
        let fcm = body(try request(rendered, .fcm))
        XCTAssertEqual(fcm[path: "message.android.priority"], .string("normal"))
        XCTAssertEqual(fcm[path: "message.apns.headers.apns-priority"], .string("5"))
    }

    func testHighPriorityGivesAPNsPriority10AndAndroidHigh() throws {
        let rendered = try render { $0[path: "notification.priority"] = .string("high") }
        XCTAssertEqual(try request(rendered, .apns).header("apns-priority"), "10")
        XCTAssertEqual(body(try request(rendered, .fcm))[path: "message.android.priority"], .string("high"))
    }

    func testExpirationIsNowPlusTTL() throws {
        let rendered = try render { $0[path: "notification.ttl_seconds"] = .int(3600) }
        XCTAssertEqual(try request(rendered, .apns).header("apns-expiration"), "1700003600")
        let fcm = body(try request(rendered, .fcm))
        XCTAssertEqual(fcm[path: "message.android.ttl"], .string("3600s"))
        XCTAssertEqual(fcm[path: "message.apns.headers.apns-expiration"], .string("1700003600"))
    }

    func testDefaultTTLIsOneDay() throws {
        let rendered = try render { $0[path: "notification"] = nil }
        XCTAssertEqual(try request(rendered, .apns).header("apns-expiration"), "1700086400")
        XCTAssertEqual(body(try request(rendered, .fcm))[path: "message.android.ttl"], .string("86400s"))
    }

    func testTTLZeroMeansOneAttempt() throws {
        let rendered = try render { $0[path: "notification.ttl_seconds"] = .int(0) }
        XCTAssertEqual(try request(rendered, .apns).header("apns-expiration"), "0")
        XCTAssertEqual(body(try request(rendered, .fcm))[path: "message.android.ttl"], .string("0s"))
    }

    func testCollapseIDIsTheEventID() throws {
        let rendered = try render { $0[path: "event_id"] = .string("retry-key-1") }
        XCTAssertEqual(rendered.eventID, "retry-key-1")
        XCTAssertEqual(try request(rendered, .apns).header("apns-collapse-id"), "retry-key-1")
        XCTAssertEqual(body(try request(rendered, .fcm))[path: "message.apns.headers.apns-collapse-id"], .string("retry-key-1"))
    }

    func testAnEventIDOf64BytesIsTheCollapseIDAsIs() throws {
        let id = String(repeating: "e", count: 64)
        let rendered = try render { $0[path: "event_id"] = .string(id) }
        XCTAssertEqual(try request(rendered, .apns).header("apns-collapse-id"), id)
    }

    func testALongerEventIDIsHashedIntoA64HexDigitCollapseID() throws {
        let id = String(repeating: "x", count: 100)
        let rendered = try render { $0[path: "event_id"] = .string(id) }
        let collapse = try XCTUnwrap(try request(rendered, .apns).header("apns-collapse-id"))
        XCTAssertEqual(collapse.utf8.count, 64)
        XCTAssertTrue(collapse.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }, collapse)
        XCTAssertEqual(collapse, SHA256.hexDigest(Array(id.utf8)))
        // A 65-byte multi-byte id is over the limit too.
        let emoji = String(repeating: "🎧", count: 16) + "x"
        XCTAssertEqual(emoji.utf8.count, 65)
        let hashed = try render { $0[path: "event_id"] = .string(emoji) }
        XCTAssertEqual(try request(hashed, .apns).header("apns-collapse-id"), SHA256.hexDigest(Array(emoji.utf8)))
    }

    func testAPNsTopicAndOriginComeFromTheApp() throws {
        let config = EventFixture.config("""
            {"apps": [{"name": "chat", "apns": {"topic": "com.example.chat", "environment": "sandbox"},
                       "fcm": {"project_id": "chat-project", "base_url": "http://127.0.0.1:9000/"}}]}
            """)
        let rendered = try render(config: config)
        let apns = try request(rendered, .apns)
        XCTAssertEqual(apns.header("apns-topic"), "com.example.chat")
        XCTAssertEqual(apns.url, "https://api.sandbox.push.apple.com/3/device/\(EventFixture.apnsToken)")
        XCTAssertEqual(try request(rendered, .fcm).url, "http://127.0.0.1:9000/v1/projects/chat-project/messages:send")
    }

    /// Header values must be valid HTTP field values: no CR, LF or NUL (RFC 9110 §5.5).
    func testNoHeaderValueCarriesAControlCharacterFromTheEvent() throws {
        let body = EventFixture.eventBytes { $0[path: "event_id"] = .string("abc\r\napns-priority: 10\u{0}") }
        let decoder = EventDecoder(config: EventFixture.demo)
        let decoded: (event: Event, app: AppProfile)
        do {
            decoded = try decoder.decode(body)
        } catch {
            XCTAssertEqual(error.field, "event_id", "refusing the event_id is fine too")
            return
        }
        let rendered = try EventRenderer(config: EventFixture.demo).render(decoded.event, app: decoded.app,
                                                                           avatar: .none, now: Self.now)
        for request in rendered.requests {
            for header in request.headers {
                XCTAssertFalse(header.value.utf8.contains { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F },
                               "\(header.name): \(header.value.debugDescription)")
            }
        }
    }

    // MARK: APNs payload

    func testAPNsPayloadCarriesAlertThreadDataAndNotifee() throws {
        let payload = body(try request(render(), .apns))
        XCTAssertEqual(payload.memberKeys?.prefix(2), ["aps", "notifee_options"])
        XCTAssertEqual(payload[path: "aps.alert.title"], .string("🎧 Zalo - Tran Nghia"))
        XCTAssertEqual(payload[path: "aps.alert.body"], .string("Nghĩa: Hello"))
        XCTAssertEqual(payload[path: "aps.thread-id"], .string("37791233165968"))
        XCTAssertEqual(payload[path: "aps.category"], .string("communications"))
        XCTAssertEqual(payload[path: "aps.content-available"], .int(1))
        XCTAssertEqual(payload[path: "aps.mutable-content"], .int(1))
        XCTAssertEqual(payload[path: "aps.sound"], .string("default"))
        XCTAssertNil(payload[path: "aps.badge"], "the APNs recipient has no badge")
        XCTAssertEqual(payload["ps_thread_id"], .string("37791233165968"))
        XCTAssertEqual(payload["ps_message_id"], .string("537"))
        XCTAssertEqual(payload["text"], .string("Hello"))
        XCTAssertEqual(payload["any_extra_key"], .string("string values only"))
        let info = payload[path: "notifee_options.ios.communicationInfo"]
        XCTAssertEqual(info?["conversationId"], .string("37791233165968"))
        XCTAssertEqual(info?["messageId"], .string("537"))
        XCTAssertEqual(info?["groupName"], .string("🎧 Zalo - Tran Nghia"))
        XCTAssertEqual(info?[path: "sender.id"], .string("6872016393687471"))
        XCTAssertEqual(info?[path: "sender.displayName"], .string("Nghĩa"))
        XCTAssertEqual(info?[path: "sender.avatar"], .string("https://example.com/avatar/64x64.jpeg"))
    }

    func testTheBadgeIsPerDevice() throws {
        let third = JSONValue.object([("platform", .string("apns")), ("token", .string(String(repeating: "cd", count: 32))),
                                      ("badge", .int(Int64(Int32.max)))])
        let rendered = try render {
            $0[path: "recipients.1.badge"] = .int(7)
            $0[path: "recipients.2"] = third
        }
        let apns = rendered.requests.filter { $0.platform == .apns }.map { body($0)[path: "aps.badge"] }
        XCTAssertEqual(apns, [.int(7), .int(Int64(Int32.max))])
        XCTAssertEqual(body(try request(rendered, .fcm))[path: "message.apns.payload.aps.badge"], .int(3))
    }

    func testNoSoundLeavesTheSoundKeyOut() throws {
        let rendered = try render { $0[path: "notification.sound"] = .null }
        XCTAssertNil(body(try request(rendered, .apns))[path: "aps.sound"])
        XCTAssertNil(body(try request(rendered, .fcm))[path: "message.apns.payload.aps.sound"])
    }

    // MARK: FCM body

    func testFCMRequestCarriesTokenNotificationDataAndAndroid() throws {
        let fcm = try request(render(), .fcm)
        XCTAssertEqual(fcm.url, "https://fcm.googleapis.com/v1/projects/pushgw-demo/messages:send")
        XCTAssertEqual(fcm.header("content-type"), "application/json")
        let message = body(fcm)["message"]
        XCTAssertEqual(message?.memberKeys, ["token", "notification", "data", "android", "apns"])
        XCTAssertEqual(message?["token"], .string(EventFixture.fcmToken))
        XCTAssertEqual(message?[path: "notification.title"], .string("🎧 Zalo - Tran Nghia"))
        XCTAssertEqual(message?[path: "notification.body"], .string("Nghĩa: Hello"))
        XCTAssertEqual(message?[path: "data"]?.memberKeys, [
            "title", "text", "sender_id", "sender_name", "avatar_url", "is_rtf", "ps_thread_id", "ps_message_id",
            "any_extra_key",
        ])
        XCTAssertEqual(message?[path: "data.is_rtf"], .string("false"))
        XCTAssertEqual(message?[path: "data.sender_id"], .string("6872016393687471"))
        XCTAssertEqual(message?[path: "android.collapse_key"], .string("37791233165968"))
        XCTAssertEqual(message?[path: "android.priority"], .string("high"))
        XCTAssertEqual(message?[path: "android.ttl"], .string("86400s"))
        XCTAssertEqual(message?[path: "apns.payload.aps.category"], .string("communications"))
        XCTAssertEqual(message?[path: "apns.payload.notifee_options.ios.communicationInfo.sender.displayName"],
                       .string("Nghĩa"))
        for (key, value) in message?[path: "data"]?.objectMembers ?? [] {
            XCTAssertNotNil(value.asString, "data.\(key) must be a string")
        }
    }

    func testAOneToOneConversationHasNoGroupName() throws {
        let rendered = try render { $0[path: "conversation.title"] = nil }
        XCTAssertNil(body(try request(rendered, .apns))[path: "notifee_options.ios.communicationInfo.groupName"])
        XCTAssertNil(body(try request(rendered, .fcm))[path: "message.apns.payload.notifee_options.ios.communicationInfo.groupName"])
    }

    // MARK: self-notification

    func testSkipsARecipientWhoIsTheSender() throws {
        let rendered = try render { $0[path: "recipients.1.user_id"] = .string("6872016393687471") }
        XCTAssertEqual(rendered.requests.map(\.platform), [.fcm])
        XCTAssertEqual(rendered.skipped.count, 1)
        let skip = try XCTUnwrap(rendered.skipped.first)
        XCTAssertEqual(skip.recipientIndex, 1)
        XCTAssertEqual(skip.platform, .apns)
        XCTAssertEqual(skip.token, EventFixture.apnsToken)
        XCTAssertEqual(skip.reason, "self")
    }

    func testSendsToARecipientWithAnotherUserID() throws {
        let rendered = try render()
        XCTAssertEqual(rendered.requests.map(\.recipientIndex), [0, 1])
        XCTAssertEqual(rendered.skipped, [])
    }

    func testSkipsEveryRecipientWhenTheSenderIsAConfiguredSelfSender() throws {
        let config = EventFixture.config("""
            {"self_sender_ids": ["owner", "6872016393687471"],
             "apps": [{"name": "chat", "apns": {"topic": "com.example.chat"}, "fcm": {"project_id": "p"}}]}
            """)
        let rendered = try render(config: config)
        XCTAssertEqual(rendered.requests, [])
        XCTAssertEqual(rendered.skipped.map(\.reason), ["self", "self"])
        XCTAssertEqual(rendered.skipped.map(\.token), [EventFixture.fcmToken, EventFixture.apnsToken])
        XCTAssertEqual(rendered.skipped.map(\.recipientIndex), [0, 1])
    }

    // MARK: avatar

    /// A dropped avatar: notifee's `sender.avatar` is left out (API.md:
    /// "the `avatar` keys are absent, never empty"); the data key
    /// `avatar_url` is there, empty. The product's extension (seed 003)
    /// reads a missing `avatar_url` as "not a chat message" and returns
    /// without showing anything, so iOS shows it plain after 30 s; an empty one it reads as "no avatar".
    func testADroppedAvatarLeavesNotifeesAvatarOutAndTheDataKeyEmpty() throws {
        let rendered = try render(avatar: .dropped(url: "https://example.com/avatar/64x64.jpeg", reason: "timeout"))
        let apns = body(try request(rendered, .apns))
        XCTAssertEqual(apns["avatar_url"], .string(""))
        XCTAssertNil(apns[path: "notifee_options.ios.communicationInfo.sender.avatar"])
        let fcm = body(try request(rendered, .fcm))
        XCTAssertEqual(fcm[path: "message.data.avatar_url"], .string(""))
        XCTAssertNil(fcm[path: "message.apns.payload.notifee_options.ios.communicationInfo.sender.avatar"])
        XCTAssertNil(rendered.persona.sender.avatarURL)
        for request in rendered.requests {
            XCTAssertFalse(String(decoding: request.body, as: UTF8.self).contains("example.com/avatar"), "the dropped URL in \(request.platform)")
        }
    }

    func testAnAbsentOrEmptyAvatarURLGivesAnEmptyDataKeyAndNoNotifeeAvatar() throws {
        for edit: (inout JSONValue) -> Void in [{ $0[path: "sender.avatar_url"] = nil },
                                                 { $0[path: "sender.avatar_url"] = .string("") }] {
            let rendered = try render(edit)
            XCTAssertEqual(rendered.avatar, AvatarState.none)
            XCTAssertEqual(body(try request(rendered, .apns))["avatar_url"], .string(""))
            XCTAssertEqual(body(try request(rendered, .fcm))[path: "message.data.avatar_url"], .string(""))
            XCTAssertNil(body(try request(rendered, .fcm))[path: "message.apns.payload.notifee_options.ios.communicationInfo.sender.avatar"])
        }
    }

    /// The text comes before the avatar: a long avatar URL (written twice)
    /// that would cut a message to fewer than 100 characters is dropped
    /// (`does_not_fit`) and the message keeps its room. URLs of 1,540 to
    /// 1,600 bytes cut this 72-character message to 64 down to 4 characters
    /// before; 10 bytes more dropped the avatar.
    func testAnAvatarThatWouldCutTheTextShortIsDropped() throws {
        let text = "Can you send the signed contract back before Friday noon? Thanks a lot!!"
        for length in stride(from: 1_000, through: 2_400, by: 10) {
            let url = "https://cdn.example.com/" + String(repeating: "a", count: length - 24)
            let rendered = try render({ $0[path: "message.text"] = .string(text) },
                                      avatar: .ok(url: url, mime: "image/png", bytes: 100, sha256: String(repeating: "0", count: 64)))
            let fcm = body(try request(rendered, .fcm))
            guard case let .string(dataText)? = fcm[path: "message.data.text"] else { return XCTFail("no text at \(length)") }
            if case .dropped(_, let reason) = rendered.avatar {
                XCTAssertEqual(reason, AvatarState.doesNotFitReason)
                XCTAssertEqual(dataText, text, "without the avatar the text is whole (\(length))")
            } else {
                XCTAssertEqual(fcm[path: "message.data.avatar_url"], .string(url))
                XCTAssertTrue(dataText == text || dataText.count >= RenderPlan.textKeptWithAvatar + 1,
                              "kept with the avatar only at \(RenderPlan.textKeptWithAvatar) characters or more (\(length)): \(dataText.count)")
            }
        }
        let long = "https://cdn.example.com/" + String(repeating: "a", count: 2_400)
        let dropped = try render({ $0[path: "message.text"] = .string(text) },
                                 avatar: .ok(url: long, mime: "image/png", bytes: 100, sha256: String(repeating: "0", count: 64)))
        XCTAssertEqual(dropped.avatar, .dropped(url: long, reason: AvatarState.doesNotFitReason), "the sweep reached the drop")
    }

    func testAResolvedAvatarIsForwardedAsItsOriginalURL() throws {
        let url = "https://example.com/avatar/64x64.jpeg"
        let rendered = try render(avatar: .ok(url: url, mime: "image/jpeg", bytes: 1234, sha256: String(repeating: "0", count: 64)))
        XCTAssertEqual(body(try request(rendered, .apns))["avatar_url"], .string(url))
        XCTAssertEqual(body(try request(rendered, .fcm))[path: "message.data.avatar_url"], .string(url))
        XCTAssertEqual(body(try request(rendered, .fcm))[path: "message.apns.payload.notifee_options.ios.communicationInfo.sender.avatar"],
                       .string(url))
    }

    /// The avatar is decoration: a URL so long that the notification cannot
    /// fit with it, even with the text removed, is left out (and said so),
    /// and the notification is sent with its whole text.
    func testAnAvatarURLThatCannotFitIsDroppedInsteadOfRefusingTheEvent() throws {
        let url = "https://cdn.example.com/presigned/" + String(repeating: "a", count: 1500)
        let avatar = AvatarState.ok(url: url, mime: "image/png", bytes: 100, sha256: String(repeating: "0", count: 64))
        let rendered = try render({ $0[path: "sender.avatar_url"] = .string(url)
                                    $0[path: "message.text"] = .string("hello")
                                    $0[path: "data"] = .object([(key: "payload", value: .string(String(repeating: "x", count: 600)))]) },
                                  avatar: avatar)
        XCTAssertEqual(rendered.avatar, .dropped(url: url, reason: AvatarState.doesNotFitReason))
        XCTAssertNil(rendered.persona.sender.avatarURL)
        for request in rendered.requests {
            XCTAssertFalse(String(decoding: request.body, as: UTF8.self).contains("presigned"), "the URL is in \(request.platform)")
        }
        XCTAssertEqual(body(try request(rendered, .apns))[path: "aps.alert.body"], .string("Nghĩa: hello"))
    }

    func testAnEventThatCannotFitEvenWithoutItsAvatarNamesAnotherField() throws {
        let url = "https://cdn.example.com/presigned/" + String(repeating: "a", count: 1500)
        let (event, app) = try decoded {
            $0[path: "sender.avatar_url"] = .string(url)
            $0[path: "data"] = .object([(key: "blob", value: .string(String(repeating: "d", count: 4100)))])
        }
        let error = expectEventError { () throws(EventError) in
            try EventRenderer(config: EventFixture.demo).render(event, app: app, avatar: .unchecked(url: url), now: Self.now)
        }
        XCTAssertEqual(error?.field, "data")
    }

    /// A group title and a sender name each within their 1 KiB but
    /// together too large (each is written three times) are shortened to
    /// 64 characters and "…" instead of the event being refused (regression: 200 CJK characters each gave `invalid_event`).
    func testLongNamesAreShortenedRatherThanTheEventRefused() throws {
        let title = String(repeating: "群", count: 200)
        let name = String(repeating: "名", count: 200)
        let rendered = try render {
            $0[path: "conversation.title"] = .string(title)
            $0[path: "sender.display_name"] = .string(name)
            $0[path: "message.text"] = .string("hello")
        }
        let apns = body(try request(rendered, .apns))
        XCTAssertEqual(apns[path: "aps.alert.title"], .string(String(repeating: "群", count: 64) + "…"))
        XCTAssertEqual(apns[path: "notifee_options.ios.communicationInfo.sender.displayName"],
                       .string(String(repeating: "名", count: 64) + "…"))
        XCTAssertEqual(apns[path: "aps.alert.body"], .string(String(repeating: "名", count: 64) + "…: hello"), "the text is whole")
        XCTAssertLessThanOrEqual(try request(rendered, .apns).body.count, 4096)
        XCTAssertEqual(body(try request(rendered, .fcm))[path: "message.notification.title"],
                       .string(String(repeating: "群", count: 64) + "…"))
        // Names that fit are never shortened.
        guard case let .string(usual)? = body(try request(try render(), .apns))[path: "aps.alert.title"] else { return XCTFail() }
        XCTAssertFalse(usual.hasSuffix("…"), usual)
    }

    /// The cases the review of the names rule found (each refused, or the
    /// text wiped out, before): names short in characters but long in
    /// bytes; extra data larger than either name (blamed first) that fits
    /// once the names are cut; names that would leave the text a few
    /// characters; an avatar that fits once the names are cut.
    func testNamesAreCutWheneverTheyLeaveTheTextNoRoom() throws {
        let family = "👨‍👩‍👧‍👦"  // one character, 25 bytes
        let emoji = try render {
            $0[path: "conversation.title"] = .string(String(repeating: family, count: 40))
            $0[path: "sender.display_name"] = .string(String(repeating: family, count: 40))
            $0[path: "message.text"] = .string("hello")
        }
        XCTAssertEqual(body(try request(emoji, .apns))[path: "aps.alert.title"], .string(String(repeating: family, count: 7) + "…"),
                       "at most 192 bytes")

        let withData = try render {
            $0[path: "conversation.title"] = .string(String(repeating: "群", count: 200))
            $0[path: "sender.display_name"] = .string(String(repeating: "名", count: 200))
            $0[path: "data"] = .object([(key: "blob", value: .string(String(repeating: "d", count: 700)))])
            $0[path: "message.text"] = .string("hello")
        }
        XCTAssertEqual(body(try request(withData, .fcm))[path: "message.data.blob"], .string(String(repeating: "d", count: 700)))

        let text = "Can you send the signed contract back before Friday noon? Thanks a lot, see you at the meeting"
        for length in stride(from: 120, through: 200, by: 4) {
            let rendered = try render {
                $0[path: "conversation.title"] = .string(String(repeating: "群", count: 200))
                $0[path: "sender.display_name"] = .string(String(repeating: "名", count: length))
                $0[path: "message.text"] = .string(text)
            }
            guard case let .string(shown)? = body(try request(rendered, .fcm))[path: "message.data.text"] else { return XCTFail() }
            XCTAssertEqual(shown, text, "a name of \(length) characters does not cut the text")
        }

        let url = "https://cdn.example.com/avatar/" + String(repeating: "a", count: 200) + ".png"
        let avatar = AvatarState.ok(url: url, mime: "image/png", bytes: 100, sha256: String(repeating: "0", count: 64))
        let kept = try render({
            $0[path: "conversation.title"] = .string(String(repeating: "群", count: 200))
            $0[path: "sender.display_name"] = .string(String(repeating: "名", count: 200))
            $0[path: "message.text"] = .string("hello")
        }, avatar: avatar)
        XCTAssertEqual(kept.avatar, avatar, "the avatar fits once the names are cut")
        XCTAssertEqual(body(try request(kept, .fcm))[path: "message.data.avatar_url"], .string(url))
    }

    // MARK: data key names

    func testRenamedAndOmittedDataKeysFollowTheConfiguration() throws {
        let rendered = try render(config: EventFixture.renamedKeys)
        let fcmData = try XCTUnwrap(body(try request(rendered, .fcm))[path: "message.data"])
        XCTAssertEqual(fcmData.memberKeys, [
            "title", "text", "sender_id", "sender_name", "is_rtf", "conversationId", "ps_message_id", "any_extra_key",
        ])
        XCTAssertEqual(fcmData["conversationId"], .string("37791233165968"))
        XCTAssertNil(fcmData["ps_thread_id"])
        XCTAssertNil(fcmData["avatar_url"])
        let apns = body(try request(rendered, .apns))
        XCTAssertEqual(apns["conversationId"], .string("37791233165968"))
        XCTAssertNil(apns["ps_thread_id"])
        XCTAssertNil(apns["avatar_url"])
        // Leaving the data key out does not drop the notifee avatar.
        XCTAssertEqual(apns[path: "notifee_options.ios.communicationInfo.sender.avatar"],
                       .string("https://example.com/avatar/64x64.jpeg"))
    }

    func testTheConfigurationRefusesReservedOrDuplicateDataKeyNames() {
        for (keys, setting) in [(#"{"ps_thread_id": "from"}"#, "apps[0].data_keys.ps_thread_id"),
                                (#"{"text": "google_text"}"#, "apps[0].data_keys.text"),
                                (#"{"title": "aps"}"#, "apps[0].data_keys.title"),
                                (#"{"nope": "x"}"#, "apps[0].data_keys.nope"),
                                (#"{"text": "title"}"#, "apps[0].data_keys"),
                                (#"{"text": 3}"#, "apps[0].data_keys.text")] {
            let json = #"{"apps": [{"name": "a", "fcm": {"project_id": "p"}, "data_keys": "# + keys + "}]}"
            do {
                _ = try RenderConfig(json: Array(json.utf8))
                XCTFail("accepted \(keys)")
            } catch {
                XCTAssertEqual(error.setting, setting, keys)
            }
        }
    }

    // MARK: the 4096-byte limit

    private static let longText = String(repeating: "Xin chào 👋🏽 thế giới ", count: 200)

    func testALongVietnameseAndEmojiTextIsShortenedToFitEveryPayload() throws {
        XCTAssertGreaterThanOrEqual(Self.longText.count, 3000)
        for group in [true, false] {
            let rendered = try render {
                $0[path: "message.text"] = .string(Self.longText)
                if !group { $0[path: "conversation.title"] = nil }
            }
            XCTAssertEqual(rendered.requests.count, 2)
            let prefix = group ? "Nghĩa: " : ""
            for request in rendered.requests {
                let body = body(request)
                let shown: JSONValue?
                switch request.platform {
                case .apns:
                    XCTAssertLessThanOrEqual(request.body.count, 4096, "APNs payload")
                    shown = body[path: "aps.alert.body"]
                    assertShortened(body["text"], of: Self.longText)
                case .fcm:
                    XCTAssertLessThanOrEqual(Self.fcmCountedBytes(body), 4096, "FCM counted bytes")
                    shown = body[path: "message.notification.body"]
                    assertShortened(body[path: "message.data.text"], of: Self.longText)
                case .fcmWeb, .webpush:
                    XCTFail("only phones here")
                    shown = nil
                }
                let text = try XCTUnwrap(shown?.asString)
                XCTAssertTrue(text.hasPrefix(prefix), text)
                assertShortened(.string(String(text.dropFirst(prefix.count))), of: Self.longText)
                // A good fit: well over half of the limit is used.
                XCTAssertGreaterThan(request.body.count, 2048)
            }
        }
    }

    func testAShortenedTextStillFitsTheLargestBadge() throws {
        let rendered = try render {
            $0[path: "message.text"] = .string(Self.longText)
            $0[path: "recipients.1.badge"] = .int(Int64(Int32.max))
        }
        let apns = try request(rendered, .apns)
        XCTAssertEqual(body(apns)[path: "aps.badge"], .int(Int64(Int32.max)))
        XCTAssertLessThanOrEqual(apns.body.count, 4096)
    }

    func testATextThatFitsIsNotShortened() throws {
        let text = String(repeating: "Xin chào 👋🏽 ", count: 20)
        let rendered = try render { $0[path: "message.text"] = .string(text) }
        XCTAssertEqual(body(try request(rendered, .apns))["text"], .string(text))
        XCTAssertEqual(body(try request(rendered, .fcm))[path: "message.notification.body"], .string("Nghĩa: " + text))
    }

    func testRefusesAnEventWhoseExtraDataAloneExceedsTheLimit() throws {
        let (event, app) = try decoded(EventFixture.setData([("blob", .string(String(repeating: "d", count: 4100)))]))
        let error = expectEventError { () throws(EventError) in
            try EventRenderer(config: EventFixture.demo).render(event, app: app, avatar: .none, now: Self.now)
        }
        XCTAssertEqual(error?.code, .invalidEvent)
        XCTAssertEqual(error?.field, "data")
    }

    func testRefusesAnAPNsOnlyEventWhoseExtraDataAloneExceedsTheLimit() throws {
        let (event, app) = try decoded {
            $0[path: "recipients.0"] = nil
            $0[path: "data"] = .object((0..<40).map { (key: "key\($0)", value: .string(String(repeating: "v", count: 100))) })
        }
        let error = expectEventError { () throws(EventError) in
            try EventRenderer(config: EventFixture.demo).render(event, app: app, avatar: .none, now: Self.now)
        }
        XCTAssertEqual(error?.code, .invalidEvent)
    }

    /// The error must name a field the caller sent: this event has no
    /// `conversation.title`; its sender's name and its data fill the payload
    /// (the name is cut and the data still does not fit: it is named).
    func testAnOversizedEventIsNotBlamedOnAConversationTitleItDoesNotHave() throws {
        let (event, app) = try decoded {
            $0[path: "conversation.title"] = nil
            $0[path: "data"] = .object([(key: "blob", value: .string(String(repeating: "d", count: 3_900)))])
            $0[path: "sender.display_name"] = .string(String(repeating: "N", count: 1024))
        }
        XCTAssertNil(event.conversation.title)
        let error = expectEventError { () throws(EventError) in
            try EventRenderer(config: EventFixture.demo).render(event, app: app, avatar: .none, now: Self.now)
        }
        XCTAssertEqual(error?.code, .invalidEvent)
        XCTAssertEqual(error?.field, "data", error?.description ?? "")
    }

    // MARK: helpers

    /// `value` is a string that ends with "…", is shorter than `original`,
    /// and without the ellipsis is a prefix of it in Characters.
    private func assertShortened(_ value: JSONValue?, of original: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let text = value?.asString else {
            return XCTFail("not a string: \(String(describing: value))", file: file, line: line)
        }
        XCTAssertTrue(text.hasSuffix("…"), "no ellipsis: \(text.suffix(10))", file: file, line: line)
        XCTAssertLessThan(text.count, original.count, file: file, line: line)
        let kept = Array(text.dropLast())
        XCTAssertEqual(kept, Array(original.prefix(kept.count)), "not a prefix in Characters", file: file, line: line)
        XCTAssertNotNil(String(validating: Array(text.utf8), as: UTF8.self), file: file, line: line)
    }
}
