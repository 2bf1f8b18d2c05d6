@testable import APNsSimulator
import XCTest

/// FCM fields are found under either proto3 JSON spelling, and no other.
final class FCMMessageValidatorFieldTests: XCTestCase {
    func testAFieldIsFoundByItsCamelCaseOrSnakeCaseNameOnly() throws {
        func field(_ key: String) throws -> OrderedJSON? {
            let body = try XCTUnwrap(SimulatorJSONParser.parseOrdered(Array("{\"\(key)\":true}".utf8)))
            return FCMMessageValidator.field(body, "validateOnly")
        }
        XCTAssertEqual(try field("validateOnly"), .bool(true))
        XCTAssertEqual(try field("validate_only"), .bool(true))
        for other in ["validateonly", "validate_Only", "validate_only_", "validate_onl", "_validate_only", "ValidateOnly"] {
            XCTAssertNil(try field(other), other)
        }
        let null = try XCTUnwrap(SimulatorJSONParser.parseOrdered(Array(#"{"validate_only":null}"#.utf8)))
        XCTAssertNil(FCMMessageValidator.field(null, "validateOnly"), "null is absent")
    }

    /// Both spellings written: the last one counts, as proto JSON's last
    /// value of a repeated field (found in review: the first one did).
    func testUnderBothSpellingsTheLastOneCounts() throws {
        for (text, expected) in [(#"{"validateOnly":true,"validate_only":false}"#, false),
                                 (#"{"validate_only":false,"validateOnly":true}"#, true)] {
            let body = try XCTUnwrap(SimulatorJSONParser.parseOrdered(Array(text.utf8)))
            XCTAssertEqual(FCMMessageValidator.field(body, "validateOnly"), .bool(expected), text)
        }
    }
}
