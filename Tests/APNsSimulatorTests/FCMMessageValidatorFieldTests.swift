@testable import APNsSimulator
import XCTest

/// FCM fields are found under either proto3 JSON spelling, and no other.
final class FCMMessageValidatorFieldTests: XCTestCase {
    private static func body(_ member: String) -> String { #"{"message":{"token":"t"},\#(member)}"# }

    func testAFieldIsFoundByItsCamelCaseOrSnakeCaseNameOnly() throws {
        XCTAssertEqual(FCMSendCheck.message(Self.body(#""validateOnly":true"#))?.validateOnly, true)
        XCTAssertEqual(FCMSendCheck.message(Self.body(#""validate_only":true"#))?.validateOnly, true)
        for other in ["validateonly", "validate_Only", "validate_only_", "validate_onl", "_validate_only", "ValidateOnly"] {
            let error = FCMSendCheck.refusal(Self.body(#""\#(other)":true"#))
            XCTAssertEqual(error?.message, #"Invalid JSON payload received. Unknown name "\#(other)": Cannot find field."#, other)
        }
        XCTAssertEqual(FCMSendCheck.message(Self.body(#""validate_only":null"#))?.validateOnly, false, "null is absent")
    }

    /// Both spellings written: the last one counts, as proto JSON's last
    /// value of a repeated field.
    func testUnderBothSpellingsTheLastOneCounts() throws {
        for (members, expected) in [(#""validateOnly":true,"validate_only":false"#, false),
                                    (#""validate_only":false,"validateOnly":true"#, true)] {
            XCTAssertEqual(FCMSendCheck.message(Self.body(members))?.validateOnly, expected, members)
        }
    }
}
