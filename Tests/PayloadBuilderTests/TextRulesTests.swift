import XCTest
@testable import PayloadBuilder

/// Title, body, placeholder, locale and rich-text rules of API.md.
final class TextRulesTests: XCTestCase {
    // MARK: helpers

    private func event(text: String = "", kind: MessageKind = .text, richText: Bool = false, group: String? = nil,
                       titleOverride: String? = nil, recipients: [Recipient]? = nil) -> Event {
        Event(eventID: "c:1", conversation: Conversation(id: "c", title: group),
              message: Message(id: "1", text: text, kind: kind, richText: richText),
              sender: Sender(id: "s", displayName: "Nghĩa"),
              recipients: recipients ?? [Recipient(platform: .fcm, token: EventFixture.fcmToken)],
              notification: NotificationOptions(title: titleOverride))
    }

    /// Renders `event` and returns, per request in order, the FCM
    /// `message.notification` (or APNs `aps.alert`) and the data map.
    private func rendered(_ event: Event, config: RenderConfig = EventFixture.demo,
                          file: StaticString = #filePath, line: UInt = #line) -> [(alert: JSONValue, data: JSONValue)] {
        do {
            let app = try config.app(named: nil)
            let output = try EventRenderer(config: config).render(event, app: app, avatar: .none, now: 1_700_000_000)
            return output.requests.map { request in
                let body = parseJSONOrFail(request.body, file: file, line: line)
                switch request.platform {
                case .fcm: return (body[path: "message.notification"] ?? .null, body[path: "message.data"] ?? .null)
                case .apns: return (body[path: "aps.alert"] ?? .null, body)
                case .fcmWeb: return (body[path: "message.webpush.notification"] ?? .null, body[path: "message.data"] ?? .null)
                case .webpush: return (.null, .null)
                }
            }
        } catch {
            XCTFail("render failed: \(error)", file: file, line: line)
            return []
        }
    }

    // MARK: placeholders

    /// The API.md table, verbatim.
    private static let placeholderTable: [(MessageKind, en: String, vi: String, fr: String)] = [
        (.image, "You received a photo", "Bạn nhận được hình ảnh", "Vous avez reçu une photo"),
        (.video, "You received a video", "Bạn nhận được video", "Vous avez reçu une vidéo"),
        (.audio, "You received a voice message", "Bạn nhận được tin nhắn thoại", "Vous avez reçu un message vocal"),
        (.file, "You received a file", "Bạn nhận được tệp", "Vous avez reçu un fichier"),
        (.sticker, "You received a sticker", "Bạn nhận được nhãn dán", "Vous avez reçu un autocollant"),
        (.location, "You received a location", "Bạn nhận được vị trí", "Vous avez reçu une position"),
    ]

    func testPlaceholdersMatchTheTableForEveryKindAndLanguageByteForByte() {
        XCTAssertEqual(Set(Self.placeholderTable.map(\.0)), Set(MessageKind.allCases).subtracting([.text]))
        for (kind, en, vi, fr) in Self.placeholderTable {
            for (language, expected) in [("en", en), ("vi", vi), ("fr", fr)] {
                let actual = Placeholders.text(for: kind, language: language)
                // Bytes, not String ==, so that a decomposed "ệ" would be caught.
                XCTAssertEqual(actual.map { Array($0.utf8) }, Array(expected.utf8), "\(kind) in \(language)")
                XCTAssertEqual(NotificationText(event: event(kind: kind)).content(language: language), expected)
            }
        }
    }

    func testTextMessagesHaveNoPlaceholder() {
        for language in ["en", "vi", "fr"] {
            XCTAssertNil(Placeholders.text(for: .text, language: language))
        }
        XCTAssertEqual(NotificationText(event: event(kind: .text)).content(language: "vi"), "")
    }

    func testAMessageWithTextShowsItsTextWhateverItsKind() {
        for kind in MessageKind.allCases {
            XCTAssertEqual(NotificationText(event: event(text: "Look at this", kind: kind)).content(language: "fr"),
                           "Look at this")
        }
    }

    func testEveryKindRendersItsPlaceholderInTheRecipientsLanguage() {
        for (kind, en, vi, fr) in Self.placeholderTable {
            let recipients = [
                Recipient(platform: .fcm, token: "fcm-en", locale: "en"),
                Recipient(platform: .fcm, token: "fcm-vi", locale: "vi"),
                Recipient(platform: .apns, token: String(repeating: "ab", count: 32), locale: "fr-CA"),
            ]
            let alerts = rendered(event(kind: kind, recipients: recipients)).map(\.alert)
            XCTAssertEqual(alerts.map { $0["body"] }, [.string(en), .string(vi), .string(fr)], "\(kind)")
        }
    }

