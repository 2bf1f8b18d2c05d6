import PayloadBuilder
import Testing

/// API.md's placeholder table, one case per kind and language, checked
/// through the whole pipeline: an empty message of that kind, rendered for
/// a recipient of that locale, has the placeholder as its FCM body.
@Suite("Placeholder table")
struct PlaceholderTableTests {
    static let table: [(MessageKind, String, String)] = [
        (.image, "en", "You received a photo"), (.image, "vi", "Bạn nhận được hình ảnh"), (.image, "fr", "Vous avez reçu une photo"),
        (.video, "en", "You received a video"), (.video, "vi", "Bạn nhận được video"), (.video, "fr", "Vous avez reçu une vidéo"),
        (.audio, "en", "You received a voice message"), (.audio, "vi", "Bạn nhận được tin nhắn thoại"),
        (.audio, "fr", "Vous avez reçu un message vocal"),
        (.file, "en", "You received a file"), (.file, "vi", "Bạn nhận được tệp"), (.file, "fr", "Vous avez reçu un fichier"),
        (.sticker, "en", "You received a sticker"), (.sticker, "vi", "Bạn nhận được nhãn dán"),
        (.sticker, "fr", "Vous avez reçu un autocollant"),
        (.location, "en", "You received a location"), (.location, "vi", "Bạn nhận được vị trí"),
        (.location, "fr", "Vous avez reçu une position"),
    ]

    @Test("An empty message shows the placeholder of its kind in the recipient's language",
          arguments: table.indices)
    func placeholderReachesTheFCMBody(index: Int) throws {
        let (kind, locale, expected) = Self.table[index]
        let config = RenderConfig.demo()
        let event = Event(eventID: "c:m", conversation: Conversation(id: "c"), message: Message(id: "m", kind: kind),
                          sender: Sender(id: "s", displayName: "Sam"),
                          recipients: [Recipient(platform: .fcm, token: "token-1", locale: locale)])
        let rendered = try EventRenderer(config: config).render(event, app: config.apps[0], avatar: .none, now: 0)
        let body = try JSONParser.parse(rendered.requests[0].body)
        #expect(body["message"]?["notification"]?["body"] == .string(expected))
        #expect(body["message"]?["data"]?["text"] == .string(""), "data.text stays the text as written")
    }

    @Test("An unknown locale falls back to English")
    func unknownLocaleFallsBackToEnglish() {
        #expect(Locales.resolve("de-DE", defaultLocale: "vi") == "en")
        #expect(Locales.resolve(nil, defaultLocale: "vi") == "vi")
        #expect(Locales.resolve("VI_vn", defaultLocale: "en") == "vi")
    }
}
