@testable import APNsSimulator
import XCTest

/// FCM's size limit counts what each platform would receive
/// (`FCMMessageSize`, PROTOCOLS.md B3 and A3), with
/// Google's "Message is too big".
final class FCMMessageSizeTests: XCTestCase {
    private static func x(_ count: Int) -> String { String(repeating: "x", count: count) }

    func testEachPlatformsPayloadOverItsLimitIsTooBig() {
        let cases: [(String, String)] = [
            (#"{"message":{"token":"abc","android":{"data":{"k":"\#(Self.x(5000))"}}}}"#, "message.android"),
            (#"{"message":{"token":"abc","apns":{"payload":{"aps":{"alert":"\#(Self.x(5000))"}}}}}"#, "message.apns.payload"),
            (#"{"message":{"token":"abc","webpush":{"data":{"k":"\#(Self.x(5000))"}}}}"#, "message.webpush"),
            (#"{"message":{"token":"abc","android":{"notification":{"body":"\#(Self.x(5000))"}}}}"#, "message.android"),
            (#"{"message":{"topic":"news","android":{"data":{"k":"\#(Self.x(2100))"}}}}"#, "message.android"),
            (#"{"message":{"token":"abc","data":{"k":"\#(Self.x(5000))"}}}"#, "message"),
        ]
        for (body, field) in cases {
            guard let error = FCMSendCheck.refusal(body) else { continue }
            XCTAssertEqual(error.message, "Message is too big", field)
            XCTAssertEqual(error.fcmErrorCode, "INVALID_ARGUMENT", field)
            XCTAssertEqual(error.fieldViolations.first?.field, field)
        }
    }

    /// `android.data` replaces `message.data` and Android's texts replace the
    /// message's, so a message whose parts each fit is not counted twice.
    func testReplacedPartsAreCountedOnceAndLimitsAreInclusive() {
        let overhead = FCMMessageSize.apnsDeliveryOverhead
        let fits = [
            #"{"message":{"token":"abc","data":{"k":"\#(Self.x(4000))"},"android":{"data":{"k":"\#(Self.x(4000))"}},"webpush":{"data":{"k":"\#(Self.x(4000))"}}}}"#,
            #"{"message":{"token":"abc","notification":{"body":"\#(Self.x(4000))"},"android":{"notification":{"body":"\#(Self.x(4000))"}}}}"#,
            #"{"message":{"token":"abc","android":{"data":{"k":"\#(Self.x(4095))"}}}}"#,
            #"{"message":{"token":"abc","apns":{"payload":{"aps":{"alert":"\#(Self.x(4096 - 20 - overhead))"}}}}}"#,
            #"{"message":{"token":"abc","apns":{"payload":  {"aps" : {"alert":"\#(Self.x(4096 - 20 - overhead))"}}  }}}"#,
        ]
        for body in fits { XCTAssertTrue(FCMSendCheck.accepts(body), String(body.prefix(120))) }
        let over = [
            #"{"message":{"token":"abc","android":{"data":{"k":"\#(Self.x(4096))"}}}}"#,
            #"{"message":{"token":"abc","apns":{"payload":{"aps":{"alert":"\#(Self.x(4096 - 19 - overhead))"}}}}}"#,
            #"{"message":{"token":"abc","data":{"k":"\#(Self.x(3000))"},"android":{"notification":{"title":"\#(Self.x(1100))"}}}}"#,
            #"{"message":{"token":"abc","apns":{"payload":{"aps":{"alert":"\#(String(repeating: "\\b", count: 1100))"}}}}}"#,
        ]
        for body in over { XCTAssertEqual(FCMSendCheck.refusal(body)?.message, "Message is too big", String(body.prefix(120))) }
    }

    /// FCM delivers `message.data` (as top-level keys) and the notification
    /// (as `aps.alert`) inside the APNs payload it builds: parts that each
    /// fit can together be over APNs' 4096 (regression: `apns.payload`
    /// was counted alone, so a gateway fitting each part apart passed).
    func testTheDataAndNotificationCountInTheAPNsPayload() {
        let payload = #""apns":{"payload":{"aps":{"alert":"\#(Self.x(1500))"}}}"#
        let together = [
            #"{"message":{"token":"abc","data":{"k":"\#(Self.x(2600))"},\#(payload)}}"#,
            #"{"message":{"token":"abc","notification":{"title":"\#(Self.x(1300))","body":"\#(Self.x(1300))"},\#(payload)}}"#,
        ]
        for body in together {
            let error = FCMSendCheck.refusal(body)
            XCTAssertEqual(error?.message, "Message is too big", String(body.prefix(80)))
            XCTAssertEqual(error?.fieldViolations.first?.field, "message.apns.payload")
        }
        XCTAssertTrue(FCMSendCheck.accepts(#"{"message":{"token":"abc","data":{"k":"\#(Self.x(2400))"},\#(payload)}}"#))
    }
}
