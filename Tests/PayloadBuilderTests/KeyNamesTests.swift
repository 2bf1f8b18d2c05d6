@testable import PayloadBuilder
import XCTest

/// The fast path finds member names by `switch` over `KeyName` literals
/// (folded into constants at compile time): each object's lookup must give
/// every name of `EventDecoder`'s lists its index, and nothing to any other
/// key, read from the input as words or byte by byte.
final class KeyNamesTests: XCTestCase {
    private static let objects: [(names: [String], lookup: @Sendable (KeyName) -> Int?)] = [
        (["event_id", "app", "conversation", "message", "sender", "recipients", "notification", "data"], EventFastReader.Names.event),
        (["id", "title"], EventFastReader.Names.conversation),
        (["id", "text", "kind", "rich_text"], EventFastReader.Names.message),
        (["id", "display_name", "avatar_url"], EventFastReader.Names.sender),
        (["title", "sound", "ttl_seconds", "priority"], EventFastReader.Names.notification),
        (["platform", "token", "badge", "locale", "user_id"], EventFastReader.Names.recipient),
    ]

    /// `key` read from an input with `padding` bytes after it.
    private func keyName(_ key: String, padding: Int) -> KeyName? {
        let bytes = Array(key.utf8) + Array(repeating: UInt8(ascii: "\""), count: padding)
        return bytes.withUnsafeBufferPointer { input in
            KeyName(UnsafeBufferPointer(rebasing: input[0..<key.utf8.count]), in: input)
        }
    }

    func testEveryObjectFindsItsNamesAndNothingElse() {
        let all = Set(Self.objects.flatMap(\.names))
        var others = ["", "i", "ID", "Id", "idd", "tokens", "toke", "platforms", "user-id", "userid", "event_id\u{0}",
                      "conversatioN", "0123456789abcdef", "0123456789abcdefg", "é"]
        for name in all {
            others += [name.uppercased(), name + "x", String(name.dropLast()), String(name.dropFirst()), "x" + name]
        }
        for (names, lookup) in Self.objects {
            for padding in [0, 1, 8, 16] {
                for (index, name) in names.enumerated() {
                    XCTAssertEqual(keyName(name, padding: padding).flatMap(lookup), index, "\(name) + \(padding)")
                }
                for other in others where !names.contains(other) {
                    XCTAssertNil(keyName(other, padding: padding).flatMap(lookup), "\(other) + \(padding) in \(names)")
                }
            }
        }
    }

    func testLiteralNamesEqualNamesReadFromBytes() {
        let literals: [KeyName] = ["", "a", "id", "user_id", "platform", "rich_text", "conversation", "0123456789abcdef"]
        let texts = ["", "a", "id", "user_id", "platform", "rich_text", "conversation", "0123456789abcdef"]
        for (literal, text) in zip(literals, texts) {
            XCTAssertEqual(keyName(text, padding: 20), literal, text)
            XCTAssertEqual(keyName(text, padding: 0), literal, text)
        }
    }

    /// `nextKeyName` finds a key's end in two words when 16 bytes follow
    /// its opening quote, else by the scan: for keys of every length to
    /// three words, with a byte that ends a plain key at every position and
    /// whatever follows, it gives what `nextKey` and `KeyName` give (nil
    /// for 16 bytes or more), and leaves the scanner at the same place.
    func testKeyNamesFoundInWordsAgreeWithTheScan() {
        let specials: [UInt8] = [0x22, 0x5C, 0x00, 0x1F, 0x20, 0x21, 0x7F, 0x80, 0xC3, 0xFF, 0x3A, 0x5B, 0x5D]
        let tails: [[UInt8]] = [Array(#"":1}"#.utf8), Array(#"":"#.utf8), Array(#"""#.utf8), [], Array(#"" : "value long enough"}"#.utf8),
                                Array(#"":1,"b":2}"#.utf8), Array(#""x:1}"#.utf8)]
        var compared = 0
        for input in objectsWithOneAwkwardKey(specials: specials, tails: tails) {
            input.withUnsafeBufferPointer { buffer in
                var byScan = JSONScanner(buffer), byWords = JSONScanner(buffer)
                var objectA = JSONScanner.Container(), objectB = JSONScanner.Container()
                var endedA = false, endedB = false
                XCTAssertTrue(byScan.enter(UInt8(ascii: "{"), &objectA) && byWords.enter(UInt8(ascii: "{"), &objectB))
                let expected = byScan.nextKey(&objectA, ended: &endedA).flatMap { key in
                    key.count < 16 ? KeyName(key, in: buffer) : nil
                }
                let found = byWords.nextKeyName(&objectB, ended: &endedB)
                XCTAssertEqual(found, expected, "\(input)")
                XCTAssertEqual(endedB, endedA, "\(input)")
                if let found, found == expected {
                    XCTAssertEqual(byWords.position, byScan.position, "\(input)")
                    compared += 1
                }
            }
        }
        XCTAssertGreaterThan(compared, 1000)
    }
}
