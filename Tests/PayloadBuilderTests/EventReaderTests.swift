import XCTest
@testable import PayloadBuilder
import TestSupport

/// Events read in one pass (`EventReader`): awkward valid events give the
/// values written, and each body broken in one way is refused with the code
/// and the field of its problem.
final class EventReaderTests: XCTestCase {
    private static let apns = EventFixture.apnsToken

    /// Valid events, awkward ones included: escapes, nulls for every
    /// optional member, members in any order, any whitespace, long values.
    static let valid: [String] = [
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#,
        " \r\n\t{ \"conversation\" : { \"id\" : \"c\" } , \"message\" : {\"id\":\"m\"},\"sender\":{\"id\":\"s\",\"display_name\":\"S\"},\"recipients\":[ {\"platform\":\"apns\",\"token\":\"\(apns.uppercased())\"} ] } \n",
        #"{"recipients":[{"token":"t","platform":"fcm","badge":0,"locale":"vi-VN","user_id":"u 1"}],"sender":{"avatar_url":"HTTPS://é.example/ảnh.jpeg","display_name":"Nghĩa 🎧","id":"6872016393687471"},"message":{"rich_text":true,"kind":"image","text":"<b>Hi</b> &amp; \u00e9\ud83c\udfa7","id":"537"},"conversation":{"title":"","id":"37791233165968"}}"#,
        #"{"event_id":"e\u002F1","app":"demo","conversation":{"id":"c","title":null},"message":{"id":"m","text":null,"kind":null,"rich_text":null},"sender":{"id":"s","display_name":"\"q\"\\\/\b\f\n\r\t","avatar_url":null},"recipients":[{"platform":"fcm","token":"t","badge":null,"locale":null,"user_id":null}],"notification":null,"data":null}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m","kind":"location","text":""},"sender":{"id":"s","display_name":"S","avatar_url":""},"recipients":[{"platform":"fcm","token":"t","badge":2147483647},{"platform":"fcm","token":"T","badge":-0}],"notification":{"title":"T","sound":null,"ttl_seconds":0,"priority":"normal"}}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"notification":{"title":"","sound":"","ttl_seconds":2419200,"priority":null},"data":{}}"#,
        #"{"event_id":null,"conversation":{"id":"c\u00e9 1"},"message":{"id":"m\/2"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#,
        #"{"conversation":{"id":"a-long-conversation-id"},"message":{"id":"ả"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"event_id":null}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"notification":{},"data":{"k":"v","K":"","é":"\u0000x","a\"b":"ü","deeplink":"chat://c/m","k\u0032":"2"}}"#,
        #"{"conversation":{"id":"ảnh"},"message":{"id":"a\u00A0b"},"sender":{"id":"x\u0301","display_name":"\u0301"},"recipients":[{"platform":"apns","token":"\#(apns)","locale":"fr_CA"}],"event_id":"\#(String(repeating: "e", count: 256))"}"#,
        #"{"conversation":{"id":"c","title":"\#(String(repeating: "t", count: 1024))"},"message":{"id":"m","text":"\#(String(repeating: "é", count: 3000))"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"\#(String(repeating: "x", count: 4096))"}]}"#,
    ]

