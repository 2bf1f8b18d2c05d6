import APNsHTTP2
@testable import HTTP2Client
@testable import APNsSimulator
@testable import OpenSSLCrypto
import XCTest

/// The simulator's pure pieces, without sockets: base64url, JSON, apns-id,
/// the ES256 verifier (against the independent test signer) and the
/// provider-token rules with a hand-set clock.
final class APNsSimulatorValidationTests: XCTestCase {
    func testBase64URLDecodesCanonicalTextOnly() {
        XCTAssertEqual(Base64URL.decode("aGk"), Array("hi".utf8))
        XCTAssertEqual(Base64URL.decode("-_8"), [0xFB, 0xFF])
        XCTAssertEqual(Base64URL.decode(""), [])
        XCTAssertNil(Base64URL.decode("aGk="), "padding")
        XCTAssertNil(Base64URL.decode("+/8"), "standard alphabet")
        XCTAssertNil(Base64URL.decode("aGl"), "non-zero leftover bits")
        XCTAssertNil(Base64URL.decode("a"), "impossible length")
    }

    func testJSONParserIsStrict() {
        XCTAssertEqual(SimulatorJSONParser.parse(Array(#" {"a":[1,-2.5e3,true,null,"\u00e9\ud83d\ude00"]} "#.utf8)),
                       .object(["a": .array([.number("1"), .number("-2.5e3"), .bool(true), .null, .string("é😀")])]))
        for bad in [#"{"a":1,}"#, #"[01]"#, #"{"a":1} x"#, "{\"a\":\"\u{01}\"}", #"{'a':1}"#, #"{"a":"\ud800"}"#, "", "[" + String(repeating: "[", count: 70) + "]"] {
            XCTAssertNil(SimulatorJSONParser.parse(Array(bad.utf8)), bad)
        }
        XCTAssertNil(SimulatorJSONParser.parse([0x22, 0xC3, 0x28, 0x22]), "invalid UTF-8")
        XCTAssertEqual(SimulatorJSONParser.parse(Array(#"{"iat":1700000000}"#.utf8))?["iat"]?.integerValue, 1_700_000_000)
        XCTAssertNil(SimulatorJSONParser.parse(Array(#"{"iat":1.5}"#.utf8))?["iat"]?.integerValue)
    }

    func testApnsIdentifiersAreLowercaseUUIDs() {
        XCTAssertTrue(APNsIdentifier.isValid("6f1c2a4e-0b3d-4e5f-8a9b-0c1d2e3f4a5b"))
        XCTAssertFalse(APNsIdentifier.isValid("6F1C2A4E-0B3D-4E5F-8A9B-0C1D2E3F4A5B"))
        XCTAssertFalse(APNsIdentifier.isValid("6f1c2a4e0b3d4e5f8a9b0c1d2e3f4a5b"))
        for _ in 0..<100 { XCTAssertTrue(APNsIdentifier.isValid(APNsIdentifier.generate())) }
    }

    func testES256VerifierAcceptsRawSignaturesFromAnIndependentSigner() throws {
        let key = try SimTestKey()
        let publicKey = try OwnedKey.publicKey(pem: key.publicKeyPEM)
        XCTAssertTrue(publicKey.isP256)
        // Enough signatures that some R or S has leading zero bytes.
        for index in 0..<300 {
            let message = Array("message \(index)".utf8)
            var signature = key.sign(message)
            XCTAssertTrue(ES256Verifier.verify(signature: signature, message: message, key: publicKey), "\(index)")
            signature[40] ^= 0x01
            XCTAssertFalse(ES256Verifier.verify(signature: signature, message: message, key: publicKey))
        }
        XCTAssertFalse(ES256Verifier.verify(signature: [UInt8](repeating: 0, count: 64), message: [1], key: publicKey))
        XCTAssertFalse(ES256Verifier.verify(signature: [1, 2, 3], message: [1], key: publicKey))
    }

    func testProviderTokenRulesFollowTheClock() throws {
        let key = try SimTestKey()
        let configuration = APNsSimulatorConfiguration(teamID: "TEAM123456", keys: ["KEY1234567": key.publicKeyPEM], topics: ["t"])
        var verifier = ProviderTokenVerifier(configuration: configuration)
        let start = 1_700_000_000
        func bearer(_ issuedAt: Int) -> String { "bearer " + key.jwt(keyID: "KEY1234567", teamID: "TEAM123456", issuedAt: issuedAt) }

        XCTAssertEqual(verifier.check(authorization: nil, now: Double(start))?.reason, "MissingProviderToken")
        XCTAssertEqual(verifier.check(authorization: "basic abc", now: Double(start))?.reason, "InvalidProviderToken")
        XCTAssertFalse(verifier.hasCurrentToken)
        let first = bearer(start)
        XCTAssertNil(verifier.check(authorization: first, now: Double(start)))
        XCTAssertTrue(verifier.hasCurrentToken)
        XCTAssertNil(verifier.check(authorization: bearer(start), now: Double(start + 10)), "same claims, new signature")
        XCTAssertEqual(verifier.check(authorization: bearer(start + 60), now: Double(start + 60))?.reason, "TooManyProviderTokenUpdates")
        XCTAssertNil(verifier.check(authorization: first, now: Double(start + 3600)), "exactly one hour old is still valid")
        XCTAssertEqual(verifier.check(authorization: first, now: Double(start + 3601))?.reason, "ExpiredProviderToken")
        XCTAssertNil(verifier.check(authorization: bearer(start + 3601), now: Double(start + 3601)))

        let other = try SimTestKey()
        let twoKeys = APNsSimulatorConfiguration(
            teamID: "TEAM123456", keys: ["KEY1234567": key.publicKeyPEM, "KEY7654321": other.publicKeyPEM], topics: ["t"])
        var bound = ProviderTokenVerifier(configuration: twoKeys)
        XCTAssertNil(bound.check(authorization: bearer(start), now: Double(start)))
        let otherToken = "bearer " + other.jwt(keyID: "KEY7654321", teamID: "TEAM123456", issuedAt: start + 1300)
        XCTAssertEqual(bound.check(authorization: otherToken, now: Double(start + 1300))?.reason, "UnrelatedKeyIdInToken")
    }

    /// `kid`, topics and reserved data keys are compared as UTF-8 bytes:
    /// canonically equivalent text (U+212A KELVIN SIGN for `K`, a combining
    /// accent after `gcm`) is a different identifier, as at Apple and Google.
    func testProtocolIdentifiersAreComparedAsBytes() throws {
        let key = try SimTestKey()
        let configuration = APNsSimulatorConfiguration(teamID: "TEAM123456", keys: ["KEY1234567": key.publicKeyPEM],
                                                       topics: ["com.example.K"])
        var verifier = ProviderTokenVerifier(configuration: configuration, keyring: ProviderKeyring(pems: configuration.keys))
        let kelvin = "bearer " + key.jwt(keyID: "\u{212A}EY1234567", teamID: "TEAM123456", issuedAt: 1_700_000_000)
        XCTAssertEqual(verifier.check(authorization: kelvin, now: 1_700_000_000)?.reason, "InvalidProviderToken")
        var unparsed = ProviderTokenVerifier(configuration: configuration)
        XCTAssertEqual(unparsed.check(authorization: kelvin, now: 1_700_000_000)?.reason, "InvalidProviderToken")
        let good = "bearer " + key.jwt(keyID: "KEY1234567", teamID: "TEAM123456", issuedAt: 1_700_000_000)
        XCTAssertNil(verifier.check(authorization: good, now: 1_700_000_000))

        let validator = RequestValidator(configuration: configuration)
        for (topic, expected) in [("com.example.K", "200"), ("com.example.\u{212A}", "400 BadTopic"),
                                  ("com.example.\u{212A}.voip", "400 BadTopic")] {
            var request = ReceivedRequest()
            request.headers = [(":method", "POST"), (":path", "/3/device/" + String(repeating: "ab", count: 32)),
                               ("authorization", good), ("apns-topic", topic)]
            request.body = Array(#"{"aps":{}}"#.utf8)
            request.bodyLength = request.body.count
            var tokens = ProviderTokenVerifier(configuration: configuration)
            let verdict = validator.validate(request, tokens: &tokens, registeredTopic: { _ in nil }, now: 1_700_000_000)
            switch verdict {
            case .valid: XCTAssertEqual("200", expected, topic)
            case .rejected(let response, _): XCTAssertEqual("\(response.status) \(response.reason ?? "")", expected, topic)
            }
        }

        XCTAssertTrue(FCMMessageValidator.isReserved("gcm\u{301}x"))
        XCTAssertTrue(FCMMessageValidator.isReserved("GOOGLE.x"))
        XCTAssertFalse(FCMMessageValidator.isReserved("gc"))
        let body = #"{"message":{"token":"abc","data":{"gcm\#u{301}x":"v"}}}"#
        XCTAssertEqual(FCMSendCheck.refusal(body)?.message, "Invalid data payload key: gcm\u{301}x")
    }

    func testResponseBodiesAreWrittenAsAppleWritesThem() {
        XCTAssertEqual(APNsSimulatorResponse.success.body, [])
        XCTAssertEqual(String(decoding: APNsSimulatorResponse.badDeviceToken.body, as: UTF8.self), #"{"reason":"BadDeviceToken"}"#)
        XCTAssertEqual(String(decoding: APNsSimulatorResponse.unregistered(timestampMilliseconds: 42).body, as: UTF8.self),
                       #"{"reason":"Unregistered","timestamp":42}"#)
        XCTAssertEqual(String(decoding: APNsSimulatorResponse(status: 400, reason: "A\"b").body, as: UTF8.self), #"{"reason":"A\"b"}"#)
    }

    /// Real public keys of the wrong kind are refused, not only garbage
    /// (throwaway keys, made for this test with openssl; never used to sign).
    func testSimulatorRefusesKeysThatAreNotP256() throws {
        let p384 = """
            -----BEGIN PUBLIC KEY-----
            MHYwEAYHKoZIzj0CAQYFK4EEACIDYgAEBEA0UlXjn80+ziTagRZRZoApXvOxxjWD
            mEVBxBijq1nlUFtBOa5BN8GnNTFK8zwKtCa/Mc0l9rWM5b1aG9w8yTHVfgWdoBdc
            ZsrFg2I7hbQPAoOFnvcngGYWmxCo/Ion
            -----END PUBLIC KEY-----
            """
        let rsa = """
            -----BEGIN PUBLIC KEY-----
            MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQD5L1OkveRtNseeSPNrMasDbKMR
            pCGpXWYakKu3XRgOn/FVu1tXq0W3GyVXKXdpbKFs6xqCycB8ykyKKIvbPvRoJ4gm
            kJmYBzCjTstRuRxWocV6CIclJdgvTlRnayJigWraSrHHy9Cuk4fOW6Brz4WrIXYA
            KKEkPcoxZonYKWQeUwIDAQAB
            -----END PUBLIC KEY-----
            """
        for key in ["not a key", p384, rsa] {
            XCTAssertThrowsError(try APNsSimulator(configuration: APNsSimulatorConfiguration(
                teamID: "TEAM123456", keys: ["K": key], topics: ["t"])), String(key.prefix(40)))
        }
        let p256 = try ES256SigningKey.generate().publicKeyPEM
        XCTAssertNoThrow(try APNsSimulator(configuration: APNsSimulatorConfiguration(
            teamID: "TEAM123456", keys: ["K": p256], topics: ["t"])), "a P-256 key is taken")
    }
}
