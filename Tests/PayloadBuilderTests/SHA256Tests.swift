import XCTest
import PayloadBuilder

/// The pure-Swift SHA-256 against FIPS 180-4 / NIST vectors and OpenSSL, and
/// the `apns-id` derived from it.
final class SHA256Tests: XCTestCase {
    private func hex(_ text: String) -> String {
        SHA256.hexDigest(Array(text.utf8))
    }

    func testHashesTheEmptyMessage() {
        XCTAssertEqual(hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    func testHashesAbc() {
        XCTAssertEqual(hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    func testHashesThe448BitMessage() {
        XCTAssertEqual(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    func testHashesOneMillionAs() {
        XCTAssertEqual(SHA256.hexDigest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Precomputed with the shell (`sha256sum`; `openssl dgst -sha256` agrees):
    /// `printf "$(for i in $(seq 0 999); do printf '\\%03o' $((i%256)); done)" | sha256sum`
    func testMatchesSha256sumForAThousandBytesSpanningBlockBoundaries() {
        let bytes = (0..<1000).map { UInt8($0 % 256) }
        XCTAssertEqual(SHA256.hexDigest(bytes), "a8af099bf2e878609558dbf69d8f88f4a31040a8cf84b549a0cfa912f12ffc3f")
    }

    func testHandlesEveryPaddingLengthAroundABlock() {
        // 55, 56 and 64 bytes are where the padding needs one or two blocks.
        XCTAssertEqual(SHA256.hexDigest([UInt8](repeating: 0x61, count: 55)),
                       "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        XCTAssertEqual(SHA256.hexDigest([UInt8](repeating: 0x61, count: 56)),
                       "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
        XCTAssertEqual(SHA256.hexDigest([UInt8](repeating: 0x61, count: 64)),
                       "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
    }

    func testDigestIs32BytesAndHexIsItsLowercaseEncoding() {
        let digest = SHA256.digest(Array("abc".utf8))
        XCTAssertEqual(digest.count, 32)
        XCTAssertEqual(Hex.lowercase(digest), hex("abc"))
        XCTAssertEqual(Hex.lowercase([0x00, 0x0F, 0xA0, 0xFF]), "000fa0ff")
    }

    func testAcceptsAnyCollectionOfBytes() {
        XCTAssertEqual(SHA256.hexDigest("abc".utf8), hex("abc"))
        XCTAssertEqual(SHA256.hexDigest(Array("xabcx".utf8)[1..<4]), hex("abc"))
    }

    // MARK: apns-id

    private static let uuidPattern = "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"

    private func assertLooksLikeAVersion4UUID(_ id: String, file: StaticString = #filePath, line: UInt = #line) {
        let regex: Regex<AnyRegexOutput>
        do {
            regex = try Regex(Self.uuidPattern)
        } catch {
            return XCTFail("bad pattern: \(error)", file: file, line: line)
        }
        XCTAssertNotNil(id.wholeMatch(of: regex), "\(id) is not a lowercase version-4 UUID", file: file, line: line)
    }

    func testDerivedAPNsIDsAreLowercaseVersion4UUIDs() {
        for index in 0..<200 {
            let token = SHA256.hexDigest(Array("token \(index)".utf8))
            assertLooksLikeAVersion4UUID(APNsID.derive(eventID: "37791233165968:\(index)", token: token))
        }
        assertLooksLikeAVersion4UUID(APNsID.derive(eventID: "", token: ""))
        assertLooksLikeAVersion4UUID(APNsID.derive(eventID: "🎧 Zalo", token: EventFixture.apnsToken))
    }

    func testDerivedAPNsIDsAreDeterministic() {
        let first = APNsID.derive(eventID: "37791233165968:537", token: EventFixture.apnsToken)
        XCTAssertEqual(first, APNsID.derive(eventID: "37791233165968:537", token: EventFixture.apnsToken))
    }

    func testDerivedAPNsIDsDifferPerTokenAndPerEvent() {
        let tokens = (0..<100).map { SHA256.hexDigest(Array("device \($0)".utf8)) }
        let ids = Set(tokens.map { APNsID.derive(eventID: "c:1", token: $0) })
        XCTAssertEqual(ids.count, tokens.count)
        XCTAssertNotEqual(APNsID.derive(eventID: "c:1", token: tokens[0]), APNsID.derive(eventID: "c:2", token: tokens[0]))
        // The separator keeps the event id and the token apart.
        XCTAssertNotEqual(APNsID.derive(eventID: "ab", token: "cd"), APNsID.derive(eventID: "abc", token: "d"))
    }

    /// The id as the rule states it (first 8 digest bytes, FNV-1a of the
    /// token, version and variant bits, 8-4-4-4-12 lowercase hex), written
    /// nibble by nibble: `APNsID` writes the groups its own way.
    private func referenceID(eventID: String, token: String) -> String {
        let digest = SHA256.digest(Array(eventID.utf8))
        var eventHalf: UInt64 = 0
        for byte in digest.prefix(8) { eventHalf = eventHalf << 8 | UInt64(byte) }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in token.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let words = [eventHalf & 0xFFFF_FFFF_FFFF_0FFF | 0x4000, hash & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000]
        var text = ""
        for nibbleIndex in 0..<32 {
            if [8, 12, 16, 20].contains(nibbleIndex) { text += "-" }
            let nibble = words[nibbleIndex / 16] >> UInt64(60 - (nibbleIndex % 16) * 4) & 0xF
            text += String(nibble, radix: 16)
        }
        return text
    }

    func testDerivedAPNsIDsMatchTheRuleDigitByDigit() {
        var tokens = [EventFixture.apnsToken, "", "ab", String(repeating: "f", count: 200)]
        tokens += (0..<300).map { SHA256.hexDigest(Array("device \($0)".utf8)) }
        for (index, token) in tokens.enumerated() {
            let eventID = index % 3 == 0 ? "37791233165968:\(index)" : index % 3 == 1 ? "🎧 \(index)" : String(repeating: "e", count: index)
            XCTAssertEqual(APNsID.derive(eventID: eventID, token: token), referenceID(eventID: eventID, token: token))
        }
    }
}
