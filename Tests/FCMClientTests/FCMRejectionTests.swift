@testable import FCMClient
import XCTest

/// Reading Google's error bodies without a network.
final class FCMRejectionTests: XCTestCase {
    func testTheInvalidTokenPhraseDropsTheTokenAlsoFromAFieldViolation() {
        let plain = FCMRejection(status: 400, errorCode: .invalidArgument, message: "Request contains an invalid argument.")
        XCTAssertEqual(plain.action, .doNotRetry)
        let named = FCMRejection(status: 400, errorCode: .invalidArgument, message: "Request contains an invalid argument.",
                                 fieldViolations: [FCMFieldViolation(field: "message.token",
                                                                     description: "The registration token is not a valid FCM registration token")])
        XCTAssertEqual(named.action, .dropToken)
        let field = FCMRejection(status: 400, errorCode: .invalidArgument,
                                 message: "Invalid value at 'message.token' (TYPE_STRING), \"\"",
                                 fieldViolations: [FCMFieldViolation(field: "message.token", description: "Invalid value at 'message.token'")])
        XCTAssertEqual(field.action, .dropToken, "a violation on message.token names the token")
        let other = FCMRejection(status: 400, errorCode: .invalidArgument, message: "Invalid value at 'message.data[0].value'",
                                 fieldViolations: [FCMFieldViolation(field: "message.data[0].value", description: "Invalid value")])
        XCTAssertEqual(other.action, .doNotRetry)
    }

    func testAStatusWithoutFcmErrorStillClassifies() {
        XCTAssertEqual(FCMRejection(status: 503, errorCode: .unavailable, hasFCMErrorDetail: false).action, .retry(after: nil))
        let unauthenticated = FCMRejection(status: 401, errorCode: .unspecified, hasFCMErrorDetail: false, rpcStatus: "UNAUTHENTICATED")
        XCTAssertTrue(unauthenticated.isAboutTheAccessToken)
        XCTAssertEqual(unauthenticated.action, .configurationError)
        let thirdParty = FCMRejection(status: 401, errorCode: .thirdPartyAuthError)
        XCTAssertFalse(thirdParty.isAboutTheAccessToken, "an FcmError 401 is about FCM's APNs credential, not ours")
        XCTAssertEqual(FCMRejection(status: 404, errorCode: .unspecified, hasFCMErrorDetail: false).action, .configurationError)
        XCTAssertEqual(FCMRejection(status: 418, errorCode: .unspecified, hasFCMErrorDetail: false).action, .doNotRetry)
    }

    /// A `Retry-After` date is read against the client's injected clock, not
    /// the wall clock: 784111777 is Sun, 06 Nov 1994 08:49:37 GMT.
    func testARetryAfterDateIsReadAgainstTheInjectedClock() {
        let body = Array(#"{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"QUOTA_EXCEEDED"}]}}"#.utf8)
        let rejection = FCMRejection(status: 429, body: body, retryAfterHeader: "Sun, 06 Nov 1994 08:49:37 GMT", now: 784_111_777 - 120)
        XCTAssertEqual(rejection.action, .retry(after: .seconds(120)))
        let later = FCMRejection(status: 429, body: body, retryAfterHeader: "Sun, 06 Nov 1994 08:49:37 GMT", now: 784_111_777 + 5)
        XCTAssertEqual(later.action, .retry(after: .zero), "a date in the past is now")
    }
}
