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

    func testTheURLSafeAlphabetIsReadAndPaddingOnlyWhenAllowed() {
        XCTAssertEqual(Base64URL.decode("-_8"), [0xfb, 0xff])
        XCTAssertEqual(Base64URL.decode(""), [])
        XCTAssertNil(Base64URL.decode("-_8="))
        XCTAssertEqual(Base64URL.decode("-_8=", allowingPadding: true), [0xfb, 0xff])
        XCTAssertEqual(Base64URL.decode("AA==", allowingPadding: true), [0])
        XCTAssertNil(Base64URL.decode("AA===", allowingPadding: true))
    }

    func testWhatNoEncoderWritesIsRefused() {
        for text in ["+/8", "A", "AAAAA", "A B", "AB", "ä"] {
            XCTAssertNil(Base64URL.decode(text), text)
            XCTAssertNil(Base64URL.decode(text, allowingPadding: true), text)
        }
    }
}
