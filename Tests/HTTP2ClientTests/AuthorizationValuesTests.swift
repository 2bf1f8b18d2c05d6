@testable import HTTP2Client
import XCTest

/// One `authorization` string per credential, so that the header prototype
/// of a connection recognises it by identity.
final class AuthorizationValuesTests: XCTestCase {
    func testTheValueIsTheSameStringUntilTheCredentialChanges() {
        let values = AuthorizationValues(scheme: "bearer")
        let credential = String(repeating: "eyJhbGciOiJFUzI1NiJ9.", count: 8)
        let first = values.value(for: credential)
        XCTAssertEqual(first, "bearer " + credential)
        XCTAssertEqual(StringIdentity(of: values.value(for: String(credential.reversed().reversed()))), StringIdentity(of: first),
                       "an equal credential, even another copy of it, gives the very same string")
        let next = values.value(for: credential + "x")
        XCTAssertEqual(next, "bearer " + credential + "x")
        XCTAssertNotEqual(StringIdentity(of: next), StringIdentity(of: first))
    }
}
