@testable import APNsSimulator
import XCTest

/// The aes128gcm decoder on RFC 8291's example, byte by byte.
final class WebPushContentDecoderTests: XCTestCase {
    private func decrypt(_ body: [UInt8]) throws -> Result<[UInt8], WebPushContentDecoder.Failure> {
        let key = try P256Point.privateKey(scalar: webPushDecode(RFC8291Example.receiverPrivateKey))
        return WebPushContentDecoder.decrypt(body, receiverKey: key, receiverPoint: try P256Point.point(of: key),
                                             authSecret: webPushDecode(RFC8291Example.authSecret))
    }

    func testTheExampleDecryptsToItsPlaintext() throws {
        let opened = try decrypt(webPushDecode(RFC8291Example.message)).get()
        XCTAssertEqual(String(decoding: opened, as: UTF8.self), RFC8291Example.plaintext)
    }

    func testEveryAlteredByteOfTheExampleIsRefused() throws {
        let message = webPushDecode(RFC8291Example.message)
        // rs (bytes 16...19) may grow without changing the one record; every other byte counts.
        for index in message.indices where !(16...19).contains(index) {
            var altered = message
            altered[index] ^= 0x01
            if case .success = try decrypt(altered) { XCTFail("byte \(index) altered, still decrypted") }
        }
    }

    func testTheReceiverPointDerivedFromTheScalarIsTheAppendixOne() throws {
        let key = try P256Point.privateKey(scalar: webPushDecode(RFC8291Example.receiverPrivateKey))
        XCTAssertEqual(try P256Point.point(of: key), webPushDecode(RFC8291Example.receiverPublicKey))
    }

    func testHMACMatchesRFC4231TestCase2() {
        let mac = WebPushContentDecoder.hmac(key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8))
        XCTAssertEqual(mac.map { String(format: "%02x", $0) }.joined(),
                       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}
