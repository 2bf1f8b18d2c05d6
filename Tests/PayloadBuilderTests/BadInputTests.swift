import XCTest
import PayloadBuilder

/// Malformed request bodies: each is refused by `EventDecoder` with the exact
/// code and field of API.md, and its error answers with the documented body.
final class BadInputTests: XCTestCase {
    /// One malformed body and the error it must earn.
    struct BadInput {
        let name: String
        let body: [UInt8]
        var config: RenderConfig = EventFixture.demo
        let code: ErrorCode
        let field: String?
    }

    private typealias Edit = (inout JSONValue) -> Void

    private static func mutated(_ name: String, _ code: ErrorCode, _ field: String?,
                                config: RenderConfig = EventFixture.demo, _ edit: Edit) -> BadInput {
        BadInput(name: name, body: EventFixture.eventBytes(edit), config: config, code: code, field: field)
    }

    private static func raw(_ name: String, _ code: ErrorCode, _ field: String?, _ body: [UInt8]) -> BadInput {
        BadInput(name: name, body: body, code: code, field: field)
    }

    /// The base event with one string value replaced by raw bytes.
    private static func broken(_ name: String, _ code: ErrorCode, _ field: String?, raw bytes: [UInt8],
                               _ place: @escaping (JSONValue) -> Edit) -> BadInput {
        let marker = "@@MARKER@@"
        return BadInput(name: name, body: EventFixture.eventBytes(replacing: marker, with: bytes, place(.string(marker))),
                        code: code, field: field)
    }

    private static func set(_ path: String, _ value: JSONValue?) -> Edit {
        { event in event[path: path] = value }
    }

    private static func recipients(count: Int) -> JSONValue {
        .array((0..<count).map { index in
            .object([("platform", .string("fcm")), ("token", .string("token-\(index)"))])
        })
    }

    static let apnsToken = EventFixture.apnsToken
    static let oversizedBody: [UInt8] = EventFixture.eventBytes(EventFixture.setData([
        ("padding", .string(String(repeating: "x", count: 64 * 1024))),
    ]))

