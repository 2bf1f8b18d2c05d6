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
}