    /// Bodies each broken in one way, with the code and field each earns.
    static let refused: [(body: String, code: ErrorCode, field: String?)] = [
        ("", .emptyBody, nil),
        (" ", .emptyBody, nil),
        ("null", .invalidEvent, nil),
        ("[]", .invalidEvent, nil),
        ("{}", .invalidEvent, "conversation"),
        ("\"x\"", .invalidEvent, nil),
        ("{", .invalidJSON, "$"),
        (#"{"conversation":{"id":"c"}}"#, .invalidEvent, "message"),
        (#"{"conversation":{"id":"c"},"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#, .invalidJSON, "conversation"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"data":{"k":"v","k":"w"}}"#, .invalidJSON, "data.k"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"data":{"k":"v","\u006b":"w"}}"#, .invalidJSON, "data.k"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","badge":1.5}]}"#, .invalidEvent, "recipients[0].badge"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","badge":1e-2}]}"#, .invalidEvent, "recipients[0].badge"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","badge":01}]}"#, .invalidJSON, "recipients[0].badge"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","badge":-1}]}"#, .invalidEvent, "recipients[0].badge"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","badge":2147483648}]}"#, .invalidEvent, "recipients[0].badge"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","badge":0000000000000000000003}]}"#, .invalidJSON, "recipients[0].badge"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","extra":1}]}"#, .invalidEvent, "recipients[0].extra"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"},{"platform":"fcm","token":"t"}]}"#, .invalidEvent, "recipients[1].token"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"apns","token":"\#(apns)"},{"platform":"apns","token":"\#(apns.uppercased())"}]}"#, .invalidEvent, "recipients[1].token"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[]}"#, .invalidEvent, "recipients"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"},]}"#, .invalidJSON, "recipients[1]"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],}"#, .invalidJSON, "$"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]} x"#, .invalidJSON, "$"),
        (#"{"conversation":{"id":" c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#, .invalidEvent, "conversation.id"),
        (#"{"conversation":{"id":"c\u0001"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#, .invalidEvent, "conversation.id"),
        (#"{"conversation":{"id":"c\u2003"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#, .invalidEvent, "conversation.id"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m","kind":"gif"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#, .invalidEvent, "message.kind"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m","kind":""},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#, .invalidEvent, "message.kind"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m","rich_text":"true"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#, .invalidEvent, "message.rich_text"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S","avatar_url":"ftp://x"},"recipients":[{"platform":"fcm","token":"t"}]}"#, .invalidEvent, "sender.avatar_url"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":""},"recipients":[{"platform":"fcm","token":"t"}]}"#, .invalidEvent, "sender.display_name"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"apns","token":"abc"}]}"#, .invalidEvent, "recipients[0].token"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"web","token":"t"}]}"#, .invalidEvent, "recipients[0].platform"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t t"}]}"#, .invalidEvent, "recipients[0].token"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","locale":""}]}"#, .invalidEvent, "recipients[0].locale"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"notification":{"ttl_seconds":2419201}}"#, .invalidEvent, "notification.ttl_seconds"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"notification":{"priority":"urgent"}}"#, .invalidEvent, "notification.priority"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"data":{"from":"x"}}"#, .invalidEvent, "data.from"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"data":{"GCM_x":"x"}}"#, .invalidEvent, "data.GCM_x"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"data":{"sender_id":"x"}}"#, .invalidEvent, "data.sender_id"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"data":{"k":1}}"#, .invalidEvent, "data.k"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"data":{"k":null}}"#, .invalidEvent, "data.k"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"app":"nope"}"#, .unknownApp, "app"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"\ud800"},"recipients":[{"platform":"fcm","token":"t"}]}"#, .invalidUTF8, "sender.display_name"),
        (#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"\x"},"recipients":[{"platform":"fcm","token":"t"}]}"#, .invalidJSON, "sender.display_name"),
        ("{\"conversation\":{\"id\":\"c\"},\"message\":{\"id\":\"m\"},\"sender\":{\"id\":\"s\",\"display_name\":\"a\tb\"},\"recipients\":[{\"platform\":\"fcm\",\"token\":\"t\"}]}", .invalidJSON, "sender.display_name"),
        (#"{"notifcation":{},"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#, .invalidEvent, "notifcation"),
    ]

    private func decode(_ body: [UInt8], config: RenderConfig = EventFixture.demo) throws(EventError) -> (event: Event, app: AppProfile) {
        try EventDecoder(config: config).decode(body)
    }

    func testAwkwardValidEventsAreAccepted() {
        for body in Self.valid {
            XCTAssertNoThrow(try decode(Array(body.utf8)), body)
        }
    }

    func testEscapesNullsAndDefaultsReadAsWritten() throws {
        let escaped = try decode(Array(Self.valid[3].utf8)).event
        XCTAssertEqual(escaped.eventID, "e/1")
        XCTAssertEqual(escaped.sender.displayName, "\"q\"\\/\u{08}\u{0C}\n\r\t")
        XCTAssertNil(escaped.conversation.title)
        XCTAssertEqual(escaped.message.kind, .text)
        XCTAssertEqual(escaped.notification, NotificationOptions())
        XCTAssertEqual(escaped.data, [])
        let reordered = try decode(Array(Self.valid[2].utf8)).event
        XCTAssertEqual(reordered.eventID, "37791233165968:537")
        XCTAssertEqual(reordered.message.text, "<b>Hi</b> &amp; \u{e9}\u{1F3A7}")
        XCTAssertEqual(reordered.recipients, [Recipient(platform: .fcm, token: "t", badge: 0, locale: "vi-VN", userID: "u 1")])
        let notification = try decode(Array(Self.valid[5].utf8)).event.notification
        XCTAssertNil(notification.sound, "an empty sound is silence")
        XCTAssertEqual(notification.ttlSeconds, 2_419_200)
        let data = try decode(Array(Self.valid[8].utf8)).event.data
        XCTAssertEqual(data.map(\.key), ["k", "K", "é", "a\"b", "deeplink", "k2"])
        XCTAssertEqual(data[2].value, "\u{0}x")
        let keyWithEscape = #"{"conversation":{"\u0069d":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#
        XCTAssertEqual(try decode(Array(keyWithEscape.utf8)).event.conversation.id, "c")
    }

    func testEachBrokenBodyIsRefusedWithItsCodeAndField() {
        for (body, code, field) in Self.refused {
            let error = expectEventError { () throws(EventError) in try decode(Array(body.utf8)) }
            XCTAssertEqual(error?.code, code, body)
            XCTAssertEqual(error?.field, field, body)
            XCTAssertFalse(error?.message.isEmpty ?? true, body)
        }
    }

    func testANumberThatIsNotWholeIsRefusedAsNoWholeNumber() {
        for badge in ["1.5", "1e-2"] {
            let body = #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","badge":"# + badge + "}]}"
            let error = expectEventError { () throws(EventError) in try decode(Array(body.utf8)) }
            XCTAssertEqual(error?.field, "recipients[0].badge", badge)
            XCTAssertEqual(error?.message, "must be a whole number, e.g. 86400", badge)
        }
    }

    /// The rules of the app: credentials for each platform, the gateway's
    /// own data keys under their configured names, an app named when two
    /// are configured, the configured number of recipients.
    func testTheAppsRulesAreApplied() throws {
        let apnsOnFCMOnly = expectEventError { () throws(EventError) in
            try decode(EventFixture.eventBytes { $0[path: "app"] = nil }, config: EventFixture.fcmOnly)
        }
        XCTAssertEqual(apnsOnFCMOnly?.field, "recipients[1].platform")
        let gatewayKey = expectEventError { () throws(EventError) in
            try decode(EventFixture.eventBytes(EventFixture.setData([("conversationId", .string("x"))])), config: EventFixture.renamedKeys)
        }
        XCTAssertEqual(gatewayKey?.field, "data.conversationId")
        let noApp = expectEventError { () throws(EventError) in try decode(EventFixture.eventBytes(), config: EventFixture.twoApps) }
        XCTAssertEqual(noApp?.code, .unknownApp)
        var limits = EventLimits()
        limits.maximumRecipients = 1
        let oneRecipient = try RenderConfig(apps: EventFixture.demo.apps, limits: limits)
        let tooMany = expectEventError { () throws(EventError) in try decode(EventFixture.eventBytes(), config: oneRecipient) }
        XCTAssertEqual(tooMany?.code, .tooManyRecipients)
        XCTAssertEqual(tooMany?.field, "recipients")
    }

    /// A key is judged by its name once decoded: written with an escape, a
    /// known key is read, and one already seen is a repeat.
    func testKeysAreJudgedByTheirDecodedNames() {
        let body = #"{"conversation":{"id":"c","\u0069d":"d"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#
        let error = expectEventError { () throws(EventError) in try decode(Array(body.utf8)) }
        XCTAssertEqual(error?.code, .invalidJSON)
        XCTAssertEqual(error?.field, "conversation.id")
        XCTAssertEqual(error?.message, #"the key "id" appears twice in one object"#)
        let long = #"{"conversation":{"id":"c"},"a_key_longer_than_sixteen_bytes":1}"#
        let unknown = expectEventError { () throws(EventError) in try decode(Array(long.utf8)) }
        XCTAssertEqual(unknown?.field, "a_key_longer_than_sixteen_bytes")
        XCTAssertEqual(unknown?.message.hasPrefix("unknown field (known here: app, conversation, data, event_id,"), true)
    }

    /// Many recipients: the same device is found past the linear scan too.
    func testRecipientsOfEveryPlatformMixAreAcceptedAndRepeatsRefused() {
        for count in [1, 2, 10, 16, 17, 100, 499] {
            let items = (0..<count).map { index -> JSONValue in
                let hex = String(index, radix: 16)
                let token = index % 2 == 0 ? "fcm-\(index)" : String(repeating: "0", count: 64 - hex.count) + hex
                return .object([("platform", .string(index % 2 == 0 ? "fcm" : "apns")), ("token", .string(token)),
                                ("badge", .int(Int64(index)))])
            }
            let body = EventFixture.eventBytes { $0[path: "recipients"] = .array(items) }
            XCTAssertEqual((try? decode(body))?.event.recipients.count, count, "\(count) recipients")
            guard count > 2 else { continue }
            let repeated = EventFixture.eventBytes { $0[path: "recipients"] = .array(items + [items[count - 2]]) }
            let error = expectEventError { () throws(EventError) in try decode(repeated) }
            XCTAssertEqual(error?.field, "recipients[\(count)].token", "\(count) recipients")
            XCTAssertEqual(error?.message, "the same token as recipients[\(count - 2)]; name each device once")
        }
    }
}
