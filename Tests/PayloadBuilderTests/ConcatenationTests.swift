@testable import PayloadBuilder
import XCTest

/// `Concatenation.join` replaces interpolation on the per-event path
/// (`eventID`, paths, the group body): it must give the same string, byte
/// for byte, for empty, small, large and non-ASCII pieces.
final class ConcatenationTests: XCTestCase {
    func testJoinsLikeInterpolation() {
        let pieces = ["", "a", ":", "37791233165968", "Nghĩa", "🎥 Video", "/3/device/",
                      String(repeating: "0f", count: 32), "\u{0}\"\\", String(repeating: "é👋", count: 40)]
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    XCTAssertEqual(Array(Concatenation.join(a, b).utf8), Array("\(a)\(b)".utf8))
                    XCTAssertEqual(Array(Concatenation.join(a, b, c).utf8), Array("\(a)\(b)\(c)".utf8))
                    XCTAssertEqual(Array(Concatenation.join(a, b, c, a).utf8), Array("\(a)\(b)\(c)\(a)".utf8))
                }
            }
        }
        // A substring's copy and a string read from bytes join the same way.
        let sliced = String("xx/v1/projects/demo-project".dropFirst(2))
        let decoded = String(decoding: Array("Tran Nghĩa".utf8), as: UTF8.self)
        XCTAssertEqual(Concatenation.join(sliced, "/messages:send"), "\(sliced)/messages:send")
        XCTAssertEqual(Concatenation.join(decoded, ": ", decoded), "\(decoded): \(decoded)")
    }

    /// A literal prefix joins like interpolation, for every kind of text after it.
    func testALiteralPrefixJoinsLikeInterpolation() {
        let pieces = ["", "a", "37791233165968", "Nghĩa", "🎥 Video", String(repeating: "0f", count: 32),
                      "\u{0}\"\\", String(repeating: "é👋", count: 40), String("xx/v1/projects".dropFirst(2)),
                      String(decoding: Array("Tran Nghĩa".utf8), as: UTF8.self)]
        for text in pieces {
            XCTAssertEqual(Array(Concatenation.join(literal: "/3/device/", text).utf8), Array("/3/device/\(text)".utf8))
            XCTAssertEqual(Array(Concatenation.join(literal: "é:", text).utf8), Array("é:\(text)".utf8))
        }
    }
}
