@testable import APNsHTTP2
@testable import HTTP2Client
import XCTest

/// Reading an APNs error answer: the reason and timestamp from a JSON body,
/// the status alone when there is none, and whether the answer asks for a
/// new connection.
final class APNsRejectionTests: XCTestCase {
    private func rejection(_ status: Int, _ body: String, headers: [HTTPHeader] = []) -> APNsRejection {
        APNsRejection(response: HTTP2Response(status: status, headers: headers, body: Array(body.utf8)), apnsID: nil, now: 1_000)
    }

    func testAJSONBodyGivesTheReasonAndTimestamp() {
        let gone = rejection(410, #"{"reason":"Unregistered","timestamp":1700000000000}"#)
        XCTAssertEqual(gone.reason, .unregistered)
        XCTAssertEqual(gone.timestamp, 1_700_000_000_000)
        XCTAssertEqual(gone.verdict, .dropToken(since: 1_700_000_000_000))
        // JSON whitespace before the object, and escapes inside the reason.
        let spaced = rejection(400, " \t\r\n{ \"reason\" : \"BadDevice\\u0054oken\" }")
        XCTAssertEqual(spaced.reason, .badDeviceToken)
        XCTAssertEqual(spaced.verdict, .dropToken(since: nil))
    }

    func testWithoutAReasonTheStatusDecides() {
        let html = "<html><head><title>404 Not Found</title></head><body></body></html>"
        for (status, body, verdict) in [(410, html, ProviderVerdict.dropToken(since: nil)), (503, "", .retry(after: nil)),
                                        (403, "{}", .configuration(detail: nil)), (400, "[1]", .final), (429, "\"reason\"", .retry(after: nil)),
                                        (500, " x{", .retry(after: nil)), (404, html, .final), (400, #"{"reason":7}"#, .final),
                                        (410, #"{"timestamp":5}"#, .dropToken(since: 5))] {
            let answer = rejection(status, body)
            XCTAssertEqual(answer.reason, APNsReason("Status\(status)"), body)
            XCTAssertEqual(answer.verdict, verdict, body)
            XCTAssertEqual(answer.verdict, APNsRejection(status: status, reason: APNsReason("Status\(status)"), timestamp: answer.timestamp).verdict,
                           "as the table would say: \(body)")
        }
        XCTAssertEqual(rejection(410, #"{"timestamp":5}"#).timestamp, 5)
        XCTAssertNil(rejection(410, html).timestamp)
    }

    func testARetryAfterHeaderTimesTheRetry() {
        let busy = rejection(429, #"{"reason":"TooManyRequests"}"#, headers: [HTTPHeader("retry-after", "30")])
        XCTAssertEqual(busy.verdict, .retry(after: .seconds(30)))
        let noReason = rejection(503, "<html></html>", headers: [HTTPHeader("retry-after", "5")])
        XCTAssertEqual(noReason.verdict, .retry(after: .seconds(5)))
    }

    func testOnlyUnrelatedKeyIdleTimeoutAndShutdownAskForANewConnection() {
        func asks(_ status: Int, _ body: String) -> Bool {
            APNsProvider.asksForANewConnection(HTTP2Response(status: status, body: Array(body.utf8)))
        }
        XCTAssertTrue(asks(403, #"{"reason":"UnrelatedKeyIdInToken"}"#))
        XCTAssertTrue(asks(400, #"{"reason":"IdleTimeout"}"#))
        XCTAssertTrue(asks(503, #"{"reason":"Shutdown"}"#))
        XCTAssertTrue(asks(503, " {\"reason\":\"\\u0053hutdown\"}"), "an escaped reason is still the reason")
        XCTAssertFalse(asks(503, #"{"reason":"ServiceUnavailable"}"#))
        XCTAssertFalse(asks(410, #"{"reason":"Unregistered"}"#))
        XCTAssertFalse(asks(503, "Shutdown"), "not JSON: no reason")
        XCTAssertFalse(asks(503, "<html>Shutdown</html>"))
        XCTAssertFalse(asks(503, ""))
        // An answer that retires its connection is one the full classification retries.
        for reason in ["UnrelatedKeyIdInToken", "IdleTimeout", "Shutdown", "BadDeviceToken", "ExpiredProviderToken", "TooManyRequests"] {
            let body = #"{"reason":"\#(reason)"}"#
            XCTAssertTrue(!asks(400, body) || rejection(400, body).verdict == .retry(after: nil), reason)
        }
    }

    func testTheStatusReasonIsStatusAndTheCode() {
        for status in Array(-1...1100) + [Int.min, Int.max] {
            XCTAssertEqual(APNsRejection.statusReason(status), "Status\(status)")
        }
    }

    func testTheApnsIDIsTheFirstHeaderOfThatName() {
        let headers = [HTTPHeader("apns-topic", "t"), HTTPHeader("apns-idx", "no"), HTTPHeader("apns-ID", "no"),
                       HTTPHeader("apns-id", "first"), HTTPHeader("apns-id", "second")]
        XCTAssertEqual(APNsProvider.apnsID(in: headers), "first")
        XCTAssertNil(APNsProvider.apnsID(in: Array(headers.prefix(3))))
        XCTAssertNil(APNsProvider.apnsID(in: []))
    }

    func testProviderTokenReasonsAreTheFiveAboutTheToken() {
        let about: [APNsReason] = [.expiredProviderToken, .tooManyProviderTokenUpdates, .invalidProviderToken, .missingProviderToken,
                                   .badEnvironmentKeyIDInToken]
        for reason in about { XCTAssertTrue(APNsRejection(status: 403, reason: reason).isAboutTheProviderToken, "\(reason)") }
        for reason: APNsReason in [.badDeviceToken, .unrelatedKeyIDInToken, .badCertificate, .tooManyRequests, APNsReason("Status403"),
                                   APNsReason("ExpiredProviderTokeN"), APNsReason("")] {
            XCTAssertFalse(APNsRejection(status: 403, reason: reason).isAboutTheProviderToken, "\(reason)")
        }
    }

    /// The token question and the verdict agree on a reason spelled with
    /// other, canonically equivalent scalars (U+212A KELVIN SIGN for "K"):
    /// both compare as the reason table does.
    func testTheProviderTokenQuestionAgreesWithTheVerdictOnEquivalentSpellings() {
        let kelvin = APNsRejection(status: 403, reason: APNsReason("BadEnvironment\u{212A}eyIdInToken"))
        XCTAssertEqual(kelvin.reason, .badEnvironmentKeyIDInToken)
        XCTAssertTrue(kelvin.isAboutTheProviderToken)
        XCTAssertEqual(kelvin.verdict, APNsRejection(status: 403, reason: .badEnvironmentKeyIDInToken).verdict)
    }
}
