import OpenSSLCrypto
import XCTest

/// Base64url decoding (RFC 4648 §5): round trips, tolerated padding, and
/// what no encoder writes.
final class Base64URLTests: XCTestCase {
    func testEveryLengthRoundTrips() {
        var bytes: [UInt8] = []
        for length in 0..<70 {
            XCTAssertEqual(Base64URL.decode(Base64URL.encode(bytes)), bytes, "length \(length)")
            bytes.append(UInt8(truncatingIfNeeded: length &* 37 &+ 250))
        }
    }

    func testTheURLSafeAlphabetAndPaddingAreRead() {
        XCTAssertEqual(Base64URL.decode("-_8"), [0xfb, 0xff])
        XCTAssertEqual(Base64URL.decode("-_8="), [0xfb, 0xff])
        XCTAssertEqual(Base64URL.decode("AA=="), [0])
        XCTAssertEqual(Base64URL.decode(""), [])
    }

    func testWhatNoEncoderWritesIsRefused() {
        for text in ["+/8", "A", "AAAAA", "AA===", "A B=", "AB", "ä"] {
            XCTAssertNil(Base64URL.decode(text), text)
        }
    }
}
