@testable import APNsSimulator
import TestSupport
import XCTest

/// The FCM fast path (`FCMSendScanner`) against the strict path it stands in
/// for (`FCMMessageReader` then `FCMMessageValidator` on the ordered tree):
/// whenever the fast path accepts a body, the strict path accepts it with
/// the same message; on the usual valid bodies it does accept (else it
/// would be no fast path); every other body is left to the strict path.
final class FCMSendScannerTests: XCTestCase {
    /// A body shaped like the one PayloadBuilder renders for FCM (fixtures/payloads/seed-chat-sdk).
    static let rendered = #"""
    {"message":{"token":"bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1","notification":{"title":"🎧 Zalo - Tran Nghia","body":"Nghĩa: Bạn nhận được video"},"data":{"title":"🎧 Zalo - Tran Nghia","text":"","sender_id":"6872016393687471","sender_name":"Nghĩa","avatar_url":"https://thumb-i-1.piscale.com/64x64/smart/100001/c1cb0279-8286-40b8-9082-66f8593316c2/IMG_6546.jpeg","is_rtf":"false","ps_thread_id":"37791233165968","ps_message_id":"537"},"android":{"collapse_key":"37791233165968","priority":"high","ttl":"86400s"},"apns":{"headers":{"apns-priority":"10","apns-expiration":"1767312000","apns-collapse-id":"37791233165968:537"},"payload":{"aps":{"category":"communications","content-available":1,"mutable-content":1,"sound":"default","badge":3},"notifee_options":{"ios":{"communicationInfo":{"conversationId":"37791233165968","messageId":"537","groupName":"🎧 Zalo - Tran Nghia","sender":{"id":"6872016393687471","displayName":"Nghĩa","avatar":"https://thumb-i-1.piscale.com/64x64/smart/100001/c1cb0279-8286-40b8-9082-66f8593316c2/IMG_6546.jpeg"}}}}}}}}
    """#

    /// Valid bodies the fast path must settle itself.
    static let valid: [String] = [
        rendered,
        #"{"message":{"token":"abc"}}"#,
        #" { "message" : { "topic" : "news" } , "validate_only" : true } "#,
        #"{"validateOnly":false,"message":{"condition":"'a' in topics","token":""}}"#,
        #"{"message":{"fid":"f1","name":null,"data":{"a":"\u0041\n","b":""}}}"#,
        ##"{"message":{"token":"t","android":{"priority":"NORMAL","ttl":"3.5s","data":{"x":"y"},"notification":{"color":"#a0B1c2","notification_count":"7","notificationPriority":"PRIORITY_HIGH","visibility":2,"light_settings":{"color":{"red":0.5,"green":"1"},"lightOnDuration":"1s"},"vibrate_timings":["1s","2.5s"],"sticky":true}}}}"##,
        #"{"message":{"token":"t","webpush":{"data":{"k":"v"},"headers":{"TTL":"1"},"notification":{"title":{"nested":[1,2,{}]}}},"apns":{"payload":{"aps":{}},"fcm_options":{"image":"i"}}}}"#,
        #"{"message":{"token":"t","data":{"k":"v","k2":"v"}}}"#,
        #"{"message":{"token":"t","apns":{"headers":{"apns-priority":"5","apns-push-type":"background","apns-expiration":"0"},"payload":{"aps":{"content-available":1}}}}}"#,
        #"{"message":{"token":"t","data":{"k":"\#(String(repeating: "x", count: 3000))"},"android":{"data":{"k":"\#(String(repeating: "x", count: 3000))"},"notification":{"title":"t"}},"webpush":{"data":{"k":"v"}}}}"#,
    ]

    /// Bodies each broken in one way (or unusual), the strict path's to word.
    static let unusual: [String] = [
        "", "null", "[]", "\"message\"", #"{"message":{"token":"t"}} x"#, #"{"message":{"token":"t"},}"#,
        #"{"message":null}"#, #"{}"#, #"{"message":{}}"#, #"{"message":[]}"#,
        #"{"message":{"token":"t"},"message":{"token":"u"}}"#,
        #"{"message":{"token":"t"},"validateOnly":true,"validate_only":true}"#,
        #"{"message":{"token":"t","topic":"x"}}"#, #"{"message":{"token":"bad token"}}"#,
        #"{"message":{"topic":"bad topic!"}}"#, #"{"message":{"token":"t","unknown":1}}"#,
        #"{"message":{"token":"t","data":{"from":"x"}}}"#, #"{"message":{"token":"t","data":{"GCM.x":"x"}}}"#,
        #"{"message":{"token":"t","data":{"googleX":"x"}}}"#, #"{"message":{"token":"t","data":{"Message_Type":"x"}}}"#,
        #"{"message":{"token":"t","android":{"data":{"from":"x"}}}}"#, #"{"message":{"token":"t","webpush":{"data":{"gcm":"x"}}}}"#,
        #"{"message":{"token":"t","data":{"é":"x"}}}"#, #"{"message":{"token":"t","data":{"a":"x","a":"y"}}}"#,
        #"{"message":{"token":"t","data":{"a":1}}}"#, #"{"message":{"token":"t","data":{"a":null}}}"#,
        #"{"message":{"token":"t","android":{"ttl":"-1s"}}}"#, #"{"message":{"token":"t","android":{"ttl":"1"}}}"#,
        #"{"message":{"token":"t","android":{"priority":"urgent"}}}"#, #"{"message":{"token":"t","android":{"priority":"hıgh"}}}"#,
        #"{"message":{"token":"t","android":{"priority":1.5}}}"#, #"{"message":{"token":"t","android":{"priority":true}}}"#,
        #"{"message":{"token":"t","android":{"notification":{"color":"red"}}}}"#,
        #"{"message":{"token":"t","android":{"notification":{"notification_count":"x"}}}}"#,
        #"{"message":{"token":"t","android":{"notification":{"notification_count":1e3}}}}"#,
        #"{"message":{"token":"t","android":{"notification":{"light_settings":{"color":{"red":"x"}}}}}}"#,
        #"{"message":{"token":"t","android":{"notification":{"vibrate_timings":["1s",2]}}}}"#,
        #"{"message":{"topic":"/topics/news"}}"#, #"{"message":{"token":"t","android":{"ttl":"2419201s"}}}"#,
        #"{"message":{"token":"t","android":{"notification":{"vibrate_timings":["x"]}}}}"#,
        #"{"message":{"token":"t","android":{"notification":{"eventTime":"now"}}}}"#,
        #"{"message":{"token":"t","webpush":{"fcmOptions":{"link":"http://a"}}}}"#,
        #"{"message":{"token":"t","android":{},"androidV2":{}}}"#,
        #"{"message":{"token":"t","apns":{"payload":{"alert":"x"}}}}"#, #"{"message":{"token":"t","apns":{"payload":[]}}}"#,
        #"{"message":{"token":"t","apns":{"payload":{"aps":{},"aps":1}}}}"#, #"{"message":{"token":1}}"#,
        #"{"message":{"token":"t","notification":{"title":true}}}"#, #"{"message":{"token":"t","webpush":{"notification":1}}}"#,
        #"{"message":{"token":"t","data":{"k":""#, #"{"message":{"token":"t\u0000"}}"#, "{\"message\":{\"token\":\"t\u{01}\"}}",
        #"{"message":{"token":"t","android":{"notification":{"bodyLocKey":"x","body_loc_key":"y"}}}}"#,
        #"{"message":{"token":"t","data":{"big":"\#(String(repeating: "x", count: 5000))"}}}"#,
        #"{"message":{"topic":"news","notification":{"body":"\#(String(repeating: "x", count: 3000))"}}}"#,
        #"{"message":{"token":"t","android":{"data":{"k":"\#(String(repeating: "x", count: 5000))"}}}}"#,
        #"{"message":{"token":"t","android":{"data":{"k":"v","k":"w"}}}}"#,
        #"{"message":{"token":"t","webpush":{"data":{"k":"\#(String(repeating: "x", count: 5000))"}}}}"#,
        #"{"message":{"token":"t","android":{"notification":{"body":"\#(String(repeating: "x", count: 5000))"}}}}"#,
        #"{"message":{"token":"t","apns":{"payload":{"aps":{"alert":"\#(String(repeating: "x", count: 5000))"}}}}}"#,
        #"{"message":{"token":"t","apns":{"payload":{"aps":{"alert":"\#(String(repeating: "\\f", count: 1500))"}}}}}"#,
        #"{"message":{"token":"t","apns":{"headers":{"apns-priority":"7"},"payload":{"aps":{}}}}}"#,
        #"{"message":{"token":"t","apns":{"headers":{"apns-collapse-id":"\#(String(repeating: "c", count: 65))"},"payload":{"aps":{}}}}}"#,
        #"{"message":{"token":"t","apns":{"headers":{"apns-push-type":"background"},"payload":{"aps":{"content-available":1}}}}}"#,
        #"{"message":{"token":"t","apns":{"payload":{"aps":{"content-available":1}}}}}"#,
        #"{"message":{"token":"t","apns":{"headers":{"apns-expiration":"soon"}}}}"#,
        #"{"message":{"token":"t","apns":{"payload":{"aps":{"a":\#(String(repeating: "[", count: 70))\#(String(repeating: "]", count: 70))}}}}}"#,
    ]

    func testTheFastPathSettlesTheUsualValidBodiesAsTheStrictPathDoes() throws {
        for body in Self.valid {
            let bytes = Array(body.utf8)
            let fast = try XCTUnwrap(FCMSendScanner.validMessage(bytes), body)
            guard case .success(let strict) = Self.strict(bytes) else { return XCTFail("strict refuses \(body)") }
            Self.assertSame(fast, strict, body)
        }
    }

    func testTheFastPathLeavesEveryRefusalToTheStrictPath() {
        for body in Self.unusual {
            let bytes = Array(body.utf8)
            if let fast = FCMSendScanner.validMessage(bytes) {
                guard case .success(let strict) = Self.strict(bytes) else { return XCTFail("fast accepts what strict refuses: \(body)") }
                Self.assertSame(fast, strict, body)
            }
        }
        XCTAssertNil(FCMSendScanner.validMessage(Array(Self.unusual[0].utf8)))
    }

    /// Every one-byte deletion, and many seeded byte changes, of valid bodies.
    func testFastAndStrictAgreeOnManyMutatedBodies() {
        var generator = SplitMix64(seed: 0x5EED)
        var settledByFast = 0
        var mutants = 0
        let replacements = Array(#"{}[]":,"\ntf0-1.eE"#.utf8) + [0x20, 0x00, 0xC3, 0xA9, 0xFF]
        for body in Self.valid {
            let bytes = Array(body.utf8)
            var variants: [[UInt8]] = bytes.indices.map { index in var copy = bytes; copy.remove(at: index); return copy }
            for _ in 0..<400 {
                var copy = bytes
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    copy[Int.random(in: 0..<copy.count, using: &generator)] = replacements.randomElement(using: &generator)!
                }
                variants.append(copy)
            }
            for variant in variants {
                mutants += 1
                guard let fast = FCMSendScanner.validMessage(variant) else { continue }
                settledByFast += 1
                let text = String(decoding: variant, as: UTF8.self)
                guard case .success(let strict) = Self.strict(variant) else { return XCTFail("fast accepts what strict refuses: \(text)") }
                Self.assertSame(fast, strict, text)
            }
        }
        XCTAssertGreaterThan(settledByFast, 0, "some mutants stay valid (\(mutants) tried)")
    }

    /// Enumeration values are looked up in the scan table's bytes: the fast
    /// path accepts exactly the values the strict path accepts (ASCII; any
    /// case for the message priority), field names in both spellings.
    func testEnumerationValuesAndFieldSpellingsAreMatchedAsTheStrictPathMatchesThem() throws {
        let fields: [(String, [String])] = [
            ("priority", ["HIGH", "high", "High", "nOrMaL", "HIGH ", "HIG", "HIGHX", "", "hıgh", "ＨＩＧＨ", "PRIORITY_HIGH"]),
            ("notification\":{\"notificationPriority", ["PRIORITY_HIGH", "PRIORITY_MIN", "priority_high", "PRIORITY_HIGHEST", "PRIORITY_"]),
            ("notification\":{\"notification_priority", ["PRIORITY_LOW", "PRIORITY_DEFAULT"]),
            ("notification\":{\"visibility", ["PUBLIC", "PUBLI", "PUBLICX", "SECRET", "Private", "VISIBILITY_UNSPECIFIED"]),
            ("notification\":{\"proxy", ["DENY", "ALLOW", "IF_PRIORITY_LOWERED", "PROXY_UNSPECIFIED", "deny", "DEN\\u0059"]),
        ]
        for (field, values) in fields {
            for value in values {
                let closing = field.contains("{") ? "}}}}" : "}}}"
                let body = #"{"message":{"token":"t","android":{""# + field + #"":""# + value + "\"" + closing
                let bytes = Array(body.utf8)
                let strict = Self.strict(bytes)
                if let fast = FCMSendScanner.validMessage(bytes) {
                    guard case .success(let strict) = strict else { return XCTFail("fast accepts what strict refuses: \(body)") }
                    Self.assertSame(fast, strict, body)
                } else if case .success = strict, value.utf8.allSatisfy({ $0 < 0x80 }), !value.contains("\\") {
                    XCTFail("the fast path left a plain valid value to the strict path: \(body)")
                }
            }
        }
    }

    /// The routing helpers compare bytes for ASCII paths and Characters
    /// otherwise; both give the Character-based answer.
    func testRoutesAndProjectsAreReadAsCharactersAre() {
        let paths = ["/v1/projects/p/messages:send", "/v1/projects/p/messages:send?x=1", "/v1/projects//messages:send",
                     "/v1/projects/a/b/messages:send", "/v1/projects/messages:send", "/token", "/token?", "?",
                     "/v1/projects/\u{301}p/messages:send", "/v1/projects/p\u{301}/messages:send", "/v1/projects/é/messages:send",
                     "/token?\u{301}x", "/v1/projects/p/messages:send\u{301}", "", "/v1/projects/\r\n/messages:send"]
        for path in paths {
            let route = String(path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            XCTAssertEqual(FCMRequestHandler.route(of: path), route, path)
            let prefix = "/v1/projects/", suffix = "/messages:send"
            var project: String?
            if route.hasPrefix(prefix), route.hasSuffix(suffix), route.count > prefix.count + suffix.count {
                let middle = route.dropFirst(prefix.count).dropLast(suffix.count)
                project = middle.contains("/") ? nil : String(middle)
            }
            XCTAssertEqual(FCMRequestHandler.sendProject(route), project, path)
        }
    }

    private static func strict(_ bytes: [UInt8]) -> Result<FCMMessageValidator.ValidMessage, GoogleError>? {
        guard let body = SimulatorJSONParser.parseOrdered(bytes) else { return nil }
        let violations = FCMMessageReader.violations(in: body)
        guard violations.isEmpty else { return .failure(.unparsable(violations)) }
        return FCMMessageValidator.validate(body)
    }

    private static func assertSame(_ fast: FCMMessageValidator.ValidMessage, _ strict: FCMMessageValidator.ValidMessage,
                                   _ body: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(fast.token, strict.token, body, file: file, line: line)
        XCTAssertEqual(fast.topic, strict.topic, body, file: file, line: line)
        XCTAssertEqual(fast.condition, strict.condition, body, file: file, line: line)
        XCTAssertEqual(fast.validateOnly, strict.validateOnly, body, file: file, line: line)
    }
}

/// The reproducible generator of ProviderTokenCacheTests, for the standard library's `random(in:using:)`.
