@testable import APNsSimulator
import XCTest

/// FCM's typed and bounded fields (PROTOCOLS.md B2, B6), refused:
/// `android.ttl` at most 4 weeks, a topic as sent (no `/topics/`),
/// RFC 3339 `eventTime`, Duration `vibrateTimings`, an HTTPS
/// `webpush.fcmOptions.link`, and `androidV2` never beside `android`.
final class FCMMessageValidatorRulesTests: XCTestCase {
    private static func message(_ members: String) -> String { #"{"message":{"token":"abc",\#(members)}}"# }

    func testBoundedAndTypedFieldsAreRefused() {
        let cases: [(String, String)] = [
            (Self.message(#""android":{"ttl":"6048000s"}"#), "message.android.ttl"),
            (Self.message(#""android":{"ttl":"2419200.5s"}"#), "message.android.ttl"),
            (#"{"message":{"topic":"/topics/foo"}}"#, "message.topic"),
            (Self.message(#""android":{"notification":{"eventTime":"yesterday"}}"#), "message.android.notification.eventTime"),
            (Self.message(#""android":{"notification":{"event_time":"2026-13-01T00:00:00Z"}}"#), "message.android.notification.event_time"),
            (Self.message(#""android":{"notification":{"eventTime":"2026-12-01T05:00:00"}}"#), "message.android.notification.eventTime"),
            (Self.message(#""android":{"notification":{"vibrateTimings":["soon"]}}"#), "message.android.notification.vibrateTimings[0]"),
            (Self.message(#""android":{"notification":{"vibrate_timings":["1s","2"]}}"#), "message.android.notification.vibrate_timings[1]"),
            (Self.message(#""webpush":{"fcmOptions":{"link":"http://x"}}"#), "message.webpush.fcm_options.link"),
            (Self.message(#""webpush":{"fcm_options":{"link":"https://"}}"#), "message.webpush.fcm_options.link"),
            (Self.message(#""android":{},"androidV2":{}"#), "message.android_v2"),
        ]
        for (body, field) in cases {
            let error = FCMSendCheck.refusal(body)
            XCTAssertEqual(error?.httpStatus, 400, body)
            XCTAssertEqual(error?.fieldViolations.first?.field, field, body)
        }
    }

    func testTheirValidFormsAreAccepted() {
        let valid = [
            Self.message(#""android":{"ttl":"2419200s"}"#),
            Self.message(#""android":{"ttl":"2419199.999999999s"}"#),
            #"{"message":{"topic":"news-1_%~."}}"#,
            Self.message(#""android":{"notification":{"eventTime":"2026-12-01T05:00:00Z","vibrateTimings":["0.5s","1s"]}}"#),
            Self.message(#""android":{"notification":{"eventTime":"2026-12-01T05:00:00.123456789+07:00"}}"#),
            Self.message(#""webpush":{"fcmOptions":{"link":"https://example.com/a"}}"#),
            Self.message(#""webpush":{"fcm_options":{"link":"HTTPS://example.com"}}"#),
            Self.message(#""androidV2":{"anything":[1]}"#),
            Self.message(#""android":null,"android_v2":{}"#),
        ]
        for body in valid {
            XCTAssertTrue(FCMSendCheck.accepts(body), body)
        }
    }

    func testOnlyAnApplicationJSONContentTypeIsAccepted() {
        for accepted in ["application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8", " application/json "] {
            XCTAssertTrue(FCMRequestHandler.isJSON(accepted), accepted)
        }
        for refused in [nil, "", "text/plain", "application/x-www-form-urlencoded", "application/jsonx", "application/json-patch+json"] {
            XCTAssertFalse(FCMRequestHandler.isJSON(refused), refused ?? "nil")
        }
    }
}
