import OpenSSLCrypto
import TestSupport
import XCTest

/// HKDF-SHA256 against RFC 5869's test vectors (Appendix A, cases 1 and 3).
final class HKDFSHA256Tests: XCTestCase {
    func testCase1ExtractsAndExpandsToTheRFCsBytes() throws {
        let ikm = [UInt8](repeating: 0x0b, count: 22)
        let salt = Hex.bytes("000102030405060708090a0b0c")
        let info = Hex.bytes("f0f1f2f3f4f5f6f7f8f9")
        let prk = try HKDFSHA256.extract(salt: salt, inputKeyingMaterial: ikm)
        XCTAssertEqual(Hex.string(prk), "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5")
        let okm = try HKDFSHA256.expand(pseudorandomKey: prk, info: info, length: 42)
        XCTAssertEqual(Hex.string(okm), "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    func testCase3WithAnEmptySaltAndInfo() throws {
        let okm = try HKDFSHA256.deriveKey(inputKeyingMaterial: [UInt8](repeating: 0x0b, count: 22), salt: [], info: [], length: 42)
        XCTAssertEqual(Hex.string(okm), "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }

    func testShorterOutputsArePrefixesOfLongerOnes() throws {
        let prk = try HKDFSHA256.extract(salt: [1, 2, 3], inputKeyingMaterial: [4, 5, 6])
        let long = try HKDFSHA256.expand(pseudorandomKey: prk, info: [7], length: 100)
        XCTAssertEqual(try HKDFSHA256.expand(pseudorandomKey: prk, info: [7], length: 16), Array(long.prefix(16)))
        XCTAssertEqual(long.count, 100)
    }

    func testOutputLengthsOutsideTheRangeAreRefused() throws {
        let prk = [UInt8](repeating: 1, count: 32)
        for length in [0, -1, HKDFSHA256.maximumOutputLength + 1] {
            XCTAssertThrowsError(try HKDFSHA256.expand(pseudorandomKey: prk, info: [], length: length)) {
                guard case .invalidArgument? = $0 as? CryptoError else { return XCTFail("\($0)") }
            }
        }
        XCTAssertEqual(try HKDFSHA256.expand(pseudorandomKey: prk, info: [], length: HKDFSHA256.maximumOutputLength).count,
                       HKDFSHA256.maximumOutputLength)
        XCTAssertThrowsError(try HKDFSHA256.expand(pseudorandomKey: [1, 2], info: [], length: 16))
    }
}
