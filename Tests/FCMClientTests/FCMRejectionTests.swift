import HTTP2Client
@testable import FCMClient
import XCTest

/// Reading Google's error bodies without a network.
final class FCMRejectionTests: XCTestCase {
    func testTheInvalidTokenPhraseDropsTheTokenAlsoFromAFieldViolation() {
        let plain = FCMRejection(status: 400, errorCode: .invalidArgument, message: "Request contains an invalid argument.")
        XCTAssertEqual(plain.verdict, .final)
        let named = FCMRejection(status: 400, errorCode: .invalidArgument, message: "Request contains an invalid argument.",
                                 fieldViolations: [FCMFieldViolation(field: "message.token",
                                                                     description: "The registration token is not a valid FCM registration token")])
        XCTAssertEqual(named.verdict, .dropToken(since: nil))
        let field = FCMRejection(status: 400, errorCode: .invalidArgument,
                                 message: "Invalid value at 'message.token' (TYPE_STRING), \"\"",
                                 fieldViolations: [FCMFieldViolation(field: "message.token", description: "Invalid value at 'message.token'")])
        XCTAssertEqual(field.verdict, .dropToken(since: nil), "a violation on message.token names the token")
        let other = FCMRejection(status: 400, errorCode: .invalidArgument, message: "Invalid value at 'message.data[0].value'",
                                 fieldViolations: [FCMFieldViolation(field: "message.data[0].value", description: "Invalid value")])
        XCTAssertEqual(other.verdict, .final)
    }

    func testAStatusWithoutFcmErrorStillClassifies() {
        XCTAssertEqual(FCMRejection(status: 503, errorCode: .unavailable, hasFCMErrorDetail: false).verdict, .retry(after: nil))
        let unauthenticated = FCMRejection(status: 401, errorCode: .unspecified, hasFCMErrorDetail: false, rpcStatus: "UNAUTHENTICATED")
        XCTAssertTrue(unauthenticated.isAboutTheAccessToken)
        XCTAssertTrue(unauthenticated.verdict.isConfiguration)
        let thirdParty = FCMRejection(status: 401, errorCode: .thirdPartyAuthError)
        XCTAssertFalse(thirdParty.isAboutTheAccessToken, "an FcmError 401 is about FCM's APNs credential, not ours")
        XCTAssertEqual(FCMRejection(status: 404, errorCode: .unspecified, hasFCMErrorDetail: false).verdict, .configuration(detail: nil))
        XCTAssertEqual(FCMRejection(status: 418, errorCode: .unspecified, hasFCMErrorDetail: false).verdict, .final)
    }

    /// A `Retry-After` date is read against the client's injected clock, not
    /// the wall clock: 784111777 is Sun, 06 Nov 1994 08:49:37 GMT.
    func testARetryAfterDateIsReadAgainstTheInjectedClock() {
        let body = Array(#"{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"QUOTA_EXCEEDED"}]}}"#.utf8)
        let rejection = FCMRejection(status: 429, body: body, retryAfterHeader: "Sun, 06 Nov 1994 08:49:37 GMT", now: 784_111_777 - 120)
        XCTAssertEqual(rejection.verdict, .retry(after: .seconds(120)))
        let later = FCMRejection(status: 429, body: body, retryAfterHeader: "Sun, 06 Nov 1994 08:49:37 GMT", now: 784_111_777 + 5)
        XCTAssertEqual(later.verdict, .retry(after: .zero), "a date in the past is now")
    }

    /// PROTOCOLS.md B4: INVALID_ARGUMENT with an ApnsError detail 410
    /// Unregistered is a dead iOS token (regression: it was a plain
    /// failure, and the caller kept the token). Another APNs answer under
    /// INVALID_ARGUMENT stays final.
    func testAnAPNsUnregisteredUnderInvalidArgumentDropsTheToken() {
        func body(_ apns: String) -> [UInt8] {
            Array(("""
            {"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT","details":[
            {"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"INVALID_ARGUMENT"},
            {"@type":"type.googleapis.com/google.firebase.fcm.v1.ApnsError",\(apns)}]}}
            """).utf8)
        }
        let gone = FCMRejection(status: 400, body: body(#""statusCode":410,"reason":"Unregistered""#), retryAfterHeader: nil, now: 0)
        XCTAssertEqual(gone.apnsError, FCMApnsError(statusCode: 410, reason: "Unregistered"))
        XCTAssertEqual(gone.verdict, .dropToken(since: nil))
        let expired = FCMRejection(status: 400, body: body(#""reason":"ExpiredToken""#), retryAfterHeader: nil, now: 0)
        XCTAssertEqual(expired.verdict, .dropToken(since: nil))
        // Through FCM these usually mean the project's APNs setup is wrong
        // for every iOS device: never a reason to delete the token.
        for reason in ["BadDeviceToken", "DeviceTokenNotForTopic"] {
            let setup = FCMRejection(status: 400, body: body(#""statusCode":400,"reason":"\#(reason)""#), retryAfterHeader: nil, now: 0)
            XCTAssertEqual(setup.verdict, .final, reason)
        }
        let large = FCMRejection(status: 400, body: body(#""statusCode":413,"reason":"PayloadTooLarge""#), retryAfterHeader: nil, now: 0)
        XCTAssertEqual(large.verdict, .final)
        let auth = FCMRejection(status: 401, errorCode: .thirdPartyAuthError,
                                apnsError: FCMApnsError(statusCode: 410, reason: "Unregistered"))
        XCTAssertEqual(auth.verdict, .final, "only INVALID_ARGUMENT reads the APNs answer: a refused APNs credential fails this device")
    }
}

extension ProviderVerdict {
    /// `configuration`, whatever its detail says.
    var isConfiguration: Bool {
        if case .configuration = self { return true }
        return false
    }
}
