@testable import PayloadBuilder
import XCTest

/// The fast path's name lookups from UTF-8 (`Platform(utf8:)`,
/// `MessageKind(utf8:)`) must answer exactly as the synthesized
/// `init(rawValue:)` does, for every
/// case name and for near misses: other case, a byte changed, added or
/// removed, combining marks, look-alikes, non-ASCII.
final class CaseNamesTests: XCTestCase {
    private static let replacements: [String] = [
        "", "A", "a", "z", "0", " ", "\u{0}", "\u{7F}", "é", "e\u{301}", "\u{301}", "\u{212A}", "ﬁ", "👋", "\"",
    ]

    /// Every case name, each with every character replaced by, preceded by
    /// and followed by each replacement, in upper case, and some other words.
    private static func candidates(_ names: [String]) -> [String] {
        var result = names + ["", " ", "fcm ", " apns", "FCM", "Apns", "text\u{0}", "images", "imag", "locatio", "stickers",
                              "unknown", "ios", "android", "web", "🙂", String(repeating: "text", count: 10)]
        for name in names {
            result.append(name.uppercased())
            let characters = Array(name)
            for index in characters.indices {
                for replacement in replacements {
                    let before = String(characters[..<index]), after = String(characters[(index + 1)...])
                    result.append(before + replacement + after)
                    result.append(before + replacement + String(characters[index]) + after)
                    result.append(before + String(characters[index]) + replacement + after)
                }
            }
        }
        return result
    }

    /// `lookup` of `text`'s UTF-8.
    private static func bytes<T>(of text: String, _ lookup: (Span<UInt8>) -> T) -> T {
        lookup(text.utf8.span)
    }

    func testPlatformFromBytesAgreesWithRawValue() {
        let all = Platform.allCases.map(\.rawValue)
        for candidate in Self.candidates(all + MessageKind.allCases.map(\.rawValue)) {
            XCTAssertEqual(Self.bytes(of: candidate) { Platform(utf8: $0) }, Platform(rawValue: candidate), candidate.debugDescription)
        }
        for platform in Platform.allCases { XCTAssertEqual(Self.bytes(of: platform.rawValue) { Platform(utf8: $0) }, platform) }
    }

    func testMessageKindFromBytesAgreesWithRawValue() {
        let all = MessageKind.allCases.map(\.rawValue)
        for candidate in Self.candidates(all + Platform.allCases.map(\.rawValue)) {
            XCTAssertEqual(Self.bytes(of: candidate) { MessageKind(utf8: $0) }, MessageKind(rawValue: candidate),
                           candidate.debugDescription)
        }
        for kind in MessageKind.allCases { XCTAssertEqual(Self.bytes(of: kind.rawValue) { MessageKind(utf8: $0) }, kind) }
    }
}
