import PayloadBuilder
import XCTest

/// API.md's placeholder table, one case per kind and language, checked
/// through the whole pipeline: an empty message of that kind, rendered for
/// a recipient of that locale, has the placeholder as its FCM body.
final class PlaceholderTableTests: XCTestCase {
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

    func testAnEmptyMessageShowsThePlaceholderOfItsKindInTheRecipientsLanguage() throws {
        let config = RenderConfig.demo()
        for (kind, locale, expected) in Self.table {
            let name = "\(kind) in \(locale)"
            let event = Event(eventID: "c:m", conversation: Conversation(id: "c"), message: Message(id: "m", kind: kind),
                              sender: Sender(id: "s", displayName: "Sam"),
                              recipients: [Recipient(platform: .fcm, token: "token-1", locale: locale)])
            let rendered = try EventRenderer(config: config).render(event, app: config.apps[0], avatar: .none, now: 0)
            let body = try JSONParser.parse(rendered.requests[0].body)
            XCTAssertEqual(body["message"]?["notification"]?["body"], .string(expected), name)
            XCTAssertEqual(body["message"]?["data"]?["text"], .string(""), "\(name): data.text stays the text as written")
        }
    }

    func testAnUnknownLocaleFallsBackToEnglish() {
        XCTAssertEqual(Locales.resolve("de-DE", defaultLocale: "vi"), "en")
        XCTAssertEqual(Locales.resolve(nil, defaultLocale: "vi"), "vi")
        XCTAssertEqual(Locales.resolve("VI_vn", defaultLocale: "en"), "vi")
    }
}
