@testable import PayloadBuilder
import XCTest

/// The renderer escapes each event string once and copies the escaped bytes
/// wherever the string appears again, and assembles per-device bodies in one
/// allocation. These compare its output with the plain rules written out
/// member by member with `JSONWriter`, for events whose every string field
/// holds text that needs escaping, non-ASCII, or nothing.
final class RenderFastPathTests: XCTestCase {
    private static let awkward = ["", "plain", "q\"uote", "back\\slash", "new\nline\t\u{1}", "Nghĩa 🎧", "/slash\u{7F}"]

    private func baseEvent(config: RenderConfig = EventFixture.demo) throws -> (Event, AppProfile) {
        try EventDecoder(config: config).decode(EventFixture.eventBytes())
    }

    /// The FCM body of API.md, member by member.
    private func referenceFCM(_ event: Event, app: AppProfile, avatar: String?, expiration: Int64,
                              collapseID: String, token: String, badge: Int?) -> [UInt8] {
        let text = NotificationText(event: event)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("message")
        writer.beginObject()
        writer.member("token", token)
        writer.key("notification")
        writer.beginObject()
        writer.member("title", text.title)
        writer.member("body", text.body(content: text.content(language: "vi")))
        writer.endObject()
        writer.key("data")
        writeData(event, app: app, avatar: avatar, text: text, to: &writer)
        writer.key("android")
        writer.beginObject()
        writer.member("collapse_key", event.conversation.id)
        writer.member("priority", event.notification.priority.rawValue)
        writer.member("ttl", "\(event.notification.ttlSeconds)s")
        writer.endObject()
        writer.key("apns")
        writer.beginObject()
        writer.key("headers")
        writer.beginObject()
        writer.member("apns-push-type", "alert")
        writer.member("apns-priority", event.notification.priority == .high ? "10" : "5")
        writer.member("apns-expiration", String(expiration))
        writer.member("apns-collapse-id", collapseID)
        writer.endObject()
        writer.key("payload")
        writer.beginObject()
        writer.key("aps")
        writer.beginObject()
        writer.member("category", "communications")
        writer.member("content-available", 1)
        writer.member("mutable-content", 1)
        if let sound = event.notification.sound { writer.member("sound", sound) }
        writer.member("thread-id", event.conversation.id)
        if let badge { writer.member("badge", Int64(badge)) }
        writer.endObject()
        writeNotifee(event, avatar: avatar, to: &writer)
        writer.endObject()
        writer.endObject()
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    /// The direct APNs payload of API.md, member by member.
    private func referenceAPNs(_ event: Event, app: AppProfile, avatar: String?, badge: Int?) -> [UInt8] {
        let text = NotificationText(event: event)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("aps")
        writer.beginObject()
        writer.key("alert")
        writer.beginObject()
        writer.member("title", text.title)
        writer.member("body", text.body(content: text.content(language: "vi")))
        writer.endObject()
        if let sound = event.notification.sound { writer.member("sound", sound) }
        writer.member("thread-id", event.conversation.id)
        writer.member("category", "communications")
        writer.member("content-available", 1)
        writer.member("mutable-content", 1)
        if let badge { writer.member("badge", Int64(badge)) }
        writer.endObject()
        writeNotifee(event, avatar: avatar, to: &writer)
        var data = JSONWriter()
        writeData(event, app: app, avatar: avatar, text: text, to: &data)
        var members = data.bytes
        if members.count > 2 {
            // The data members sit at the top level, after the notifee block.
            members.removeFirst()
            members.removeLast()
            writer.raw(members)
        }
        writer.endObject()
        // `raw` wrote the members as one value: stitch them in as members.
        return writer.bytes
    }

    private func writeData(_ event: Event, app: AppProfile, avatar: String?, text: NotificationText,
                           to writer: inout JSONWriter) {
        writer.beginObject()
        for (key, name) in zip(DataKeyNames.Standard.allCases, app.dataKeys.wireNames) {
            guard let name else { continue }
            let value: String? = switch key {
            case .title: text.title
            case .text: text.plainText
            case .senderID: event.sender.id
            case .senderName: event.sender.displayName
            case .avatarURL: avatar ?? ""  // present, empty without an avatar
            case .isRichText: event.message.richText ? "true" : "false"
            case .threadID: event.conversation.id
            case .messageID: event.message.id
            }
            if let value { writer.member(name, value) }
        }
        for entry in event.data { writer.member(entry.key, entry.value) }
        writer.endObject()
    }

    private func writeNotifee(_ event: Event, avatar: String?, to writer: inout JSONWriter) {
        writer.key("notifee_options")
        writer.beginObject()
        writer.key("ios")
        writer.beginObject()
        writer.key("communicationInfo")
        writer.beginObject()
        writer.member("conversationId", event.conversation.id)
        writer.member("messageId", event.message.id)
        if let group = event.conversation.title { writer.member("groupName", group) }
        writer.key("sender")
        writer.beginObject()
        writer.member("id", event.sender.id)
        writer.member("displayName", event.sender.displayName)
        if let avatar { writer.member("avatar", avatar) }
        writer.endObject()
        writer.endObject()
        writer.endObject()
        writer.endObject()
    }

    private func assertMatchesReference(_ event: Event, app: AppProfile, avatar: AvatarState, _ what: String,
                                        file: StaticString = #filePath, line: UInt = #line) throws {
        let now: Int64 = 1_767_225_600
        let rendered = try EventRenderer(config: EventFixture.demo).render(event, app: app, avatar: avatar, now: now)
        let expiration = event.notification.ttlSeconds == 0 ? 0 : now + Int64(event.notification.ttlSeconds)
        let collapseID = try XCTUnwrap(rendered.requests.first(where: { $0.platform == .apns })?.header("apns-collapse-id"))
        XCTAssertEqual(rendered.requests.count, event.recipients.count, what, file: file, line: line)
        for request in rendered.requests {
            let recipient = event.recipients[request.recipientIndex]
            let expected = request.platform == .fcm
                ? referenceFCM(event, app: app, avatar: avatar.forwardedURL, expiration: expiration,
                               collapseID: collapseID, token: recipient.token, badge: recipient.badge)
                : referenceAPNs(event, app: app, avatar: avatar.forwardedURL, badge: recipient.badge)
            // Bytes, not strings: `String ==` would take canonically
            // equivalent spellings (é as one scalar or two) for equal.
            XCTAssertTrue(Array(request.body) == expected, "\(what), \(request.platform): \(String(decoding: request.body, as: UTF8.self))"
                          + " against \(String(decoding: expected, as: UTF8.self))", file: file, line: line)
        }
    }

    func testBodiesMatchThePlainRulesWhateverTheEventStringsHold() throws {
        let (base, app) = try baseEvent()
        let edits: [(String, (inout Event, String) -> Void)] = [
            ("conversation.id", { $0.conversation.id = $1 }),
            ("conversation.title", { $0.conversation.title = $1 }),
            ("message.id", { $0.message.id = $1 }),
            ("message.text", { $0.message.text = $1 }),
            ("sender.id", { $0.sender.id = $1 }),
            ("sender.display_name", { $0.sender.displayName = $1 }),
            ("notification.title", { $0.notification.title = $1 }),
            ("notification.sound", { $0.notification.sound = $1 }),
            ("data key", { $0.data = [DataEntry($1, "v")] }),
            ("data value", { $0.data = [DataEntry("k", $1)] }),
            ("tokens", { event, text in
                for index in event.recipients.indices { event.recipients[index].token = text }
            }),
        ]
        var checked = 0
        for (field, edit) in edits {
            for text in Self.awkward {
                var event = base
                edit(&event, text)
                for avatar in [AvatarState.none, .unchecked(url: "https://h/a\"b.jpeg")] {
                    try assertMatchesReference(event, app: app, avatar: avatar, "\(field) = \(text.debugDescription)")
                    checked += 1
                }
            }
        }
        XCTAssertEqual(checked, edits.count * Self.awkward.count * 2)
    }

    /// A notification title that is the group's name spelled with other,
    /// canonically equivalent scalars (é as e + U+0301) is still another
    /// text: each keeps its own bytes (the group's were once copied from
    /// the title's because `String ==` called them equal).
    func testATitleEquivalentToTheGroupKeepsItsOwnBytes() throws {
        let (base, app) = try baseEvent()
        for (group, title) in [("Caf\u{E9}", "Cafe\u{301}"), ("Cafe\u{301}", "Caf\u{E9}"), ("Caf\u{E9}", "Caf\u{E9}")] {
            var event = base
            event.conversation.title = group
            event.notification.title = title
            try assertMatchesReference(event, app: app, avatar: .none, "group \(Array(group.utf8)), title \(Array(title.utf8))")
        }
    }

    func testBodiesMatchThePlainRulesForEveryOptionalPart() throws {
        let (base, app) = try baseEvent()
        for group in [nil, "Group", "Nghĩa"] as [String?] {
            for title in [nil, "Override", "Group"] as [String?] {
                for sound in [nil, "default"] as [String?] {
                    for priority in [DeliveryPriority.high, .normal] {
                        for ttl in [0, 1, 86400] {
                            for badge in [nil, 0, -1, 7, Int(Int32.max)] as [Int?] {
                                var event = base
                                event.conversation.title = group
                                event.notification.title = title
                                event.notification.sound = sound
                                event.notification.priority = priority
                                event.notification.ttlSeconds = ttl
                                event.message.richText = ttl == 1
                                event.data = ttl == 0 ? [] : event.data
                                for index in event.recipients.indices { event.recipients[index].badge = badge }
                                try assertMatchesReference(event, app: app, avatar: .unchecked(url: "https://h/a.jpeg"),
                                                           "group \(String(describing: group)), title \(String(describing: title)), sound \(String(describing: sound)), \(priority), ttl \(ttl), badge \(String(describing: badge))")
                            }
                        }
                    }
                }
            }
        }
    }

    func testRenamedOmittedAndEscapedDataKeysMatchThePlainRules() throws {
        let config = EventFixture.config("""
        {"apps": [{"name": "demo", "fcm": {"project_id": "p"}, "apns": {"topic": "t", "environment": "sandbox"},
          "data_keys": {"ps_thread_id": "conv\\"Id", "avatar_url": null, "text": null, "title": "tí\\\\tle"}}]}
        """)
        let (event, app) = try EventDecoder(config: config).decode(EventFixture.eventBytes())
        let quoted = app.dataKeys.quotedWireNames
        XCTAssertEqual(quoted.count, app.dataKeys.wireNames.count)
        for (index, name) in app.dataKeys.wireNames.enumerated() {
            XCTAssertEqual(Array(quoted.bytes[quoted.range(at: index)]), name.map { JSONWriter.escaped($0) } ?? [])
        }
        try assertMatchesReference(event, app: app, avatar: .unchecked(url: "https://h/a.jpeg"), "renamed keys")
    }

    /// The FCM body for one device is the template with the token escaped
    /// and the badge in their holes, whatever the token holds, appended
    /// after the event's other bodies; also when it is larger than the room
    /// made for it (a token to escape, a store that has grown: a long text).
    func testPerDeviceBodiesFillTheTokenAndBadge() throws {
        for text in ["", String(repeating: "Tiếng Việt 👋 ", count: 150)] {
            var (event, app) = try baseEvent()
            event.message.text = text
            var store = RenderPlan.makeStore()
            let plan = RenderPlan(event: event, app: app, avatarURL: nil, now: 1_767_225_600, store: &store)
            let content = plan.content(language: "vi", shortenedTo: nil)
            let fcm = FCMTemplate(plan: plan, content: content.content, dataText: content.dataText, into: &store)
            let tokens = Self.awkward + [EventFixture.fcmToken, EventFixture.apnsToken, String(repeating: "a\"", count: 300),
                                         String(repeating: "t", count: 5_000)]
            let head = Array("{\"message\":{\"token\":".utf8)
            for badge in [nil, 0, -5, 42, Int(Int32.max), Int(Int32.min)] as [Int?] {
                var rest: [UInt8]?
                // A byte before the first body, which appending leaves alone.
                var bodies: [UInt8] = [0x2A]
                for token in tokens {
                    let start = bodies.count
                    ByteWriter.append(to: &bodies, expected: fcm.expectedBodyCount(token: token)) {
                        fcm.write(token: token, badge: badge, store: store, into: &$0)
                    }
                    let body = Array(bodies[start...])
                    let quoted = JSONWriter.escaped(token)
                    XCTAssertEqual(Array(body.prefix(head.count + quoted.count)), head + quoted, token.debugDescription)
                    // The rest does not depend on the token.
                    let after = Array(body.dropFirst(head.count + quoted.count))
                    if let rest { XCTAssertEqual(after, rest, token.debugDescription) } else { rest = after }
                    let document = try JSONParser.parse(body)
                    XCTAssertEqual(document[path: "message.token"], .string(token))
                    XCTAssertEqual(document[path: "message.apns.payload.aps.badge"], badge.map { .int(Int64($0)) })
                }
                XCTAssertEqual(bodies.first, 0x2A)
            }
            // APNs payloads (checked byte for byte against the plain rules
            // above) are the same each time, in the room made for them or not.
            let apns = APNsTemplate(plan: plan, content: content.content, dataText: content.dataText, into: &store)
            for badge in [nil, 0, -5, 42, Int(Int32.max), Int(Int32.min)] as [Int?] {
                var first: [UInt8] = []
                ByteWriter.append(to: &first, expected: apns.expectedPayloadCount) {
                    apns.write(badge: badge, store: store, into: &$0)
                }
                var again: [UInt8] = []
                ByteWriter.append(to: &again, expected: 10) { apns.write(badge: badge, store: store, into: &$0) }
                XCTAssertEqual(again, first)
                XCTAssertEqual(first.count, apns.countedBytes - RenderPlan.badgeReserve
                               + (badge.map { ",\"badge\":\($0)".utf8.count } ?? 0))
            }
        }
    }

    /// The APNs payload of `template` for badge 1.
    private func payload(_ template: APNsTemplate, store: borrowing ByteWriter) -> [UInt8] {
        var out = ByteWriter(capacity: 64)
        template.write(badge: 1, store: store, into: &out)
        return out.bytes
    }

    /// Trials that do not fit are taken back out of the plan's store: a
    /// shortened template is the same bytes as one built alone.
    func testAShortenedTemplateIsTheSameAsOneBuiltAlone() throws {
        var (event, app) = try baseEvent()
        event.message.text = String(repeating: "Tiếng Việt 👋 ", count: 400)
        var store = RenderPlan.makeStore()
        let plan = RenderPlan(event: event, app: app, avatarURL: nil, now: 1_767_225_600, store: &store)
        let fitted = try plan.fitted(event: event, language: "vi", limit: RenderPlan.payloadLimit, store: &store,
                                     build: { APNsTemplate(plan: plan, content: $0, dataText: $1, into: &$2) },
                                     size: { $0.countedBytes })
        let fittedPayload = payload(fitted, store: store)
        XCTAssertLessThanOrEqual(fitted.countedBytes, RenderPlan.payloadLimit)
        guard case let .string(text) = try JSONParser.parse(fittedPayload)[path: "aps.alert.body"] else {
            return XCTFail("no alert body in \(String(decoding: fittedPayload, as: UTF8.self))")
        }
        XCTAssertTrue(text.hasSuffix("…"))
        var aloneStore = RenderPlan.makeStore()
        let alone = RenderPlan(event: event, app: app, avatarURL: nil, now: 1_767_225_600, store: &aloneStore)
        let shortened = String(text.drop(while: { $0 != ":" }).dropFirst(2))
        let built = APNsTemplate(plan: alone, content: shortened, dataText: shortened, into: &aloneStore)
        XCTAssertEqual(fittedPayload, payload(built, store: aloneStore))
    }

    /// A report larger than its estimate (long strings in the persona and
    /// avatar) still matches the reference.
    func testAReportLargerThanItsEstimateMatchesTheWriterPath() throws {
        var rendered = try GoldenPayloadTests.render("seed-chat-sdk")
        let long = "https://example.com/" + String(repeating: "a\"b", count: 2000)
        rendered.avatar = .unchecked(url: long)
        rendered.persona.sender.avatarURL = long
        rendered.persona.content = long
        let direct = RenderReport.json(rendered, pretty: false)
        XCTAssertGreaterThan(direct.count, rendered.requests.reduce(1024) { $0 + $1.body.count + 512 })
        XCTAssertEqual(direct, ReportReference.json(rendered))
    }

    /// The renderer finds the persona's language while it resolves each
    /// recipient; it must agree with `CommunicationPersona`'s own rule for
    /// every mix of locales, skipped recipients, and text or placeholder.
    func testThePersonaMatchesItsOwnRuleForEveryMixOfLocales() throws {
        let (base, app) = try baseEvent()
        let locales: [String?] = [nil, "vi", "vi-VN", "VI", "fr", "de", "en_GB", ""]
        var checked = 0
        for text in ["", "Hello"] {
            for kind in [MessageKind.video, .text] {
                for first in locales {
                    for second in locales {
                        for third in [nil, "fr"] as [String?] {
                            for selfIndex in [-1, 0, 1] {
                                var event = base
                                event.message.text = text
                                event.message.kind = kind
                                var recipients = event.recipients
                                recipients.append(recipients[0])
                                for (index, locale) in [first, second, third].enumerated() {
                                    recipients[index].locale = locale
                                    recipients[index].userID = index == selfIndex ? event.sender.id : "u\(index)"
                                }
                                event.recipients = recipients
                                for defaultLocale in ["vi", "xx"] {
                                    var config = EventFixture.demo
                                    config.defaultLocale = defaultLocale
                                    let rendered = try EventRenderer(config: config)
                                        .render(event, app: app, avatar: .none, now: 0)
                                    let expected = CommunicationPersona(event: event, avatar: .none, defaultLocale: defaultLocale)
                                    XCTAssertEqual(rendered.persona, expected,
                                                   "\(text.debugDescription) \(kind) \([first, second, third]) self \(selfIndex) default \(defaultLocale)")
                                    checked += 1
                                }
                            }
                        }
                    }
                }
            }
        }
        XCTAssertEqual(checked, 2 * 2 * locales.count * locales.count * 2 * 3 * 2)
    }

    /// The report writes the usual handle type as a literal; any other is escaped.
    func testTheReportWritesEveryHandleTypeLikeTheWriterPath() throws {
        var rendered = try GoldenPayloadTests.render("seed-chat-sdk")
        for handleType in ["unknown", "Unknown", "unknown ", "", "q\"\u{1}é", "phoneNumber"] {
            rendered.persona.sender.handleType = handleType
            rendered.persona.me.handleType = handleType
            let direct = RenderReport.json(rendered, pretty: false)
            XCTAssertEqual(String(decoding: direct, as: UTF8.self),
                           String(decoding: ReportReference.json(rendered), as: UTF8.self), handleType)
        }
    }
}
