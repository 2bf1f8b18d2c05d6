@testable import PayloadBuilder
import TestSupport
import XCTest

/// The compression on the CPU's SHA extensions (`CDigestShims`) against the
/// plain-Swift one: the same state words for every length from 0 to 300
/// bytes (one to six blocks, every padding case) and for random lengths up
/// to 4 KiB (fixed seed). Skipped where the CPU has no SHA extensions.
final class SHA256ExtensionsTests: XCTestCase {
    private func words(_ bytes: [UInt8], extensions: Bool) -> [UInt32] {
        let state = SHA256.hash(bytes: bytes.span, extensions: extensions)
        return [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
    }

    func testExtensionsGiveTheSwiftWordsForEveryLengthUpTo300Bytes() throws {
        try XCTSkipUnless(SHA256.extensionsAvailable, "no SHA extensions on this CPU")
        var generator = SplitMix64(seed: 0x5_4A_256)  // the same bytes every run
        for length in 0...300 {
            let bytes = generator.bytes(length)
            XCTAssertEqual(words(bytes, extensions: true), words(bytes, extensions: false), "length \(length)")
        }
    }

    func testExtensionsGiveTheSwiftWordsForRandomLongInputs() throws {
        try XCTSkipUnless(SHA256.extensionsAvailable, "no SHA extensions on this CPU")
        var generator = SplitMix64(seed: 0xD16_E57)
        for _ in 0..<200 {
            let bytes = generator.bytes(Int(generator.next() % 4096))
            XCTAssertEqual(words(bytes, extensions: true), words(bytes, extensions: false), "length \(bytes.count)")
        }
    }

    func testExtensionsHashTheNISTVectors() throws {
        try XCTSkipUnless(SHA256.extensionsAvailable, "no SHA extensions on this CPU")
        XCTAssertEqual(words(Array("abc".utf8), extensions: true),
                       [0xba7816bf, 0x8f01cfea, 0x414140de, 0x5dae2223, 0xb00361a3, 0x96177a9c, 0xb410ff61, 0xf20015ad])
        XCTAssertEqual(words([], extensions: true),
                       [0xe3b0c442, 0x98fc1c14, 0x9afbf4c8, 0x996fb924, 0x27ae41e4, 0x649b934c, 0xa495991b, 0x7852b855])
    }

    func testTheSwiftCompressionStillHashesTheNISTVector() {
        XCTAssertEqual(words(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8), extensions: false),
                       [0x248d6a61, 0xd20638b8, 0xe5c02693, 0x0c3e6039, 0xa33ce459, 0x64ff2167, 0xf6ecedd4, 0x19db06c1])
    }
}