    // MARK: locales

    func testUsesOnlyThePrimarySubtagOfALocale() {
        XCTAssertEqual(Locales.primarySubtag("vi-VN"), "vi")
        XCTAssertEqual(Locales.primarySubtag("vi_VN"), "vi")
        XCTAssertEqual(Locales.primarySubtag("FR"), "fr")
        XCTAssertEqual(Locales.resolve("vi-VN", defaultLocale: "en"), "vi")
        XCTAssertEqual(Locales.resolve("fr_CA", defaultLocale: "en"), "fr")
    }

    func testFallsBackToEnglishForAnUnknownLocaleAndToTheDefaultForNone() {
        XCTAssertEqual(Locales.resolve("de", defaultLocale: "fr"), "en")
        XCTAssertEqual(Locales.resolve("de-DE", defaultLocale: "vi"), "en")
        XCTAssertEqual(Locales.resolve(nil, defaultLocale: "fr"), "fr")
        XCTAssertEqual(Locales.resolve(nil, defaultLocale: "vi"), "vi")
        XCTAssertEqual(Locales.resolve(nil, defaultLocale: "de"), "en")
    }

    func testRendersPlaceholdersWithTheLocaleFallbacks() {
        let config = EventFixture.config("""
            {"default_locale": "vi-VN", "apps": [{"name": "chat", "fcm": {"project_id": "p"}}]}
            """)
        XCTAssertEqual(config.defaultLocale, "vi")
        let recipients = [
            Recipient(platform: .fcm, token: "a", locale: "vi-VN"),
            Recipient(platform: .fcm, token: "b", locale: "de"),
            Recipient(platform: .fcm, token: "c"),
            Recipient(platform: .fcm, token: "d", locale: "FR"),
        ]
        let bodies = rendered(event(kind: .video, recipients: recipients), config: config).map { $0.alert["body"] }
        XCTAssertEqual(bodies, [.string("Bạn nhận được video"), .string("You received a video"),
                                .string("Bạn nhận được video"), .string("Vous avez reçu une vidéo")])
    }

    func testWithoutAConfiguredDefaultARecipientWithoutLocaleGetsEnglish() {
        let bodies = rendered(event(kind: .image, recipients: [Recipient(platform: .fcm, token: "a")])).map { $0.alert["body"] }
        XCTAssertEqual(bodies, [.string("You received a photo")])
    }

    // MARK: title and body

    func testAOneToOneMessageIsTitledWithTheSenderAndShowsTheText() {
        let text = NotificationText(event: event(text: "Xin chào"))
        XCTAssertEqual(text.title, "Nghĩa")
        XCTAssertFalse(text.isGroup)
        XCTAssertEqual(text.body(content: text.content(language: "en")), "Xin chào")
    }

    func testAGroupMessageIsTitledWithTheConversationAndPrefixesTheSender() {
        let text = NotificationText(event: event(text: "Xin chào", group: "🎧 Zalo - Tran Nghia"))
        XCTAssertEqual(text.title, "🎧 Zalo - Tran Nghia")
        XCTAssertTrue(text.isGroup)
        XCTAssertEqual(text.body(content: text.content(language: "en")), "Nghĩa: Xin chào")
    }

    func testAGroupPlaceholderIsPrefixedWithTheSender() {
        let text = NotificationText(event: event(kind: .video, group: "Team"))
        XCTAssertEqual(text.body(content: text.content(language: "fr")), "Nghĩa: Vous avez reçu une vidéo")
    }

    func testNotificationTitleOverridesBothRules() {
        XCTAssertEqual(NotificationText(event: event(text: "x", titleOverride: "Override")).title, "Override")
        let group = NotificationText(event: event(text: "x", group: "Team", titleOverride: "Override"))
        XCTAssertEqual(group.title, "Override")
        XCTAssertEqual(group.body(content: "x"), "Nghĩa: x")
    }

    func testAnEmptyNotificationTitleInTheEventDoesNotOverride() {
        let body = EventFixture.eventBytes { $0[path: "notification.title"] = .string("") }
        let decoded = decodeEventOrFail(body)
        XCTAssertNil(decoded?.event.notification.title)
        XCTAssertEqual(decoded.map { NotificationText(event: $0.event).title }, "🎧 Zalo - Tran Nghia")
    }

