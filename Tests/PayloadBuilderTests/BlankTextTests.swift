@testable import PayloadBuilder
import XCTest

/// `isBlank` judges ASCII without the property tables; it must still say
/// exactly what Unicode's White_Space says, scalar by scalar.
final class BlankTextTests: XCTestCase {
    func testEveryScalarAloneIsBlankExactlyWhenItIsWhiteSpace() {
        for value in UInt32(0)...0x3100 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(String.UnicodeScalarView([scalar]))
            XCTAssertEqual(text.isBlank, scalar.properties.isWhitespace, "U+\(String(value, radix: 16))")
            XCTAssertFalse((text + "x").isBlank)
            XCTAssertEqual((" " + text + "\t").isBlank, scalar.properties.isWhitespace)
        }
    }

    func testMixedText() {
        XCTAssertTrue("".isBlank)
        XCTAssertTrue(" \t\n\r\u{0B}\u{0C}\u{85}\u{A0}\u{2003}\u{3000}".isBlank)
        XCTAssertFalse(" \u{2003}🎧".isBlank)
        XCTAssertFalse("\u{200B}".isBlank)  // zero width space is not White_Space
    }
}
