import XCTest
import PayloadBuilder

/// RFC 8259 edge cases of the strict request-body parser.
final class JSONParserTests: XCTestCase {
    // MARK: helpers

    private func parse(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSONValue {
        parseJSONOrFail(Array(text.utf8), file: file, line: line)
    }

    private func refusal(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> EventError? {
        expectEventError({ () throws(EventError) in try JSONParser.parse(bytes) }, file: file, line: line)
    }

    private func refusal(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> EventError? {
        refusal(Array(text.utf8), file: file, line: line)
    }

    private func assertRefused(_ text: String, _ code: ErrorCode, field: String? = nil,
                               file: StaticString = #filePath, line: UInt = #line) {
        let error = refusal(text, file: file, line: line)
        XCTAssertEqual(error?.code, code, "\(text)", file: file, line: line)
        XCTAssertEqual(error?.field, field, "\(text)", file: file, line: line)
    }

    private func nested(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    // MARK: numbers

    func testParsesMinusZeroAsZero() {
        switch parse("-0") {
        case let .int(value): XCTAssertEqual(value, 0)
        case let .double(value): XCTAssertEqual(value, 0)
        case let other: XCTFail("-0 parsed as \(other)")
        }
        XCTAssertEqual(parse("-0.0"), .double(-0.0))
        if case let .double(value) = parse("-0.0") { XCTAssertEqual(value.sign, .minus) }
    }

    func testParsesIntegersAsIntegersAndEverythingElseAsDoubles() {
        XCTAssertEqual(parse("0"), .int(0))
        XCTAssertEqual(parse("-17"), .int(-17))
        XCTAssertEqual(parse("1e3"), .double(1000))
        XCTAssertEqual(parse("1E+3"), .double(1000))
        XCTAssertEqual(parse("25e-1"), .double(2.5))
        XCTAssertEqual(parse("3.0"), .double(3))
        XCTAssertEqual(parse("0.5"), .double(0.5))
        XCTAssertNotEqual(parse("3"), parse("3.0"))
    }

    func testParsesTheExtremesOfInt64ExactlyAndLargerIntegersAsDoubles() {
        XCTAssertEqual(parse("9223372036854775807"), .int(Int64.max))
        XCTAssertEqual(parse("-9223372036854775808"), .int(Int64.min))
        XCTAssertEqual(parse("9223372036854775808"), .double(9_223_372_036_854_775_808))
        XCTAssertEqual(parse("123456789012345678901234567890"), .double(1.2345678901234568e29))
    }

    func testRefusesMalformedNumbers() {
        for text in ["01", "-01", "00", "1.", ".5", "+1", "-", "1e", "1e+", "0x10", "1.5.2", "NaN", "Infinity", "-Infinity",
                     "1e400", "-1e400", "[01]", "{\"a\":01}"] {
            XCTAssertEqual(refusal(text)?.code, .invalidJSON, text)
        }
    }

    // MARK: strings and escapes

    func testDecodesEveryShortEscape() {
        XCTAssertEqual(parse(#""\"\\\/\b\f\n\r\t""#), .string("\"\\/\u{08}\u{0C}\n\r\t"))
    }

    func testDecodesUnicodeEscapesIncludingSurrogatePairs() {
        XCTAssertEqual(parse(#""\u00e9\u00E9""#), .string("éé"))
        XCTAssertEqual(parse(#""\u0000""#), .string("\u{0}"))
        XCTAssertEqual(parse(#""\ud83d\ude00""#), .string("😀"))
        XCTAssertEqual(parse(#""\uD834\uDD1E""#), .string("\u{1D11E}"))
        XCTAssertEqual(parse(#""\udbff\udfff""#), .string("\u{10FFFF}"))
        guard case let .string(text) = parse(#""\ud83d\ude00""#) else { return XCTFail("not a string") }
        XCTAssertEqual(text.unicodeScalars.map(\.value), [0x1F600])
        XCTAssertEqual(Array(text.utf8), [0xF0, 0x9F, 0x98, 0x80])
    }

    func testKeepsRawUTF8AndMixesItWithEscapes() {
        XCTAssertEqual(parse(#""Xin chào 👋🏽 thế giới""#), .string("Xin chào 👋🏽 thế giới"))
        XCTAssertEqual(parse(#""chào\n👋🏽\u0021""#), .string("chào\n👋🏽!"))
    }

    func testRefusesLoneSurrogateEscapesAsInvalidUTF8NamingTheField() {
        assertRefused(#""\ud800""#, .invalidUTF8)
        assertRefused(#""\udc00""#, .invalidUTF8)
        assertRefused(#""\ud800\u0041""#, .invalidUTF8)
        assertRefused(#""\ud800\ud800""#, .invalidUTF8)
        assertRefused(#""\ud800x""#, .invalidUTF8)
        assertRefused(#"{"a":{"b":"\ud800"}}"#, .invalidUTF8, field: "a.b")
        assertRefused(#"{"a":["ok","\udfff"]}"#, .invalidUTF8, field: "a[1]")
    }

    func testRefusesInvalidUTF8NamingTheField() {
        let sequences: [[UInt8]] = [
            [0x80], [0xBF], [0xC0, 0xAF], [0xC1, 0xBF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF0, 0x80, 0x80, 0xAF],
            [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFE], [0xFF], [0xC3, 0x28], [0xE2, 0x28, 0xA1],
            [0xE2, 0x82], [0xF0, 0x9F, 0x98],
        ]
        for sequence in sequences {
            let body = Array(#"{"k":["#.utf8) + Array("\"a".utf8) + sequence + Array("b\"]}".utf8)
            let error = refusal(body)
            XCTAssertEqual(error?.code, .invalidUTF8, "\(sequence)")
            XCTAssertEqual(error?.field, "k[0]", "\(sequence)")
        }
        // Truncated at the very end of the input.
        XCTAssertEqual(refusal([0x22, 0xE2, 0x82])?.code, .invalidUTF8)
    }

    func testRefusesInvalidUTF8InAKeyNamingTheObject() {
        let error = refusal(Array(#"{"data":{""#.utf8) + [0xFF] + Array(#"":"x"}}"#.utf8))
        XCTAssertEqual(error?.code, .invalidUTF8)
        XCTAssertEqual(error?.field, "data")
    }

    func testRefusesUnescapedControlCharacters() {
        for byte: UInt8 in [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F] {
            let error = refusal([0x22, 0x61, byte, 0x62, 0x22])
            XCTAssertEqual(error?.code, .invalidJSON, "byte \(byte)")
            XCTAssertNil(error?.field)
            // Also after an escape (the slow path).
            XCTAssertEqual(refusal([0x22, 0x5C, 0x6E, byte, 0x22])?.code, .invalidJSON, "byte \(byte) after an escape")
        }
        XCTAssertEqual(parseJSONOrFail([0x22, 0x7F, 0x22]), .string("\u{7F}"))
    }

    func testRefusesBadEscapes() {
        for text in [#""\x41""#, #""\'""#, #""\u12""#, #""\u12G4""#, #""\U0041""#, #""\"#, #""abc"#, #""\u""#] {
            XCTAssertEqual(refusal(text)?.code, .invalidJSON, text)
        }
    }

    // MARK: structure

    func testAcceptsAnyValueAtTheTopLevelWithSurroundingWhitespace() {
        XCTAssertEqual(parse(" \t\r\n\"x\"\n"), .string("x"))
        XCTAssertEqual(parse("3"), .int(3))
        XCTAssertEqual(parse("true"), .bool(true))
        XCTAssertEqual(parse("false"), .bool(false))
        XCTAssertEqual(parse("null"), .null)
        XCTAssertEqual(parse("[ ]"), .array([]))
        XCTAssertEqual(parse("{ }"), .object([]))
    }

    func testRefusesWhatIsNotOneJSONValue() {
        for text in ["", " ", "tru", "nul", "True", "[1,]", "[,1]", "{\"a\":1,}", "{\"a\"}", "{a:1}", "{'a':1}", "[1 2]",
                     "{\"a\" 1}", "1 2", "[1]]", "[[1]", "\u{0C}1", "\u{A0}1", "// comment\n1", "{\"a\":1}x"] {
            let error = refusal(text)
            XCTAssertEqual(error?.code, .invalidJSON, text.debugDescription)
            XCTAssertNil(error?.field, text.debugDescription)
        }
    }

    func testKeepsObjectMembersInTheOrderWritten() {
        XCTAssertEqual(parse(#"{"z":1,"a":2,"m":{"y":3,"b":4}}"#).memberKeys, ["z", "a", "m"])
        XCTAssertEqual(parse(#"{"z":1,"a":2,"m":{"y":3,"b":4}}"#)["m"]?.memberKeys, ["y", "b"])
    }

    func testRefusesAKeyWrittenTwiceInOneObjectNamingIt() {
        assertRefused(#"{"a":1,"a":2}"#, .invalidJSON, field: "a")
        assertRefused(#"{"a":1,"\u0061":2}"#, .invalidJSON, field: "a")
        assertRefused(#"{"x":[{"a":{"b":1,"b":1}}]}"#, .invalidJSON, field: "x[0].a.b")
        // The same key in different objects is fine.
        XCTAssertEqual(parse(#"{"a":{"a":1},"b":{"a":2}}"#)["b"]?["a"], .int(2))
    }

    func testAcceptsNestingUpToTheDepthLimitAndRefusesDeeper() {
        XCTAssertEqual(JSONParser.maximumDepth, 32)
        XCTAssertNotEqual(parse(nested(32)), .null)
        let error = refusal(nested(33))
        XCTAssertEqual(error?.code, .invalidJSON)

        let deepObject = String(repeating: #"{"a":"#, count: 33) + "1" + String(repeating: "}", count: 33)
        XCTAssertEqual(refusal(deepObject)?.code, .invalidJSON)
        let okObject = String(repeating: #"{"a":"#, count: 32) + "1" + String(repeating: "}", count: 32)
        XCTAssertNotEqual(parse(okObject), .null)
    }

    func testSurvivesHostileNestingWithoutExhaustingTheStack() {
        let error = refusal(String(repeating: "[", count: 100_000))
        XCTAssertEqual(error?.code, .invalidJSON)
    }

    // MARK: Bugs found while writing these tests (they fail until Sources are fixed)

    /// RFC 8259 §8.3 compares names code unit by code unit: "é" (U+00E9) and
    /// "e\u0301" are two different keys, but Swift's `==` (canonical
    /// equivalence) makes the parser refuse them as one key written twice.
    func testTellsApartKeysThatDifferOnlyInUnicodeNormalization() {
        let value = parse(#"{"data":{"\u00e9":"composed","e\u0301":"decomposed"}}"#)
        XCTAssertEqual(value["data"]?.objectMembers?.count, 2)
    }
}
