import PayloadBuilder
import XCTest

/// Values that end up in HTTP headers (`apns-collapse-id`, `apns-topic`)
/// are refused when a header could not carry them as given.
final class HeaderSafetyTests: XCTestCase {
    private func decode(conversationID: String) throws(EventError) {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("conversation"); writer.beginObject(); writer.member("id", conversationID); writer.endObject()
        writer.key("message"); writer.beginObject(); writer.member("id", "m"); writer.endObject()
        writer.key("sender"); writer.beginObject(); writer.member("id", "s"); writer.member("display_name", "S"); writer.endObject()
        writer.key("recipients"); writer.beginArray(); writer.beginObject()
        writer.member("platform", "fcm"); writer.member("token", "t"); writer.endObject(); writer.endArray()
        writer.endObject()
        _ = try EventDecoder(config: RenderConfig.demo()).decode(writer.bytes)
    }

    func testIdsWithSurroundingWhitespaceAreRefusedByField() {
        for id in [" c", "c ", "\u{00A0}c", "c\u{3000}"] {
            XCTAssertThrowsError(try decode(conversationID: id), id.debugDescription) { error in
                XCTAssertEqual((error as? EventError)?.field, "conversation.id")
                XCTAssertEqual((error as? EventError)?.code, .invalidEvent)
            }
        }
        XCTAssertNoThrow(try decode(conversationID: "a b"), "inner spaces are fine")
    }

    func testATopicThatCannotBeAHeaderValueIsAConfigurationError() {
        for topic in ["com.example chat", "com.example\u{7}", "", " com.example"] {
            XCTAssertThrowsError(try RenderConfig(apps: [AppProfile(name: "a", apns: APNsTarget(topic: topic))]),
                                 topic.debugDescription) { error in
                XCTAssertEqual((error as? ConfigError)?.setting, "apps[0].apns.topic")
            }
        }
    }
}
