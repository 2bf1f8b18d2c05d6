import PayloadBuilder
import XCTest

/// FNV-1a 64 against the published test vectors, and the length prefix of
/// `add(_:)` keeping field splits apart.
final class FNV1a64Tests: XCTestCase {
    private func raw(_ text: String) -> UInt64 {
        var hash = FNV1a64()
        hash.add(raw: Array(text.utf8).span)
        return hash.value
    }

    func testRawBytesHashToThePublishedVectors() {
        XCTAssertEqual(raw(""), 0xcbf2_9ce4_8422_2325)
        XCTAssertEqual(raw("a"), 0xaf63_dc4c_8601_ec8c)
        XCTAssertEqual(raw("foobar"), 0x8594_4171_f739_67e8)
    }

    func testLengthPrefixedFieldsHashApartFromAnotherSplitOfTheSameBytes() {
        var first = FNV1a64()
        first.add("ab")
        first.add("c")
        var second = FNV1a64()
        second.add("a")
        second.add("bc")
        XCTAssertNotEqual(first.value, second.value)
        var prefixed = FNV1a64()
        prefixed.add("foobar")
        XCTAssertNotEqual(prefixed.value, raw("foobar"), "add(_:) hashes the length first")
    }
}