    static let cases: [BadInput] = [
        // Whole-body errors.
        raw("empty body", .emptyBody, nil, []),
        raw("whitespace-only body", .emptyBody, nil, Array(" \r\n\t  \n".utf8)),
        BadInput(name: "body over 64 KiB", body: oversizedBody, code: .bodyTooLarge, field: nil),
        raw("not JSON", .invalidJSON, "$", Array("conversation=1&message=2".utf8)),
        raw("trailing garbage", .invalidJSON, "$", EventFixture.eventBytes() + Array(" }x".utf8)),
        raw("two documents", .invalidJSON, "$", EventFixture.eventBytes() + EventFixture.eventBytes()),
        raw("truncated document", .invalidJSON, "data.any_extra_key", Array(EventFixture.eventBytes().dropLast(5))),
        raw("top-level array", .invalidEvent, nil, Array("[".utf8) + EventFixture.eventBytes() + Array("]".utf8)),
        raw("top-level string", .invalidEvent, nil, Array("\"event\"".utf8)),
        raw("a UTF-8 byte order mark", .invalidJSON, "$", [0xEF, 0xBB, 0xBF] + EventFixture.eventBytes()),
        raw("a raw control character in a string", .invalidJSON, "conversation.id",
            Array(#"{"conversation":{"id":"1"#.utf8) + [0x01] + Array(#""}}"#.utf8)),

        // JSON that names a field.
        raw("duplicate key", .invalidJSON, "conversation.id",
            Array(#"{"conversation":{"id":"1","id":"2"},"message":{"id":"1"}}"#.utf8)),
        raw("duplicate key spelt with an escape", .invalidJSON, "message",
            Array(#"{"message":{"id":"1"},"m\u0065ssage":{"id":"2"}}"#.utf8)),
        broken("invalid UTF-8 in sender.display_name", .invalidUTF8, "sender.display_name", raw: [0x4E, 0xC3, 0x28, 0x61]) {
            set("sender.display_name", $0)
        },
        broken("invalid UTF-8 in data.x", .invalidUTF8, "data.x", raw: [0x61, 0xFF]) {
            EventFixture.setData([("x", $0)])
        },
        broken("overlong UTF-8 in message.text", .invalidUTF8, "message.text", raw: [0xC0, 0xAF]) {
            set("message.text", $0)
        },
        broken("UTF-8-encoded surrogate in conversation.title", .invalidUTF8, "conversation.title", raw: [0xED, 0xA0, 0x80]) {
            set("conversation.title", $0)
        },
        broken("code point above U+10FFFF in recipients[0].locale", .invalidUTF8, "recipients[0].locale",
               raw: [0xF4, 0x90, 0x80, 0x80]) {
            set("recipients.0.locale", $0)
        },
        broken("lone surrogate escape in message.text", .invalidUTF8, "message.text", raw: Array(#"hi \ud800 there"#.utf8)) {
            set("message.text", $0)
        },
        broken("lone low surrogate escape in sender.id", .invalidUTF8, "sender.id", raw: Array(#"\udc00"#.utf8)) {
            set("sender.id", $0)
        },

        // conversation, message, sender.
        mutated("missing conversation", .invalidEvent, "conversation", set("conversation", nil)),
        mutated("missing conversation.id", .invalidEvent, "conversation.id", set("conversation.id", nil)),
        mutated("conversation.id a number", .invalidEvent, "conversation.id", set("conversation.id", .int(37791233165968))),
        mutated("conversation.id over 256 bytes", .invalidEvent, "conversation.id",
                set("conversation.id", .string(String(repeating: "7", count: 257)))),
        mutated("empty message.id", .invalidEvent, "message.id", set("message.id", .string(""))),
        mutated("message.text a number", .invalidEvent, "message.text", set("message.text", .int(1))),
        mutated("unknown kind gif", .invalidEvent, "message.kind", set("message.kind", .string("gif"))),
        mutated("kind in capitals", .invalidEvent, "message.kind", set("message.kind", .string("Video"))),
        mutated("rich_text a string", .invalidEvent, "message.rich_text", set("message.rich_text", .string("true"))),
        mutated("missing sender.display_name", .invalidEvent, "sender.display_name", set("sender.display_name", nil)),
        mutated("blank sender.display_name", .invalidEvent, "sender.display_name", set("sender.display_name", .string(" \t\u{3000} "))),
        mutated("null sender.id", .invalidEvent, "sender.id", set("sender.id", .null)),
        mutated("avatar_url with ftp", .invalidEvent, "sender.avatar_url",
                set("sender.avatar_url", .string("ftp://example.com/a.jpeg"))),
        mutated("avatar_url relative", .invalidEvent, "sender.avatar_url", set("sender.avatar_url", .string("/avatar.png"))),
        mutated("avatar_url javascript", .invalidEvent, "sender.avatar_url",
                set("sender.avatar_url", .string("javascript:alert(1)"))),
        mutated("sender an array", .invalidEvent, "sender", set("sender", .array([]))),
        mutated("empty event_id", .invalidEvent, "event_id", { $0[path: "event_id"] = .string("") }),

        // recipients.
        mutated("recipients missing", .invalidEvent, "recipients", set("recipients", nil)),
        mutated("recipients empty", .invalidEvent, "recipients", set("recipients", .array([]))),
        mutated("recipients not an array", .invalidEvent, "recipients",
                set("recipients", .object([("platform", .string("fcm"))]))),
        mutated("501 recipients", .tooManyRecipients, "recipients", set("recipients", recipients(count: 501))),
        mutated("a recipient that is a string", .invalidEvent, "recipients[1]", set("recipients.1", .string(apnsToken))),
        mutated("platform web", .invalidEvent, "recipients[0].platform", set("recipients.0.platform", .string("web"))),
        mutated("platform missing", .invalidEvent, "recipients[0].platform", set("recipients.0.platform", nil)),
        mutated("APNs token of odd length", .invalidEvent, "recipients[1].token",
                set("recipients.1.token", .string(apnsToken + "a"))),
        mutated("APNs token with non-hex", .invalidEvent, "recipients[1].token",
                set("recipients.1.token", .string(String(apnsToken.dropLast(2)) + "zz"))),
        mutated("APNs token of 62 characters", .invalidEvent, "recipients[1].token",
                set("recipients.1.token", .string(String(apnsToken.prefix(62))))),
        mutated("APNs token of 202 characters", .invalidEvent, "recipients[1].token",
                set("recipients.1.token", .string(String(repeating: "ab", count: 101)))),
        mutated("FCM token with a space", .invalidEvent, "recipients[0].token",
                set("recipients.0.token", .string("bk3RNwTe3H0:CI2k HHwgIpoDKC"))),
        mutated("FCM token of 4097 characters", .invalidEvent, "recipients[0].token",
                set("recipients.0.token", .string(String(repeating: "A", count: 4097)))),
        mutated("FCM token empty", .invalidEvent, "recipients[0].token", set("recipients.0.token", .string(""))),
        mutated("FCM token with non-ASCII", .invalidEvent, "recipients[0].token",
                set("recipients.0.token", .string("bk3RNwTé3H0"))),
        mutated("badge -1", .invalidEvent, "recipients[0].badge", set("recipients.0.badge", .int(-1))),
        mutated("badge 2.5", .invalidEvent, "recipients[0].badge", set("recipients.0.badge", .double(2.5))),
        mutated("badge a string", .invalidEvent, "recipients[0].badge", set("recipients.0.badge", .string("3"))),
        mutated("badge over Int32.max", .invalidEvent, "recipients[0].badge",
                set("recipients.0.badge", .int(Int64(Int32.max) + 1))),
        mutated("duplicate token", .invalidEvent, "recipients[1].token", set("recipients.1", .object([
            ("platform", .string("fcm")), ("token", .string(EventFixture.fcmToken)),
        ]))),
        mutated("empty locale", .invalidEvent, "recipients[0].locale", set("recipients.0.locale", .string(""))),
        mutated("user_id a number", .invalidEvent, "recipients[1].user_id", set("recipients.1.user_id", .int(42))),

        // Unknown fields.
        mutated("unknown top-level field", .invalidEvent, "notifcation",
                set("notifcation", .object([("title", .string("x"))]))),
        mutated("unknown recipient field", .invalidEvent, "recipients[0].tokn", set("recipients.0.tokn", .string("x"))),
        mutated("unknown sender field", .invalidEvent, "sender.avatar", set("sender.avatar", .string("https://e.com/a"))),

        // notification.
        mutated("priority urgent", .invalidEvent, "notification.priority", set("notification.priority", .string("urgent"))),
        mutated("ttl_seconds negative", .invalidEvent, "notification.ttl_seconds", set("notification.ttl_seconds", .int(-1))),
        mutated("ttl_seconds over four weeks", .invalidEvent, "notification.ttl_seconds",
                set("notification.ttl_seconds", .int(2_419_201))),
        mutated("ttl_seconds a string", .invalidEvent, "notification.ttl_seconds",
                set("notification.ttl_seconds", .string("60"))),
        mutated("notification a string", .invalidEvent, "notification", set("notification", .string("high"))),

        // data.
        mutated("data value a number", .invalidEvent, "data.count", EventFixture.setData([("count", .int(3))])),
        mutated("data value null", .invalidEvent, "data.x", EventFixture.setData([("x", .null)])),
        mutated("data an array", .invalidEvent, "data", set("data", .array([.string("x")]))),
        mutated("reserved data key from", .invalidEvent, "data.from", EventFixture.setData([("from", .string("x"))])),
        mutated("reserved data key message_type", .invalidEvent, "data.message_type",
                EventFixture.setData([("message_type", .string("x"))])),
        mutated("reserved data key google.x", .invalidEvent, "data.google.x",
                EventFixture.setData([("google.x", .string("x"))])),
        mutated("reserved data key GCM_thing", .invalidEvent, "data.GCM_thing",
                EventFixture.setData([("GCM_thing", .string("x"))])),
        mutated("reserved data key From in capitals", .invalidEvent, "data.From",
                EventFixture.setData([("From", .string("x"))])),
        mutated("reserved data key aps", .invalidEvent, "data.aps", EventFixture.setData([("aps", .string("x"))])),
        mutated("reserved data key notifee_options", .invalidEvent, "data.notifee_options",
                EventFixture.setData([("notifee_options", .string("x"))])),
        mutated("empty data key", .invalidEvent, "data.", EventFixture.setData([("", .string("x"))])),
        mutated("data key colliding with a gateway key", .invalidEvent, "data.title",
                EventFixture.setData([("title", .string("x"))])),
        mutated("data key colliding with ps_thread_id", .invalidEvent, "data.ps_thread_id",
                EventFixture.setData([("ps_thread_id", .string("x"))])),
        mutated("data key colliding with a renamed gateway key", .invalidEvent, "data.conversationId",
                config: EventFixture.renamedKeys, EventFixture.setData([("conversationId", .string("x"))])),

        // Apps.
        mutated("unknown app with two apps configured", .unknownApp, "app", config: EventFixture.twoApps,
                set("app", .string("mail"))),
        mutated("no app named with two apps configured", .unknownApp, "app", config: EventFixture.twoApps, { _ in }),
        mutated("unknown app with one app configured", .unknownApp, "app", set("app", .string("mail"))),
        mutated("app an empty string", .invalidEvent, "app", set("app", .string(""))),
        mutated("APNs recipient when the app has no APNs section", .invalidEvent, "recipients[1].platform",
                config: EventFixture.fcmOnly, { _ in }),
        mutated("APNs recipient when the named app has no APNs section", .invalidEvent, "recipients[1].platform",
                config: EventFixture.twoApps, set("app", .string("shop"))),
    ]

    func testEveryMalformedEventIsRefusedWithItsCodeAndField() {
        XCTAssertGreaterThanOrEqual(Self.cases.count, 30)
        var checked = 0
        for bad in Self.cases {
            let decoder = EventDecoder(config: bad.config)
            guard let error = expectEventError({ () throws(EventError) in try decoder.decode(bad.body) }) else {
                XCTFail("\(bad.name): accepted")
                continue
            }
            checked += 1
            XCTAssertEqual(error.code, bad.code, "\(bad.name): \(error)")
            XCTAssertEqual(error.field, bad.field, "\(bad.name): \(error)")
            XCTAssertFalse(error.message.isEmpty, bad.name)
            assertErrorBodyHasTheDocumentedShape(error, bad.name)
        }
        XCTAssertEqual(checked, Self.cases.count)
    }

    func testTheBaseEventAndTheConfigurationsOfTheTableAreAccepted() {
        // The base event and the configurations used above are themselves accepted.
        XCTAssertNotNil(decodeEventOrFail(EventFixture.eventBytes()))
        XCTAssertNotNil(decodeEventOrFail(EventFixture.eventBytes { $0[path: "app"] = .string("chat") },
                                          config: EventFixture.twoApps))
        XCTAssertNotNil(decodeEventOrFail(EventFixture.eventBytes { $0[path: "recipients.1"] = nil },
                                          config: EventFixture.fcmOnly))
        XCTAssertNotNil(decodeEventOrFail(EventFixture.eventBytes(), config: EventFixture.renamedKeys))
    }

    func testEachErrorCodeCarriesItsHTTPStatus() {
        XCTAssertEqual(ErrorCode.bodyTooLarge.httpStatus, 413)
        for code in [ErrorCode.invalidJSON, .emptyBody, .invalidUTF8, .invalidEvent, .tooManyRecipients, .unknownApp] {
            XCTAssertEqual(code.httpStatus, 400, code.rawValue)
        }
        XCTAssertEqual(ErrorCode.unauthorized.httpStatus, 401)
        XCTAssertEqual(ErrorCode.notFound.httpStatus, 404)
        XCTAssertEqual(ErrorCode.methodNotAllowed.httpStatus, 405)
    }

    func testAcceptsABodyOfExactly64KiB() throws {
        let base = EventFixture.eventBytes(EventFixture.setData([("padding", .string(""))]))
        let padding = String(repeating: "x", count: 64 * 1024 - base.count)
        let body = EventFixture.eventBytes(EventFixture.setData([("padding", .string(padding))]))
        XCTAssertEqual(body.count, 65_536)
        XCTAssertNotNil(decodeEventOrFail(body))
        let error = expectEventError { () throws(EventError) in try EventDecoder(config: EventFixture.demo).decode(body + [0x20]) }
        XCTAssertEqual(error?.code, .bodyTooLarge)
    }

    func testAccepts500Recipients() {
        let body = EventFixture.eventBytes { $0[path: "recipients"] = Self.recipients(count: 500) }
        XCTAssertEqual(decodeEventOrFail(body)?.event.recipients.count, 500)
    }

    func testAcceptsAPNsTokensOf64And200HexDigitsInEitherCase() {
        for token in [String(repeating: "aB", count: 32), String(repeating: "0f", count: 100)] {
            let body = EventFixture.eventBytes { $0[path: "recipients.1.token"] = .string(token) }
            XCTAssertEqual(decodeEventOrFail(body)?.event.recipients[1].token, token)
        }
    }

    func testAcceptsDataKeysThatARenamedGatewayKeyNoLongerUses() {
        let body = EventFixture.eventBytes(EventFixture.setData([("ps_thread_id", .string("legacy")),
                                                                 ("avatar_url", .string("https://e.com/a.png"))]))
        let event = decodeEventOrFail(body, config: EventFixture.renamedKeys)?.event
        XCTAssertEqual(event?.data, [DataEntry("ps_thread_id", "legacy"), DataEntry("avatar_url", "https://e.com/a.png")])
    }

    func testAnErrorForTheWholeBodyHasANullField() throws {
        let error = try XCTUnwrap(expectEventError { () throws(EventError) in
            try EventDecoder(config: EventFixture.demo).decode([])
        })
        let body = parseJSONOrFail(error.jsonBody)
        XCTAssertEqual(body[path: "error.field"], .null)
        XCTAssertEqual(body[path: "error.code"], .string("empty_body"))
    }

    /// A whole number too large for 64 bits is called out of range, not
    /// "not a whole number"; a fraction is still named as
    /// such. A number beyond any double (`1e400`) names its field too (it
    /// was an `invalid_json` with a null field).
    func testAHugeWholeNumberIsOutOfRangeAndAFractionIsNotWhole() {
        let cases: [(String, String)] = [("1000000000000000000000000000000", "out of range"), ("1e400", "out of range"),
                                         ("-1e400", "out of range"), ("1.5", "whole number"),
                                         ("1e-1", "whole number"), ("-1.5", "whole number"),
                                         ("-1.0", "between 0 and")]
        for (number, expected) in cases {
            let text = #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","badge":"# + number + "}]}"
            let error = expectEventError { () throws(EventError) in try EventDecoder(config: EventFixture.demo).decode(Array(text.utf8)) }
            XCTAssertEqual(error?.field, "recipients[0].badge", number)
            XCTAssertTrue(error?.message.contains(expected) ?? false, "\(number): \(error?.message ?? "no error")")
        }
    }

    /// A number is judged whole on its digits (JSON Schema's `integer`):
    /// Python's `json.dumps(86400.0)` and `8.64e4` are whole, `1e-400` and
    /// `0.99999999999999999` are not, though their doubles are 0 and 1.
    func testANumberIsWholeByItsDigitsNotItsDouble() throws {
        let whole: [(String, Int)] = [("100.0", 100), ("1e2", 100), ("1E+2", 100), ("0.0", 0), ("-0e5", 0),
                                      ("2197.000", 2197), ("21.97e2", 2197), ("219700e-2", 2197), ("0.002197e6", 2197)]
        for (badge, value) in whole {
            let text = #"{"conversation":{"id":"c"},"message":{"id":"m","text":"hi"},"sender":{"id":"s","display_name":"S"},"#
                + #""recipients":[{"platform":"fcm","token":"t","badge":"# + badge + "}]}"
            let event = try EventDecoder(config: EventFixture.demo).decode(Array(text.utf8)).event
            XCTAssertEqual(event.recipients.first?.badge, value, badge)
        }
        for badge in ["1e-400", "0.99999999999999999", "100.0000000000000001", "2197.5", "21.975e2"] {
            let text = #"{"conversation":{"id":"c"},"message":{"id":"m","text":"hi"},"sender":{"id":"s","display_name":"S"},"#
                + #""recipients":[{"platform":"fcm","token":"t","badge":"# + badge + "}]}"
            let error = expectEventError { () throws(EventError) in try EventDecoder(config: EventFixture.demo).decode(Array(text.utf8)) }
            XCTAssertEqual(error?.field, "recipients[0].badge", badge)
            XCTAssertEqual(error?.message, "must be a whole number, e.g. 86400", badge)
        }
        for badge in ["1e19", "9223372036854775808.0", "1e100000000", "123456789012345678901.5"] {
            let text = #"{"conversation":{"id":"c"},"message":{"id":"m","text":"hi"},"sender":{"id":"s","display_name":"S"},"#
                + #""recipients":[{"platform":"fcm","token":"t","badge":"# + badge + "}]}"
            let error = expectEventError { () throws(EventError) in try EventDecoder(config: EventFixture.demo).decode(Array(text.utf8)) }
            XCTAssertEqual(error?.message, "is out of range", badge)
        }
    }

    // MARK: Bugs found while writing these tests (they fail until Sources are fixed)

    /// API.md: "body at most 64 KiB (413 beyond)". A body of blanks over the
    /// limit is answered `empty_body` because emptiness is checked first.
    func testRefusesAnOversizedBodyOfBlanksAsTooLarge() {
        let body = [UInt8](repeating: 0x20, count: 64 * 1024 + 1)
        let error = expectEventError { () throws(EventError) in try EventDecoder(config: EventFixture.demo).decode(body) }
        XCTAssertEqual(error?.code, .bodyTooLarge)
    }

    /// APNs tokens are hex: `ABCD…` and `abcd…` name the same device, which
    /// would then be sent the notification twice.
    func testRefusesTheSameAPNsTokenWrittenInAnotherCase() {
        let body = EventFixture.eventBytes {
            $0[path: "recipients.0"] = .object([("platform", .string("apns")), ("token", .string(Self.apnsToken.uppercased()))])
        }
        let error = expectEventError { () throws(EventError) in try EventDecoder(config: EventFixture.demo).decode(body) }
        XCTAssertEqual(error?.code, .invalidEvent)
        XCTAssertEqual(error?.field, "recipients[1].token")
    }

    // MARK: helpers

    private func assertErrorBodyHasTheDocumentedShape(_ error: EventError, _ name: String,
                                                      file: StaticString = #filePath, line: UInt = #line) {
        let body: JSONValue
        do {
            body = try JSONParser.parse(error.jsonBody)
        } catch {
            XCTFail("\(name): the error body is not JSON: \(error)", file: file, line: line)
            return
        }
        XCTAssertEqual(body.memberKeys, ["error"], name, file: file, line: line)
        guard let inner = body["error"] else { return }
        XCTAssertEqual(inner.memberKeys, ["code", "field", "message"], name, file: file, line: line)
        XCTAssertEqual(inner["code"], .string(error.code.rawValue), name, file: file, line: line)
        XCTAssertEqual(inner["field"], error.field.map { .string($0) } ?? .null, name, file: file, line: line)
        XCTAssertEqual(inner["message"]?.asString?.isEmpty, false, name, file: file, line: line)
    }
}
