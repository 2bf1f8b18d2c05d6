import OpenSSLCrypto
import TestSupport
import XCTest

/// AES-128-GCM against the GCM specification's test cases (McGrew and
/// Viega, test cases 1, 2 and 4), and its refusals.
final class AES128GCMTests: XCTestCase {
    func testAnEmptyPlaintextIsJustTheTag() throws {
        let sealed = try AES128GCM.seal([], key: [UInt8](repeating: 0, count: 16), nonce: [UInt8](repeating: 0, count: 12))
        XCTAssertEqual(Hex.string(sealed), "58e2fccefa7e3061367f1d57a4e7455a")
        XCTAssertEqual(try AES128GCM.open(sealed, key: [UInt8](repeating: 0, count: 16), nonce: [UInt8](repeating: 0, count: 12)), [])
    }

    func testOneZeroBlockUnderTheZeroKey() throws {
        let sealed = try AES128GCM.seal([UInt8](repeating: 0, count: 16), key: [UInt8](repeating: 0, count: 16),
                                        nonce: [UInt8](repeating: 0, count: 12))
        XCTAssertEqual(Hex.string(sealed), "0388dace60b6a392f328c2b971b2fe78" + "ab6e47d42cec13bdf53a67b21257bddf")
    }

    func testCase4WithAdditionalDataSealsAndOpens() throws {
        let key = Hex.bytes("feffe9928665731c6d6a8f9467308308")
        let nonce = Hex.bytes("cafebabefacedbaddecaf888")
        let aad = Hex.bytes("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let plaintext = Hex.bytes("""
            d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39
            """)
        let expected = """
            42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091\
            5bc94fbc3221a5db94fae95ae7121a47
            """
        let sealed = try AES128GCM.seal(plaintext, key: key, nonce: nonce, authenticating: aad)
        XCTAssertEqual(Hex.string(sealed), expected)
        XCTAssertEqual(try AES128GCM.open(sealed, key: key, nonce: nonce, authenticating: aad), plaintext)
        XCTAssertThrowsError(try AES128GCM.open(sealed, key: key, nonce: nonce)) {
            XCTAssertEqual($0 as? CryptoError, .authenticationFailed, "the additional data is authenticated too")
        }
    }

    func testAnyAlteredByteFailsAuthentication() throws {
        let key = try SecureRandom.bytes(16)
        let nonce = try SecureRandom.bytes(12)
        let sealed = try AES128GCM.seal(Array("a message".utf8), key: key, nonce: nonce)
        for index in sealed.indices {
            var altered = sealed
            altered[index] ^= 0x01
            XCTAssertThrowsError(try AES128GCM.open(altered, key: key, nonce: nonce), "byte \(index)") {
                XCTAssertEqual($0 as? CryptoError, .authenticationFailed)
            }
        }
        var otherKey = key
        otherKey[0] ^= 0x80
        XCTAssertThrowsError(try AES128GCM.open(sealed, key: otherKey, nonce: nonce))
    }

    func testWrongLengthsAreRefusedBeforeOpenSSLIsCalled() {
        XCTAssertThrowsError(try AES128GCM.seal([1], key: [UInt8](repeating: 0, count: 32), nonce: [UInt8](repeating: 0, count: 12)))
        XCTAssertThrowsError(try AES128GCM.seal([1], key: [UInt8](repeating: 0, count: 16), nonce: [UInt8](repeating: 0, count: 16)))
        XCTAssertThrowsError(try AES128GCM.open([1, 2, 3], key: [UInt8](repeating: 0, count: 16), nonce: [UInt8](repeating: 0, count: 12))) {
            guard case .invalidArgument? = $0 as? CryptoError else { return XCTFail("\($0)") }
        }
    }
}