    func testAnEmptyConversationTitleMeansOneToOne() {
        let body = EventFixture.eventBytes { $0[path: "conversation.title"] = .string("") }
        let decoded = decodeEventOrFail(body)
        XCTAssertNil(decoded?.event.conversation.title)
        XCTAssertEqual(decoded.map { NotificationText(event: $0.event).title }, "Nghĩa")
    }

    /// Text that would show as nothing is no text: a blank title does not
    /// override or make a group, and blank message text gets the placeholder.
    func testBlankTitlesAndTextCountAsAbsent() {
        let body = EventFixture.eventBytes {
            $0[path: "notification.title"] = .string("   ")
            $0[path: "conversation.title"] = .string("\u{A0}\t")
        }
        let decoded = decodeEventOrFail(body)
        XCTAssertNil(decoded?.event.notification.title)
        XCTAssertNil(decoded?.event.conversation.title)
        XCTAssertEqual(decoded.map { NotificationText(event: $0.event).title }, "Nghĩa")

        let image = NotificationText(event: event(text: "  \n ", kind: .image))
        XCTAssertEqual(image.content(language: "en"), "You received a photo")
        XCTAssertEqual(image.plainText, "")
        XCTAssertEqual(NotificationText(event: event(text: " ", group: "Team")).body(content: ""), "Nghĩa")
    }

    func testTheRenderedTitleAndBodyFollowTheRules() {
        let apns = Recipient(platform: .apns, token: EventFixture.apnsToken)
        let fcm = Recipient(platform: .fcm, token: EventFixture.fcmToken)
        for output in rendered(event(text: "Hi", group: "Team", recipients: [fcm, apns])) {
            XCTAssertEqual(output.alert["title"], .string("Team"))
            XCTAssertEqual(output.alert["body"], .string("Nghĩa: Hi"))
        }
        for output in rendered(event(text: "Hi", recipients: [fcm, apns])) {
            XCTAssertEqual(output.alert["title"], .string("Nghĩa"))
            XCTAssertEqual(output.alert["body"], .string("Hi"))
        }
        for output in rendered(event(text: "Hi", group: "Team", titleOverride: "Boss", recipients: [fcm, apns])) {
            XCTAssertEqual(output.alert["title"], .string("Boss"))
            XCTAssertEqual(output.data["title"], .string("Boss"))
        }
    }

    // MARK: rich text

    func testRichTextBecomesPlainText() {
        let markup = "<p>Hello&nbsp;<b>world</b></p>\n<br/>&amp; &#x1F600; &lt;3"
        XCTAssertEqual(RichText.plainText(fromMarkup: markup), "Hello world & 😀 <3")
        XCTAssertEqual(NotificationText(event: event(text: markup, richText: true)).plainText, "Hello world & 😀 <3")
    }

    func testRichTextIsShownAsWrittenWhenTheFlagIsOff() {
        let markup = "<b>bold</b> &amp;"
        XCTAssertEqual(NotificationText(event: event(text: markup)).plainText, markup)
    }

    func testRichTextDecodesNumericAndNamedEntitiesAndKeepsUnknownOnes() {
        XCTAssertEqual(RichText.decodeEntities("&#65;&#x42;&#X43;&quot;&apos;&#39;&gt;"), "ABC\"''>")
        XCTAssertEqual(RichText.decodeEntities("&bogus; & &#0; &#xD800; &amp"), "&bogus; & &#0; &#xD800; &amp")
        // Entities are decoded after tags are stripped: escaped markup stays text.
        XCTAssertEqual(RichText.plainText(fromMarkup: "&lt;b&gt;not bold&lt;/b&gt;"), "<b>not bold</b>")
    }

    /// Editors (TinyMCE by default) write accented letters and typographic
    /// punctuation as named entities: French and Vietnamese text must not
    /// show `&eacute;`.
    func testRichTextDecodesHTML4NamedEntitiesCaseSensitively() {
        XCTAssertEqual(RichText.decodeEntities("&eacute;|&agrave;|&ecirc;|&ccedil;|&hellip;|&rsquo;|&ndash;|&euro;"),
                       "é|à|ê|ç|…|’|–|€")
        XCTAssertEqual(RichText.decodeEntities("&Eacute;&eacute; &AElig; &yuml; &iexcl; &Omega;&omega;&sigmaf; &diams; &OElig;"),
                       "Éé Æ ÿ ¡ Ωως ♦ Œ")
        XCTAssertEqual(RichText.decodeEntities("&EACUTE; &Hellip; &eacute &sigmaf"), "&EACUTE; &Hellip; &eacute &sigmaf",
                       "names are case-sensitive and end with ;")
        XCTAssertEqual(HTMLEntities.count, 253)
        XCTAssertEqual(RichText.plainText(fromMarkup: "<p>Caf&eacute;&nbsp;cr&egrave;me&hellip;</p>"), "Café crème…")
    }

