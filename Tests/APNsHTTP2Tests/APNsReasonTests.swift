import APNsHTTP2
@testable import HTTP2Client
import XCTest

/// Apple's reason table (PROTOCOLS.md A5), reason by reason.
final class APNsReasonTests: XCTestCase {
    func testEveryDocumentedReasonMapsToItsAction() {
        let table: [(APNsReason, Int, APNsAction)] = [
            (.badDeviceToken, 400, .dropToken), (.deviceTokenNotForTopic, 400, .dropToken),
            (.expiredToken, 410, .dropToken), (.unregistered, 410, .dropToken),
            (.badCollapseID, 400, .gatewayBug), (.badExpirationDate, 400, .gatewayBug), (.badMessageID, 400, .gatewayBug),
            (.badPriority, 400, .gatewayBug), (.badTopic, 400, .gatewayBug), (.duplicateHeaders, 400, .gatewayBug),
            (.invalidPushType, 400, .gatewayBug), (.missingDeviceToken, 400, .gatewayBug), (.missingTopic, 400, .gatewayBug),
            (.payloadEmpty, 400, .gatewayBug), (.badPath, 404, .gatewayBug), (.methodNotAllowed, 405, .gatewayBug),
            (.idleTimeout, 400, .retryOnNewConnection), (.unrelatedKeyIDInToken, 403, .retryOnNewConnection),
            (.topicDisallowed, 400, .configurationError), (.badCertificate, 403, .configurationError),
            (.badCertificateEnvironment, 403, .configurationError), (.invalidProviderToken, 403, .configurationError),
            (.missingProviderToken, 403, .configurationError), (.badEnvironmentKeyIDInToken, 403, .configurationError),
            (.expiredProviderToken, 403, .retryWithNewProviderToken), (.forbidden, 403, .doNotRetry),
            (.payloadTooLarge, 413, .doNotRetry), (.tooManyProviderTokenUpdates, 429, .retry(after: nil)),
            (.tooManyRequests, 429, .retry(after: nil)), (.internalServerError, 500, .retry(after: nil)),
            (.serviceUnavailable, 503, .retry(after: nil)), (.shutdown, 503, .retry(after: nil)),
        ]
        XCTAssertEqual(table.count, 32)
        for (reason, status, action) in table {
            XCTAssertEqual(reason.action(status: status), action, "\(reason)")
        }
    }

    func testUnknownReasonsFallBackOnTheStatus() {
        XCTAssertEqual(APNsReason("SomethingNew").action(status: 410), .dropToken)
        XCTAssertEqual(APNsReason("SomethingNew").action(status: 503), .retry(after: nil))
        XCTAssertEqual(APNsReason("SomethingNew").action(status: 429), .retry(after: nil))
        XCTAssertEqual(APNsReason("SomethingNew").action(status: 403), .configurationError)
        XCTAssertEqual(APNsReason("SomethingNew").action(status: 400), .doNotRetry)
    }
}
