@testable import PayloadBuilder
import TestSupport
import XCTest

/// The event reader applies the event's string rules to the bytes the
/// scanner read, before making a `String`: each byte-level rule must answer
/// exactly as the rule on the `String`, for strings read raw (no escape)
/// and decoded (with escapes), ASCII or not.
final class ScannedTextRulesTests: XCTestCase {
    /// Strings near every edge of the rules: empty, spaces and other
    /// whitespace at either end, controls, DEL, non-ASCII letters and
    /// spaces, combining marks, words of 7 to 17 bytes (the SWAR paths).
    private static let samples: [String] = {
        var samples = ["", " ", "  ", "a", "42", " 42", "42 ", "a b", "\t", "\u{0B}", "\u{7F}", "a\u{7F}", "\u{1F}x", "x\u{0}",
                       "é", " é", "é ", "\u{A0}", "a\u{A0}", "\u{A0}a", "\u{2003}", "x\u{301}", "\u{301} ", " \u{301}x",
                       "\u{85}", "\u{3000}\u{3000}", "ảnh", "🎧 Zalo - Tran Nghia", "Nghĩa", " \u{2003}🎧", "\u{200B}", "\u{600} ",
                       "https://example.com/a.jpeg", "HTTP://x", "https://é.example/ảnh", "https://", "ftp://x", "https://x y",
                       "https://x/\u{7F}", "https://\u{301}x", "6872016393687471", "37791233165968"]
        for length in 6...17 {
            let word = String((0..<length).map { Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8($0 % 26))) })
            samples.append(word)
            for (index, special) in [" ", "\u{7F}", "\u{1F}", "é", "\u{A0}", "\t"].enumerated() {
                var characters = Array(word)
                characters[(index * 5) % length] = Character(special)
                samples.append(String(characters))
                samples.append(special + word)
                samples.append(word + special)
            }
        }
        return samples
    }()

    /// Each sample as the scanner reads it from a JSON string: as written
    /// (raw unless it needs an escape) and with every character escaped.
    private func scanned(_ sample: String, _ body: (JSONScanner.Text) -> Void) {
        let plain = JSONWriter.escaped(sample)  // quoted
        let escaped = "\"" + sample.unicodeScalars.map { scalar in
            scalar.value > 0xFFFF ? String(scalar) : "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                + String(scalar.value, radix: 16)
        }.joined() + "\""
        for bytes in [plain, Array(escaped.utf8)] {
            let json = String(decoding: bytes, as: UTF8.self)
            bytes.withUnsafeBufferPointer { input in
                var scanner = JSONScanner(input)
                guard let text = try? scanner.text() else { return XCTFail("not read: \(json)") }
                XCTAssertEqual(text.string, sample)
                XCTAssertEqual(text.utf8Count, sample.utf8.count)
                body(text)
            }
        }
    }

    /// Strings with escapes are decoded each at its own offset: every one
    /// read from an input stays what the parser reads, while later ones are
    /// read, and plain strings between them are parts of the input.
    func testEveryStringReadFromOneInputStaysValidAndMatchesTheParser() throws {
        let strings = [#""a\nb""#, #""plain""#, #""\u00e9t\u00E9 \ud83c\udfa7""#, #""\"\\\/\b\f\r\t""#, #""""#,
                       #""x\u0000y""#, #""Nghĩa \u2003""#, #""\u0041""#, "\"🎧 tail\"", #""end\\""#]
        let json = "[" + strings.joined(separator: ", ") + "]"
        guard case let .array(expected) = try JSONParser.parse(Array(json.utf8)) else { return XCTFail("not an array") }
        let bytes = Array(json.utf8)
        bytes.withUnsafeBufferPointer { input in
            var scanner = JSONScanner(input)
            var array = JSONScanner.Container()
            var texts: [JSONScanner.Text] = []
            XCTAssertEqual(try? scanner.kind(), .array)
            scanner.enter(&array)
            while (try? scanner.nextElement(&array)) == true {
                guard (try? scanner.kind()) == .string, let text = try? scanner.text() else { return XCTFail("not read") }
                texts.append(text)
            }
            XCTAssertNotNil(try? scanner.end())
            XCTAssertEqual(texts.map(\.string), expected.map { value -> String in
                guard case let .string(text) = value else { return "?" }
                return text
            })
            for text in texts { XCTAssertEqual(text.isASCII, text.string.utf8.allSatisfy { $0 < 0x80 }, text.string) }
        }
    }

    func testBlankTextIsJudgedAsTheStringRuleJudgesIt() {
        for sample in Self.samples {
            scanned(sample) { XCTAssertEqual($0.isBlank, sample.isBlank, sample.debugDescription) }
        }
    }

    func testIdsAreJudgedAsTheStringRuleJudgesThem() {
        for sample in Self.samples {
            scanned(sample) { XCTAssertEqual($0.identifierProblem, Identifier.problem(sample), sample.debugDescription) }
        }
    }

    func testURLsAreJudgedAsTheStringRuleJudgesThem() {
        for sample in Self.samples {
            scanned(sample) { XCTAssertEqual($0.isAbsoluteURL, HTTPURL.isAbsolute(sample), sample.debugDescription) }
        }
    }

    /// The shape of an id, a word at a time, against a byte loop, for every
    /// length to 24 with each kind of byte at each position.
    func testIdentifierShapeAgreesWithTheByteLoop() {
        let specials: [UInt8] = [0x00, 0x1F, 0x20, 0x21, 0x7E, 0x7F, 0x80, 0xC3, 0xFF]
        for length in 0...24 {
            for position in 0..<max(length, 1) {
                for special in specials {
                    var bytes = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
                    if length > 0 { bytes[position] = special }
                    let shape = bytes.withUnsafeBufferPointer { IdentifierShape($0) }
                    XCTAssertEqual(shape.hasControl, bytes.contains { $0 < 0x20 || $0 == 0x7F }, "\(bytes)")
                    XCTAssertEqual(shape.isASCII, bytes.allSatisfy { $0 < 0x80 }, "\(bytes)")
                    XCTAssertEqual(shape.spaceAtAnEnd, bytes.first == 0x20 || bytes.last == 0x20, "\(bytes)")
                }
            }
        }
    }

    func testByteLookupsOfCaseNamesAgreeWithRawValues() {
        var candidates = MessageKind.allCases.map(\.rawValue) + Platform.allCases.map(\.rawValue) + ["high", "normal", ""]
        for name in candidates {
            candidates += [name.uppercased(), name + " ", " " + name, String(name.dropLast()), name + "\u{301}", "\u{212A}" + name]
        }
        for candidate in candidates {
            var copy = candidate
            copy.withUTF8 { bytes in
                XCTAssertEqual(Platform(utf8: bytes), Platform(rawValue: candidate), candidate.debugDescription)
                XCTAssertEqual(MessageKind(utf8: bytes), MessageKind(rawValue: candidate), candidate.debugDescription)
                XCTAssertEqual(DeliveryPriority(utf8: bytes), DeliveryPriority(rawValue: candidate), candidate.debugDescription)
            }
        }
    }

    /// The scheme of a URL found as one word against the byte rule (A-Z
    /// lowercased, then compared), for every byte at every position of the
    /// first eight, after both schemes, and for short URLs.
    func testSchemesFoundAsOneWordAgreeWithTheByteRule() {
        func reference(_ url: [UInt8]) -> Int? {
            func starts(_ prefix: String) -> Bool {
                let expected = Array(prefix.utf8)
                guard url.count >= expected.count else { return false }
                return zip(url, expected).allSatisfy { byte, want in
                    ((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte) == want
                }
            }
            return starts("https://") ? 8 : starts("http://") ? 7 : nil
        }
        var checked = 0
        for base in ["https://x", "http://xy", "HTTPS://host", "hTtP://a/b", "ftp://host", "https:", "http:/", "", "h"] {
            let bytes = Array(base.utf8)
            for position in 0..<min(8, max(bytes.count, 1)) {
                for value in 0...255 {
                    var url = bytes
                    if url.isEmpty { url = [UInt8(value)] } else { url[position] = UInt8(value) }
                    let found = url.withUnsafeBufferPointer { HTTPURL.schemeLength($0) }
                    XCTAssertEqual(found, reference(url), "\(url)")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 10_000)
    }
}
