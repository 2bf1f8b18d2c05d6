@testable import PayloadBuilder
import XCTest

/// The event reader finds member names by `switch` over `KeyName` literals
/// (folded into constants at compile time): each object's lookup must give
/// every name of its list its index, and nothing to any other key, read
/// from the input as words or as a string.
final class KeyNamesTests: XCTestCase {
    typealias KeyName = JSONScanner.KeyName

    private static let objects: [EventReader.Object] = [.event, .conversation, .message, .sender, .notification, .recipient]

    /// `key` read by `nextKey` from an object with `padding` spaces after it.
    private func keyName(_ key: String, padding: Int) -> KeyName? {
        let bytes = Array("{".utf8) + JSONWriter.escaped(key) + Array(repeating: 0x20, count: padding) + Array(":1}".utf8)
        return bytes.withUnsafeBufferPointer { input in
            var scanner = JSONScanner(input)
            var object = JSONScanner.Container()
            guard (try? scanner.kind()) == .object else { return nil }
            scanner.enter(&object)
            return try? scanner.nextKey(&object)
        }
    }

    func testEveryObjectFindsItsNamesAndNothingElse() {
        let all = Set(Self.objects.flatMap(\.names))
        var others = ["", "i", "ID", "Id", "idd", "tokens", "toke", "platforms", "user-id", "userid", "event_id\u{0}",
                      "conversatioN", "0123456789abcdef", "0123456789abcdefg", "é"]
        for name in all {
            others += [name.uppercased(), name + "x", String(name.dropLast()), String(name.dropFirst()), "x" + name]
        }
        for object in Self.objects {
            let names = object.names, lookup = object.index
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

    /// `nextKey` reads a plain key of fewer than 16 bytes as two words when
    /// 16 bytes follow its opening quote, and any other key as a string:
    /// for keys of every length to three words with an awkward byte at
    /// every position, followed by few or many bytes, it reads the key the
    /// parser reads from the same object.
    func testKeysAreReadAsTheParserReadsThem() {
        let specials: [UInt8] = [0x22, 0x5C, 0x00, 0x1F, 0x20, 0x21, 0x7F, 0x80, 0xC3, 0xFF, 0x3A, 0x5B, 0x5D]
        let tails: [[UInt8]] = [Array(#"":1}"#.utf8), Array(#"":1}                    "#.utf8), Array(#"" : "value long enough"}"#.utf8),
                                Array(#"":1,"b":2}"#.utf8), Array(#""x:1}"#.utf8), Array(#""u0041":1}"#.utf8)]
        var read = 0
        for input in objectsWithOneAwkwardKey(specials: specials, tails: tails) {
            let expected: String?
            switch try? JSONParser.parse(input) {
            case let .object(members)?: expected = members.first?.key
            default: expected = nil
            }
            let found: (name: KeyName, key: String)? = input.withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(buffer)
                var object = JSONScanner.Container()
                guard (try? scanner.kind()) == .object else { return nil }
                scanner.enter(&object)
                guard let name = try? scanner.nextKey(&object) else { return nil }
                return (name, scanner.key.string)
            }
            guard let expected else { continue }
            XCTAssertEqual(found?.key, expected, "\(input)")
            var bytes = expected
            XCTAssertEqual(found?.name, bytes.withUTF8 { KeyName($0) }, "\(input)")
            read += 1
        }
        XCTAssertGreaterThan(read, 1000)
    }
}
