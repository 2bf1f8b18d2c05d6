import OpenSSLCrypto
import TestSupport
@testable import WebPush
import XCTest

/// RFC 8291 message encryption: Appendix A's example byte for byte, the
/// steps' intermediate values, fresh keys per message, the size limit.
final class WebPushEncryptionTests: XCTestCase {
    /// RFC 8291 Appendix A, in base64url as the RFC gives it.
    enum Example {
        static let plaintext = "When I grow up, I want to be a watermelon"
        static let serverPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
        static let serverPublic = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
        static let agentPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
        static let agentPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
        static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
        static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
        static let inputKeyingMaterial = "S4lYMb_L0FxCeq0WhDx813KgSYqU26kOyzWUdsXYyrg"
        static let contentKey = "oIhVW04MRdy2XN9CiKLxTg"
        static let nonce = "4h_95klXJ5E_qnoN"
        static let body = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
    }

    static func bytes(_ base64URL: String) throws -> [UInt8] {
        try XCTUnwrap(Base64URL.decode(base64URL), base64URL)
    }

    static func exampleSubscription() throws -> WebPushSubscriptionKeys {
        try WebPushSubscriptionKeys(p256dh: Example.agentPublic, auth: Example.auth)
    }

    func testTheRFCExampleEncryptsByteForByte() throws {
        let body = try WebPushEncryption.encrypt(
            Array(Example.plaintext.utf8), for: Self.exampleSubscription(),
            senderKey: P256KeyAgreementKey(rawPrivateKey: Self.bytes(Example.serverPrivate)), salt: Self.bytes(Example.salt))
        XCTAssertEqual(Base64URL.encode(body), Example.body)
        XCTAssertEqual(body.count, Example.plaintext.utf8.count + WebPushEncryption.overhead)
    }

    func testTheKeyDerivationStepsGiveTheRFCsIntermediateValues() throws {
        let server = try P256KeyAgreementKey(rawPrivateKey: Self.bytes(Example.serverPrivate))
        let keys = try ContentKeys(ecdhSecret: server.sharedSecret(with: Self.bytes(Example.agentPublic)), auth: Self.bytes(Example.auth),
                                   userAgentPublicKey: Self.bytes(Example.agentPublic),
                                   applicationServerPublicKey: Self.bytes(Example.serverPublic), salt: Self.bytes(Example.salt))
        XCTAssertEqual(Base64URL.encode(keys.inputKeyingMaterial), Example.inputKeyingMaterial)
        XCTAssertEqual(Base64URL.encode(keys.contentKey), Example.contentKey)
        XCTAssertEqual(Base64URL.encode(keys.nonce), Example.nonce)
    }

    func testTheUserAgentSideDecryptsTheRFCExample() throws {
        let agent = try P256KeyAgreementKey(rawPrivateKey: Self.bytes(Example.agentPrivate))
        let plaintext = try WebPushEncryption.decrypt(Self.bytes(Example.body), subscriberKey: agent, authSecret: Self.bytes(Example.auth))
        XCTAssertEqual(String(decoding: plaintext, as: UTF8.self), Example.plaintext)
    }

    func testEachMessageHasAFreshSaltAndSenderKey() throws {
        let agent = try P256KeyAgreementKey.generate()
        let subscription = try WebPushSubscriptionKeys(p256dh: agent.publicKey, auth: SecureRandom.bytes(16))
        let message = Array(#"{"title":"Ada","body":"hello"}"#.utf8)
        let first = try WebPushEncryption.encrypt(message, for: subscription)
        let second = try WebPushEncryption.encrypt(message, for: subscription)
        XCTAssertNotEqual(Array(first.prefix(16)), Array(second.prefix(16)), "salt")
        XCTAssertNotEqual(Array(first[21..<86]), Array(second[21..<86]), "sender key")
        XCTAssertEqual(Array(first[16..<21]), [0, 0, 0x10, 0, 65], "record size 4096, key id of 65 bytes")
        for body in [first, second] {
            XCTAssertEqual(try WebPushEncryption.decrypt(body, subscriberKey: agent, authSecret: subscription.auth), message)
        }
    }

    func testThePlaintextLimitFillsA4096ByteBodyAndOneByteMoreIsRefused() throws {
        let agent = try P256KeyAgreementKey.generate()
        let subscription = try WebPushSubscriptionKeys(p256dh: agent.publicKey, auth: SecureRandom.bytes(16))
        XCTAssertEqual(WebPushEncryption.maximumPlaintextLength, 3993)
        let largest = [UInt8](repeating: 0x41, count: 3993)
        let body = try WebPushEncryption.encrypt(largest, for: subscription)
        XCTAssertEqual(body.count, 4096)
        XCTAssertEqual(try WebPushEncryption.decrypt(body, subscriberKey: agent, authSecret: subscription.auth), largest)
        XCTAssertThrowsError(try WebPushEncryption.encrypt(largest + [0x41], for: subscription)) {
            XCTAssertEqual($0 as? WebPushError, .payloadTooLarge(bytes: 3994, limit: 3993))
            XCTAssertTrue("\($0)".contains("3993"), "\($0)")
        }
        XCTAssertEqual(try WebPushEncryption.decrypt(WebPushEncryption.encrypt([], for: subscription), subscriberKey: agent,
                                                     authSecret: subscription.auth), [])
    }

    func testAnInjectedSaltMustBe16Bytes() throws {
        XCTAssertThrowsError(try WebPushEncryption.encrypt([1], for: Self.exampleSubscription(), senderKey: P256KeyAgreementKey.generate(),
                                                           salt: [UInt8](repeating: 0, count: 15))) {
            guard case .invalidEncryptionInput? = $0 as? WebPushError else { return XCTFail("\($0)") }
        }
    }

    func testSubscriptionKeysAreChecked() throws {
        XCTAssertThrowsError(try WebPushSubscriptionKeys(p256dh: Example.agentPublic, auth: "BTBZMqHH6r4Tts7J_aSI")) {
            XCTAssertEqual($0 as? WebPushError, .invalidSubscriptionKeys(reason: "auth is 15 bytes; it must be 16"))
        }
        var offCurve = try Self.bytes(Example.agentPublic)
        offCurve[40] ^= 0x10
        XCTAssertThrowsError(try WebPushSubscriptionKeys(p256dh: offCurve, auth: Self.bytes(Example.auth))) {
            guard case let .invalidSubscriptionKeys(reason)? = $0 as? WebPushError else { return XCTFail("\($0)") }
            XCTAssertTrue(reason.hasPrefix("p256dh:"), reason)
        }
        XCTAssertThrowsError(try WebPushSubscriptionKeys(p256dh: "not base64!", auth: Example.auth))
        let padded = try WebPushSubscriptionKeys(p256dh: Example.agentPublic + "=", auth: Example.auth + "==")
        XCTAssertEqual(padded, try Self.exampleSubscription())
    }
}
