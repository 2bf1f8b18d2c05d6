import OpenSSLCrypto
import WebPush
import XCTest

/// VAPID keys from configuration: PEM or the base64url raw private key,
/// the public key derived, and clear refusals.
final class VAPIDKeyTests: XCTestCase {
    func testTheRawFormDerivesThePublicKey() throws {
        let key = try VAPIDKey(configurationValue: "  yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw\n")
        XCTAssertEqual(key.publicKeyBase64URL, "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")
        XCTAssertEqual(try key.privateKeyBase64URL(), "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")
    }

    func testPEMAndRawFormsOfOneKeyAreTheSameKey() throws {
        let generated = try VAPIDKey.generate()
        let fromPEM = try VAPIDKey(configurationValue: generated.privateKeyPEM)
        let fromRaw = try VAPIDKey(configurationValue: generated.privateKeyBase64URL())
        XCTAssertEqual(fromPEM.publicKey, generated.publicKey)
        XCTAssertEqual(fromRaw.publicKey, generated.publicKey)
        XCTAssertTrue(generated.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        XCTAssertEqual(generated.publicKeyBase64URL.count, 87)
        XCTAssertEqual(try generated.privateKeyBase64URL().count, 43)
        // A SEC 1 "EC PRIVATE KEY" PEM, as `openssl ecparam -genkey` writes,
        // is read too: RFC 8291's application server key in that form.
        let sec1 = """
            -----BEGIN EC PRIVATE KEY-----
            MHcCAQEEIMn1j4mBPp+Ohy5x9CqmThdXySVNzGK3LdwBC7QEPqEcoAoGCCqGSM49
            AwEHoUQDQgAE/jP0qw3qcZFNtVgj9ztUlI9BMG2SBzLbuaWaUyhkgiAOWXp7e8Jg
            uhwieZhYCZLpOXMALzASooro8Gu7eOXsDw==
            -----END EC PRIVATE KEY-----
            """
        XCTAssertEqual(try VAPIDKey(configurationValue: sec1).publicKeyBase64URL,
                       "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")
    }

    func testUnusableValuesAreRefusedWithTheirReason() throws {
        XCTAssertThrowsError(try VAPIDKey(configurationValue: " \n")) { XCTAssertEqual($0 as? VAPIDKeyError, .empty) }
        XCTAssertThrowsError(try VAPIDKey(configurationValue: "not a key!")) { XCTAssertEqual($0 as? VAPIDKeyError, .notBase64URL) }
        let publicKey = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
        XCTAssertThrowsError(try VAPIDKey(configurationValue: publicKey)) {
            XCTAssertEqual($0 as? VAPIDKeyError, .wrongRawLength(65))
            XCTAssertTrue("\($0)".contains("public key"), "\($0)")
        }
        XCTAssertThrowsError(try VAPIDKey(configurationValue: String(repeating: "A", count: 43))) {
            guard case .invalidKey? = $0 as? VAPIDKeyError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try VAPIDKey(configurationValue: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")) {
            guard case .invalidKey? = $0 as? VAPIDKeyError else { return XCTFail("\($0)") }
        }
    }
}
