import XCTest
import PayloadBuilder

/// The decoder checks small, ASCII inputs byte by byte and keeps the general
/// code for the rest; each pair of paths must give the same answers. These
/// pin the cases where they could part: token identities on both sides of
/// the linear-scan limit, URLs and ids with and without non-ASCII
/// characters, and error paths that name keys written with escapes.
final class DecoderFastPathTests: XCTestCase {
    private static let apnsToken = EventFixture.apnsToken

    private func decodeError(_ body: [UInt8]) -> EventError? {
        expectEventError { () throws(EventError) in try EventDecoder(config: EventFixture.demo).decode(body) }
    }

    private func recipients(_ items: [(String, String)]) -> (inout JSONValue) -> Void {
        { event in
            event[path: "recipients"] = .array(items.map { .object([("platform", .string($0.0)), ("token", .string($0.1))]) })
        }
    }

    private func apnsToken(_ index: Int) -> String {
        let suffix = String(index, radix: 16)
        return String(repeating: "0", count: 64 - suffix.count) + suffix
    }

    // MARK: tokens

    func testTheSameAPNsTokenInAnotherCaseIsFoundInSmallAndLargeEvents() {
        for count in [2, 16, 17, 40] {
            var items = (0..<count - 1).map { ("apns", apnsToken($0 + 0xA0)) }
            items.append(("apns", apnsToken(count - 2 + 0xA0).uppercased()))
            let error = decodeError(EventFixture.eventBytes(recipients(items)))
            XCTAssertEqual(error?.field, "recipients[\(count - 1)].token", "\(count) recipients")
            XCTAssertEqual(error?.message, "the same token as recipients[\(count - 2)]; name each device once", "\(count) recipients")
        }
    }

    func testAnFCMTokenMatchesAnAPNsTokenOnlyAsTheLowercaseIdentityInSmallAndLargeEvents() {
        let upper = Self.apnsToken.uppercased()
        for padding in [0, 20] {
            let filler = (0..<padding).map { ("apns", apnsToken($0 + 1)) }
            // The APNs identity is lowercase: an FCM token in lowercase is the same device…
            let same = decodeError(EventFixture.eventBytes(recipients(filler + [("apns", upper), ("fcm", Self.apnsToken)])))
            XCTAssertEqual(same?.field, "recipients[\(padding + 1)].token", "padding \(padding)")
            XCTAssertEqual(same?.message, "the same token as recipients[\(padding)]; name each device once")
            // …but FCM tokens are compared as written, so an uppercase FCM token is another device.
            let body = EventFixture.eventBytes(recipients(filler + [("apns", Self.apnsToken), ("fcm", upper)]))
            XCTAssertNoThrow(try EventDecoder(config: EventFixture.demo).decode(body), "padding \(padding)")
            let fcmPair = decodeError(EventFixture.eventBytes(recipients(filler + [("fcm", "AbC:1"), ("fcm", "AbC:1")])))
            XCTAssertEqual(fcmPair?.field, "recipients[\(padding + 1)].token")
            let fcmCase = EventFixture.eventBytes(recipients(filler + [("fcm", "AbC:1"), ("fcm", "abc:1")]))
            XCTAssertNoThrow(try EventDecoder(config: EventFixture.demo).decode(fcmCase))
        }
    }

    // MARK: URLs

    func testAbsoluteURLsReadTheSameWithAndWithoutNonASCIICharacters() {
        let cases: [(String, Bool)] = [
            ("https://example.com/a.jpeg", true), ("HTTP://example.com", true), ("hTtPs://x", true),
            ("https://", false), ("http://", false), ("https:///path", false), ("https://?q", false), ("https://#f", false),
            ("ftp://example.com", false), ("https:/example.com", false), ("https://exa mple.com", false),
            ("https://example.com/\u{7F}", false), ("https://example.com/\t", false), ("", false), ("http:", false),
            ("https://é.example/ảnh.jpeg", true), ("HTTPS://é", true), ("https://\u{301}x", true), ("https://\u{1F3FB}x", true),
            ("https://e\u{A0}x", true), ("httpś://x", false), ("https://x/\u{2028}", true),
        ]
        for (url, expected) in cases {
            XCTAssertEqual(HTTPURL.isAbsolute(url), expected, url.debugDescription)
        }
    }

