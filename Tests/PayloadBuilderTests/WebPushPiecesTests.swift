import XCTest
@testable import PayloadBuilder

/// The small pieces of web push rendering: base64url, the `Topic` header
/// and the link template's percent-encoding.
final class WebPushPiecesTests: XCTestCase {
    /// RFC 4648 §10's test vectors, in the URL-safe alphabet without padding.
    func testBase64URLMatchesTheRFCVectorsBothWays() throws {
        let vectors = [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
                       ("foobar", "Zm9vYmFy")]
        for (plain, encoded) in vectors {
            XCTAssertEqual(WebSafeBase64.encode(Array(plain.utf8)), encoded)
            XCTAssertEqual(try WebSafeBase64.decode(Array(encoded.utf8).span).get(), Array(plain.utf8))
        }
        // The bytes that differ from standard base64: 0xFB 0xFF → "-_8".
        XCTAssertEqual(WebSafeBase64.encode([0xFB, 0xFF]), "-_8")
        XCTAssertEqual(try WebSafeBase64.decode(Array("-_8".utf8).span).get(), [0xFB, 0xFF])
        XCTAssertEqual(try WebSafeBase64.decode(Array("Zg==".utf8).span).get(), Array("f".utf8))
    }

    func testBase64URLRefusesWhatIsNotIt() {
        for (text, problem) in [("+/8", WebSafeBase64.Problem.notInAlphabet), ("Z", .badLength), ("Zg=", .badLength),
                                ("Zg===", .badLength), ("Zh", .nonCanonical), ("Z g", .notInAlphabet)] {
            XCTAssertEqual(WebSafeBase64.decode(Array(text.utf8).span).failure, problem, text)
        }
    }

    func testTheTopicIsThirtyTwoURLSafeCharactersOfTheConversationsDigest() {
        for id in ["37791233165968", "room/42 \"ü\"?&#", String(repeating: "long", count: 100), "x"] {
            let topic = WebPushHeaders.topic(conversationID: id)
            XCTAssertEqual(topic.utf8.count, 32, id)
            XCTAssertTrue(topic.utf8.allSatisfy { byte in
                (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }, topic)
            XCTAssertEqual(topic, WebPushHeaders.topic(conversationID: id))
        }
        // Computed apart: Python's base64.urlsafe_b64encode(hashlib.sha256(b"37791233165968").digest()[:24]).
        XCTAssertEqual(WebPushHeaders.topic(conversationID: "37791233165968"), "Uv5HPIYoEZE9jM5z2n2RJP4ZFySIPQ-V")
        XCTAssertNotEqual(WebPushHeaders.topic(conversationID: "a"), WebPushHeaders.topic(conversationID: "b"))
    }

    func testTheLinkTemplatePercentEncodesTheConversationID() throws {
        let template = try WebLinkTemplate("https://chat.example/c/{conversation_id}?again={conversation_id}", setting: "t")
        XCTAssertEqual(template.link(conversationID: "a/b c~ü"), "https://chat.example/c/a%2Fb%20c~%C3%BC?again=a%2Fb%20c~%C3%BC")
        XCTAssertEqual(try WebLinkTemplate("https://chat.example/inbox", setting: "t").link(conversationID: "x"),
                       "https://chat.example/inbox")
    }

    func testLinkTemplatesThatFCMWouldRefuseAreRefusedAtConfiguration() {
        let cases: [(String, String)] = [
            ("http://chat.example/c/{conversation_id}", "https://"),
            ("https:///c/{conversation_id}", "https://"),
            ("https://chat.example/c/{conversationId}", "only placeholder"),
            ("https://chat.example/c/{conversation_id}}", "only placeholder"),
            ("https://chat.example/c/\"{conversation_id}\"", "printable ASCII"),
            ("https://chat.example/c/ {conversation_id}", "printable ASCII"),
            ("", "printable ASCII"),
        ]
        for (text, words) in cases {
            do {
                _ = try WebLinkTemplate(text, setting: "apps[0].web.link_template")
                XCTFail("accepted \(text)")
            } catch {
                XCTAssertEqual(error.setting, "apps[0].web.link_template")
                XCTAssertTrue(error.message.contains(words), "\(text): \(error.message)")
            }
        }
    }

    func testTheConfigurationFileReadsTheWebSection() throws {
        let config = try RenderConfig(json: Array("""
            {"apps": [{"name": "site", "fcm": {"project_id": "p"}, "web": {"link_template": "https://chat.example/c/{conversation_id}"}}]}
            """.utf8))
        XCTAssertEqual(config.apps[0].webLink?.template, "https://chat.example/c/{conversation_id}")
        XCTAssertThrowsError(try RenderConfig(json: Array("""
            {"apps": [{"name": "site", "fcm": {"project_id": "p"}, "web": {"link": "https://chat.example/"}}]}
            """.utf8))) { error in
            XCTAssertEqual((error as? ConfigError)?.setting, "apps[0].web.link")
        }
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case let .failure(failure) = self { return failure }
        return nil
    }
}
