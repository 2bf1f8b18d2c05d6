@testable import HTTP2Client
import XCTest

/// One `authorization` value per credential, made again only when the
/// credential changes.
final class AuthorizationValuesTests: XCTestCase {
    func testTheValueFollowsTheCredential() {
        let values = AuthorizationValues(scheme: "bearer")
        let credential = String(repeating: "eyJhbGciOiJFUzI1NiJ9.", count: 8)
        XCTAssertEqual(values.value(for: credential), "bearer " + credential)
        XCTAssertEqual(values.value(for: String(credential.reversed().reversed())), "bearer " + credential,
                       "an equal credential, even another copy of it, gives the same value")
        XCTAssertEqual(values.value(for: credential + "x"), "bearer " + credential + "x")
        XCTAssertEqual(values.value(for: credential), "bearer " + credential, "and back")
    }
}
