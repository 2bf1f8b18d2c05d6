import OpenSSLCrypto
import TestSupport
import WebPush
import XCTest

/// The independent check: what our code encrypts, `http_ece` decrypts to
/// the same plaintext; what `http_ece` encrypts, ours decrypts; the VAPID
/// JWT's signature verifies with `py_vapid` and its claims are RFC 8292's;
/// `py_vapid` derives the same public key from our private key.
final class WebPushInteropTests: XCTestCase {
    struct Subscription {
        let key: P256KeyAgreementKey
        let keys: WebPushSubscriptionKeys

        init() throws {
            key = try P256KeyAgreementKey.generate()
            keys = try WebPushSubscriptionKeys(p256dh: key.publicKey, auth: SecureRandom.bytes(16))
        }
    }

    static let plaintexts: [[UInt8]] = [
        Array(#"{"title":"Ada Lovelace","body":"Dinner at 8? 🍝","ps_thread_id":"c-42","ps_message_id":"m-7"}"#.utf8),
        [0x41],
        Array((0..<WebPushEncryption.maximumPlaintextLength).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }),
    ]

    func testHTTPECEDecryptsWhatWeEncrypt() throws {
        let subscription = try Subscription()
        for plaintext in Self.plaintexts + [[]] {
            let body = try WebPushEncryption.encrypt(plaintext, for: subscription.keys)
            let answer = try InteropScript.run("decrypt", [
                "body": Base64URL.encode(body), "private_key": Base64URL.encode(subscription.key.rawPrivateKey()),
                "auth": Base64URL.encode(subscription.keys.auth),
            ])
            XCTAssertEqual(answer.status, 0, answer.errors)
            XCTAssertEqual((answer.fields["plaintext"] as? String).flatMap { Base64URL.decode($0) }, plaintext, "\(plaintext.count) bytes")
        }
    }

    func testHTTPECERefusesAnAlteredBodyOrAnotherSubscription() throws {
        let subscription = try Subscription()
        var body = try WebPushEncryption.encrypt(Self.plaintexts[0], for: subscription.keys)
        body[body.count - 20] ^= 0x01
        let altered = try InteropScript.run("decrypt", [
            "body": Base64URL.encode(body), "private_key": Base64URL.encode(subscription.key.rawPrivateKey()),
            "auth": Base64URL.encode(subscription.keys.auth),
        ])
        XCTAssertEqual(altered.status, 1, "the check can fail: \(altered.fields)")
        let other = try Subscription()
        let intact = try WebPushEncryption.encrypt(Self.plaintexts[0], for: subscription.keys)
        let wrongKey = try InteropScript.run("decrypt", [
            "body": Base64URL.encode(intact), "private_key": Base64URL.encode(other.key.rawPrivateKey()),
            "auth": Base64URL.encode(subscription.keys.auth),
        ])
        XCTAssertEqual(wrongKey.status, 1, "\(wrongKey.fields)")
    }

    func testWeDecryptWhatHTTPECEEncrypts() throws {
        let subscription = try Subscription()
        for plaintext in Self.plaintexts {
            let answer = try InteropScript.run("encrypt", [
                "plaintext": Base64URL.encode(plaintext), "p256dh": Base64URL.encode(subscription.keys.p256dh),
                "auth": Base64URL.encode(subscription.keys.auth),
            ])
            XCTAssertEqual(answer.status, 0, answer.errors)
            let body = try XCTUnwrap((answer.fields["body"] as? String).flatMap { Base64URL.decode($0) }, answer.errors)
            XCTAssertEqual(try WebPushEncryption.decrypt(body, subscriberKey: subscription.key, authSecret: subscription.keys.auth),
                           plaintext, "\(plaintext.count) bytes")
        }
    }

    func testPyVAPIDVerifiesTheJWTAndItsClaims() throws {
        let clock = TestClock(epochSeconds: 1_767_225_600)
        let key = try VAPIDKey.generate()
        let authorizer = try VAPIDAuthorizer(key: key, subject: "mailto:push-ops@example.com") { clock.epochSeconds }
        for (endpoint, audience) in [("https://fcm.googleapis.com/fcm/send/abc", "https://fcm.googleapis.com"),
                                     ("https://web.push.apple.com:443/QGd3", "https://web.push.apple.com"),
                                     ("https://127.0.0.1:8443/push/1", "https://127.0.0.1:8443")] {
            let authorization = try authorizer.authorization(forEndpoint: endpoint)
            let answer = try InteropScript.run("verify-vapid", [
                "authorization": authorization, "audience": audience, "subject": "mailto:push-ops@example.com",
                "now": clock.epochSeconds,
            ])
            XCTAssertEqual(answer.status, 0, answer.errors)
            XCTAssertEqual((answer.fields["claims"] as? [String: Any])?["exp"] as? Int, Int(clock.epochSeconds) + 12 * 3600)
        }
    }

    func testPyVAPIDRefusesAJWTSignedByAnotherKey() throws {
        let clock = TestClock(epochSeconds: 1_767_225_600)
        let signer = try VAPIDAuthorizer(key: VAPIDKey.generate(), subject: "mailto:a@example.com") { clock.epochSeconds }
        let authorization = try signer.authorization(forEndpoint: "https://fcm.googleapis.com/x")
        let otherKey = try VAPIDKey.generate().publicKeyBase64URL
        let swapped = String(authorization.prefix { $0 != "," }) + ", k=" + otherKey
        let answer = try InteropScript.run("verify-vapid", [
            "authorization": swapped, "audience": "https://fcm.googleapis.com", "subject": "mailto:a@example.com",
            "now": clock.epochSeconds,
        ])
        XCTAssertEqual(answer.status, 1, "the check can fail: \(answer.fields)")
        let wrongAudience = try InteropScript.run("verify-vapid", [
            "authorization": authorization, "audience": "https://updates.push.services.mozilla.com", "subject": "mailto:a@example.com",
            "now": clock.epochSeconds,
        ])
        XCTAssertEqual(wrongAudience.status, 1)
        XCTAssertTrue(wrongAudience.errors.contains("aud"), wrongAudience.errors)
    }

    func testPyVAPIDDerivesOurPublicKeyFromBothPrivateForms() throws {
        let key = try VAPIDKey.generate()
        for request: [String: Any] in [["private_key": try key.privateKeyBase64URL()], ["private_key_pem": key.privateKeyPEM]] {
            let answer = try InteropScript.run("vapid-public", request)
            XCTAssertEqual(answer.status, 0, answer.errors)
            XCTAssertEqual(answer.fields["public_key"] as? String, key.publicKeyBase64URL)
        }
    }
}