    func testATagEndsAtItsOwnCloseBracketNotOneInsideAQuotedValue() {
        XCTAssertEqual(RichText.plainText(fromMarkup: "<a href='x>y'>link</a>"), "link")
        XCTAssertEqual(RichText.plainText(fromMarkup: "<img alt=\"a > b\" src=x>after"), "after")
        XCTAssertEqual(RichText.plainText(fromMarkup: "<a title='unclosed>text"), "text", "an unclosed quote falls back to the first >")
        XCTAssertEqual(RichText.plainText(fromMarkup: "<p class=x'>Don't go</p> now"), "Don't go now",
                       "a quote opens a value only right after =")
        XCTAssertEqual(RichText.plainText(fromMarkup: "<a href = \"x>y\">link</a>"), "link")
        XCTAssertEqual(RichText.plainText(fromMarkup: "a<!-- x > y -->b"), "ab")
        XCTAssertEqual(RichText.plainText(fromMarkup: "a<!-- unclosed > b"), "a b")
    }

    func testScriptAndStyleContentsAreNotText() {
        XCTAssertEqual(RichText.plainText(fromMarkup: "<script>var x=1;</script>after"), "after")
        XCTAssertEqual(RichText.plainText(fromMarkup: "<STYLE type=\"text/css\">p { a: b }</Style >shown"), "shown")
        XCTAssertEqual(RichText.plainText(fromMarkup: "<script>if (a < b) {}</scriptx></script>kept"), "kept")
        XCTAssertEqual(RichText.plainText(fromMarkup: "before<script>never closed"), "before")
        XCTAssertEqual(RichText.plainText(fromMarkup: "<script/>self-closed"), "self-closed")
    }

    func testRichTextSeparatesWordsAtTagsAndCollapsesWhitespace() {
        XCTAssertEqual(RichText.plainText(fromMarkup: "one<br>two</p><p>three"), "one two three")
        XCTAssertEqual(RichText.plainText(fromMarkup: "  a \n\t\r b   "), "a b")
        XCTAssertEqual(RichText.plainText(fromMarkup: "<div><span></span></div>"), "")
    }

    func testARichTextMessageRendersItsPlainText() {
        let markup = "<p>Hello&nbsp;<b>world</b></p>"
        for output in rendered(event(text: markup, richText: true)) {
            XCTAssertEqual(output.alert["body"], .string("Hello world"))
            XCTAssertEqual(output.data["text"], .string("Hello world"))
            XCTAssertEqual(output.data["is_rtf"], .string("true"))
        }
    }

    // MARK: data.text

    func testDataTextIsThePlainTextWithoutTheSenderPrefix() {
        let recipients = [Recipient(platform: .fcm, token: EventFixture.fcmToken),
                          Recipient(platform: .apns, token: EventFixture.apnsToken)]
        for output in rendered(event(text: "Xin chào", group: "Team", recipients: recipients)) {
            XCTAssertEqual(output.alert["body"], .string("Nghĩa: Xin chào"))
            XCTAssertEqual(output.data["text"], .string("Xin chào"))
        }
    }

    func testDataTextStaysEmptyWhenThePlaceholderIsShown() {
        let recipients = [Recipient(platform: .fcm, token: EventFixture.fcmToken, locale: "vi"),
                          Recipient(platform: .apns, token: EventFixture.apnsToken)]
        for output in rendered(event(kind: .audio, group: "Team", recipients: recipients)) {
            XCTAssertEqual(output.data["text"], .string(""))
            XCTAssertNotEqual(output.alert["body"], .string(""))
        }
    }

    // MARK: Bugs found while writing these tests (they fail until Sources are fixed)

    /// A "<" that does not open a tag (HTML: not followed by a letter, "/", "!"
    /// or "?") is text; here it swallows the rest of the message, so
    /// "I <3 you" notifies as "I".
    func testAStrayLessThanSignInRichTextDoesNotSwallowTheRestOfTheMessage() {
        XCTAssertEqual(RichText.plainText(fromMarkup: "I <3 you"), "I <3 you")
        XCTAssertEqual(RichText.plainText(fromMarkup: "<p>1 < 2 and 3 > 2</p>"), "1 < 2 and 3 > 2")
    }
}