    // MARK: ids

    func testIdsWithSurroundingWhitespaceAreRefusedWhetherASCIIOrNot() {
        let refused = [" 42", "42 ", " ", "\u{A0}42", "42\u{2003}", "\u{3000}", " é", "é "]
        let others = ["42", "a b", "é", "x\u{301}", "\u{301} ", "ảnh", "\u{600} ", "a\u{A0}b", " \u{301}x"]
        for id in refused {
            let error = decodeError(EventFixture.eventBytes { $0[path: "message.id"] = .string(id) })
            XCTAssertEqual(error?.field, "message.id", id.debugDescription)
            XCTAssertEqual(error?.message, "must not start or end with whitespace", id.debugDescription)
        }
        for id in others {
            // The general rule reads the first and last Unicode scalars, as
            // docs/openapi.yaml's pattern does (a space followed by a
            // combining mark is one character, yet starts with a space).
            let isWhitespaceAtAnEnd = id.unicodeScalars.first?.properties.isWhitespace == true
                || id.unicodeScalars.last?.properties.isWhitespace == true
            if isWhitespaceAtAnEnd {
                let error = decodeError(EventFixture.eventBytes { $0[path: "message.id"] = .string(id) })
                XCTAssertEqual(error?.message, "must not start or end with whitespace", id.debugDescription)
            } else {
                XCTAssertNoThrow(try EventDecoder(config: EventFixture.demo)
                    .decode(EventFixture.eventBytes { $0[path: "message.id"] = .string(id) }), id.debugDescription)
            }
        }
    }

    // MARK: parser paths

    func testParserErrorsNameKeysWrittenWithEscapes() {
        let invalid = Array(#"{"d\u0061ta":{"k\"1":["ok","\ud800"]}}"#.utf8)
        let error = expectEventError { () throws(EventError) in try JSONParser.parse(invalid) }
        XCTAssertEqual(error?.code, .invalidUTF8)
        XCTAssertEqual(error?.field, #"data.k"1[1]"#)
        let duplicate = Array(#"{"a":{"\u0062":1,"b":2}}"#.utf8)
        let twice = expectEventError { () throws(EventError) in try JSONParser.parse(duplicate) }
        XCTAssertEqual(twice?.field, "a.b")
        XCTAssertEqual(twice?.message, #"the key "b" appears twice in one object"#)
    }

    func testIntegersOfEveryLengthParseExactly() throws {
        for text in ["0", "-0", "7", "-7", "123456789012345678", "-12345678901234567", "-123456789012345678",
                     "999999999999999999", "9223372036854775807", "-9223372036854775808", "9223372036854775808"] {
            let parsed = try JSONParser.parse(Array(text.utf8))
            if let exact = Int64(text) {
                XCTAssertEqual(parsed, .int(exact), text)
            } else {
                XCTAssertEqual(parsed, .double(Double(text)!), text)
            }
        }
    }

    // MARK: locales

    func testPrimarySubtagsOfASCIIAndOtherTagsFollowTheCharacterRule() {
        let tags = ["vi-VN", "vi_VN", "VI", "Vi-vN", "en", "fr", "x", "", "-vi", "_", "zh-Hant-TW", "EN_us-x",
                    "ÉN-us", "vi\u{301}-VN", "\u{212A}o", "vi\r\n", "VI\r\n-x", "de-DE", "Ab\u{7F}-c"]
        for tag in tags {
            let end = tag.firstIndex(where: { $0 == "-" || $0 == "_" }) ?? tag.endIndex
            XCTAssertEqual(Locales.primarySubtag(tag), String(tag[..<end]).lowercased(), tag.debugDescription)
        }
        XCTAssertEqual(Locales.resolve("VI-vn", defaultLocale: "en"), "vi")
        XCTAssertEqual(Locales.resolve("de", defaultLocale: "fr"), "en")
        XCTAssertEqual(Locales.resolve(nil, defaultLocale: "fr"), "fr")
        XCTAssertEqual(Locales.resolve(nil, defaultLocale: "de"), "en")
    }
}
