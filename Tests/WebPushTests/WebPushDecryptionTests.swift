import OpenSSLCrypto
@testable import WebPush
import XCTest

/// The receiving side's strictness: a body that is not RFC 8291's single
/// `aes128gcm` record for this subscription is refused with its reason.
final class WebPushDecryptionTests: XCTestCase {
    let agent = try! P256KeyAgreementKey.generate()
    let auth = try! SecureRandom.bytes(16)

    func subscription() throws -> WebPushSubscriptionKeys {
        try WebPushSubscriptionKeys(p256dh: agent.publicKey, auth: auth)
    }

    func decrypt(_ body: [UInt8]) throws -> [UInt8] {
        try WebPushEncryption.decrypt(body, subscriberKey: agent, authSecret: auth)
    }

    func testAnAlteredBodyOrAnotherSubscriptionDoesNotDecrypt() throws {
        let body = try WebPushEncryption.encrypt(Array("secret".utf8), for: subscription())
        for index in [0, 15, WebPushEncryption.headerLength, body.count - 1] {
            var altered = body
            altered[index] ^= 0x01
            XCTAssertThrowsError(try decrypt(altered), "byte \(index)") { XCTAssertEqual($0 as? WebPushError, .decryptionFailed) }
        }
        XCTAssertThrowsError(try WebPushEncryption.decrypt(body, subscriberKey: P256KeyAgreementKey.generate(), authSecret: auth)) {
            XCTAssertEqual($0 as? WebPushError, .decryptionFailed)
        }
        var otherAuth = auth
        otherAuth[0] ^= 1
        XCTAssertThrowsError(try WebPushEncryption.decrypt(body, subscriberKey: agent, authSecret: otherAuth)) {
            XCTAssertEqual($0 as? WebPushError, .decryptionFailed)
        }
    }

    func testMalformedHeadersAreRefusedWithTheirReason() throws {
        let body = try WebPushEncryption.encrypt(Array("hi".utf8), for: subscription())
        var shortKeyID = body
        shortKeyID[20] = 64
        var smallRecords = body
        smallRecords.replaceSubrange(16..<20, with: [0, 0, 0, 17])
        var oneRecordTooMany = body
        oneRecordTooMany.replaceSubrange(16..<20, with: [0, 0, 0, 18])  // the 19-byte record is longer than rs
        var offCurveKeyID = body
        offCurveKeyID[85] ^= 0x01
        let cases: [(String, [UInt8], String)] = [
            ("too short", Array(body.prefix(20)), "shorter than the aes128gcm header"),
            ("key id", shortKeyID, "65-byte public key"),
            ("record size", smallRecords, "below the minimum of 18"),
            ("records", oneRecordTooMany, "more than one record"),
            ("cut header", Array(body.prefix(50)), "cut short"),
            ("no record", Array(body.prefix(WebPushEncryption.headerLength + 16)), "too few for a tag"),
            ("sender key", offCurveKeyID, "the key id:"),
        ]
        for (name, malformed, expected) in cases {
            XCTAssertThrowsError(try decrypt(malformed), name) {
                guard case let .malformedBody(reason)? = $0 as? WebPushError else { return XCTFail("\(name): \($0)") }
                XCTAssertTrue(reason.contains(expected), "\(name): \(reason)")
            }
        }
    }

    /// A record sealed with the right keys but the wrong delimiter: only
    /// the delimiter check can refuse it.
    func testARecordThatIsNotMarkedLastIsRefused() throws {
        let sender = try P256KeyAgreementKey.generate()
        let salt = try SecureRandom.bytes(16)
        let keys = try ContentKeys(ecdhSecret: sender.sharedSecret(with: agent.publicKey), auth: auth, userAgentPublicKey: agent.publicKey,
                                   applicationServerPublicKey: sender.publicKey, salt: salt)
        let header = salt + [0, 0, 0x10, 0, 65] + sender.publicKey
        let cases: [([UInt8], String)] = [
            (Array("hi".utf8) + [0x01], "not the last"),
            (Array("hi".utf8) + [0x03, 0, 0], "not 0x02"),
            ([0, 0, 0], "no padding delimiter"),
        ]
        for (record, expected) in cases {
            let body = header + (try AES128GCM.seal(record, key: keys.contentKey, nonce: keys.nonce))
            XCTAssertThrowsError(try decrypt(body)) {
                guard case let .malformedBody(reason)? = $0 as? WebPushError else { return XCTFail("\($0)") }
                XCTAssertTrue(reason.contains(expected), reason)
            }
        }
        let padded = header + (try AES128GCM.seal(Array("hi".utf8) + [0x02, 0, 0, 0], key: keys.contentKey, nonce: keys.nonce))
        XCTAssertEqual(try decrypt(padded), Array("hi".utf8), "zero padding after the delimiter is read past")
    }
}
