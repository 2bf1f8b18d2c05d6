@testable import APNsSimulator
import XCTest

/// The simulator's strict JSON parser: its UTF-8 rule is exactly the
/// standard library's, escapes decode the same with or without raw UTF-8
/// around them, and each representation it builds keeps its own rules
/// (unordered last-wins, ordered first-position last-value, the APNs
/// payload shape).
final class SimulatorJSONParserTests: XCTestCase {
    private func parsedString(_ content: [UInt8]) -> String? {
        guard case .string(let text)? = SimulatorJSONParser.parse([0x22] + content + [0x22]) else { return nil }
        return text
    }

    func testStringsAcceptExactlyTheUTF8TheStandardLibraryAccepts() {
        func check(_ content: [UInt8]) {
            // Quotes and backslashes are JSON syntax, not content; control characters must be escaped.
            if content.contains(where: { $0 == 0x22 || $0 == 0x5C }) { return }
            let expected = content.contains { $0 < 0x20 } ? nil : String(validating: content, as: UTF8.self)
            XCTAssertEqual(parsedString(content), expected, "\(content)")
        }
        for first in UInt8.min...UInt8.max {
            check([first])
            for second in UInt8.min...UInt8.max { check([first, second]) }
        }
        let edges: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0]
        for lead in UInt8(0xE0)...0xFF {
            for second in edges {
                for third in edges {
                    check([lead, second, third])
                    check([lead, second, third, 0x80])
                    check([lead, second, 0x80, third])
                    check([0x41, lead, second, third, 0x41])
                }
            }
        }
    }

    func testEscapesDecodeBetweenRawText() {
        XCTAssertEqual(parsedString(Array(#"é\n€\u00e9😀\ud83d\ude00\"\\\/\b\f\r\tend"#.utf8)),
                       "é\n€é😀😀\"\\/\u{08}\u{0C}\r\tend")
        XCTAssertEqual(parsedString(Array(#"\u0000"#.utf8)), "\u{00}")
        for bad in [#"\ud83d"#, #"\ude00"#, #"\ud83d\u0041"#, #"\x41"#, #"\u12"#, #"a\"#] {
            XCTAssertNil(parsedString(Array(bad.utf8)), bad)
        }
        XCTAssertNil(parsedString(Array(#"\n"#.utf8) + [0xC3, 0x28]), "invalid UTF-8 after an escape")
        XCTAssertNil(parsedString(Array(#"\n"#.utf8) + [0x0A]), "raw control character after an escape")
    }

    func testLiteralsAndNumbersAreExact() {
        XCTAssertEqual(SimulatorJSONParser.parse(Array("[true,false,null,0,-0.5,1e+9]".utf8)),
                       .array([.bool(true), .bool(false), .null, .number("0"), .number("-0.5"), .number("1e+9")]))
        for bad in ["tru", "nul", "True", "truex", "-", "1.", ".5", "1e", "0x1", "+1", "[1 2]", "{\"a\" 1}"] {
            XCTAssertNil(SimulatorJSONParser.parse(Array(bad.utf8)), bad)
        }
    }

    func testOrderedObjectsKeepTheFirstPositionAndTheLastValue() {
        let small = SimulatorJSONParser.parseOrdered(Array(#"{"a":1,"b":2,"a":3}"#.utf8))
        XCTAssertEqual(small?.members?.map(\.key), ["a", "b"])
        XCTAssertEqual(small?["a"], .number("3"))
        // Past the size where positions are indexed instead of searched.
        let keys = (0..<40).map { "k\($0 % 25)" }
        let text = "{" + keys.enumerated().map { "\"\($1)\":\($0)" }.joined(separator: ",") + "}"
        let large = SimulatorJSONParser.parseOrdered(Array(text.utf8))
        XCTAssertEqual(large?.members?.map(\.key), (0..<25).map { "k\($0)" })
        XCTAssertEqual(large?.members?.map(\.value), (0..<25).map { .number(String($0 < 15 ? $0 + 25 : $0)) })
    }

    func testThePayloadShapeFollowsTheLastAPSMember() {
        func shape(_ text: String) -> APNsPayloadShape? { APNsPayloadShape.parse(Array(text.utf8)) }
        func hasAPSObject(_ text: String) -> Bool? {
            guard case .object(let hasAPSObject, _, _)? = shape(text) else { return nil }
            return hasAPSObject
        }
        XCTAssertEqual(hasAPSObject(#"{"aps":{"alert":"hi"},"x":[1,{"aps":1}]}"#), true)
        XCTAssertEqual(hasAPSObject(#"{"\u0061ps":{}}"#), true, "an escaped key is the same key")
        XCTAssertEqual(hasAPSObject(#"{"aps":[],"aps":{}}"#), true)
        XCTAssertEqual(hasAPSObject(#"{"aps":{},"aps":"x"}"#), false)
        XCTAssertEqual(hasAPSObject(#"{"x":{"aps":{}}}"#), false, "only the top-level member counts")
        XCTAssertEqual(hasAPSObject(#"{"apss":{},"ap":{}}"#), false)
        guard case .other? = shape(#"[{"aps":{}}]"#) else { return XCTFail("an array is not an object") }
        XCTAssertNil(shape(#"{"aps":{}"#))
        XCTAssertNil(shape("{\"aps\":{\"a\":\"\u{01}\"}}"))
    }
}
