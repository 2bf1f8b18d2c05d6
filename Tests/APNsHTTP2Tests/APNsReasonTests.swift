import APNsHTTP2
@testable import HTTP2Client
import XCTest

/// Apple's reason table (PROTOCOLS.md A5), reason by reason.
final class APNsReasonTests: XCTestCase {
    func testEveryDocumentedReasonMapsToItsVerdict() {
        let table: [(APNsReason, Int, ProviderVerdict)] = [
            (.badDeviceToken, 400, .dropToken(since: nil)), (.deviceTokenNotForTopic, 400, .dropToken(since: nil)),
            (.expiredToken, 410, .dropToken(since: nil)), (.unregistered, 410, .dropToken(since: nil)),
            (.badCollapseID, 400, .final), (.badExpirationDate, 400, .final), (.badMessageID, 400, .final),
            (.badPriority, 400, .final), (.badTopic, 400, .final), (.duplicateHeaders, 400, .final),
            (.invalidPushType, 400, .final), (.missingDeviceToken, 400, .final), (.missingTopic, 400, .final),
            (.payloadEmpty, 400, .final), (.badPath, 404, .final), (.methodNotAllowed, 405, .final),
            (.idleTimeout, 400, .retry(after: nil)), (.unrelatedKeyIDInToken, 403, .retry(after: nil)),
            (.topicDisallowed, 400, .configuration(detail: nil)), (.badCertificate, 403, .configuration(detail: nil)),
            (.badCertificateEnvironment, 403, .configuration(detail: nil)), (.invalidProviderToken, 403, .configuration(detail: nil)),
            (.missingProviderToken, 403, .configuration(detail: nil)), (.badEnvironmentKeyIDInToken, 403, .configuration(detail: nil)),
            (.expiredProviderToken, 403, .refreshCredential), (.forbidden, 403, .final),
            (.payloadTooLarge, 413, .final), (.tooManyProviderTokenUpdates, 429, .retry(after: nil)),
            (.tooManyRequests, 429, .retry(after: nil)), (.internalServerError, 500, .retry(after: nil)),
            (.serviceUnavailable, 503, .retry(after: nil)), (.shutdown, 503, .retry(after: nil)),
        ]
        XCTAssertEqual(table.count, 32)
        for (reason, status, verdict) in table {
            XCTAssertEqual(reason.verdict(status: status), verdict, "\(reason)")
        }
    }

    func testUnknownReasonsFallBackOnTheStatus() {
        XCTAssertEqual(APNsReason("SomethingNew").verdict(status: 410), .dropToken(since: nil))
        XCTAssertEqual(APNsReason("SomethingNew").verdict(status: 503), .retry(after: nil))
        XCTAssertEqual(APNsReason("SomethingNew").verdict(status: 429), .retry(after: nil))
        XCTAssertEqual(APNsReason("SomethingNew").verdict(status: 403), .configuration(detail: nil))
        XCTAssertEqual(APNsReason("SomethingNew").verdict(status: 400), .final)
    }
}
