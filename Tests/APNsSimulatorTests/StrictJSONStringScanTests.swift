@testable import APNsSimulator
import XCTest

/// Strings are scanned eight bytes at a time until something other than
/// printable ASCII turns up: every kind of byte, at every offset of the
/// first words and the tail, is still judged as one byte at a time would.
final class StrictJSONStringScanTests: XCTestCase {
    func testEveryByteKindIsJudgedAtEveryOffset() {
        // (bytes, accepted, the decoded content when accepted, with "x" filler around)
        let kinds: [([UInt8], Bool, String)] = [
            ([0x00], false, ""), ([0x1F], false, ""), ([0x0A], false, ""), ([0x20], true, " "), ([0x7F], true, "\u{7F}"),
            ([0x21], true, "!"), ([0x23], true, "#"), ([0x5B], true, "["), ([0x5D], true, "]"),
            (Array("\"".utf8), false, ""), (Array("\\".utf8), false, ""), (Array("\\n".utf8), true, "\n"),
            (Array("\\u00e9".utf8), true, "é"), ([0x80], false, ""), ([0xFF], false, ""), ([0xC3, 0xA9], true, "é"),
            ([0xC3], false, ""), ([0xED, 0xA0, 0x80], false, ""), ([0xF0, 0x9F, 0x98, 0x80], true, "😀"),
        ]
        for (kind, accepted, decoded) in kinds {
            for length in 0..<26 {
                for position in 0...length {
                    let before = String(repeating: "x", count: position)
                    let after = String(repeating: "x", count: length - position)
                    let text: [UInt8] = [0x22] + Array(before.utf8) + kind + Array(after.utf8) + [0x22]
                    let parsed = SimulatorJSONParser.parse(text)
                    let label = "\(kind) at \(position) of \(length)"
                    if accepted {
                        XCTAssertEqual(parsed, .string(before + decoded + after), label)
                    } else {
                        XCTAssertNil(parsed, label)
                    }
                    // The same string as an object key, then as an APNs payload shape.
                    let object: [UInt8] = Array(#"{"aps":{},"#.utf8) + text + Array(":1}".utf8)
                    XCTAssertEqual(APNsPayloadShape.parse(object) != nil, accepted, label)
                }
            }
        }
    }
}
