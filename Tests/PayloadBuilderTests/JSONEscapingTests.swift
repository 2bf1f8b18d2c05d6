import Foundation
import XCTest
import PayloadBuilder

/// The escaper scans eight bytes at a time; these check it against a plain
/// byte-at-a-time reference for escapable bytes at every position of up to four words,
/// next to multi-byte UTF-8, and in strings of every short length.
final class JSONEscapingTests: XCTestCase {
    /// The documented rule, one byte at a time: `"`, `\` and controls escaped.
    private func reference(_ text: String) -> [UInt8] {
        var out: [UInt8] = [0x22]
        for byte in text.utf8 {
            switch byte {
            case 0x22: out += Array(#"\""#.utf8)
            case 0x5C: out += Array(#"\\"#.utf8)
            case 0x0A: out += Array(#"\n"#.utf8)
            case 0x0D: out += Array(#"\r"#.utf8)
            case 0x09: out += Array(#"\t"#.utf8)
            case 0x08: out += Array(#"\b"#.utf8)
            case 0x0C: out += Array(#"\f"#.utf8)
            case ..<0x20: out += Array(String(format: "\\u%04x", Int(byte)).utf8)
            default: out.append(byte)
            }
        }
        out.append(0x22)
        return out
    }

    func testEveryEscapableByteAtEveryPositionOfFourWords() {
        let specials: [Character] = ["\"", "\\", "\n", "\u{0}", "\u{1F}", "\u{7}", "\t"]
        for length in 0...33 {
            for position in 0..<max(length, 1) {
                for special in specials {
                    var characters = Array(repeating: Character("a"), count: length)
                    if length > 0 { characters[position] = special }
                    let text = String(characters)
                    XCTAssertEqual(JSONWriter.escaped(text), reference(text), "\(text.debugDescription)")
                }
            }
        }
    }

    func testBytesNextToTheSpecialValuesAreNotEscaped() {
        // 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F and UTF-8 bytes (0x80 and above,
        // including 0xA2 and 0xDC whose low 7 bits are `"` and `\`).
        let text = " !#[]\u{7F}¢Ü\u{A2}\u{DC}\u{5C}é👋🏽 " + String(repeating: "x ! # [ ] ¢ Ü ", count: 3)
        XCTAssertEqual(JSONWriter.escaped(text), reference(text))
    }

    func testAgreesWithTheReferenceOnGeneratedStrings() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Unicode.Scalar] = ["a", "Z", " ", "\"", "\\", "\n", "\r", "\u{0}", "\u{1}", "\u{1F}", "\u{7F}",
                                          "é", "ĩ", "€", "\u{2028}", "👋", "\u{A2}", "\u{DC}", "/"]
        for _ in 0..<2000 {
            let count = Int.random(in: 0...40, using: &generator)
            var scalars = String.UnicodeScalarView()
            for _ in 0..<count { scalars.append(alphabet.randomElement(using: &generator)!) }
            let text = String(scalars)
            XCTAssertEqual(JSONWriter.escaped(text), reference(text), "\(text.debugDescription)")
        }
    }

    /// The parser skips plain ASCII a word at a time too: strings of every
    /// short length, with escapes, controls and UTF-8 at every position, read
    /// back exactly, and a raw control byte is refused at its own offset.
    func testTheParserReadsBackEveryWrittenStringAndFindsRawControlsWhereTheyAre() throws {
        let specials: [String] = ["\"", "\\", "\n", "\u{1}", "é", "👋", "\u{7F}"]
        for length in 0...33 {
            for position in 0..<max(length, 1) {
                for special in specials {
                    var characters = Array(repeating: "a", count: length)
                    if length > 0 { characters[position] = special }
                    let text = characters.joined()
                    XCTAssertEqual(try JSONParser.parse(JSONWriter.escaped(text)), .string(text), text.debugDescription)
                }
                guard length > 0 else { continue }
                var raw = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                raw[position] = 0x1F
                let error = expectEventError { () throws(EventError) in try JSONParser.parse([0x22] + raw + [0x22]) }
                XCTAssertEqual(error?.message, "control character in a string must be escaped at byte \(position + 1)")
            }
        }
    }
}
