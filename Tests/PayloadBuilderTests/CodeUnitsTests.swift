@testable import PayloadBuilder
import XCTest

/// `hasSameCodeUnits` is byte equality: it agrees with comparing the UTF-8
/// arrays for every length and every place of a difference, and it tells
/// canonically equivalent spellings apart (which `==` does not).
final class CodeUnitsTests: XCTestCase {
    func testItAgreesWithComparingTheBytesAtEveryLengthAndPosition() {
        for length in 0...40 {
            let base = String(decoding: (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }, as: UTF8.self)
            XCTAssertTrue(base.hasSameCodeUnits(as: String(decoding: Array(base.utf8), as: UTF8.self)), "\(length)")
            for position in 0..<length {
                for replacement in ["b", "\u{0}", "é"] {
                    var scalars = Array(base.unicodeScalars)
                    scalars[position] = replacement.unicodeScalars.first!
                    let other = String(String.UnicodeScalarView(scalars))
                    XCTAssertEqual(base.hasSameCodeUnits(as: other), Array(base.utf8) == Array(other.utf8), "\(length) \(position)")
                    XCTAssertEqual(other.hasSameCodeUnits(as: base), Array(base.utf8) == Array(other.utf8), "\(length) \(position)")
                }
            }
            XCTAssertFalse(base.hasSameCodeUnits(as: base + "x"))
        }
    }

    func testCanonicallyEquivalentSpellingsAreNotTheSameBytes() {
        XCTAssertTrue("Caf\u{E9}" == "Cafe\u{301}")
        XCTAssertFalse("Caf\u{E9}".hasSameCodeUnits(as: "Cafe\u{301}"))
        XCTAssertFalse("\u{212A}".hasSameCodeUnits(as: "K"))
        XCTAssertTrue("https://cdn.example.com/a/very/long/path/to/an/avatar.png".hasSameCodeUnits(
            as: "https://cdn.example.com/a/very/long/path/to/an/avatar.png"))
    }
}
