@testable import PayloadBuilder
import XCTest

/// `Locales.resolve` answers a supported language given as it is without
/// working out its primary subtag: it must give the rule's answer for every
/// tag, usual or not.
final class LocalesTests: XCTestCase {
    /// The rule as API.md states it: the primary subtag (before `-` or `_`),
    /// lowercased, when it is a supported language, else `en`.
    private func byRule(_ tag: String) -> String {
        let primary = String(tag.prefix(while: { $0 != "-" && $0 != "_" })).lowercased()
        return Locales.supported.contains(primary) ? primary : "en"
    }

    func testEveryTagResolvesByTheRule() {
        var tags = ["vi", "en", "fr", "VI", "Vi", "vI", "EN", "Fr", "de", "es", "v", "", "vie", "vi-VN", "vi_VN", "en-US",
                    "fr-CA", "ve", "fi", "e\u{301}", "é", "vi ", " vi", "-vi", "v\u{0}", "zh-Hant-TW"]
        for language in Locales.supported { tags.append(language) }
        for first in UInt8(ascii: "a")...UInt8(ascii: "z") {
            for second in [UInt8(ascii: "i"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "I")] {
                tags.append(String(decoding: [first, second], as: UTF8.self))
            }
        }
        // A tag read from bytes (not a literal) and one from a substring.
        tags.append(String(decoding: Array("vi".utf8), as: UTF8.self))
        tags.append(String("xxfr".dropFirst(2)))
        for tag in tags {
            for defaultLocale in ["en", "vi", "de"] {
                XCTAssertEqual(Locales.resolve(tag, defaultLocale: defaultLocale), byRule(tag), tag.debugDescription)
            }
        }
    }
}
