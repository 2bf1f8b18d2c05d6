@testable import APNsSimulator
import XCTest

/// `apns.headers` are held to APNs' rules (`FCMAPNsHeaders`, PROTOCOLS.md
/// A2, B2, B4): refused with INVALID_ARGUMENT and APNs'
/// reason in an ApnsError detail.
final class FCMAPNsHeadersTests: XCTestCase {
    private static func body(headers: String, aps: String = #"{"alert":"hi"}"#, extra: String = "") -> String {
        #"{"message":{"token":"abc"\#(extra),"apns":{"headers":{\#(headers)},"payload":{"aps":\#(aps)}}}}"#
    }

    func testHeadersAPNsWouldRefuseAreRefusedWithAnApnsErrorDetail() throws {
        let cases: [(String, String, String)] = [
            (#""apns-collapse-id":"\#(String(repeating: "c", count: 100))""#, #"{"alert":"hi"}"#, "BadCollapseId"),
            (#""apns-priority":"7""#, #"{"alert":"hi"}"#, "BadPriority"),
            (#""apns-expiration":"abc""#, #"{"alert":"hi"}"#, "BadExpirationDate"),
            (#""apns-push-type":"bogus""#, #"{"alert":"hi"}"#, "InvalidPushType"),
            (#""apns-priority":"10""#, #"{"content-available":1}"#, "BadPriority"),
            ("", #"{"content-available":1}"#, "BadPriority"),
            (#""APNS-Priority":"10""#, #"{"content-available":1}"#, "BadPriority"),
            (#""apns-push-type":"background""#, #"{"alert":"hi"}"#, "BadPriority"),
            (#""apns-push-type":"location","apns-priority":"1""#, #"{"alert":"hi"}"#, "BadPriority"),
            (#""apns-id":"6F1C2A4E-0B3D-4E5F-8A9B-0C1D2E3F4A5B""#, #"{"alert":"hi"}"#, "BadMessageId"),
        ]
        for (headers, aps, reason) in cases {
            let body = Self.body(headers: headers, aps: aps)
            guard let error = FCMSendCheck.refusal(body) else { continue }
            XCTAssertEqual(error.httpStatus, 400, body)
            XCTAssertEqual(error.fcmErrorCode, "INVALID_ARGUMENT", body)
            XCTAssertEqual(error.fieldViolations.first?.field, "message.apns.headers", body)
            let text = String(decoding: error.body, as: UTF8.self)
            XCTAssertTrue(text.contains(#"{"@type":"type.googleapis.com/google.firebase.fcm.v1.ApnsError","statusCode":400,"reason":"\#(reason)"}"#),
                          "\(body) -> \(text)")
        }
    }

    func testHeadersAPNsTakesAreAccepted() {
        let valid = [
            Self.body(headers: #""apns-collapse-id":"\#(String(repeating: "c", count: 64))","apns-priority":"5","apns-expiration":"0""#),
            Self.body(headers: #""apns-priority":"5","apns-push-type":"background""#, aps: #"{"content-available":1}"#),
            Self.body(headers: #""apns-priority":"5""#, aps: #"{"content-available":1}"#),
            Self.body(headers: #""apns-priority":"10""#, aps: #"{"content-available":1,"sound":"default","mutable-content":1}"#),
            Self.body(headers: "", aps: #"{"content-available":1}"#, extra: #","notification":{"title":"t"}"#),
            Self.body(headers: #""apns-push-type":"location","apns-priority":"5","x-other":"1""#),
            Self.body(headers: #""apns-push-type":"alert""#, aps: #"{"content-available":0}"#),
        ]
        for body in valid {
            XCTAssertTrue(FCMSendCheck.accepts(body), body)
        }
    }

    /// A header the rules read, given twice (in any case): the last one
    /// written wins.
    func testAHeaderGivenTwiceTakesTheLastValue() {
        let body = Self.body(headers: #""apns-priority":"7","APNS-PRIORITY":"10""#)
        XCTAssertTrue(FCMSendCheck.accepts(body))
        XCTAssertEqual(FCMSendCheck.refusal(Self.body(headers: #""apns-priority":"10","apns-priority":"7""#))?.fcmErrorCode,
                       "INVALID_ARGUMENT")
    }
}
